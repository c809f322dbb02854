import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpReference } from '../../headless/mcp/reference';
import { WarmVault } from '../../headless/mcp/warm-vault';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { initVault } from '../helpers/cli';
import { connectInMemory, toolCalls, type ToolResult } from '../helpers/mcp-tools';
import { memoryNote } from '../helpers/memory-ports';

/**
 * What each MCP tool does to the vault, seen as an agent host sees it: the SDK's Client over
 * stdio against the built `engram mcp`, then the files on disk. Defaults and limits are the
 * documented ones (README, Agents over MCP). The same tests run again with the client linked to
 * the server in this process (the SDK's in-memory transport): the same tools, and a mutation of
 * them is seen (npm run mutate runs the in-process ones).
 */

const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const NOW = '2026-11-10T10:00:00Z';
const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'glade', 'heron', 'inlet', 'juniper', 'kestrel', 'larch', 'meadow', 'nettle', 'osprey', 'pebble', 'quarry', 'raven', 'sorrel', 'thistle'];
const id = (n: number) => `mem-zebra${String(n).padStart(7, '0')}`;


/** An episodic memory file as a person (or another machine) would leave it, last used `daysAgo` days before NOW. */
function writeMemory(vault: string, n: number, text: string, daysAgo: number, extra: Record<string, string | number> = {}): string {
  const when = new Date(Date.parse(NOW) - daysAgo * 86_400_000).toISOString().replace('.000Z', 'Z');
  const tier = daysAgo <= 7 ? 'active' : daysAgo <= 21 ? 'warm' : daysAgo <= 60 ? 'cold' : 'archive';
  const rel = `episodic/${id(n)}.md`;
  const fields = { id: id(n), category: 'episodic', created_at: when, last_accessed_at: when, confidence: 'observed', half_life_days: 7, access_count: 0, is_error: false, tier, co_access: '{}', amplitude: 1, activation: 0, ...extra };
  writeFileSync(path.join(vault, rel), memoryNote(fields, `${text}\n`));
  return rel;
}

type Connect = (vault: string) => Promise<{ client: Client; close: () => Promise<void> }>;

