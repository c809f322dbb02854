import { activationAt, spreadBoost, spreadEdges } from '../../src/core/activation';
import { parseMemory } from '../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';
import { at, memoryNote } from '../helpers/memory-ports';

describe('ACT-R activation (SPEC §5)', () => {
  const m = parseMemory(
    'episodic/mem-abc123def456.md',
    memoryNote({ id: 'mem-abc123def456', category: 'episodic', created_at: '2026-01-01T00:00:00Z', activation: 4, activation_at: '2026-01-01T00:00:00Z' }),
    S,
  );

  it('halves every 30 days', () => {
    expect(activationAt(m, at('2026-01-31T00:00:00Z'), S)).toBe(2);
    expect(activationAt(m, at('2026-03-02T00:00:00Z'), S)).toBe(1);
    expect(activationAt(m, at('2026-01-01T00:00:00Z'), S)).toBe(4);
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
});
