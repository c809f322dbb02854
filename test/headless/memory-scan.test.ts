import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { compareMemoryPaths, listMemoryPaths, listMemoryStats, MEMORY_ROOTS, scanMemoryFiles } from '../../src/core/memory-files';
import { NodeLocks } from '../../headless/locks';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { MemoryFileStore } from '../helpers/memory-ports';

/**
 * scanMemoryFiles (one read of each folder, for a cold recall and context) gives what the two
 * listings it replaces gave: listMemoryStats' files, and as many entries as listMemoryPaths,
 * on a folder holding every kind of entry the readers report.
 */
describe('scanMemoryFiles', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'engram-scan-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const file = (rel: string, text = 'x') => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };

  it('lists the regular files and counts every note-named entry, as the separate listings do', async () => {
    file('episodic/b.md', 'bb');
    file('episodic/a.md', 'a');
    file('episodic/notes.txt');
    file('episodic/deep/c.md', 'ccc');
    file('episodic/deep/deeper/d.md');
    file('episodic/.hidden/e.md');
    file('semantic/s.md');
    file('archive/episodic/old.md', 'old');
    mkdirSync(path.join(root, 'decisions/folder.md/inner'), { recursive: true }); // a folder named like a note
    writeFileSync(path.join(root, 'decisions/folder.md/inner/x.md'), 'x');
    symlinkSync('a.md', path.join(root, 'episodic/link.md')); // a link to a memory: a file
    symlinkSync('nowhere.md', path.join(root, 'episodic/dangling.md'));
    // a link to itself: statSync throws ELOOP, which fs-files' statOrNone catches (among the others).
    // StrykerJS's three survivors there are equivalent by construction: without
    // `throwIfNoEntry: false` (or with it true) a name gone meanwhile throws ENOENT into that same
    // catch, and an empty catch block falls off the function's end: undefined either way, as
    // `return undefined` gives (the option only spares building an exception)
    symlinkSync('loop.md', path.join(root, 'episodic/loop.md'));
    symlinkSync('deep', path.join(root, 'episodic/dir-link.md')); // a link to a folder: not walked
    symlinkSync('deep', path.join(root, 'episodic/dir-link')); // nor this one
    execFileSync('mkfifo', [path.join(root, 'semantic/pipe.md')]);
    const store = new NodeFileStore(root);
    const scan = await scanMemoryFiles(store, MEMORY_ROOTS);
    expect(scan.files).toEqual(await listMemoryStats(store, MEMORY_ROOTS));
    // in slices (a pause per file placed, notes.txt left out in that loop): the same listing
    let pauses = 0;
    expect(await listMemoryStats(store, MEMORY_ROOTS, async () => void pauses++)).toEqual(scan.files);
    expect(pauses).toBe(7 + 5); // the seven files, and one block sorted in each of the five folders holding files
    expect(scan.entries).toBe((await listMemoryPaths(store, MEMORY_ROOTS)).length);
    expect(scan.files.map(([p, size]) => [p, size])).toEqual([
      ['episodic/a.md', 1],
      ['episodic/b.md', 2],
      ['episodic/link.md', 1],
      ['episodic/deep/c.md', 3],
      ['episodic/deep/deeper/d.md', 1],
      ['semantic/s.md', 1],
      ['archive/episodic/old.md', 3],
    ]);
    // the seven files, and: dangling, loop, dir-link.md, pipe.md, folder.md
    expect(scan.entries).toBe(12);
    // the note-named entries that are not regular files, by path (the write index reads them every time)
    expect(scan.others).toEqual(['episodic/dangling.md', 'episodic/dir-link.md', 'episodic/loop.md', 'semantic/pipe.md', 'decisions/folder.md']);
    // without stats (a load that reads every file): the regular files by their entries, and the
    // files and the others in compareMemoryPaths' order are listMemoryPaths' paths (what a
    // consolidation's load without a memory cache lists from one read of each folder)
    const bare = await scanMemoryFiles(store, MEMORY_ROOTS, { stat: false });
    expect(bare.files.map(([p, size, mtimeMs]) => [p, size === -1 && mtimeMs === -1 ? 'unstated' : size])).toEqual([
      ['episodic/a.md', 'unstated'],
      ['episodic/b.md', 'unstated'],
      ['episodic/link.md', 1],
      ['episodic/deep/c.md', 'unstated'],
      ['episodic/deep/deeper/d.md', 'unstated'],
      ['semantic/s.md', 'unstated'],
      ['archive/episodic/old.md', 'unstated'],
    ]);
    const listed = await listMemoryPaths(store, MEMORY_ROOTS);
    expect([...bare.files.map(([p]) => p), ...bare.others].sort(compareMemoryPaths)).toEqual(listed);
    expect(listed).toEqual(['episodic/a.md', 'episodic/b.md', 'episodic/dangling.md', 'episodic/dir-link.md', 'episodic/link.md', 'episodic/loop.md', 'episodic/deep/c.md', 'episodic/deep/deeper/d.md', 'semantic/pipe.md', 'semantic/s.md', 'decisions/folder.md', 'archive/episodic/old.md']);
    // loadAll keeping what it read (consolidation), without a memory cache: those paths, one read of each folder
    const readdirs: string[] = [];
    const counting = new NodeFileStore(root);
    for (const method of ['list', 'folders', 'scan'] as const) {
      const original = (counting[method] as (...a: unknown[]) => unknown).bind(counting);
      (counting as unknown as Record<string, unknown>)[method] = (dir: string, ...rest: unknown[]) => (readdirs.push(`${method} ${dir}`), original(dir, ...rest));
    }
    const vault = new Vault({ files: counting, locks: new NodeLocks(root), clock: { now: () => 0 }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    expect((await vault.loadAll({ keep: true })).paths).toEqual(listed);
    expect(readdirs.filter((r) => r.startsWith('list') || r.startsWith('folders'))).toEqual([]);
    expect(readdirs.filter((r) => r === 'scan episodic')).toEqual(['scan episodic']);
  });

  it('with `hidden`: each folder\'s names that start with a dot, files and others, its sub-folders\' too (for sweepTemp)', async () => {
    file('episodic/a.md');
    file('episodic/.a.md.4194305.1.tmp');
    file('episodic/.dotted.md');
    file('episodic/.obsidian/x.md'); // a dot folder: no temp file
    file('episodic/deep/.b.md.4194305.2.tmp'); // a sub-folder's: swept from its own entry (a person files notes in sub-folders)
    file('archive/episodic/.c.md.4194305.3.tmp');
    mkdirSync(path.join(root, 'semantic'));
    symlinkSync('nowhere', path.join(root, 'semantic/.dangling')); // among the others
    symlinkSync('nowhere', path.join(root, 'semantic/plain-link')); // among the others too, no dot: not a temp file's name
    const store = new NodeFileStore(root);
    const expected = new Map([
      ['episodic', ['.a.md.4194305.1.tmp', '.dotted.md']],
      ['episodic/deep', ['.b.md.4194305.2.tmp']],
      ['semantic', ['.dangling']],
      ['decisions', []],
      ['archive', []],
      ['archive/episodic', ['.c.md.4194305.3.tmp']],
    ]);
    for (const options of [{ hidden: true }, { stat: false, hidden: true }]) {
      const scan = await scanMemoryFiles(store, MEMORY_ROOTS, options);
      expect(new Map([...scan.hidden!].map(([dir, names]) => [dir, [...names].sort()]))).toEqual(expected);
      // the rest as without it
      expect({ ...scan, hidden: undefined }).toEqual({ ...(await scanMemoryFiles(store, MEMORY_ROOTS, options.stat === false ? { stat: false } : {})), hidden: undefined });
    }
    expect((await scanMemoryFiles(store, MEMORY_ROOTS)).hidden).toBeUndefined();
    // a consolidation's load keeps it
    const vault = new Vault({ files: store, locks: new NodeLocks(root), clock: { now: () => 0 }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const loaded = await vault.loadAll({ keep: true });
    expect(new Map([...loaded.hidden!].map(([dir, names]) => [dir, [...names].sort()]))).toEqual(expected);
    expect((await vault.loadAll()).hidden).toBeUndefined();
  });

  it('gives the same from a store without scan (listStats, folders and list)', async () => {
    const files = new MemoryFileStore();
    files.files.set('episodic/b.md', 'bb');
    files.files.set('episodic/a.md', 'a');
    files.files.set('episodic/sub/c.md', 'ccc');
    files.files.set('episodic/x.txt', 'x');
    files.files.set('decisions/d.md', 'd');
    expect(await scanMemoryFiles(files, MEMORY_ROOTS)).toEqual({
      files: [
        ['episodic/a.md', 1, 0],
        ['episodic/b.md', 2, 0],
        ['episodic/sub/c.md', 3, 0],
        ['decisions/d.md', 1, 0],
      ],
      entries: 4,
      others: [],
    });
    expect((await scanMemoryFiles(files, MEMORY_ROOTS)).files).toEqual(await listMemoryStats(files, MEMORY_ROOTS));
  });

  it('finds nothing in a vault without memory folders', async () => {
    expect(await scanMemoryFiles(new NodeFileStore(root), MEMORY_ROOTS)).toEqual({ files: [], entries: 0, others: [] });
  });
});
