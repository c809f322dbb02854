import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { PathError, WriteConflictError } from '../src/core/errors';
import { safeRelativePath } from '../src/core/ids';
import type { FileStat, FileStore } from '../src/core/ports';

/**
 * The core's file port over a folder on disk. Every path is vault-relative and checked:
 * no `..`, no absolute paths, and no symlink that resolves outside the vault. Writes go to a
 * hidden temp file in the same folder and are renamed into place, so a reader (or a crash)
 * sees the old file or the new one, never half of one.
 */
export class NodeFileStore implements FileStore {
  private readonly root: string;
  private readonly realDirs = new Map<string, string>();

  constructor(root: string) {
    this.root = nodePath.resolve(root);
  }

  get rootPath(): string {
    return this.root;
  }

  /** Absolute path of a vault-relative path, refusing anything that leaves the vault. */
  async resolve(rel: string): Promise<string> {
    const clean = safeRelativePath(rel);
    const full = nodePath.join(this.root, ...clean.split('/'));
    await this.assertInside(nodePath.dirname(full), rel);
    return full;
  }

  private async assertInside(dir: string, rel: string): Promise<void> {
    const rootReal = await this.realDir(this.root);
    let probe = dir;
    // The deepest existing ancestor decides where the path really goes.
    for (;;) {
      try {
        const real = await this.realDir(probe);
        if (real !== rootReal && !real.startsWith(rootReal + nodePath.sep)) {
          throw new PathError(`invalid path ${JSON.stringify(rel)}: resolves outside the vault`);
        }
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || probe === this.root) throw error;
        probe = nodePath.dirname(probe);
      }
    }
  }

  private async realDir(dir: string): Promise<string> {
    const cached = this.realDirs.get(dir);
    if (cached) return cached;
    const real = await fs.realpath(dir);
    this.realDirs.set(dir, real);
    return real;
  }

  private async realFile(full: string, rel: string): Promise<string | null> {
    try {
      const real = await fs.realpath(full);
      const rootReal = await this.realDir(this.root);
      if (!real.startsWith(rootReal + nodePath.sep)) throw new PathError(`invalid path ${JSON.stringify(rel)}: resolves outside the vault`);
      return real;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async read(rel: string): Promise<Uint8Array | null> {
    const real = await this.realFile(await this.resolve(rel), rel);
    if (!real) return null;
    try {
      return await fs.readFile(real);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'EISDIR') throw new PathError(`${rel}: is a folder, not a file`);
      throw error;
    }
  }

  async stat(rel: string): Promise<FileStat | null> {
    try {
      const s = await fs.stat(await this.resolve(rel));
      return { size: s.size, mtimeMs: s.mtimeMs };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async list(rel: string): Promise<string[]> {
    try {
      const entries = await fs.readdir(await this.resolve(`${rel}/.`), { withFileTypes: true });
      return entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async mkdir(rel: string): Promise<void> {
    await fs.mkdir(await this.resolve(rel), { recursive: true });
  }

  async write(rel: string, text: string, options: { expect?: string | null } = {}): Promise<void> {
    const full = await this.resolve(rel);
    const dir = nodePath.dirname(full);
    const temp = nodePath.join(dir, `.${nodePath.basename(full)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    if (options.expect !== undefined) await this.checkExpected(full, rel, options.expect);
    await fs.writeFile(temp, text, { flag: 'wx' });
    try {
      if (options.expect === null) {
        // link() fails when the target exists: an exclusive, atomic create.
        await fs.link(temp, full).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') throw new WriteConflictError(rel);
          throw error;
        });
      } else {
        if (options.expect !== undefined) await this.checkExpected(full, rel, options.expect);
        await fs.rename(temp, full);
      }
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  private async checkExpected(full: string, rel: string, expect: string | null): Promise<void> {
    let current: string | null;
    try {
      current = await fs.readFile(full, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      current = null;
    }
    if (current !== expect) throw new WriteConflictError(rel);
  }

  async move(from: string, to: string): Promise<void> {
    const source = await this.resolve(from);
    const target = await this.resolve(to);
    await fs.mkdir(nodePath.dirname(target), { recursive: true });
    await fs.link(source, target).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') throw new WriteConflictError(to);
      throw error;
    });
    await fs.unlink(source);
  }
}
