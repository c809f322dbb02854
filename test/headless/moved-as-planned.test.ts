import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { consolidate } from '../../src/core/consolidation/consolidate';
import { MEMORY_CACHE_PATH, MemoryCache } from '../../src/core/memory-cache';
import type { FileVersion } from '../../src/core/ports';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { at } from '../helpers/memory-ports';
import { initVault } from '../helpers/cli';
import { WritingStore } from '../helpers/counting-store';

/*
 * A consolidation's moves to archive/ without reading the file again (movedAsPlanned): the file
 * still the version read to plan is moved as it is, or rewritten with its new tier in the move;
 * anything else (a store without the calls it needs, a file changed or touched since, a name
 * taken at the target, a failing store) goes to moveOne, which decides from the files, or is
 * reported. Each case pins which files are read and written, and where each memory ends.
 *
 * StrykerJS's survivors of movedAsPlanned / sameVersionText that no test can kill (each applied
 * by hand: every test here and in memory-cache, consolidate*, passes):
 * - `known.memory.path !== move.from` and `known.memory.last_accessed_at !== move.seen` as false:
 *   the Known and the plan's move come from the same Memory of one load (knownMemories and
 *   buildPlan over the same `memories`, whose ids are distinct; the resumed run passes no Known),
 *   so both are always false there.
 * - `known.memory.tier !== tier.to` as true: a tier entry exists only for a tier that changes
 *   (buildPlan), and with an equal tier tieredText would give null (the text unchanged) anyway.
 * - `source !== null` as true: tieredText of a null text throws in setFrontmatterFields, which
 *   its catch turns into null: the same plain move.
 * - readVersioned's `.catch(() => null)` as `() => undefined`: `!got?.version` is true for both.
 */

const NOW = '2026-11-30T00:00:00Z';
/** Before the ancient memories are weak enough to prune. */
const EARLY = '2026-07-02T10:00:00Z';
const OLD = new Date('2026-01-01T00:00:00Z');
const LATER = new Date('2026-01-02T00:00:00Z');
const memory = (id: string, tier: string, body: string, accessed?: string) =>
  `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-07-01T10:00:00Z"\n${accessed ? `last_accessed_at: "${accessed}"\naccess_count: 1\n` : ''}tier: ${tier}\n---\n${body}\n`;
/** Archived with a new tier (cold -> archive): the move writes the tier. */
const RETIER = 'mem-retier000001';
/** Tier archive already (a person set it): no tier to write, a plain move. */
const PLAIN = 'mem-plain0000001';
const src = (id: string) => `episodic/${id}.md`;
const dst = (id: string) => `archive/${id}.md`;
const retierText = memory(RETIER, 'cold', 'Ancient memory one');
const plainText = memory(PLAIN, 'archive', 'Ancient memory two');

type Faults = {
  /** Before `unchanged` answers for this file, the first time it is asked (after the plan). */
  beforeUnchanged?: (rel: string) => void;
};

/** A file store that records the memory files read and written, with the faults given. */
class Store extends WritingStore {
  private readonly asked = new Set<string>();
  constructor(
    root: string,
    private readonly inject: Faults = {},
  ) {
    super(root);
  }
  override async unchanged(rel: string, tag: string): Promise<boolean> {
    if (!this.asked.has(rel)) {
      this.asked.add(rel);
      this.inject.beforeUnchanged?.(rel);
    }
    return super.unchanged(rel, tag);
  }
}

/** A store as one without these optional calls is (FileStore's `unchanged` and `moveRewriting` are optional). */
function without<T extends NodeFileStore>(store: T, ...calls: Array<'unchanged' | 'moveRewriting'>): T {
  for (const call of calls) Object.defineProperty(store, call, { value: undefined });
  return store;
}

