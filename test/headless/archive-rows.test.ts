import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { consolidate } from '../../src/core/consolidation/consolidate';
import { parseMemory } from '../../src/core/memory';
import { MemoryCache } from '../../src/core/memory-cache';
import { frontmatterId } from '../../src/core/memory-files';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { at } from '../helpers/memory-ports';
import { initVault } from '../helpers/cli';

/*
 * The memory-cache rows of the files a first consolidation archives, rewritten with their new
 * tier in the move (movedAsPlanned) or moved as they are: each is what parseMemory makes of the
 * file written, with its frontmatter id, for the size and mtime the file has. The row of a
 * rewritten file is made from the memory read to plan (its path and tier set), not from a parse
 * of the text written: random notes in the forms a person or another tool writes (a tier
 * quoted, commented, absent, null; block lists, an alias of the tier, CRLF lines, other
 * fields) compare the two.
 */

const NOW = '2026-11-30T00:00:00Z';
const OLD = new Date('2026-01-01T00:00:00Z');
const settings = resolveSettings(undefined);

let seed = 23;
const random = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return Math.floor((seed / 2147483648) * n);
};
const pick = <T>(items: readonly T[]): T => items[random(items.length)]!;

/** A note consolidation archives (created and last used in July, never strengthened). */
function note(i: number): string {
  const id = `mem-rows${String(i).padStart(8, '0')}`;
  const tier = pick(['tier: cold', 'tier: warm', 'tier: "cold"', "tier: 'active'", 'tier: cold # set by hand', 'tier: null', '', 'tier: archive', 'tier: &t warm']);
  const lines = [
    `id: ${id}`,
    'category: episodic',
    `created_at: "2026-07-01T10:00:00Z"`,
    pick(['', 'last_accessed_at: "2026-07-02T10:00:00Z"\naccess_count: 2']),
    tier,
    pick(['tags: ["ops", "db"]', 'tags:\n  - ops\n  - db', '', 'tags: []']),
    pick(['', 'half_life_days: 3.5', 'amplitude: 0.8', 'co_access: {"mem-aaaaaaaaaaaa": 2}']),
    pick(['', 'source: import', tier === 'tier: &t warm' ? 'mood: *t' : 'owner: sam']),
    pick(['', 'link_ids: ["related mem-aaaaaaaaaaaa"]', 'related_paths: ["src/a.ts"]']),
  ].filter((line) => line !== '');
  const body = pick(['Ancient memory', 'Ancient memory with [[a link]]', 'Ancient memory, two lines\nand a second']);
  const text = `---\n${lines.join('\n')}\n---\n${body} ${i}.\n`;
  return random(6) === 0 ? text.replace(/\n/g, '\r\n') : text;
}

describe('the rows of a first consolidation\'s archived files', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => {
    ({ vault, cleanup } = await initVault());
  });
  afterEach(() => cleanup());

  it('are what parseMemory makes of each file written, rewritten with its tier in the move or moved as it is', async () => {
    const count = 60;
    for (let i = 0; i < count; i++) writeFileSync(path.join(vault, 'episodic', `note ${i}.md`), note(i));
    for (const name of readdirSync(path.join(vault, 'episodic'))) utimesSync(path.join(vault, 'episodic', name), OLD, OLD);
    const before = new Map(readdirSync(path.join(vault, 'episodic')).map((name) => [name, readFileSync(path.join(vault, 'episodic', name), 'utf8')]));
    const ports = { files: new NodeFileStore(vault), locks: new NodeLocks(vault), clock: { now: () => at(NOW) }, random: Math.random, tokens: { count: () => 0 } };
    const v = new Vault(ports, settings);
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0, memoryCache: MemoryCache.load });
    expect(report.skipped).toEqual([]);
    const archived = readdirSync(path.join(vault, 'archive')).sort();
    // every note archived; some rewritten with their tier, some moved as they were
    expect(archived.length).toBe(count);
    const rewritten = archived.filter((name) => readFileSync(path.join(vault, 'archive', name), 'utf8') !== before.get(name));
    expect(rewritten.length).toBe(56);
    const cache = await MemoryCache.load(v);
    for (const name of archived) {
      const rel = `archive/${name}`;
      const text = readFileSync(path.join(vault, rel), 'utf8');
      const stat = statSync(path.join(vault, rel));
      const row = cache.get(rel, stat.size, stat.mtimeMs);
      expect(row).not.toBeNull();
      const parsed = parseMemory(rel, text, settings);
      expect(row!.memory).toEqual(parsed);
      // the same fields in the same order (the row's JSON is compared with a parse's by the next night)
      expect(JSON.stringify(row!.memory)).toBe(JSON.stringify(parsed));
      expect(row!.id).toBe(frontmatterId(text));
      expect(parsed.tier).toBe('archive');
    }
  });
});
