import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { ReadAhead } from '../../headless/read-ahead';
import { openVault } from '../../headless/runtime';
import { CATALOG_PATH, loadCatalog } from '../../src/core/recall/catalog';
import { MEMORY_ROOTS, scanMemoryFiles } from '../../src/core/memory-files';
import { initVault } from '../helpers/cli';

/**
 * Issue 23, a first recall at 10k: the files of a first load are read on a worker thread ahead
 * of the main thread (read-ahead.ts). Every answer is the main thread's own read of the file
 * (NodeFileStore.readWithStatNow without a read-ahead, the reference here): the same bytes,
 * size and mtime; what the worker passes over is read by the main thread as before.
 */
describe('reading ahead on a worker thread', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'engram-read-ahead-'));
    mkdirSync(path.join(dir, 'episodic'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** `count` files of growing sizes (k * 97 bytes of a pattern), with set sub-millisecond mtimes. */
  function files(count: number): string[] {
    const rels: string[] = [];
    for (let k = 0; k < count; k++) {
      const rel = `episodic/f${k}.md`;
      writeFileSync(path.join(dir, rel), `${k}:`.padEnd(k * 97, 'abcdefghij\n'));
      utimesSync(path.join(dir, rel), 1_700_000_000 + k + 0.123456, 1_700_000_000 + k + 0.987654);
      rels.push(rel);
    }
    return rels;
  }

  const plain = (rel: string) => new NodeFileStore(dir).readWithStatNow(rel);

  it('gives each file as the main thread reads it, through a small ring that wraps and fills', () => {
    const rels = files(120); // 120 files of 0 to 11.5 KB (~690 KB) through a 32 KB ring
    const store = new NodeFileStore(dir);
    const ahead = new ReadAhead(rels, rels.map((rel) => path.join(dir, rel)), { ringBytes: 32 << 10, mainReads: false });
    let served = 0;
    for (const rel of rels) {
      const read = ahead.take(rel);
      const expected = plain(rel)!;
      const k = Number(rel.slice('episodic/f'.length, -3));
      // the worker passes over what exceeds a quarter of the ring (8 KB: 8,192 - 24 - 1 bytes at most)
      if (k * 97 + 1 + 24 > 8 << 10) {
        expect(read).toBeUndefined();
        continue;
      }
      served++;
      expect(read).toBeDefined();
      expect(Buffer.compare(read!.bytes, Buffer.from(expected.bytes))).toBe(0);
      expect(read!.size).toBe(Math.max(k * 97, `${k}:`.length));
      expect(read!.size).toBe(expected.size);
      expect(read!.mtimeMs).toBe(expected.mtimeMs);
      expect(Math.round(read!.mtimeMs)).toBe((1_700_000_000 + k) * 1000 + 988);
    }
    expect(served).toBe(85); // files 0..84: 84 * 97 + 25 = 8,173 bytes fit, 85 * 97 + 25 = 8,270 do not
    expect(store.readWithStatNow(rels[3]!)!.size).toBe(291);
  });

  it('passes over what is not a plain regular file; the main thread reads those as before', () => {
    const rels = files(4);
    writeFileSync(path.join(dir, 'episodic/empty.md'), '');
    symlinkSync('f1.md', path.join(dir, 'episodic/link.md'));
    mkdirSync(path.join(dir, 'episodic/folder.md'));
    execFileSync('mkfifo', [path.join(dir, 'episodic/fifo.md')]);
    const list = ['episodic/empty.md', 'episodic/link.md', 'episodic/missing.md', 'episodic/folder.md', 'episodic/fifo.md', ...rels];
    const ahead = new ReadAhead(
      list,
      list.map((rel) => path.join(dir, rel)),
      { mainReads: false },
    );
    const empty = ahead.take('episodic/empty.md')!;
    expect(empty.bytes.length).toBe(0);
    expect(empty.size).toBe(0);
    for (const rel of ['episodic/link.md', 'episodic/missing.md', 'episodic/folder.md', 'episodic/fifo.md']) expect(ahead.take(rel)).toBeUndefined();
    for (const rel of rels) expect(Buffer.from(ahead.take(rel)!.bytes).toString()).toBe(Buffer.from(plain(rel)!.bytes).toString());
    // the main thread's reads of those: the link followed inside the vault, the rest refused or missing
    expect(plain('episodic/link.md')!.size).toBe(97);
    expect(plain('episodic/missing.md')).toBeNull();
    expect(() => plain('episodic/folder.md')).toThrow('episodic/folder.md: is a folder, not a file');
    expect(() => plain('episodic/fifo.md')).toThrow('episodic/fifo.md: not a regular file (a FIFO)');
  });

  it('reads ahead only with a core to spare: a load average at least half a core below the cores', () => {
    const load = jest.spyOn(os, 'loadavg');
    const cores = jest.spyOn(os, 'availableParallelism').mockReturnValue(2);
    try {
      const store = new NodeFileStore(dir);
      load.mockReturnValue([1.5, 9, 9]);
      expect(store.spareCore()).toBe(true);
      load.mockReturnValue([1.51, 0, 0]);
      expect(store.spareCore()).toBe(false);
      cores.mockReturnValue(4);
      expect(store.spareCore()).toBe(true);
    } finally {
      load.mockRestore();
      cores.mockRestore();
    }
  });

  it('stops at a file asked out of the list order, and at a path it was not given', () => {
    const rels = files(6);
    const ahead = new ReadAhead(rels, [...rels.slice(0, 2).map((rel) => path.join(dir, rel)), null, ...rels.slice(3).map((rel) => path.join(dir, rel))], { mainReads: false });
    expect(ahead.take(rels[0]!)!.size).toBe(2); // "0:"
    expect(ahead.take(rels[1]!)!.size).toBe(97);
    expect(ahead.take(rels[2]!)).toBeUndefined(); // no path: the main thread reads it
    expect(ahead.take(rels[4]!)).toBeUndefined(); // rels[3] skipped: out of order, stopped
    expect(ahead.take(rels[5]!)).toBeUndefined();
  });

  it('from 500 files on, with the main thread reading until the worker starts, every file is read once, in order', () => {
    const rels = files(600);
    const store = new NodeFileStore(dir);
    store.spareCore = () => false;
    expect(store.readAhead(rels)).toBe(false); // a busy machine: no worker
    store.spareCore = () => true;
    expect(store.readAhead(rels.slice(0, 499))).toBe(false);
    expect(store.readAhead(rels)).toBe(true);
    for (const rel of rels) {
      const read = store.readWithStatNow(rel)!;
      const expected = plain(rel)!;
      expect(Buffer.compare(Buffer.from(read.bytes), Buffer.from(expected.bytes))).toBe(0);
      expect([read.size, read.mtimeMs]).toEqual([expected.size, expected.mtimeMs]);
    }
    // the read-ahead ended with its last file: a file read again is the main thread's
    unlinkSync(path.join(dir, rels[0]!));
    expect(store.readWithStatNow(rels[0]!)).toBeNull();
  });
});

