import { activationAt, boostAt, boostFor, roundActivation, spreadBoost, spreadEdges } from '../../src/core/activation';
import { parseMemory } from '../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';
import { at, memoryNote } from '../helpers/memory-ports';

describe('ACT-R activation (SPEC §5)', () => {
  // parsed in each test, not while the file is collected: under a mutant that breaks parsing the
  // tests fail, rather than the file failing to run (Stryker's RuntimeError, out of the score)
  const m = () => parseMemory(
    'episodic/mem-abc123def456.md',
    memoryNote({ id: 'mem-abc123def456', category: 'episodic', created_at: '2026-01-01T00:00:00Z', activation: 4, activation_at: '2026-01-01T00:00:00Z' }),
    S,
  );

  it('halves every 30 days', () => {
    expect(activationAt(m(), at('2026-01-31T00:00:00Z'), S)).toBe(2);
    expect(activationAt(m(), at('2026-03-02T00:00:00Z'), S)).toBe(1);
    expect(activationAt(m(), at('2026-01-01T00:00:00Z'), S)).toBe(4);
  });

  it('follows typed links and co-access, never supersedes', () => {
    const linked = parseMemory(
      'episodic/mem-abc123def456.md',
      `---\nid: mem-abc123def456\ncategory: episodic\ncreated_at: "2026-01-01T00:00:00Z"\nco_access: {"mem-cccccccccccc": 2}\n---\n` +
        'x [[mem-aaaaaaaaaaaa|related]] [[mem-bbbbbbbbbbbb|supersedes]] [[mem-dddddddddddd|decays_from]] [[Some note]]\n',
      S,
    );
    expect(spreadEdges(linked)).toEqual(['mem-aaaaaaaaaaaa', 'mem-dddddddddddd', 'mem-cccccccccccc']);
  });

  it('spreads a boost halved per hop and split across the fan, for 2 hops', async () => {
    const graph: Record<string, string[]> = {
      s: ['a', 'b'],
      a: ['s', 'c', 'd', 'e'],
      b: [],
      c: ['f'],
    };
    const shares = await spreadBoost('s', 1, async (id) => graph[id] ?? [], S);
    // hop 1: 1/2 split over 2 edges = 0.25 each; hop 2: 0.25/2 split over a's 3 edges (s excluded)
    expect(Object.fromEntries(shares)).toEqual({ a: 0.25, b: 0.25, c: 0.25 / 2 / 3, d: 0.25 / 2 / 3, e: 0.25 / 2 / 3 });
  });

  it('drops shares below the minimum', async () => {
    const hub = Array.from({ length: 60 }, (_, i) => `n${i}`);
    const shares = await spreadBoost('s', 1, async (id) => (id === 's' ? hub : ['x']), S);
    expect(shares.size).toBe(0);
  });
  it('decays from last_accessed_at when no activation_at is written, and never grows before its time', () => {
    const noStamp = parseMemory(
      'episodic/mem-abc123def456.md',
      memoryNote({ id: 'mem-abc123def456', category: 'episodic', created_at: '2026-01-01T00:00:00Z', last_accessed_at: '2026-01-31T00:00:00Z', activation: 4 }),
      S,
    );
    expect(activationAt(noStamp, at('2026-03-02T00:00:00Z'), S)).toBe(2);
    // a clock behind the stamp (another machine's): the activation as written, not more
    expect(activationAt(m(), at('2025-12-02T00:00:00Z'), S)).toBe(4);
    // a configured half-life
    expect(activationAt(m(), at('2026-01-11T00:00:00Z'), { ...S, activation: { ...S.activation, halfLifeDays: 10 } })).toBe(2);
  });

  it('decays a boost from the moment it was given, the same half-life; a boost from the future counts whole', () => {
    const t0 = at('2026-01-01T00:00:00Z');
    expect(boostAt(1.5, t0, at('2026-01-31T00:00:00Z'), S)).toBe(0.75);
    expect(boostAt(1.5, t0, at('2026-03-02T00:00:00Z'), S)).toBe(0.375);
    expect(boostAt(1.5, t0, t0, S)).toBe(1.5);
    expect(boostAt(1.5, at('2026-01-31T00:00:00Z'), t0, S)).toBe(1.5);
  });

  it('boosts a returned memory by 1, a cited one by 1.5, a read one by 0.25', () => {
    expect([boostFor('returned', S), boostFor('cited', S), boostFor('read', S)]).toEqual([1, 1.5, 0.25]);
    const custom = { ...S, activation: { ...S.activation, returnedBoost: 2, citedBoost: 3, readBoost: 4 } };
    expect([boostFor('returned', custom), boostFor('cited', custom), boostFor('read', custom)]).toEqual([2, 3, 4]);
  });

  it('never spreads to the memory itself, by a link or by co-access', () => {
    const self = parseMemory(
      'episodic/mem-abc123def456.md',
      `---\nid: mem-abc123def456\ncategory: episodic\ncreated_at: "2026-01-01T00:00:00Z"\nco_access: {"mem-abc123def456": 3, "mem-cccccccccccc": 1}\n---\n` +
        'x [[mem-abc123def456|related]] [[mem-aaaaaaaaaaaa|related]] [[mem-aaaaaaaaaaaa|decays_from]]\n',
      S,
    );
    expect(spreadEdges(self)).toEqual(['mem-aaaaaaaaaaaa', 'mem-cccccccccccc']);
  });

  it('keeps a share of exactly the minimum, drops one just under it, and spreads only as many hops as set', async () => {
    // one hop: 0.04 / 2 / 2 = 0.01, the minimum: kept
    const two = async (id: string) => (id === 's' ? ['a', 'b'] : id === 'a' ? ['c'] : []);
    expect(Object.fromEntries(await spreadBoost('s', 0.04, two, S))).toEqual({ a: 0.01, b: 0.01 });
    expect((await spreadBoost('s', 0.0399, two, S)).size).toBe(0);
    expect(Object.fromEntries(await spreadBoost('s', 1, two, { ...S, activation: { ...S.activation, spreadHops: 1 } }))).toEqual({ a: 0.25, b: 0.25 });
    expect(Object.fromEntries(await spreadBoost('s', 1, two, S))).toEqual({ a: 0.25, b: 0.25, c: 0.125 });
    // a node reached by two paths receives both shares
    const diamond = async (id: string) => ({ s: ['a', 'b'], a: ['d'], b: ['d'] } as Record<string, string[]>)[id] ?? [];
    expect(Object.fromEntries(await spreadBoost('s', 1, diamond, S))).toEqual({ a: 0.25, b: 0.25, d: 0.25 });
  });

  it('writes activation to four decimals', () => {
    expect([roundActivation(1.23456), roundActivation(0.00004), roundActivation(0.00005), roundActivation(2)]).toEqual([1.2346, 0, 0.0001, 2]);
  });
});
