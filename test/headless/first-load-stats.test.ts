import { mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { openRecallCounting } from '../../headless/command-kit';
import { openVault } from '../../headless/runtime';
import { MEMORY_ROOTS, scanMemoryFiles } from '../../src/core/memory-files';
import { CATALOG_PATH, loadCatalog } from '../../src/core/recall/catalog';
import { SNAPSHOT_PATH } from '../../src/core/recall/snapshot';
import { engram, initVault } from '../helpers/cli';

/**
 * A first load (no snapshot, no catalog: a fresh clone) lists the memory files without a stat
 * of each and takes each one's size and mtime from its one read. The rows, the listing and the
 * caches written are those of a load that stat'ed every file first.
 */
describe('a first load without a stat per file', () => {
  let env: Awaited<ReturnType<typeof initVault>>;
  beforeEach(async () => {
    env = await initVault('engram-first-load-');
    for (const text of ['retry the webhook after a timeout', 'the ledger balances at night', 'redis holds the session']) {
      expect((await engram(env.vault, ['--now', '2026-11-29T12:00:00Z', 'remember', text])).code).toBe(0);
    }
    // an unreadable note, a link to a memory, and files with set mtimes (sub-millisecond parts)
    writeFileSync(path.join(env.vault, 'episodic/broken.md'), 'no frontmatter here\n');
    mkdirSync(path.join(env.vault, 'semantic/deep'), { recursive: true });
    writeFileSync(path.join(env.vault, 'semantic/deep/not-memory.md'), '---\nx: 1\n---\nbody\n');
    symlinkSync('broken.md', path.join(env.vault, 'episodic/link.md'));
    utimesSync(path.join(env.vault, 'episodic/broken.md'), 1_700_000_000.123456, 1_700_000_000.987654);
    rmSync(path.join(env.vault, '.engram/cache'), { recursive: true, force: true });
  });
  afterEach(() => env.cleanup());

  it('lists regular files with unknown stats and fills them in from the reads, as a stat would', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const withStats = await scanMemoryFiles(vault.ports.files, MEMORY_ROOTS);
    const without = await scanMemoryFiles(vault.ports.files, MEMORY_ROOTS, { stat: false });
    // the same entries; regular files without their stats (-1), the link stat'ed (followed)
    expect(without.entries).toBe(withStats.entries);
    expect(without.others).toEqual(withStats.others);
    expect(without.files.map(([p, size]) => [p, size < 0 ? 'unknown' : size])).toEqual(withStats.files.map(([p, size]) => [p, p.endsWith('link.md') ? size : 'unknown']));
    const fromReads = await loadCatalog(vault, { listing: without.files, useCache: false });
    const fromStats = await loadCatalog(vault, { listing: withStats.files, useCache: false });
    expect(without.files).toEqual(withStats.files); // filled in: the same size and mtime, to the fraction of a ms
    expect(fromReads.docs).toEqual(fromStats.docs);
    expect(fromReads.problems).toEqual(fromStats.problems);
    expect(fromReads.problems.map((p) => p.path)).toEqual(['episodic/broken.md', 'episodic/link.md', 'semantic/deep/not-memory.md']);
  });

  it('writes the caches a load with stats writes, which the next recall opens', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const first = await openRecallCounting(vault);
    const [catalog, snapshot] = [readFileSync(path.join(env.vault, CATALOG_PATH)), readFileSync(path.join(env.vault, SNAPSHOT_PATH))];
    // the same vault loaded with a stat of each file: a catalog present makes the scan stat
    rmSync(path.join(env.vault, SNAPSHOT_PATH));
    writeFileSync(path.join(env.vault, CATALOG_PATH), '{}');
    const again = await openRecallCounting(vault);
    expect(readFileSync(path.join(env.vault, CATALOG_PATH))).toEqual(catalog);
    expect(readFileSync(path.join(env.vault, SNAPSHOT_PATH))).toEqual(snapshot);
    expect([first.unreadable, first.engine.size]).toEqual([again.unreadable, again.engine.size]);
    expect([first.unreadable, first.engine.size]).toEqual([3, 3]);
    const recall = await engram(env.vault, ['--now', '2026-11-29T12:00:00Z', '--json', 'recall', 'webhook timeout']);
    expect(recall.json().map((r: { text: string }) => r.text)).toEqual(['retry the webhook after a timeout']);
  });

  it('stats a file whose read fails or finds it gone, as a listing would have', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const files = vault.ports.files;
    const read = files.readWithStat!.bind(files);
    const memories = (await scanMemoryFiles(files, MEMORY_ROOTS)).files.filter(([p]) => p.startsWith('episodic/') && !/broken|link/.test(p)).map(([p]) => p);
    const readNow = files.readWithStatNow!.bind(files);
    // one read fails (a permission, a file replaced by a folder), one finds the file gone; the
    // read without a promise fails on them too, and leaves them to the awaited read
    files.readWithStat = async (rel) => {
      if (rel === memories[0]) throw new Error('EACCES: permission denied');
      return rel === memories[1] ? null : read(rel);
    };
    const nowReads: string[] = [];
    files.readWithStatNow = (rel) => {
      nowReads.push(rel);
      if (rel === memories[0]) throw new Error('EACCES: permission denied');
      return rel === memories[1] ? null : readNow(rel);
    };
    const without = await scanMemoryFiles(files, MEMORY_ROOTS, { stat: false });
    const withStats = await scanMemoryFiles(files, MEMORY_ROOTS);
    const fromReads = await loadCatalog(vault, { listing: without.files, useCache: false });
    expect(without.files).toEqual(withStats.files);
    expect(fromReads.problems.filter((p) => memories.includes(p.path)).map((p) => [p.path, p.reason])).toEqual([
      [memories[0], 'EACCES: permission denied'],
      [memories[1], 'disappeared while being read'],
    ]);
    // every file listed without its stats (not the link) was read without a promise first
    expect(nowReads).toEqual(without.files.filter(([p]) => !p.endsWith('link.md')).map(([p]) => p));
  });

  it('reads each file without a promise where the store can, with what the awaited reads give', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const files = vault.ports.files;
    const read = files.readWithStat!.bind(files);
    const awaited: string[] = [];
    files.readWithStat = async (rel) => {
      awaited.push(rel);
      return read(rel);
    };
    const now = await scanMemoryFiles(files, MEMORY_ROOTS, { stat: false });
    const fromNow = await loadCatalog(vault, { listing: now.files, useCache: false, lean: true });
    // the link (listed with its stats) is read by `read`; every other file without a promise
    expect(awaited).toEqual([]);
    files.readWithStatNow = undefined;
    const later = await scanMemoryFiles(files, MEMORY_ROOTS, { stat: false });
    const fromAwaited = await loadCatalog(vault, { listing: later.files, useCache: false, lean: true });
    expect(awaited).toEqual(later.files.filter(([p]) => !p.endsWith('link.md')).map(([p]) => p));
    expect(now.files).toEqual(later.files);
    expect(fromNow.docs).toEqual(fromAwaited.docs);
    expect(fromNow.problems).toEqual(fromAwaited.problems);
    expect(fromNow.signatures()).toEqual(fromAwaited.signatures());
    expect(fromNow.docs.length).toBe(3);
  });

  it('waits on no promise per file when it reads them without one and has no pause', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const listing = (await scanMemoryFiles(vault.ports.files, MEMORY_ROOTS, { stat: false })).files.filter(([p]) => !p.endsWith('link.md'));
    expect(listing.length).toBe(5);
    // microtask turns taken while the load runs: one a file was the per-file awaits' cost
    let turns = 0;
    let done = false;
    const count = (): void => {
      if (done) return;
      turns++;
      queueMicrotask(count);
    };
    queueMicrotask(count);
    const loaded = await loadCatalog(vault, { listing, useCache: false, lean: true });
    done = true;
    expect(loaded.docs.length + loaded.problems.length).toBe(5);
    expect(turns).toBeLessThanOrEqual(1);
  });
});