describe('a first load reads ahead', () => {
  it('from 500 files listed without stats, nothing cached, and loads the catalog the main thread alone loads', async () => {
    const env = await initVault('engram-read-ahead-load-');
    try {
      for (let k = 0; k < 520; k++) {
        const id = `mem-${k.toString(16).padStart(12, '0')}`;
        writeFileSync(path.join(env.vault, `episodic/m${k}.md`), `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-11-01T00:00:00Z"\n---\nNote ${k} about redis retries and term${k}.\n`);
      }
      const load = async (ahead: boolean, count?: number) => {
        const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
        const files = vault.ports.files;
        (files as NodeFileStore).spareCore = () => true;
        const asked: Array<[number, boolean]> = [];
        const own = files.readAhead!.bind(files);
        files.readAhead = ahead ? (paths) => { const started = own(paths); asked.push([paths.length, started]); return started; } : undefined;
        const listing = (await scanMemoryFiles(files, MEMORY_ROOTS, { stat: false })).files;
        const catalog = await loadCatalog(vault, { listing: count === undefined ? listing : listing.slice(0, count), useCache: false });
        return { catalog, asked };
      };
      const alone = await load(false);
      const withAhead = await load(true);
      expect(withAhead.asked).toEqual([[520, true], [0, false]]); // the list, then its end
      expect(withAhead.catalog.docs).toEqual(alone.catalog.docs);
      expect(withAhead.catalog.docs.length).toBe(520);
      expect(withAhead.catalog.signatures()).toEqual(alone.catalog.signatures());
      expect((await load(true, 499)).asked).toEqual([[499, false]]); // too few to repay the worker's start
      expect((await load(true, 500)).asked).toEqual([[500, true], [0, false]]);
      // with a cache, nothing is read ahead
      const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
      await loadCatalog(vault);
      expect(existsSync(path.join(env.vault, CATALOG_PATH))).toBe(true);
      const asked: number[] = [];
      const files = vault.ports.files;
      (files as NodeFileStore).spareCore = () => true;
      const own = files.readAhead!.bind(files);
      files.readAhead = (paths) => (asked.push(paths.length), own(paths));
      writeFileSync(path.join(env.vault, 'episodic/m0.md'), '---\nid: mem-000000000000\ncategory: episodic\ncreated_at: "2026-11-01T00:00:00Z"\n---\nchanged\n');
      expect((await loadCatalog(vault)).parsed).toBe(1);
      expect(asked).toEqual([]);
    } finally {
      await env.cleanup();
    }
  });
});
