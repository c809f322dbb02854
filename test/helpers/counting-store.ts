import { NodeFileStore } from '../../headless/fs-files';
import type { FileVersion } from '../../src/core/ports';

/** A file store that records which memory files are read (read and readVersioned). */
export class CountingStore extends NodeFileStore {
  readonly reads: string[] = [];
  override async read(rel: string, options: { stable?: boolean } = {}): Promise<Uint8Array | null> {
    if (rel.endsWith('.md')) this.reads.push(rel);
    return super.read(rel, options);
  }
  override async readVersioned(rel: string): Promise<{ bytes: Uint8Array; version: FileVersion | null } | null> {
    if (rel.endsWith('.md')) this.reads.push(rel);
    return super.readVersioned(rel);
  }
}

/** A CountingStore that records which memory files are written too. */
export class WritingStore extends CountingStore {
  readonly writes: string[] = [];
  override async write(rel: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<FileVersion> {
    if (rel.endsWith('.md')) this.writes.push(rel);
    return super.write(rel, data, options);
  }
}
