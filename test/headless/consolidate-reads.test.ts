import { existsSync, lstatSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { consolidate } from '../../src/core/consolidation/consolidate';
import { decodeSketches, SKETCH_CACHE_PATH } from '../../src/core/consolidation/sketch-cache';
import type { FileVersion } from '../../src/core/ports';
import { MemoryCache } from '../../src/core/memory-cache';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { at } from '../helpers/memory-ports';
import { initVault } from '../helpers/cli';

/*
 * A consolidation reads the vault once (issue 23): the plan, the moves to archive/ and the tier
 * writes work from what its loadAll read, and each move or write checks first that the file is
 * still the version read (FileStore.unchanged: one lstat), or compares it (compare-and-swap);
 * a file changed since is read again and decided on as it is now.
 */

const NOW = '2026-11-30T00:00:00Z';
const OLD = new Date('2026-01-01T00:00:00Z');
const memory = (id: string, created: string, tier: string, body: string) => `---\nid: ${id}\ncategory: episodic\ncreated_at: "${created}"\ntier: ${tier}\n---\n${body}\n`;
const PRUNED = ['mem-prune0000001', 'mem-prune0000002', 'mem-prune0000003'];
const RECENT = ['mem-recent000001', 'mem-recent000002'];

/** A file store that records which files are read, and how. */
class CountingStore extends NodeFileStore {
  readonly reads: string[] = [];
  override async read(rel: string, options: { stable?: boolean } = {}): Promise<Uint8Array | null> {
    this.reads.push(`${options.stable ? 'stable' : 'read'} ${rel}`);
    return super.read(rel, options);
  }
  override async readVersioned(rel: string): Promise<{ bytes: Uint8Array; version: FileVersion | null } | null> {
    this.reads.push(`versioned ${rel}`);
    return super.readVersioned(rel);
  }
  readonly writes: string[] = [];
  override async write(rel: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<FileVersion> {
    this.writes.push(rel);
    return super.write(rel, data, options);
  }
}

describe('consolidation reads each memory once', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => {
    ({ vault, cleanup } = await initVault());
    // 150 days old: pruned; 15 days old: active -> warm (episodic half-life 7 days, warm 8-21)
    for (const id of PRUNED) writeFileSync(path.join(vault, 'episodic', `${id}.md`), memory(id, '2026-07-01T10:00:00Z', 'cold', `Ancient memory ${id}`));
    for (const id of RECENT) writeFileSync(path.join(vault, 'episodic', `${id}.md`), memory(id, '2026-11-15T10:00:00Z', 'active', `Recent memory ${id}`));
    // written long ago (a file saved within the last half second is waited for, not trusted)
    for (const id of [...PRUNED, ...RECENT]) utimesSync(path.join(vault, 'episodic', `${id}.md`), OLD, OLD);
  });
  afterEach(() => cleanup());

  const run = async (files: NodeFileStore, checkpoint?: (point: string) => void) => {
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at(NOW) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, ...(checkpoint ? { checkpoint } : {}) });
    return Object.fromEntries(report.steps.map((s) => [s.step, s.count]));
  };
  const text = (folder: string, id: string) => readFileSync(path.join(vault, folder, `${id}.md`), 'utf8');

  it('reads each memory file once, moves what it prunes and writes the tiers', async () => {
    const files = new CountingStore(vault);
    expect(await run(files)).toEqual({ prune: 3, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 5, log: 1 });
    expect(files.reads.filter((r) => r.endsWith('.md')).sort()).toEqual([...PRUNED, ...RECENT].map((id) => `versioned episodic/${id}.md`).sort());
    // the id index's rows (learned at the load, moved with the files) are written once, after the moves
    expect(files.writes.filter((w) => w.startsWith('.engram/'))).toEqual(['.engram/cache/clusters.json', '.engram/consolidation-plan.json', '.engram/cache/ids.json', '.engram/runs.jsonl']);
    expect(JSON.parse(readFileSync(path.join(vault, '.engram', 'cache', 'ids.json'), 'utf8')).rows.map((r: unknown[]) => [r[0], r[3]])).toEqual(
      [...RECENT.map((id) => [`episodic/${id}.md`, id]), ...PRUNED.map((id) => [`archive/${id}.md`, id])],
    );
    expect(readdirSync(path.join(vault, 'archive')).sort()).toEqual(PRUNED.map((id) => `${id}.md`));
    for (const id of PRUNED) expect(text('archive', id)).toBe(memory(id, '2026-07-01T10:00:00Z', 'archive', `Ancient memory ${id}`));
    for (const id of RECENT) expect(text('episodic', id)).toBe(memory(id, '2026-11-15T10:00:00Z', 'warm', `Recent memory ${id}`));
  });

  it('sweeps the temp files killed writers left in the memory folders from the listing its load read, and lists the other folders', async () => {
    // dead (a process that no longer runs, two minutes old) and fresh; a note-like dot file and a dot folder are looked at and passed
    const dead = '.mem-prune0000001.md.4194305.1.tmp';
    const fresh = '.mem-prune0000002.md.4194305.2.tmp';
    for (const name of [dead, fresh, '.dotted.md']) writeFileSync(path.join(vault, 'episodic', name), 'partial');
    mkdirSync(path.join(vault, 'episodic', '.obsidian'));
    const deadInDaily = path.join(vault, 'daily', '.2026-11-01.md.4194305.3.tmp');
    writeFileSync(deadInDaily, 'partial');
    // at depth: a person's sub-folder of a memory folder, a memory's versions, a forgotten memory's folder
    const deep = [path.join('episodic', 'ops', '.Ops note.md.4194305.6.tmp'), path.join('.engram', 'versions', 'mem-aaaaaaaaaaaa', '.3.json.4194305.7.tmp'), path.join('.engram', 'forgotten', 'episodic', '.Gone.md.4194305.8.tmp')].map((rel) => path.join(vault, rel));
    for (const f of deep) {
      mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(f, 'partial');
    }
    for (const f of [path.join(vault, 'episodic', dead), deadInDaily, ...deep]) utimesSync(f, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    const sweeps: string[] = [];
    class SweepStore extends CountingStore {
      override async sweepTemp(rel: string, names?: string[]): Promise<string[]> {
        sweeps.push(`${rel} ${names ? `given ${JSON.stringify([...names].sort())}` : 'listed'}`);
        return super.sweepTemp(rel, names);
      }
    }
    const files = new SweepStore(vault);
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at(NOW) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    // a dry run changes nothing: no sweep, the dead temp files stay
    const dry = await consolidate(v, { dryRun: true, holder: 'test', elapsed: () => 0, memoryCache: MemoryCache.load });
    expect([dry.temp_removed, sweeps, existsSync(path.join(vault, 'episodic', dead)), existsSync(deadInDaily), deep.map((f) => existsSync(f))]).toEqual([0, [], true, true, [true, true, true]]);
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, memoryCache: MemoryCache.load });
    expect(report.temp_removed).toBe(5);
    expect(sweeps).toEqual([
      `episodic given ${JSON.stringify([dead, fresh, '.dotted.md'].sort())}`,
      'semantic given []',
      'decisions given []',
      'archive given []',
      'daily listed',
      'conflicts listed',
      '.engram listed',
      '.engram/locks listed',
      '.engram/cache listed',
      '. listed',
      // the sub-folder from the load's listing; the versions' and forgotten memories' folders listed
      `episodic/ops given ${JSON.stringify(['.Ops note.md.4194305.6.tmp'])}`,
      'review listed',
      '.engram/versions listed',
      '.engram/versions/mem-aaaaaaaaaaaa listed',
      '.engram/forgotten listed',
      '.engram/forgotten/episodic listed',
      '.engram/merged listed',
      '.engram/sync-copies listed',
    ]);
    expect(deep.map((f) => existsSync(f))).toEqual([false, false, false]);
    expect([dead, fresh, '.dotted.md', '.obsidian'].map((name) => existsSync(path.join(vault, 'episodic', name)))).toEqual([false, true, true, true]);
    expect(existsSync(deadInDaily)).toBe(false);
    // the store sweeps the names it is given, without listing the folder
    const left = path.join(vault, 'episodic', '.mem-recent000002.md.4194305.5.tmp');
    writeFileSync(left, 'partial');
    utimesSync(left, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    expect([await new NodeFileStore(vault).sweepTemp('episodic', [fresh]), existsSync(left)]).toEqual([[], true]);
    expect([await new NodeFileStore(vault).sweepTemp('episodic'), existsSync(left)]).toEqual([[path.basename(left)], false]);
    // the next night, with the memory cache's rows (the load's listing with stats): the same
    const later = path.join(vault, 'episodic', '.mem-recent000001.md.4194305.4.tmp');
    writeFileSync(later, 'partial');
    utimesSync(later, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    sweeps.length = 0;
    const next = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, memoryCache: MemoryCache.load });
    expect([next.temp_removed, sweeps[0], existsSync(later)]).toEqual([1, `episodic given ${JSON.stringify([path.basename(later), fresh, '.dotted.md'].sort())}`, false]);
  });

  it('a folder whose sweep fails (unreadable, gone) leaves the rest swept: the consolidation counts what was removed and goes on', async () => {
    const daily = path.join(vault, 'daily', '.2026-11-01.md.4194305.3.tmp');
    const conflicts = path.join(vault, 'conflicts', '.one.md.4194305.4.tmp');
    for (const f of [daily, conflicts]) {
      writeFileSync(f, 'partial');
      utimesSync(f, OLD, OLD);
    }
    class FailingSweep extends CountingStore {
      override async sweepTemp(rel: string, names?: string[]): Promise<string[]> {
        if (rel === 'daily') throw Object.assign(new Error(`EACCES: permission denied, scandir '${rel}'`), { code: 'EACCES' });
        return super.sweepTemp(rel, names);
      }
    }
    const v = new Vault({ files: new FailingSweep(vault), locks: new NodeLocks(vault), clock: { now: () => at(NOW) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, memoryCache: MemoryCache.load });
    expect([report.temp_removed, existsSync(daily), existsSync(conflicts)]).toEqual([1, true, false]);
  });

  it('a memory brought back from archive/ and strengthened is read once: the strengthen step writes the copy the move kept', async () => {
    // archived in July, used last night: revived to episodic/, then strengthened (used since it was made)
    const id = 'mem-revive000001';
    const archived = memory(id, '2026-07-01T10:00:00Z', 'cold', `Revived memory ${id}`).replace('tier: cold\n', 'tier: cold\nlast_accessed_at: "2026-11-29T10:00:00Z"\n');
    writeFileSync(path.join(vault, 'archive', `${id}.md`), archived);
    utimesSync(path.join(vault, 'archive', `${id}.md`), OLD, OLD);
    const files = new CountingStore(vault);
    expect(await run(files)).toEqual({ prune: 3, git: 0, embed: 0, cluster: 0, strengthen: 1, conflicts: 0, tiers: 5, log: 1 });
    expect(files.reads.filter((r) => r.endsWith('.md')).sort()).toEqual([...[...PRUNED, ...RECENT].map((i) => `versioned episodic/${i}.md`), `versioned archive/${id}.md`].sort());
    expect(readdirSync(path.join(vault, 'archive')).sort()).toEqual(PRUNED.map((i) => `${i}.md`));
    expect(text('episodic', id)).toBe(archived.replace('---\nRevived', 'half_life_days: 9\nstrengthened_at: "2026-11-30T00:00:00Z"\n---\nRevived'));
  });

  it('a pruned memory a later step writes (a conflict\'s loser) is moved without its tier, which the tier step writes after the loser\'s', async () => {
    // no tier in its file: each write adds its field at the end, in the order the steps run
    const loser = 'mem-loser0000001';
    const untiered = memory(loser, '2026-07-01T10:00:00Z', 'cold', `Ancient memory ${loser}`).replace('tier: cold\n', '');
    writeFileSync(path.join(vault, 'episodic', `${loser}.md`), untiered);
    utimesSync(path.join(vault, 'episodic', `${loser}.md`), OLD, OLD);
    writeFileSync(path.join(vault, 'conflicts', 'one.md'), `---\nid: conflict-one\nstatus: resolved\nsides: [${loser}, ${RECENT[0]}]\nwinner: ${RECENT[0]}\n---\n# Conflict\n`);
    const files = new CountingStore(vault);
    expect(await run(files)).toEqual({ prune: 4, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 1, tiers: 6, log: 1 });
    expect(text('archive', loser)).toBe(untiered.replace('---\nAncient', 'confidence: stale\ntier: archive\n---\nAncient'));
    // the loser's file written twice after its move (its confidence, then its tier), each pruned memory read once
    expect(files.writes.filter((w) => w.endsWith('.md'))).toEqual([`archive/${loser}.md`, `archive/${loser}.md`, ...RECENT.map((i) => `episodic/${i}.md`)]);
  });

  it('a verified decision in archive/ with another tier is brought back, and the tier step (not the move) gives it the archive tier its strength implies', async () => {
    const id = 'mem-decision0001';
    const archived = memory(id, '2024-01-01T10:00:00Z', 'cold', `Decided long ago ${id}`).replace('category: episodic', 'category: decision\nconfidence: verified');
    writeFileSync(path.join(vault, 'archive', `${id}.md`), archived);
    utimesSync(path.join(vault, 'archive', `${id}.md`), OLD, OLD);
    const files = new CountingStore(vault);
    expect(await run(files)).toEqual({ prune: 3, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 6, log: 1 });
    expect(text('decisions', id)).toBe(archived.replace('tier: cold', 'tier: archive'));
    // a move back from archive/ carries no tier (applyMoves takes a tier for moves into archive/ only): the tier step writes it.
    // Carried, the file would be the same, written by the move instead (one write fewer, in this rare case)
    expect(files.writes.filter((w) => w.endsWith('.md'))).toEqual([...RECENT.map((i) => `episodic/${i}.md`), `decisions/${id}.md`]);
  });

  it('a memory saved in place after the plan was made stays where it is, as the person saved it', async () => {
    const touched = memory(PRUNED[0]!, '2026-07-01T10:00:00Z', 'cold', `Ancient memory ${PRUNED[0]}`).replace('tier: cold\n', 'tier: cold\nlast_accessed_at: "2026-11-29T10:00:00Z"\n');
    const counts = await run(new NodeFileStore(vault), (point) => {
      if (point === 'plan-written') writeFileSync(path.join(vault, 'episodic', `${PRUNED[0]}.md`), touched);
    });
    expect(counts.prune).toBe(3);
    expect(text('episodic', PRUNED[0]!)).toBe(touched);
    expect(readdirSync(path.join(vault, 'archive')).sort()).toEqual(PRUNED.slice(1).map((id) => `${id}.md`));
  });

  it('a memory replaced by another program after the moves gets its tier on the file as it is now', async () => {
    const file = path.join(vault, 'episodic', `${RECENT[0]}.md`);
    const theirs = `${memory(RECENT[0]!, '2026-11-15T10:00:00Z', 'active', `Recent memory ${RECENT[0]}`)}A line of theirs.\n`;
    await run(new NodeFileStore(vault), (point) => {
      if (point !== 'pruned') return;
      // an editor's save: a new file renamed over the note
      writeFileSync(`${file}.new`, theirs);
      utimesSync(`${file}.new`, OLD, OLD);
      renameSync(`${file}.new`, file);
    });
    expect(text('episodic', RECENT[0]!)).toBe(theirs.replace('tier: active', 'tier: warm'));
    expect(text('episodic', RECENT[1]!)).toBe(memory(RECENT[1]!, '2026-11-15T10:00:00Z', 'warm', `Recent memory ${RECENT[1]}`));
  });
});

