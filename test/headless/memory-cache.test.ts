import { readFileSync, readdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { consolidate } from '../../src/core/consolidation/consolidate';
import { MEMORY_CACHE_PATH, MEMORY_PARSE_VERSION, MemoryCache } from '../../src/core/memory-cache';
import { parseMemory } from '../../src/core/memory';
import type { FileVersion } from '../../src/core/ports';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { at } from '../helpers/memory-ports';
import { initVault } from '../helpers/cli';
import { CountingStore, WritingStore } from '../helpers/counting-store';

/*
 * The memory cache (issue 23): a consolidation takes each memory file unchanged since the last
 * run (same size and mtime) from its row in .engram/cache/memories.jsonl instead of reading and
 * parsing it; a file changed since, by anyone, is read again and decided on as it is now.
 */

const NOW = '2026-11-30T00:00:00Z';
const NEXT = '2026-12-01T00:00:00Z';
/** Before the ancient memories are weak enough to prune (a day after they were made). */
const EARLY = '2026-07-02T10:00:00Z';
const OLD = new Date('2026-01-01T00:00:00Z');
const memory = (id: string, created: string, tier: string, body: string) => `---\nid: ${id}\ncategory: episodic\ncreated_at: "${created}"\ntier: ${tier}\n---\n${body}\n`;
const PRUNED = ['mem-prune0000001', 'mem-prune0000002'];
const RECENT = ['mem-recent000001', 'mem-recent000002'];
/** 150 days old, kept by its tier: untouched by a run. */
const KEPT = 'mem-kept00000001';
/** Links to KEPT by its file name and records the id (link_ids): untouched by a run. */
const LINKER = 'mem-linker000001';

describe('consolidation takes unchanged memories from the memory cache', () => {
  let vault: string;
  let cleanup: () => void;
  const file = (rel: string) => path.join(vault, rel);
  beforeEach(async () => {
    ({ vault, cleanup } = await initVault());
    for (const id of PRUNED) writeFileSync(file(`episodic/${id}.md`), memory(id, '2026-07-01T10:00:00Z', 'cold', `Ancient memory ${id}`));
    for (const id of RECENT) writeFileSync(file(`episodic/${id}.md`), memory(id, '2026-11-15T10:00:00Z', 'active', `Recent memory ${id}`));
    writeFileSync(file(`episodic/${KEPT}.md`), memory(KEPT, '2026-07-01T10:00:00Z', 'core', 'The kept memory'));
    writeFileSync(file(`episodic/${LINKER}.md`), memory(LINKER, '2026-07-01T10:00:00Z', 'core', `Links to [[${KEPT}]]`).replace('tier: core\n', `tier: core\nlink_ids: ["related ${KEPT}"]\n`));
    // written long ago (a file saved within the last half second is waited for, not trusted)
    for (const name of readdirSync(file('episodic'))) utimesSync(file(`episodic/${name}`), OLD, OLD);
  });
  afterEach(() => cleanup());

  const run = async (files: NodeFileStore, now = NOW) => {
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at(now) }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, memoryCache: MemoryCache.load });
    return Object.fromEntries(report.steps.map((s) => [s.step, s.count]));
  };
  const rows = () => readFileSync(file(MEMORY_CACHE_PATH), 'utf8').trim().split('\n').slice(1).map((line) => (JSON.parse(line) as unknown[])[0]).sort();

  it('a second run reads only the files written since; its rows follow the moves', async () => {
    expect(await run(new NodeFileStore(vault))).toEqual({ prune: 2, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 4, log: 1 });
    // every memory's row, the pruned ones where they went
    expect(rows()).toEqual([...PRUNED.map((id) => `archive/${id}.md`), ...[KEPT, LINKER, ...RECENT].map((id) => `episodic/${id}.md`)].sort());
    // the files the run wrote (tiers: warm, archive) have the rows of what it wrote: each gives
    // back exactly what a read of the file now gives (parseMemory of its text, its version)
    const settings = resolveSettings(undefined);
    const v = new Vault({ files: new NodeFileStore(vault), locks: new NodeLocks(vault), clock: { now: () => at(NEXT) }, random: Math.random, tokens: { count: () => 0 } }, settings);
    const cache = await MemoryCache.load(v);
    cache.begin();
    const written = [...PRUNED.map((id) => `archive/${id}.md`), ...RECENT.map((id) => `episodic/${id}.md`)];
    for (const rel of written) {
      const read = (await new NodeFileStore(vault).readVersioned(rel))!;
      const row = cache.get(rel, read.version!.size, read.version!.mtimeMs)!;
      expect([JSON.stringify(row.memory), row.version, row.id]).toEqual([JSON.stringify(parseMemory(rel, readFileSync(file(rel), 'utf8'), settings)), read.version, row.memory.id]);
      expect(row.memory.tier).toBe(rel.startsWith('archive/') ? 'archive' : 'warm');
    }
    const files = new CountingStore(vault);
    expect(await run(files, NEXT)).toEqual({ prune: 0, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 0, log: 1 });
    // so the next run reads no memory file
    expect(files.reads).toEqual([]);
  });

  it('a file a person edited since is read again, even at the same size: the plan follows the edit', async () => {
    await run(new NodeFileStore(vault));
    const kept = file(`episodic/${KEPT}.md`);
    const before = readFileSync(kept, 'utf8');
    // core -> cold: the same number of bytes, another mtime (as any save gives)
    writeFileSync(kept, before.replace('tier: core\n', 'tier: cold\n'));
    const later = new Date(OLD.getTime() + 86_400_000);
    utimesSync(kept, later, later);
    expect(statSync(kept).size).toBe(before.length);
    const files = new CountingStore(vault);
    expect((await run(files, NEXT)).prune).toBe(1);
    expect(files.reads).toContain(`episodic/${KEPT}.md`);
    expect(readFileSync(file(`archive/${KEPT}.md`), 'utf8')).toBe(before.replace('tier: core\n', 'tier: archive\n'));
  });

  it('a memory renamed outside Obsidian: the links of a memory taken from its row are repaired, reading only that note', async () => {
    await run(new NodeFileStore(vault));
    renameSync(file(`episodic/${KEPT}.md`), file('episodic/The kept memory.md'));
    const files = new CountingStore(vault);
    expect((await run(files, NEXT)).links).toBe(1);
    expect(readFileSync(file(`episodic/${LINKER}.md`), 'utf8')).toContain('Links to [[The kept memory]]');
    // the renamed file has no row at its path: read; the linker, from its row, is read to be
    // repaired (once to plan, twice under its lock); the vault is read again after the repair
    // (as without rows: a step that wrote has the plan made from the files as they are now)
    expect(files.reads.filter((r) => r.includes('kept') || r.includes('linker')).sort()).toEqual([...Array(2).fill('episodic/The kept memory.md'), ...Array(4).fill(`episodic/${LINKER}.md`)].sort());
  });

  it('a memory archived from its row with another tier: its file read once, the tier written in the move', async () => {
    // a run before anything is weak enough to prune: rows for every file, none changed
    expect(await run(new NodeFileStore(vault), EARLY)).toEqual({ prune: 0, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 0, log: 1 });
    expect(rows().length).toBe(6);
    const files = new WritingStore(vault);
    expect(await run(files)).toEqual({ prune: 2, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 4, log: 1 });
    for (const id of PRUNED) expect(readFileSync(file(`archive/${id}.md`), 'utf8')).toBe(memory(id, '2026-07-01T10:00:00Z', 'archive', `Ancient memory ${id}`));
    // each read once (the tier step read it again, then wrote it), and never written after the move
    expect(files.reads.filter((r) => r.includes('prune')).sort()).toEqual(PRUNED.map((id) => `episodic/${id}.md`));
    expect(files.writes.filter((w) => w.includes('prune'))).toEqual([]);
  });

  it('without rows (a first run) the file read to plan is the one the move rewrites: read once', async () => {
    const files = new WritingStore(vault);
    expect((await run(files)).prune).toBe(2);
    expect(files.reads.filter((r) => r.includes('prune')).sort()).toEqual(PRUNED.map((id) => `episodic/${id}.md`));
    expect(files.writes.filter((w) => w.includes('prune'))).toEqual([]);
  });

  it('without rows, a memory moved as it is (a store without moveRewriting) gets its tier from the text read at the load: read once', async () => {
    const files = new WritingStore(vault);
    Object.defineProperty(files, 'moveRewriting', { value: undefined });
    expect(await run(files)).toEqual({ prune: 2, git: 0, embed: 0, cluster: 0, strengthen: 0, conflicts: 0, tiers: 4, log: 1 });
    for (const id of PRUNED) expect(readFileSync(file(`archive/${id}.md`), 'utf8')).toBe(memory(id, '2026-07-01T10:00:00Z', 'archive', `Ancient memory ${id}`));
    // moved plainly, then written by the tier step where the move put it, from the load's text
    expect(files.reads.filter((r) => r.includes('prune')).sort()).toEqual(PRUNED.map((id) => `episodic/${id}.md`));
    expect(files.writes.filter((w) => w.includes('prune')).sort()).toEqual(PRUNED.map((id) => `archive/${id}.md`));
  });

  it('a memory from its row whose read gives another version than the row\'s: archived from the file as it is, not from that read', async () => {
    await run(new NodeFileStore(vault), EARLY);
    const rel = `episodic/${PRUNED[0]}.md`;
    // the read (only) sees another text and version; the file stays the row's version
    const files = new (class extends WritingStore {
      override async readVersioned(r: string): Promise<{ bytes: Uint8Array; version: FileVersion | null } | null> {
        const got = await super.readVersioned(r);
        if (r !== rel || !got?.version) return got;
        return { bytes: new TextEncoder().encode(readFileSync(file(rel), 'utf8').replace('Ancient', 'Other')), version: { ...got.version, tag: `${got.version.tag}x` } };
      }
    })(vault);
    expect((await run(files)).prune).toBe(2);
    expect(readFileSync(file(`archive/${PRUNED[0]}.md`), 'utf8')).toBe(memory(PRUNED[0]!, '2026-07-01T10:00:00Z', 'archive', `Ancient memory ${PRUNED[0]}`));
    // moved as it is, its tier written by the tier step
    expect(files.writes.filter((w) => w.includes('prune'))).toEqual([`archive/${PRUNED[0]}.md`]);
  });

  it('a damaged or foreign cache is not used: every file is read, and the rows are made again', async () => {
    await run(new NodeFileStore(vault));
    const text = readFileSync(file(MEMORY_CACHE_PATH), 'utf8');
    writeFileSync(file(MEMORY_CACHE_PATH), text.replace(`"parse":${MEMORY_PARSE_VERSION}`, `"parse":${MEMORY_PARSE_VERSION + 1}`));
    const files = new CountingStore(vault);
    await run(files, NEXT);
    expect(files.reads.length).toBe(6);
    expect(readFileSync(file(MEMORY_CACHE_PATH), 'utf8').split('\n')[0]).toBe(text.split('\n')[0]);
    unlinkSync(file(MEMORY_CACHE_PATH));
    const again = new CountingStore(vault);
    await run(again, NEXT);
    expect(again.reads.length).toBe(6);
    expect(rows().length).toBe(6);
  });
});