describe('consolidation moves a memory without reading it again only when it is as planned', () => {
  let vault: string;
  let cleanup: () => void;
  const file = (rel: string) => path.join(vault, rel);
  const text = (rel: string) => readFileSync(file(rel), 'utf8');
  const folder = (name: string) => readdirSync(file(name)).sort();
  beforeEach(async () => {
    ({ vault, cleanup } = await initVault());
    writeFileSync(file(src(RETIER)), retierText);
    writeFileSync(file(src(PLAIN)), plainText);
    // written long ago (a file saved within the last half second is waited for, not trusted)
    for (const name of readdirSync(file('episodic'))) utimesSync(file(`episodic/${name}`), OLD, OLD);
  });
  afterEach(() => cleanup());

  const run = async (files: NodeFileStore, now = NOW) => {
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at(now) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, memoryCache: MemoryCache.load });
    return { steps: Object.fromEntries(report.steps.map((s) => [s.step, s.count])), skipped: report.skipped };
  };
  const rows = () => readFileSync(file(MEMORY_CACHE_PATH), 'utf8').trim().split('\n').slice(1).map((line) => (JSON.parse(line) as unknown[])[0]).sort();
  /** Both archived, each as the tier step would leave it, and nothing left in episodic/. */
  const bothArchived = () => {
    expect([folder('episodic'), folder('archive')]).toEqual([[], [`${PLAIN}.md`, `${RETIER}.md`]]);
    expect(text(dst(RETIER))).toBe(retierText.replace('tier: cold', 'tier: archive'));
    expect(text(dst(PLAIN))).toBe(plainText);
  };
  const steps = { prune: 2, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 1, log: 1 };

  it('as planned: each file read once (to plan), moved without a write, or rewritten with its tier in the move', async () => {
    const files = new Store(vault);
    expect(await run(files)).toEqual({ steps, skipped: [] });
    bothArchived();
    expect(files.reads.sort()).toEqual([src(PLAIN), src(RETIER)]);
    expect(files.writes).toEqual([]);
    // the rows follow the moves: a next run reads no memory file
    expect(rows()).toEqual([dst(PLAIN), dst(RETIER)]);
    const next = new Store(vault);
    expect((await run(next, '2026-12-01T00:00:00Z')).skipped).toEqual([]);
    expect(next.reads).toEqual([]);
  });

  it('a store that cannot rewrite in a move: both moved plainly, the tier written by the tier step (no read by moveOne)', async () => {
    const files = without(new Store(vault), 'moveRewriting');
    expect(await run(files)).toEqual({ steps, skipped: [] });
    bothArchived();
    // each read once, to plan: the tier step writes RETIER from the text read then (a compare and swap)
    expect(files.reads.sort()).toEqual([src(PLAIN), src(RETIER)]);
    expect(files.writes).toEqual([dst(RETIER)]);
  });

  it('a store that cannot tell versions apart (no unchanged): every move made by moveOne, from the files', async () => {
    const files = without(new Store(vault), 'unchanged', 'moveRewriting');
    expect(await run(files)).toEqual({ steps, skipped: [] });
    bothArchived();
  });

  it('a file read without a version (not quiet when read): moved by moveOne, which reads it again', async () => {
    const files = new (class extends Store {
      override async readVersioned(rel: string): Promise<{ bytes: Uint8Array; version: FileVersion | null } | null> {
        const got = await super.readVersioned(rel);
        return got && rel === src(PLAIN) ? { bytes: got.bytes, version: null } : got;
      }
    })(vault);
    expect(await run(files)).toEqual({ steps, skipped: [] });
    bothArchived();
    // PLAIN: to plan, by the id index (no version: its id is read again), then moveOne's source and target
    expect(files.reads.filter((r) => r.includes('plain'))).toEqual([src(PLAIN), src(PLAIN), src(PLAIN), dst(PLAIN)]);
  });

  it('a memory touched between the plan and its plain move stays where it is (moveOne reads the touch)', async () => {
    const touched = memory(PLAIN, 'archive', 'Ancient memory two', '2026-11-29T23:00:00Z');
    const files = new Store(vault, {
      beforeUnchanged: (rel) => {
        if (rel !== src(PLAIN)) return;
        writeFileSync(file(rel), touched);
        utimesSync(file(rel), LATER, LATER);
      },
    });
    expect(await run(files)).toEqual({ steps, skipped: [] });
    expect([folder('episodic'), folder('archive')]).toEqual([[`${PLAIN}.md`], [`${RETIER}.md`]]);
    expect(text(src(PLAIN))).toBe(touched);
    // moveOne read it (source, then target) and left it; its row stays at its path (of the
    // version read to plan: the next run reads the file again), none at the target
    expect(files.reads).toEqual([src(PLAIN), src(RETIER), src(PLAIN), dst(PLAIN)]);
    expect(rows()).toEqual([dst(RETIER), src(PLAIN)]);
  });

  it('a body edited between the plan and the move that rewrites: moveOne moves the file as it is, the tier step writes its tier', async () => {
    const edited = retierText.replace('Ancient memory one', 'Ancient memory one, edited');
    const files = new Store(vault, {
      beforeUnchanged: (rel) => {
        if (rel !== src(RETIER)) return;
        writeFileSync(file(rel), edited);
        utimesSync(file(rel), LATER, LATER);
      },
    });
    expect(await run(files)).toEqual({ steps, skipped: [] });
    expect([folder('episodic'), folder('archive')]).toEqual([[], [`${PLAIN}.md`, `${RETIER}.md`]]);
    expect(text(dst(RETIER))).toBe(edited.replace('tier: cold', 'tier: archive'));
    expect(files.writes).toEqual([dst(RETIER)]);
  });

  it.each([
    ['rewritten in the move', RETIER],
    ['moved plainly', PLAIN],
  ])('a note taking the target name after the plan (%s): moveOne moves the memory beside it', async (_, id) => {
    const foreign = '---\nid: mem-foreign000001\ncategory: episodic\ncreated_at: "2026-11-29T10:00:00Z"\ntier: archive\n---\nA note of its own\n';
    const files = new Store(vault, {
      beforeUnchanged: (rel) => {
        if (rel === src(id)) writeFileSync(file(dst(id)), foreign);
      },
    });
    const got = await run(files);
    expect(got.skipped).toEqual([]);
    expect(got.steps.prune).toBe(2);
    expect(folder('episodic')).toEqual([]);
    const other = id === RETIER ? PLAIN : RETIER;
    expect(folder('archive')).toEqual([`${id} 2.md`, `${id}.md`, `${other}.md`].sort());
    expect(text(dst(id))).toBe(foreign);
    expect(text(`archive/${id} 2.md`)).toBe((id === RETIER ? retierText : plainText).replace('tier: cold', 'tier: archive'));
  });

  it('a store failing in a move (not a name taken): the memory is reported and stays, as no move was made', async () => {
    const failed = new Set<string>();
    const files = new (class extends Store {
      override async moveRewriting(from: string, to: string, tag: string, data: string): Promise<FileVersion | null> {
        if (!failed.has(from)) {
          failed.add(from);
          throw new Error('disk failed (rewriting)');
        }
        return super.moveRewriting(from, to, tag, data);
      }
      override async move(from: string, to: string): Promise<void> {
        if (!failed.has(from)) {
          failed.add(from);
          throw new Error('disk failed (moving)');
        }
        return super.move(from, to);
      }
    })(vault);
    const got = await run(files);
    expect(got.skipped).toEqual([
      { step: 'prune', path: src(PLAIN), reason: 'disk failed (moving)' },
      { step: 'prune', path: src(RETIER), reason: 'disk failed (rewriting)' },
    ]);
    expect([folder('episodic'), folder('archive')]).toEqual([[`${PLAIN}.md`, `${RETIER}.md`], []]);
  });

  it('a memory from its row whose read gives another version (its frontmatter changed, the same body): archived from the file, not that read', async () => {
    expect((await run(new Store(vault), EARLY)).steps.prune).toBe(0);
    const files = new (class extends Store {
      override async readVersioned(rel: string): Promise<{ bytes: Uint8Array; version: FileVersion | null } | null> {
        const got = await super.readVersioned(rel);
        if (rel !== src(RETIER) || !got?.version) return got;
        return { bytes: new TextEncoder().encode(retierText.replace('tier: cold\n', 'tier: cold\ntags: ["read"]\n')), version: { ...got.version, tag: `${got.version.tag}x` } };
      }
    })(vault);
    expect(await run(files)).toEqual({ steps, skipped: [] });
    bothArchived();
    // moved as it is, its tier written by the tier step
    expect(files.writes).toEqual([dst(RETIER)]);
  });

  it('a memory from its row: read once, archived with its tier in the move', async () => {
    expect((await run(new Store(vault), EARLY)).steps.prune).toBe(0);
    const files = new Store(vault);
    expect(await run(files)).toEqual({ steps, skipped: [] });
    bothArchived();
    expect(files.reads).toEqual([src(RETIER)]);
    expect(files.writes).toEqual([]);
    expect(existsSync(file(MEMORY_CACHE_PATH))).toBe(true);
  });
});
