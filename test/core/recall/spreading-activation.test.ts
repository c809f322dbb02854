import { AssociationIndex, coAccessWeight } from '../../../src/core/recall/associations';
import type { RecallDoc } from '../../../src/core/recall/catalog';
import { tableFromDocs } from '../../../src/core/recall/doc-table';
import { buildMemoryGraph } from '../../../src/core/recall/memory-graph';
import { spreadActivation } from '../../../src/core/recall/spreading-activation';

/** A minimal recall document for graph tests. */
export function doc(id: string, createdMs: number, links: Array<[string, 'related' | 'decays_from' | 'supersedes']> = [], co: Record<string, number> = {}): RecallDoc {
  return {
    id, path: `episodic/${id}.md`, category: 'episodic', confidence: 'observed', tier: null, archived: false,
    createdMs, accessMs: createdMs, activationMs: createdMs, access_count: 0, is_error: false, half_life_days: 7,
    activation: 0, amplitude: 1, agent_role: null, source: null, session: null, terms: [],
    links: links.map(([target, kind]) => ({ target, kind })), co_access: co, text: '',
  };
}

const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;

describe('association edges (SPEC §7)', () => {
  it('weights related links 0.75 towards the later memory and 0.25 towards the earlier one, both ways', () => {
    const docs = [doc(id(0), 0), doc(id(1), 1000, [[id(0), 'related']])];
    const index = new AssociationIndex(tableFromDocs(docs));
    expect(index.edges(0)).toEqual([{ target: 1, weight: 0.75, kinds: ['related'] }]);
    expect(index.edges(1)).toEqual([{ target: 0, weight: 0.25, kinds: ['related'] }]);
  });

  it('adds co-access n/(n+2) and decays_from 0.5, ignores supersedes, and fan-normalises hubs', () => {
    const docs = [
      doc(id(0), 0, [[id(1), 'related'], [id(2), 'supersedes'], [id(3), 'decays_from']], { [id(1)]: 2, [id(4)]: 6 }),
      doc(id(1), 1000),
      doc(id(2), 1000),
      doc(id(3), 1000),
      doc(id(4), 1000),
    ];
    const index = new AssociationIndex(tableFromDocs(docs));
    // raw: to 1: 0.75 (related) + 0.5 (co-access 2/4); to 3: 0.5; to 4: 0.75 (6/8); total 2.5
    expect(coAccessWeight(2)).toBe(0.5);
    expect(index.edges(0)).toEqual([
      { target: 1, weight: 1.25 / 2.5, kinds: ['related', 'co_access'] },
      { target: 3, weight: 0.5 / 2.5, kinds: ['decays_from'] },
      { target: 4, weight: 0.75 / 2.5, kinds: ['co_access'] },
    ]);
    expect(index.edges(2)).toEqual([]);
    expect(index.edges(3)).toEqual([{ target: 0, weight: 0.5, kinds: ['decays_from'] }]);
  });
});

describe('spreading activation (SPEC §7)', () => {
  // a chain 0 -> 1 -> 2 -> 3 in time, each linked to the next
  const docs = [0, 1, 2, 3].map((n) => doc(id(n), n * 1000, n > 0 ? [[id(n - 1), 'related']] : []));
  const index = new AssociationIndex(tableFromDocs(docs));

  it('multiplies by gamma 0.6 and the edge weight per hop, to depth 2, never back along its path', () => {
    const spread = spreadActivation((n) => index.edges(n), new Map([[1, 1]]), 0.6, 2);
    expect(Object.fromEntries(spread.received)).toEqual({
      0: 0.6 * 0.25, // hop 1 backwards
      2: 0.6 * 0.75, // hop 1 forwards
      3: 0.6 * 0.75 * 0.6 * 0.75, // hop 2 forwards
    });
    expect(spread.via.get(3)).toEqual({ from: 2, kinds: ['related'], amount: 0.6 * 0.75 * 0.6 * 0.75, path: [1, 2, 3] });
  });

  it('adds up what several seeds send', () => {
    const spread = spreadActivation((n) => index.edges(n), new Map([[0, 1], [2, 0.5]]), 0.6, 1);
    expect(spread.received.get(1)).toBeCloseTo(0.6 * 0.75 * 1 + 0.6 * 0.25 * 0.5, 12);
    expect(spread.received.get(3)).toBe(0.6 * 0.75 * 0.5);
  });
});

describe('spreading activation over a hand-made graph (SPEC §7)', () => {
  const E = (target: number, weight: number, kinds: Array<'related' | 'co_access' | 'decays_from'> = ['related']) => ({ target, weight, kinds });

  it('sends nothing along an edge of weight 0, and keeps for each node the strongest seed it heard from', () => {
    const graph: Record<number, ReturnType<typeof E>[]> = { 0: [E(2, 0.5), E(3, 0)], 1: [E(2, 1)], 2: [], 3: [] };
    const spread = spreadActivation((n) => graph[n] ?? [], new Map([[0, 0.9], [1, 0.3]]), 0.5, 2);
    expect(Object.fromEntries(spread.received)).toEqual({ 2: 0.5 * 0.5 * 0.9 + 0.5 * 1 * 0.3 });
    expect(Object.fromEntries(spread.strongestSeed)).toEqual({ 2: 0.9 });
    // the weaker seed alone: its own value
    const weak = spreadActivation((n) => graph[n] ?? [], new Map([[1, 0.3]]), 0.5, 2);
    expect(Object.fromEntries(weak.strongestSeed)).toEqual({ 2: 0.3 });
  });

  it('explains a node by its largest single contribution, the first of equal ones', () => {
    const graph: Record<number, ReturnType<typeof E>[]> = { 0: [E(2, 0.5, ['co_access'])], 1: [E(2, 0.5, ['decays_from'])], 3: [E(2, 0.9)] };
    const equal = spreadActivation((n) => graph[n] ?? [], new Map([[0, 1], [1, 1]]), 0.6, 1);
    expect(equal.via.get(2)).toEqual({ from: 0, kinds: ['co_access'], amount: 0.3, path: [0, 2] });
    const larger = spreadActivation((n) => graph[n] ?? [], new Map([[0, 1], [3, 1]]), 0.6, 1);
    expect(larger.via.get(2)).toEqual({ from: 3, kinds: ['related'], amount: 0.6 * 0.9, path: [3, 2] });
    // depth 0: nothing spreads
    expect(spreadActivation((n) => graph[n] ?? [], new Map([[0, 1]]), 0.6, 0).received.size).toBe(0);
  });
});

describe('the association graph as a graphology graph (for export and the graph view)', () => {
  it('holds exactly the edges recall spreads over', () => {
    const docs = [doc(id(0), 0), doc(id(1), 1000, [[id(0), 'related']], { [id(2)]: 2 }), doc(id(2), 2000, [[id(1), 'decays_from']])];
    const graph = buildMemoryGraph(docs);
    expect(graph.order).toBe(3);
    const edges: Array<[string, string, number, string[]]> = [];
    graph.forEachEdge((_e, attrs, source, target) => edges.push([source, target, attrs.weight, attrs.kinds]));
    expect(edges).toEqual([
      [id(0), id(1), 0.75, ['related']],
      [id(1), id(0), 0.25 / 1.25, ['related']],
      [id(1), id(2), 1 / 1.25, ['decays_from', 'co_access']],
      [id(2), id(1), 0.5, ['decays_from']],
    ]);
  });
});