const overStdio: Connect = async (vault) => {
  const client = new Client({ name: 'engram-effects-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [ENGRAM, '--vault', vault, '--now', NOW, 'mcp'], stderr: 'ignore' }));
  return { client, close: () => client.close() };
};

const inProcess: Connect = async (vault) => {
  const warm = new WarmVault({ vault, now: NOW, cwd: process.cwd(), env: {} });
  const { client, close } = await connectInMemory(warm, 'engram-effects-test');
  return {
    client,
    close: async () => {
      await close();
      warm.close();
    },
  };
};

// Under Stryker (jest.stryker.cjs sets ENGRAM_STRYKER) only in process: the built server over
// stdio holds no mutant, and its runs would only slow every mutant down.
const CONNECTIONS: Array<[string, Connect]> = [
  ...(process.env.ENGRAM_STRYKER ? [] : [['SDK client over stdio', overStdio] as [string, Connect]]),
  ['SDK client in process', inProcess],
];

describe.each(CONNECTIONS)('engram mcp: every tool\'s effect on the vault (%s)', (_how, connect: Connect) => {
  let vault: string;
  let cleanup: () => void;
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ vault, cleanup } = await initVault());
    // 55 memories about zebra crossings, each on its own street, 10 days old (warm)
    for (let n = 0; n < 55; n++) writeMemory(vault, n, `The zebra crossing on ${WORDS[n % 20]} street ${n} was repainted.`, 10);
    ({ client, close } = await connect(vault));
  });
  afterAll(async () => {
    await close();
    cleanup();
  });

  const { call, data } = toolCalls(() => client);
  const fields = (rel: string) => readFrontmatter(splitFrontmatter(readFileSync(path.join(vault, rel), 'utf8'))!.yaml) as Record<string, unknown>;
  const snapshot = () => Object.fromEntries(readdirSync(path.join(vault, 'episodic')).map((n) => [n, readFileSync(path.join(vault, 'episodic', n), 'utf8')]));

  it('recall answers 12 results unless limit says otherwise (1 to 100), and plain recall writes nothing', async () => {
    const before = snapshot();
    expect(await data('recall', { query: 'zebra crossing' })).toHaveLength(12);
    expect(await data('recall', { query: 'zebra crossing', limit: 5 })).toHaveLength(5);
    expect(await data('recall', { query: 'zebra crossing', limit: 1 })).toHaveLength(1);
    expect(await data('recall', { query: 'zebra crossing', limit: 100 })).toHaveLength(55);
    expect((await call('recall', { query: 'zebra crossing', limit: 101 })).content[0]!.text).toBe('limit: expected a whole number from 1 to 100, got 101');
    expect(snapshot()).toEqual(before);
  });

  it('list answers 50 memories unless limit says otherwise, and counts every match; creative draws 5 unless n says otherwise', async () => {
    const listed = await data('list', {});
    expect([listed.total, listed.memories.length]).toEqual([55, 50]);
    expect((await data('list', { limit: 55 })).memories).toHaveLength(55);
    expect(await data('creative', {})).toHaveLength(5);
    expect(await data('creative', { n: 2 })).toHaveLength(2);
  });

  it("creative answers each drawn memory's id, category, tier now, strength to three decimals and text", async () => {
    // nothing used yet: every memory is 10 days old, warm, strength 0.5^(10/7) = 0.37149…
    const drawn = (await data('creative', { n: 50 })) as Array<{ id: string }>;
    expect(drawn).toHaveLength(50);
    expect(new Set(drawn.map((m) => m.id)).size).toBe(50);
    for (const memory of drawn) {
      const n = Number(memory.id.slice('mem-zebra'.length));
      expect(memory).toEqual({ id: id(n), category: 'episodic', tier: 'warm', strength: 0.371, text: `The zebra crossing on ${WORDS[n % 20]} street ${n} was repainted.` });
    }
  });

  it('lists every memory as a resource (engram://memory/ID, named by its id, markdown) besides the state', async () => {
    const { resources } = await client.listResources();
    const all = Array.from({ length: 55 }, (_, n) => id(n));
    expect(resources.map((r) => r.uri).sort()).toEqual(['engram://state', ...all.map((m) => `engram://memory/${m}`)].sort());
    expect(resources.find((r) => r.uri === `engram://memory/${id(7)}`)).toEqual({ uri: `engram://memory/${id(7)}`, name: id(7), mimeType: 'text/markdown', title: 'A memory', description: 'One memory file (frontmatter and text)' });
  });

  it('recall with touch: true touches each result (one tier up, access counted, last access now) and links the top five', async () => {
    const results = await data('recall', { query: 'zebra crossing juniper street', limit: 7, touch: true });
    const used = results.map((r: { id: string }) => r.id) as string[];
    expect(used).toHaveLength(7);
    expect(used[0]).toBe(id(9)); // "juniper street 9"
    for (const [i, memory] of used.entries()) {
      const f = fields(`episodic/${memory}.md`);
      expect([memory, f.access_count, f.last_accessed_at, f.tier]).toEqual([memory, 1, NOW, 'active']);
      // co-access among the top 5 only, each with the other four
      const partners = i < 5 ? Object.fromEntries(used.slice(0, 5).filter((p) => p !== memory).map((p) => [p, 1])) : {};
      expect([memory, f.co_access]).toEqual([memory, partners]);
    }
    // a memory recall did not return is untouched
    const other = (await data('list', { limit: 55 })).memories.map((m: { id: string }) => m.id).find((m: string) => !used.includes(m));
    expect(fields(`episodic/${other}.md`)).toMatchObject({ access_count: 0, tier: 'warm', co_access: {} });
    // touch: false is plain recall
    await data('recall', { query: 'zebra crossing', limit: 3, touch: false });
    expect(fields(`episodic/${other}.md`).access_count).toBe(0);
  });

  it('context touches nothing it shows (injection is not use, SPEC §9), with or without peek', async () => {
    const peek = await call('context', { query: 'the kestrel street zebra crossing', peek: true });
    const peeked = JSON.parse(peek.content[1]!.text).included as string[];
    expect(peeked[0]).toBe(id(10)); // "kestrel street 10"
    const counts = () => peeked.map((m) => [m, fields(`episodic/${m}.md`).access_count as number]);
    const before = counts();
    const used = JSON.parse((await call('context', { query: 'the kestrel street zebra crossing' })).content[1]!.text).included as string[];
    expect(used).toEqual(peeked);
    expect(counts()).toEqual(before);
  });

  it('edit counts as a use; an edit that changes nothing is not one', async () => {
    const rel = `episodic/${id(20)}.md`;
    const before = fields(rel).access_count as number;
    expect(await data('edit', { id: id(20), text: 'The zebra crossing on amber street 20 was repainted in white.' })).toEqual({ id: id(20), path: rel, version: 2, changed: true });
    expect(fields(rel)).toMatchObject({ access_count: before + 1, last_accessed_at: NOW });
    expect((await data('edit', { id: id(20), text: 'The zebra crossing on amber street 20 was repainted in white.' })).changed).toBe(false);
    expect(fields(rel).access_count).toBe(before + 1);
  });

  it('touch: the read boost (0.25), one tier up, counted; cite: the citation boost (1.5) only; both link the memories named together', async () => {
    // three memories no earlier test used (10 days old, warm, activation 0, no links)
    const [x, y, z] = Array.from({ length: 55 }, (_, n) => id(n)).filter((m) => existsSync(path.join(vault, `episodic/${m}.md`)) && fields(`episodic/${m}.md`).access_count === 0 && fields(`episodic/${m}.md`).activation === 0) as [string, string, string];
    const touched = await data('touch', { ids: [z] });
    expect(touched).toEqual([{ id: z, path: `episodic/${z}.md`, tier_before: 'warm', tier: 'active', access_count: 1, activation: 0.25, due_for_validation: false, spread: {} }]);
    // cite x then y: x's new link to y carries half of 1.5 there, and y's back to x
    const cited = await data('cite', { ids: [x, y] });
    expect(cited.map((r: { id: string; tier: string; access_count: number; activation: number; spread: unknown }) => [r.id, r.tier, r.access_count, r.activation, r.spread])).toEqual([
      [x, 'warm', 0, 1.5, { [y]: 0.75 }],
      [y, 'warm', 0, 2.25, { [x]: 0.75 }],
    ]);
    expect([fields(`episodic/${x}.md`), fields(`episodic/${y}.md`)]).toMatchObject([
      { co_access: { [y]: 1 }, access_count: 0, activation: 2.25, last_accessed_at: '2026-10-31T10:00:00Z', tier: 'warm' },
      { co_access: { [x]: 1 }, access_count: 0, activation: 2.25, last_accessed_at: '2026-10-31T10:00:00Z', tier: 'warm' },
    ]);
  });

  it('mark sets confidence and core; forget moves the file out and undo brings it back byte for byte', async () => {
    const rel = `episodic/${id(30)}.md`;
    expect((await data('mark', { ids: [id(30)], confidence: 'verified', core: true }))[0]).toMatchObject({ id: id(30), confidence: 'verified' });
    expect(fields(rel)).toMatchObject({ confidence: 'verified', tier: 'core' });
    const bytes = readFileSync(path.join(vault, rel), 'utf8');
    expect(await data('forget', { ids: [id(30)] })).toEqual([{ id: id(30), from: rel, to: `.engram/forgotten/${rel}` }]);
    expect([existsSync(path.join(vault, rel)), existsSync(path.join(vault, '.engram', 'forgotten', rel))]).toEqual([false, true]);
    await data('forget', { ids: [id(30)], undo: true });
    expect(readFileSync(path.join(vault, rel), 'utf8')).toBe(bytes);
  });
});

