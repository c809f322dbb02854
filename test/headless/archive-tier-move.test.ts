import { cpSync, existsSync, linkSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { consolidate } from '../../src/core/consolidation/consolidate';
import { WriteConflictError } from '../../src/core/errors';
import type { FileVersion } from '../../src/core/ports';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { at } from '../helpers/memory-ports';
import { initVault } from '../helpers/cli';

/*
 * A memory consolidation archives whose tier changes (cold -> archive) is moved with its new
 * tier in one step (FileStore.moveRewriting; issue 23): the archived file is created whole with
 * the tier written, then the source is taken away if it is still the version read. The tier
 * step has nothing left to write for it. A crash at each point, and a save in place at each
 * point, leave one memory with every word of it.
 */

const NOW = '2026-11-30T00:00:00Z';
const OLD = new Date('2026-01-01T00:00:00Z');
const memory = (id: string, tier: string, body: string) => `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-07-01T10:00:00Z"\ntier: ${tier}\n---\n${body}\n`;
const IDS = ['mem-arch00000001', 'mem-arch00000002'];

class CountingStore extends NodeFileStore {
  readonly writes: string[] = [];
  override async write(rel: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<FileVersion> {
    this.writes.push(rel);
    return super.write(rel, data, options);
  }
}

let vault: string;
let cleanup: () => void;
const snapshots: string[] = [];
beforeEach(async () => {
  ({ vault, cleanup } = await initVault());
  for (const id of IDS) {
    writeFileSync(path.join(vault, 'episodic', `${id}.md`), memory(id, 'cold', `Ancient memory ${id}`));
    utimesSync(path.join(vault, 'episodic', `${id}.md`), OLD, OLD);
  }
});
afterEach(() => {
  cleanup();
  for (const dir of snapshots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const vaultOn = (root: string, files: NodeFileStore = new NodeFileStore(root)) =>
  new Vault({ files, locks: new NodeLocks(root), clock: { now: () => at(NOW) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
const run = async (root: string, files?: NodeFileStore) => {
  const report = await consolidate(vaultOn(root, files), { dryRun: false, holder: 'test', elapsed: () => 0 });
  return { counts: Object.fromEntries(report.steps.map((s) => [s.step, s.count])), resumed: report.resumed, skipped: report.skipped };
};
/** The vault as a process killed at this instant leaves it (its locks die with it). */
const snapshot = (): string => {
  const dir = `${vault}-crash${snapshots.length}`;
  cpSync(vault, dir, { recursive: true });
  rmSync(path.join(dir, '.engram', 'locks'), { recursive: true, force: true });
  snapshots.push(dir);
  return dir;
};
const list = (root: string, folder: string) => readdirSync(path.join(root, folder)).sort();
const read = (root: string, rel: string) => readFileSync(path.join(root, rel), 'utf8');
const ARCHIVED = IDS.map((id) => memory(id, 'archive', `Ancient memory ${id}`));

describe('archiving with the new tier in one step', () => {
  it('writes the archived file once, with its tier: no tier write after the move', async () => {
    const files = new CountingStore(vault);
    const { counts } = await run(vault, files);
    expect(counts).toEqual({ prune: 2, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 2, log: 1 });
    expect(list(vault, 'archive')).toEqual(IDS.map((id) => `${id}.md`));
    expect(IDS.map((id) => read(vault, `archive/${id}.md`))).toEqual(ARCHIVED);
    expect(list(vault, 'episodic')).toEqual([]);
    // the tier step wrote nothing (it wrote each archived file again before)
    expect(files.writes.filter((w) => w.endsWith('.md'))).toEqual([]);
    // a second run the same night finds nothing to do
    expect((await run(vault)).counts).toEqual({ prune: 0, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 0, log: 1 });
  });

  it('killed after the archived file was linked, before the source went: the next run completes the move', async () => {
    const crashes: string[] = [];
    const files = new NodeFileStore(vault, { afterLink: (target) => void (target.endsWith(`${IDS[0]}.md`) && crashes.push(snapshot())) });
    await run(vault, files);
    const [crashed] = crashes;
    // both files, the archived one with its tier
    expect([read(crashed!, `episodic/${IDS[0]}.md`), read(crashed!, `archive/${IDS[0]}.md`)]).toEqual([memory(IDS[0]!, 'cold', `Ancient memory ${IDS[0]}`), ARCHIVED[0]]);
    const resumed = await run(crashed!);
    expect([resumed.resumed, resumed.skipped]).toEqual([true, []]);
    // the plan completed kept the archived copy (the source with the tier and nothing else):
    // nothing was left for this run to archive again
    expect(resumed.counts).toEqual({ prune: 0, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 0, log: 1 });
    expect(list(crashed!, 'episodic')).toEqual([]);
    expect(IDS.map((id) => read(crashed!, `archive/${id}.md`))).toEqual(ARCHIVED);
  });

  it('killed then, and the memory touched before the next run: the touched copy stays, the other goes', async () => {
    const crashes: string[] = [];
    await run(vault, new NodeFileStore(vault, { afterLink: (target) => void (target.endsWith(`${IDS[0]}.md`) && crashes.push(snapshot())) }));
    const crashed = crashes[0]!;
    const touched = memory(IDS[0]!, 'cold', `Ancient memory ${IDS[0]}`).replace('tier: cold\n', 'tier: cold\nlast_accessed_at: "2026-11-29T23:00:00Z"\n');
    writeFileSync(path.join(crashed, 'episodic', `${IDS[0]}.md`), touched);
    const resumed = await run(crashed);
    expect(resumed.skipped).toEqual([]);
    expect(list(crashed, 'archive')).toEqual([`${IDS[1]}.md`]);
    // kept as touched (and, used since it was last strengthened, strengthened by the new plan)
    expect(read(crashed, `episodic/${IDS[0]}.md`)).toBe(touched.replace('---\nAncient', 'half_life_days: 9\nstrengthened_at: "2026-11-30T00:00:00Z"\n---\nAncient'));
  });

  it('killed after the source was taken away: the archived file is the memory, the temp file is no memory', async () => {
    const crashes: string[] = [];
    await run(vault, new NodeFileStore(vault, { afterTake: (taken) => void (taken.includes(IDS[0]!) && crashes.push(snapshot())) }));
    const crashed = crashes[0]!;
    expect(list(crashed, 'episodic')).toEqual([expect.stringMatching(new RegExp(`^\\.${IDS[0]}\\.md\\.\\d+\\.\\d+\\.tmp$`)), `${IDS[1]}.md`]);
    const resumed = await run(crashed);
    expect([resumed.resumed, resumed.skipped]).toEqual([true, []]);
    expect(IDS.map((id) => read(crashed, `archive/${id}.md`))).toEqual(ARCHIVED);
    const loaded = await vaultOn(crashed).loadAll();
    expect([loaded.memories.map((m) => m.path).sort(), loaded.problems]).toEqual([IDS.map((id) => `archive/${id}.md`), []]);
  });

  it('a save in place between the check and the taking of the source: the save stays, and is what gets archived', async () => {
    const file = path.join(vault, 'episodic', `${IDS[0]}.md`);
    const theirs = memory(IDS[0]!, 'cold', `Ancient memory ${IDS[0]}, with a line of theirs`);
    const files = new NodeFileStore(vault, { afterLink: (target) => void (target.endsWith(`${IDS[0]}.md`) && writeFileSync(file, theirs)) });
    const { counts, skipped } = await run(vault, files);
    expect([counts.prune, counts.tiers, skipped]).toEqual([2, 2, []]);
    expect(list(vault, 'episodic')).toEqual([]);
    expect(read(vault, `archive/${IDS[0]}.md`)).toBe(theirs.replace('tier: cold', 'tier: archive'));
    expect(read(vault, `archive/${IDS[1]}.md`)).toBe(ARCHIVED[1]);
  });
});

describe('NodeFileStore.moveRewriting', () => {
  const rel = `episodic/${IDS[0]}.md`;
  const to = `archive/sub/${IDS[0]}.md`;
  const tagOf = async (files: NodeFileStore) => (await files.readVersioned(rel))!.version!.tag;
  const temps = () => [...list(vault, 'episodic'), ...(existsSync(path.join(vault, 'archive', 'sub')) ? list(vault, 'archive/sub') : [])].filter((n) => n.endsWith('.tmp'));

  it('moves and rewrites (the folder made when missing), returning the version written', async () => {
    const files = new NodeFileStore(vault);
    const version = await files.moveRewriting(rel, to, await tagOf(files), 'new text\n');
    expect(existsSync(path.join(vault, rel))).toBe(false);
    expect(read(vault, to)).toBe('new text\n');
    expect(version).toEqual((await files.readVersioned(to))!.version);
    expect(temps()).toEqual([]);
  });

  it('does nothing when the source is not the version named, or the target exists', async () => {
    const files = new NodeFileStore(vault);
    const tag = await tagOf(files);
    writeFileSync(path.join(vault, rel), 'changed\n');
    utimesSync(path.join(vault, rel), OLD, new Date('2026-01-02T00:00:00Z'));
    expect(await files.moveRewriting(rel, to, tag, 'new text\n')).toBeNull();
    const now = await tagOf(files);
    linkSync(path.join(vault, 'episodic', `${IDS[1]}.md`), path.join(vault, 'archive', `${IDS[0]}.md`));
    await expect(files.moveRewriting(rel, `archive/${IDS[0]}.md`, now, 'new text\n')).rejects.toThrow(WriteConflictError);
    expect([read(vault, rel), read(vault, `archive/${IDS[0]}.md`)]).toEqual(['changed\n', memory(IDS[1]!, 'cold', `Ancient memory ${IDS[1]}`)]);
    expect(temps()).toEqual([]);
  });

  it('a source removed by someone once renamed away: the moved file is the memory, kept', async () => {
    const files = new NodeFileStore(vault, { afterTake: (taken) => rmSync(taken) });
    const version = await files.moveRewriting(rel, to, await tagOf(files), 'new text\n');
    expect([version, read(vault, to), existsSync(path.join(vault, rel)), temps()]).toEqual([(await files.readVersioned(to))!.version, 'new text\n', false, []]);
  });

  it('a save that lands after the rename is put back; with the name taken meanwhile, kept beside as a conflict copy', async () => {
    // the save reaches the renamed file (opened before the rename); nothing new at the name
    let files = new NodeFileStore(vault, { afterTake: (taken) => writeFileSync(taken, 'their save\n') });
    expect(await files.moveRewriting(rel, to, await tagOf(files), 'new text\n')).toBeNull();
    expect([read(vault, rel), existsSync(path.join(vault, to)), temps()]).toEqual(['their save\n', false, []]);
    // and a new file was made at the name too: both kept
    utimesSync(path.join(vault, rel), OLD, OLD);
    files = new NodeFileStore(vault, {
      afterTake: (taken) => {
        writeFileSync(taken, 'their second save\n');
        writeFileSync(path.join(vault, rel), 'a new file\n');
      },
    });
    expect(await files.moveRewriting(rel, to, await tagOf(files), 'new text\n')).toBeNull();
    expect(read(vault, rel)).toBe('a new file\n');
    expect(list(vault, 'episodic').filter((n) => n !== `${IDS[0]}.md` && n !== `${IDS[1]}.md`).map((n) => read(vault, `episodic/${n}`))).toEqual(['their second save\n']);
    expect([existsSync(path.join(vault, to)), temps()]).toEqual([false, []]);
  });
});