describe('new patterns are written without a look-up of their ids', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => ({ vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  /** A file store that counts the listings of episodic/ (each look-up of an id no row holds lists every memory folder). */
  class ListingStore extends NodeFileStore {
    listings = 0;
    override async listStats(rel: string): Promise<Array<import('../../src/core/ports').FileStat & { name: string }>> {
      if (rel === 'episodic') this.listings++;
      return super.listStats(rel);
    }
  }
  const GROUPS = ['the session expiry test flaked on CI because its timeout is too short', 'the ledger refund webhook retried twice and posted a duplicate entry', 'the cache warmer job crashed at midnight when redis was restarting'];
  const episode = (id: string, text: string, created: string) =>
    `---\nid: ${id}\ncategory: episodic\ncreated_at: "${created}"\nlast_accessed_at: "${created}"\ntier: active\n---\n${text}\n`;

  it('three new patterns: the vault is listed as often as for none, and each is written once, as a run that looks each up writes it', async () => {
    const ids: string[] = [];
    GROUPS.forEach((text, g) => {
      for (let k = 0; k < 3; k++) {
        const id = `mem-grp${g}ep${k}000000`.slice(0, 16);
        ids.push(id);
        const words = text.split(' ');
        // each copy with one word left out: similar, not identical
        writeFileSync(path.join(vault, 'episodic', `${id}.md`), episode(id, `${words.filter((_, w) => w !== k + 1).join(' ')}.`, `2026-11-2${k + 1}T10:00:00Z`));
      }
    });
    for (const id of ids) utimesSync(path.join(vault, 'episodic', `${id}.md`), OLD, OLD);
    const runWith = async (files: NodeFileStore) => {
      const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at(NOW) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
      const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0 });
      return report.steps.find((s) => s.step === 'cluster')!;
    };
    const files = new ListingStore(vault);
    const cluster = await runWith(files);
    expect([cluster.count, cluster.note]).toEqual([3, '3 new semantic, 0 reinforced (lexical similarity)']);
    const semantic = readdirSync(path.join(vault, 'semantic')).sort();
    expect(semantic).toHaveLength(3);
    // the load scans each folder (no listStats); a look-up of each new pattern's id listed them all again (3)
    expect(files.listings).toBe(0);
    // a second run finds each pattern (reinforces none: nothing new) and writes no other
    const again = await runWith(new ListingStore(vault));
    expect([again.count, readdirSync(path.join(vault, 'semantic')).sort()]).toEqual([0, semantic]);
  });

  it('with an embedder, the new patterns are embedded the same night without listing the vault: the id index is told the files it writes', async () => {
    const ids: string[] = [];
    GROUPS.forEach((text, g) => {
      for (let k = 0; k < 3; k++) {
        const id = `mem-grp${g}ep${k}000000`.slice(0, 16);
        ids.push(id);
        writeFileSync(path.join(vault, 'episodic', `${id}.md`), episode(id, `${text} (copy ${k}).`, `2026-11-2${k + 1}T10:00:00Z`));
      }
    });
    for (const id of ids) utimesSync(path.join(vault, 'episodic', `${id}.md`), OLD, OLD);
    // one direction per group (its text before " (copy"), the patterns another each: unit vectors
    const embedder = {
      model: 'test-groups',
      async embed(texts: string[]): Promise<Float32Array[]> {
        return texts.map((t) => {
          const v = new Float32Array(8);
          const g = GROUPS.findIndex((text) => t.startsWith(text));
          v[g >= 0 ? g : 3 + (t.length % 5)] = 1;
          return v;
        });
      },
    };
    const files = new ListingStore(vault);
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at(NOW) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, embedder });
    const steps = Object.fromEntries(report.steps.map((s) => [s.step, [s.count, s.total]]));
    // 9 episodes embedded before the clusters, the 3 patterns after them (12 vectors in all)
    expect([steps.cluster![0], steps.embed]).toEqual([3, [12, 12]]);
    // each pattern's look-up after it was written found it by its row (a refresh listed them all: 1)
    expect(files.listings).toBe(0);
    const semantic = readdirSync(path.join(vault, 'semantic')).sort();
    expect(semantic).toHaveLength(3);
    const rows = JSON.parse(readFileSync(path.join(vault, '.engram', 'cache', 'ids.json'), 'utf8')).rows as Array<[string, number, number, string]>;
    for (const name of semantic) {
      const row = rows.find((r) => r[0] === `semantic/${name}`)!;
      const stat = statSync(path.join(vault, 'semantic', name));
      expect([row[1], row[2], row[3]]).toEqual([stat.size, stat.mtimeMs, readFileSync(path.join(vault, 'semantic', name), 'utf8').match(/^id: (.*)$/m)![1]]);
    }
    // the 9 episodes' sketches, kept for the next night
    const sketches = decodeSketches(readFileSync(path.join(vault, SKETCH_CACHE_PATH)))!;
    expect([sketches.dimensions, sketches.sketches.length]).toEqual([8, 18]);
  });
});