describe.each(CONNECTIONS)('engram mcp consolidate: a dry run unless apply is true (%s)', (_how, connect: Connect) => {
  let vault: string;
  let cleanup: () => void;
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ vault, cleanup } = await initVault());
    writeMemory(vault, 1, 'A passing remark about the build cache.', 100); // 0.5^(100/7): pruned
    writeMemory(vault, 2, 'The deploy pipeline was green today.', 1);
    ({ client, close } = await connect(vault));
  });
  afterAll(async () => {
    await close();
    cleanup();
  });

  const data = async (args: Record<string, unknown>) => JSON.parse(((await client.callTool({ name: 'consolidate', arguments: args })) as ToolResult).content[0]!.text);
  const prune = (report: { steps: Array<{ step: string; count: number; changes: unknown }> }) => {
    const step = report.steps.find((s) => s.step === 'prune')!;
    return { count: step.count, changes: step.changes };
  };

  it('plans without writing; apply: false is the same; apply: true archives the faded memory and logs the run', async () => {
    const rel = `episodic/${id(1)}.md`;
    const moved = { id: id(1), change: `${rel} -> archive/${id(1)}.md` };
    for (const args of [{}, { apply: false }]) {
      const plan = await data(args);
      expect([plan.dry_run, prune(plan)]).toEqual([true, { count: 1, changes: [moved] }]);
      expect([existsSync(path.join(vault, rel)), existsSync(path.join(vault, '.engram', 'runs.jsonl'))]).toEqual([true, false]);
    }
    const run = await data({ apply: true });
    expect([run.dry_run, prune(run)]).toEqual([false, { count: 1, changes: [moved] }]);
    // timed by the clock it is given (performance.now), whatever the time
    expect([Number.isFinite(run.duration_ms), run.duration_ms >= 0, run.steps.every((s: { ms: unknown }) => Number.isFinite(s.ms))]).toEqual([true, true, true]);
    expect([existsSync(path.join(vault, rel)), existsSync(path.join(vault, 'archive', `${id(1)}.md`))]).toEqual([false, true]);
    expect(readFileSync(path.join(vault, 'archive', `${id(1)}.md`), 'utf8')).toContain('tier: archive\n');
    expect(readFileSync(path.join(vault, '.engram', 'runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    // nothing left to do
    expect(prune(await data({ apply: true })).count).toBe(0);
  });
});

describe('docs/mcp-tools.md', () => {
  it('is every tool, argument, hint and resource exactly as a client lists them (npm run docs:cli rewrites it)', async () => {
    // what a model reads to choose a tool and fill its arguments is part of the interface
    expect(readFileSync(path.join(__dirname, '..', '..', 'docs', 'mcp-tools.md'), 'utf8')).toBe(await mcpReference());
  });
});

describe('engram mcp asks for vector seeds of the query as recall and context search it (in process: the server\'s WarmVault watched)', () => {
  let vault: string;
  let cleanup: () => void;
  let client: Client;
  let close: () => Promise<void>;
  let seeds: jest.SpyInstance;

  beforeAll(async () => {
    ({ vault, cleanup } = await initVault());
    writeMemory(vault, 1, 'The zebra crossing on amber street was repainted.', 1);
    const warm = new WarmVault({ vault, now: NOW, cwd: process.cwd(), env: {} });
    // no embedder is configured: the real answer is "no seeds", the calls are what is watched
    seeds = jest.spyOn(warm, 'vectorSeeds');
    const connected = await connectInMemory(warm, 'engram-seeds-test');
    client = connected.client;
    close = async () => {
      await connected.close();
      warm.close();
    };
  });
  afterAll(async () => {
    await close();
    cleanup();
  });

  const asked = async (name: string, args: Record<string, unknown>) => {
    seeds.mockClear();
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    expect([name, result.isError ?? false]).toEqual([name, false]);
    return seeds.mock.calls;
  };

  it('recall: its query as given; context: the query trimmed, and none without a query', async () => {
    expect(await asked('recall', { query: ' zebra crossing ' })).toEqual([[[' zebra crossing ']]]);
    expect(await asked('context', { query: '  zebra crossing\n' })).toEqual([[['zebra crossing']]]);
    expect(await asked('context', {})).toEqual([]);
    expect(await asked('context', { query: ' \t ' })).toEqual([]);
  });
});
