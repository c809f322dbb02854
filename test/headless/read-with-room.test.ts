import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NodeFileStore, STAGE_BYTES } from '../../headless/fs-files';

describe('NodeFileStore.readWithRoom (a megabyte at a time through one small buffer)', () => {
  // the module itself, whose readSync the store calls
  const fs = require('node:fs') as typeof import('node:fs');
  let dir: string;
  let readSync: typeof fs.readSync;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'engram-room-'));
    readSync = fs.readSync;
  });
  afterEach(() => {
    fs.readSync = readSync;
    rmSync(dir, { recursive: true, force: true });
  });
  const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));
  /** Counts the store's read(2) calls; `after(k)` runs after the k-th. */
  const counting = (after?: (k: number) => void) => {
    const calls = { count: 0 };
    fs.readSync = ((...args: unknown[]) => {
      const n = (readSync as (...a: unknown[]) => number)(...args);
      calls.count++;
      after?.(calls.count);
      return n;
    }) as typeof fs.readSync;
    return calls;
  };

  it('gives the whole file, in a buffer of its own with the room past it, in size / STAGE_BYTES + 1 reads', async () => {
    const store = new NodeFileStore(dir);
    for (const size of [0, 1, 5, STAGE_BYTES - 1, STAGE_BYTES, STAGE_BYTES + 1, 2 * STAGE_BYTES + 7]) {
      const content = bytes(size, size);
      writeFileSync(path.join(dir, 'bin'), content);
      const calls = counting();
      const got = (await store.readWithRoom('bin', 1000))!;
      fs.readSync = readSync;
      expect([Buffer.from(got).equals(content), got.byteOffset, got.buffer.byteLength - got.length >= 1000, calls.count]).toEqual([true, 0, true, Math.floor(size / STAGE_BYTES) + 1]);
    }
    expect(await store.readWithRoom('none', 10)).toBeNull();
  });

  it('reads a file that grows while it is read to its new end', async () => {
    const store = new NodeFileStore(dir);
    const content = bytes(STAGE_BYTES + 10, 1);
    const more = bytes(3 * STAGE_BYTES + 5, 2);
    writeFileSync(path.join(dir, 'bin'), content);
    counting((k) => k === 1 && appendFileSync(path.join(dir, 'bin'), more));
    const got = (await store.readWithRoom('bin', 64))!;
    expect(Buffer.from(got).equals(Buffer.concat([content, more]))).toBe(true);
  });
});