describe('NodeFileStore.readVersioned and unchanged', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => ({ vault, cleanup } = await initVault()));
  afterEach(() => cleanup());
  const note = (name: string) => path.join(vault, 'episodic', name);

  it('a version says the size and mtime a plain stat says, and outlives a move (link, unlink), not a write', async () => {
    const files = new NodeFileStore(vault);
    writeFileSync(note('a.md'), 'Some words.\n');
    // a time with nanoseconds: the version's mtimeMs is what fs.statSync computes from them
    utimesSync(note('a.md'), OLD, OLD.getTime() / 1000 + 0.123456789);
    const got = (await files.readVersioned('episodic/a.md'))!;
    expect(Buffer.from(got.bytes).toString()).toBe('Some words.\n');
    const stat = statSync(note('a.md'));
    expect([got.version!.size, got.version!.mtimeMs]).toEqual([stat.size, stat.mtimeMs]);
    expect(await files.unchanged('episodic/a.md', got.version!.tag)).toBe(true);
    linkSync(note('a.md'), path.join(vault, 'archive', 'a.md'));
    unlinkSync(note('a.md'));
    expect(await files.unchanged('archive/a.md', got.version!.tag)).toBe(true);
    expect(await files.unchanged('episodic/a.md', got.version!.tag)).toBe(false);
    // written in place (same size), or replaced by a rename: another version
    writeFileSync(path.join(vault, 'archive', 'a.md'), 'Some sword.\n');
    utimesSync(path.join(vault, 'archive', 'a.md'), OLD, OLD);
    // (a write of the same size that left the very same mtime would not be seen: the limit the
    // compare-and-swap's stable read has too)
    expect(await files.unchanged('archive/a.md', got.version!.tag)).toBe(false);
    const again = (await files.readVersioned('archive/a.md'))!;
    await files.write('archive/a.md', 'Some sword.\n');
    expect(await files.unchanged('archive/a.md', again.version!.tag)).toBe(false);
  });

  it('no version for a file saved in place within the last half second, or empty; never a link\'s', async () => {
    const files = new NodeFileStore(vault);
    // a file born a while ago (init's STATE.md: a file created and written within one tick of
    // the file system's clock is no save in place), saved in place by an editor: truncate and
    // write (mtime == ctime, after the file's birth)
    renameSync(path.join(vault, 'STATE.md'), note('a.md'));
    writeFileSync(note('a.md'), 'Other words.\n');
    expect((await files.readVersioned('episodic/a.md'))!.version).toBeNull();
    writeFileSync(note('b.md'), '');
    utimesSync(note('b.md'), OLD, OLD);
    expect((await files.readVersioned('episodic/b.md'))!.version).toBeNull();
    writeFileSync(note('c.md'), 'Words.\n');
    utimesSync(note('c.md'), OLD, OLD);
    const version = (await files.readVersioned('episodic/c.md'))!.version!;
    symlinkSync(note('c.md'), note('d.md'));
    expect(lstatSync(note('d.md')).isSymbolicLink()).toBe(true);
    expect(await files.unchanged('episodic/d.md', version.tag)).toBe(false);
    expect(await files.unchanged('episodic/gone.md', version.tag)).toBe(false);
  });
});
