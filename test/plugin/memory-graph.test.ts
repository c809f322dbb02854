import type { RecallDoc } from '../../src/core/recall/catalog';
import { resolveSettings } from '../../src/core/settings';
import { FALLBACK_PALETTE } from '../../src/plugin/graph/palette';
import { MemoryGraph } from '../../src/plugin/graph/memory-graph';

/*
 * The graph view draws the nodes first and adds the edges afterwards, a slice of documents per
 * task (what keeps each task short at 10,000 memories): the edges must come out the same as when
 * built at once, whatever the slices and whatever changed in between.
 */
const NOW = Date.parse('2026-11-29T12:00:00Z');
const settings = resolveSettings(undefined);

function doc(id: string, links: RecallDoc['links'], co: Record<string, number> = {}): RecallDoc {
  return {
    id, path: `episodic/${id}.md`, category: 'episodic', confidence: 'observed', tier: null, archived: false,
    createdMs: NOW - 5 * 86_400_000, accessMs: NOW - 86_400_000, activationMs: NOW - 86_400_000, access_count: 0, is_error: false,
    half_life_days: 7, activation: 0, amplitude: 1, agent_role: null, source: null, session: null, terms: [], links, co_access: co, text: `text of ${id}`,
  };
}

const docs = [
  doc('mem-a', [{ target: 'mem-b', kind: 'related' }], { 'mem-c': 2 }),
  doc('mem-b', [{ target: 'mem-gone', kind: 'related' }], { 'mem-c': 1 }),
  doc('mem-c', [{ target: 'mem-a', kind: 'supersedes' }], { 'mem-a': 5 }),
  doc('mem-d', [{ target: 'mem-c', kind: 'decays_from' }]),
  doc('mem-e', []),
];
const graphOf = () => new MemoryGraph(FALLBACK_PALETTE, (d) => d.id, () => settings, () => NOW);
const edges = (g: MemoryGraph) =>
  g.graph.mapEdges((key, a) => `${key} ${a.weight}`).sort();

it('adds the same edges in slices as at once (co-access both ways keeps the larger count)', () => {
  const whole = graphOf();
  whole.setDocs(docs, [['mem-e', 'mem-a']]);
  expect(edges(whole)).toEqual([
    'co_access|mem-a|mem-c 5',
    'co_access|mem-b|mem-c 1',
    'contradicts|mem-a|mem-e 1',
    'decays_from|mem-d|mem-c 1',
    'related|mem-a|mem-b 1',
    'related|mem-c|mem-a 1',
  ]);

  const sliced = graphOf();
  sliced.setNodes(docs, [['mem-e', 'mem-a']]);
  expect(sliced.graph.order).toBe(5);
  expect(sliced.graph.size).toBe(0);
  const steps: boolean[] = [];
  do steps.push(sliced.link(2));
  while (!steps[steps.length - 1]);
  expect(steps).toEqual([false, false, true]);
  expect(sliced.linked).toBe(true);
  expect(edges(sliced)).toEqual(edges(whole));
});

it('a change between slices is linked as it is now', () => {
  const g = graphOf();
  g.setNodes(docs);
  expect(g.link(1)).toBe(false); // mem-a linked as it was
  // the index as it is after each change
  const current = new Map(docs.map((d) => [d.id, d]));
  const change = (after: RecallDoc) => {
    const before = current.get(after.id)!;
    current.set(after.id, after);
    g.apply([{ id: after.id, before, after }], (id) => current.get(id));
  };
  // mem-c (not linked yet) drops its supersedes link; mem-a (already linked) gains one to mem-e
  change(doc('mem-c', [], { 'mem-a': 5 }));
  change(doc('mem-a', [{ target: 'mem-b', kind: 'related' }, { target: 'mem-e', kind: 'related' }], { 'mem-c': 2 }));
  while (!g.link(1));
  expect(edges(g)).toEqual([
    'co_access|mem-a|mem-c 5',
    'co_access|mem-b|mem-c 1',
    'decays_from|mem-d|mem-c 1',
    'related|mem-a|mem-b 1',
    'related|mem-a|mem-e 1',
  ]);
});
