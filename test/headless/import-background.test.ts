// the module itself (a namespace import's properties cannot be spied on), as fs-files.ts reads it
import fs from 'node:fs';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { openVault, type Runtime } from '../../headless/runtime';
import { importLines, type ImportLine } from '../../src/core/import';
import { initVault } from '../helpers/cli';

/**
 * A bulk import of more than one batch creates its files in a worker thread
 * (NodeFileStore.createInBackground) and plans the next batch meanwhile; a batch that changes
 * existing files is written whole before the next is planned. The vault, the results and the
 * error of a failed run must be the same as with every create made by the main thread.
 */
const T0 = '2026-11-30T00:00:00Z';
const SUBJECTS = ['cache', 'queue', 'schema', 'deploy', 'runner', 'index', 'gateway', 'backup'];

/** 120 lines: sessions of four, a repeat every ninth line (a reinforcement), a change of value (a supersession). */
function fileLines(): ImportLine[] {
  return Array.from({ length: 120 }, (_, i) => {
    const subject = SUBJECTS[i % SUBJECTS.length]!;
    const text =
      i % 9 === 8
        ? `The ${SUBJECTS[(i - 8) % SUBJECTS.length]} of service ${i - 8} keeps its setting ${(i - 8) * 7919}!`
        : i === 61
          ? 'The queue of service 1 no longer keeps its setting 7919: it keeps 4242 instead.'
          : `The ${subject} of service ${i % 50} keeps its setting ${i * 7919}.`;
    return { text, session: `s${Math.floor(i / 4)}`, created_at: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(), line: i + 1 };
  });
}

/**
 * Every file of the vault, less what each vault has of its own: its machine id (named in the
 * memories a run reinforced), its creation time, the lock holders' names, and the write index's
 * mtime column.
 */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const machine = existsSync(path.join(root, '.engram', 'machine-id')) ? readFileSync(path.join(root, '.engram', 'machine-id'), 'utf8').split(' ')[0]! : '\0';
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (name === '.engram/locks' || name === '.engram/machine-id' || name === '.engram/meta.json') continue;
      if (entry.isDirectory()) walk(name);
      else out[name] = readFileSync(path.join(root, name), 'utf8').replaceAll(machine, 'MACHINE');
    }
  };
  walk('');
  const index = out['.engram/cache/write-index.json'];
  if (index !== undefined) {
    const cut = index.indexOf('\n');
    const header = JSON.parse(index.slice(0, cut)) as { lengths: number[] };
    let at = cut + 1;
    const sections = header.lengths.map((n) => index.slice(at, (at += n)));
    // section 2: each row's mtime
    sections[2] = String(sections[2]!.split('\n').length);
    header.lengths[2] = 0;
    out['.engram/cache/write-index.json'] = JSON.stringify([header, sections, index.slice(at)]);
  }
  return out;
}

describe('an import whose creates are made in the background', () => {
  const made: Array<() => void> = [];
  afterEach(() => {
    jest.restoreAllMocks();
    for (const cleanup of made.splice(0)) cleanup();
  });

  /** How many times an import asked a background vault's store to create in the background. */
  let asked = 0;
  async function vaultOf(background: boolean): Promise<Runtime> {
    const { vault, cleanup } = await initVault('engram-import-bg-');
    made.push(cleanup);
    const runtime = openVault({ vault, now: T0, cwd: vault, env: {} });
    // without the method, the core creates in its own thread (a store that cannot); with it, as
    // on a machine of two cores whatever this one has
    const files = runtime.files;
    const start = NodeFileStore.prototype.createInBackground;
    const value = background ? () => (asked++, start.call(files, 2)) : undefined;
    Object.defineProperty(files, 'createInBackground', { value });
    return runtime;
  }
  beforeEach(() => (asked = 0));

  it('writes the same vault and results as creates made by the main thread, none of them linked by it', async () => {
    const plain = await vaultOf(false);
    const bg = await vaultOf(true);
    const link = jest.spyOn(fs, 'linkSync');
    // the memory files the main thread linked to their names (lock files aside)
    const linked = (root: string) => link.mock.calls.filter(([, to]) => String(to).startsWith(`${root}/episodic/`)).length;
    const expected = await importLines(plain.vault, fileLines(), { batchLines: 7 });
    const summary = await importLines(bg.vault, fileLines(), { batchLines: 7 });
    expect(asked).toBe(1);
    // every new file of the second run was linked to its name by the worker
    expect([linked(plain.root), linked(bg.root)]).toEqual([expected.created, 0]);
    expect(summary).toEqual(expected);
    expect([summary.created, summary.reinforced, summary.conflicts, summary.results.filter((r) => r.supersedes).length]).toEqual([114, 6, 0, 1]);
    expect(tree(bg.root)).toEqual(tree(plain.root));
  });

  it('one batch (no next batch to plan): the main thread creates, no worker is started', async () => {
    const bg = await vaultOf(true);
    const summary = await importLines(bg.vault, fileLines().slice(0, 20), { batchLines: 20 });
    expect([asked, summary.created]).toEqual([0, 18]);
  });

  it('a create that fails undoes the run as before: the same error, nothing imported', async () => {
    const failAt = async (runtime: Runtime): Promise<string> => {
      const write = NodeFileStore.prototype.write;
      let creates = 0;
      const spy = jest.spyOn(NodeFileStore.prototype, 'write').mockImplementation(function (this: NodeFileStore, rel, data, options) {
        if (options?.expect === null && ++creates === 40) return Promise.reject(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }));
        return write.call(this, rel, data, options);
      });
      try {
        return await importLines(runtime.vault, fileLines(), { batchLines: 7 }).then(
          () => 'imported',
          (error: Error) => error.message,
        );
      } finally {
        spy.mockRestore();
      }
    };
    const plain = await vaultOf(false);
    const bg = await vaultOf(true);
    const before = tree(bg.root);
    const memoryFiles = (files: Record<string, string>) => Object.entries(files).filter(([name]) => !name.startsWith('.'));
    expect([await failAt(bg), asked, await failAt(plain)]).toEqual(['import stopped: EIO: i/o error, write; nothing imported (46 writes of this run undone)', 1, 'import stopped: EIO: i/o error, write; nothing imported (46 writes of this run undone)']);
    expect(memoryFiles(tree(bg.root))).toEqual(memoryFiles(before));
    expect(tree(bg.root)).toEqual(tree(plain.root));
  });

  it('a create of the last batch that fails is reported too: the batch written in the background is awaited before the run ends', async () => {
    // the 114th create is the last line's (its batch only creates, so it is written behind the
    // planning with nothing planned after it): its error must still stop the run and undo it
    const failLast = async (runtime: Runtime): Promise<string> => {
      const write = NodeFileStore.prototype.write;
      let creates = 0;
      const spy = jest.spyOn(NodeFileStore.prototype, 'write').mockImplementation(function (this: NodeFileStore, rel, data, options) {
        if (options?.expect === null && ++creates === 114) return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
        return write.call(this, rel, data, options);
      });
      try {
        return await importLines(runtime.vault, fileLines(), { batchLines: 7 }).then(
          (summary) => `imported ${summary.created}`,
          (error: Error) => error.message,
        );
      } finally {
        spy.mockRestore();
      }
    };
    const plain = await vaultOf(false);
    const bg = await vaultOf(true);
    const expected = 'import stopped: ENOSPC: no space left on device, write; nothing imported (122 writes of this run undone)';
    expect([await failLast(bg), asked, await failLast(plain)]).toEqual([expected, 1, expected]);
    expect(tree(bg.root)).toEqual(tree(plain.root));
  });
});