describe('MemoryCache rows', () => {
  const settings = resolveSettings(undefined);
  const fakeVault = (files: Map<string, string>) =>
    ({
      settings,
      ports: {
        files: {
          read: async (p: string) => (files.has(p) ? new TextEncoder().encode(files.get(p)) : null),
          mkdir: async () => undefined,
          write: async (p: string, text: string) => void files.set(p, text),
          readVersioned: async () => null,
        },
      },
    }) as unknown as Vault;
  const version = (size: number): FileVersion => ({ size, mtimeMs: 1_700_000_000_123.456, tag: `7:${size}:1700000000123456789` });

  it('give back exactly the memory parseMemory made (values and the order of its fields), through the file', async () => {
    const texts = [
      memory('mem-aaaaaaaaaaaa', '2026-07-01T10:00:00Z', 'cold', 'Plain'),
      '---\nid: mem-bbbbbbbbbbbb\ncategory: decision\ncreated_at: "2026-07-01T10:00:00Z"\nconfidence: verified\ntags: ["a", "b"]\nco_access: {"mem-aaaaaaaaaaaa": 3}\nrelated_paths: ["src/x.ts"]\nhalf_life_days: 2.5\ndecays_from: "[[mem-cccccccccccc]]"\nlink_ids: ["related mem-aaaaaaaaaaaa"]\nnested:\n  deep: [1, {x: null}]\n---\nBody [[mem-aaaaaaaaaaaa|related]] and é ✓\n',
    ];
    const store = new Map<string, string>();
    const made = new Map<string, ReturnType<typeof parseMemory>>();
    const cache = await MemoryCache.load(fakeVault(store));
    cache.begin();
    texts.forEach((text, i) => {
      const m = parseMemory(`episodic/n${i}.md`, text, settings);
      made.set(m.path, m);
      cache.keep(m, version(text.length), m.id);
    });
    await cache.save(fakeVault(store));
    const again = await MemoryCache.load(fakeVault(store));
    again.begin();
    for (const [p, m] of made) {
      const got = again.get(p, m.body.length > 10 ? texts[1]!.length : texts[0]!.length, 1_700_000_000_123.456)!;
      expect(got.memory).toStrictEqual(m);
      expect(JSON.stringify(got.memory)).toBe(JSON.stringify(m));
      expect(got.version).toEqual(version(p.endsWith('0.md') ? texts[0]!.length : texts[1]!.length));
    }
    // another size or mtime: no memory from the row
    expect(again.get('episodic/n0.md', texts[0]!.length + 1, 1_700_000_000_123.456)).toBeNull();
    expect(again.get('episodic/n0.md', texts[0]!.length, 1_700_000_000_124)).toBeNull();
  });

  it('no row for a memory JSON would not give back (an infinite number, -0)', async () => {
    const store = new Map<string, string>();
    const cache = await MemoryCache.load(fakeVault(store));
    cache.begin();
    const inf = parseMemory('episodic/inf.md', '---\nid: mem-aaaaaaaaaaaa\ncategory: episodic\ncreated_at: "2026-07-01T10:00:00Z"\nweight: .inf\n---\nX\n', settings);
    const zero = parseMemory('episodic/zero.md', '---\nid: mem-bbbbbbbbbbbb\ncategory: episodic\ncreated_at: "2026-07-01T10:00:00Z"\nweight: -0.0\n---\nY\n', settings);
    expect([inf.extra.weight, Object.is(zero.extra.weight, -0)]).toEqual([Infinity, true]);
    const plain = parseMemory('episodic/plain.md', memory('mem-cccccccccccc', '2026-07-01T10:00:00Z', 'cold', 'Z'), settings);
    for (const m of [inf, zero, plain]) cache.keep(m, version(10), m.id);
    await cache.save(fakeVault(store));
    expect(store.get(MEMORY_CACHE_PATH)!.trim().split('\n').slice(1).map((l) => (JSON.parse(l) as unknown[])[0])).toEqual(['episodic/plain.md']);
  });

  it('pin: what parseMemory makes of a sample (a change here must raise MEMORY_PARSE_VERSION)', () => {
    const m = parseMemory('episodic/x.md', '---\nid: mem-aaaaaaaaaaaa\ncategory: episodic\ncreated_at: "2026-07-01T10:00:00Z"\ntags: ["t"]\n---\nText [[mem-bbbbbbbbbbbb|related]]\n', settings);
    expect([MEMORY_PARSE_VERSION, JSON.stringify(m)]).toEqual([
      1,
      '{"id":"mem-aaaaaaaaaaaa","path":"episodic/x.md","category":"episodic","created_at":"2026-07-01T10:00:00Z","last_accessed_at":"2026-07-01T10:00:00Z","agent_role":null,"confidence":"observed","tags":["t"],"half_life_days":7,"access_count":0,"is_error":false,"tier":null,"co_access":{},"related_paths":[],"amplitude":1,"activation":0,"activation_at":null,"content_hash":null,"source":null,"session":null,"body":"Text [[mem-bbbbbbbbbbbb|related]]\\n","links":[{"target":"mem-bbbbbbbbbbbb","kind":"related"}],"extra":{}}',
    ]);
  });
});
