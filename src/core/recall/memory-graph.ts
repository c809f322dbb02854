import { DirectedGraph } from 'graphology';
import { parseTimestamp } from '../time';
import type { RecallDoc } from './catalog';

/**
 * The association graph that recall spreads activation over (SPEC §7): `related` links,
 * Hebbian `co_access` and `decays_from` (an episode and the pattern it became), in both
 * directions; never `supersedes` or `contradicts`.
 *
 * Raw edge weights:
 * - related: 0.75 towards the later memory, 0.25 towards the earlier one (0.5 when they
 *   share a time). Within an episode what follows a memory is what it led to: an answer
 *   follows its question, an outcome its cause.
 * - co_access: n / (n + 2) for n co-accesses: Hebbian strength that saturates.
 * - decays_from: 0.5 both ways.
 * Fan normalisation: a node's outgoing weights are divided by their sum when it exceeds 1,
 * so a hub passes on no more than a two-link memory does.
 */
export type EdgeKind = 'related' | 'co_access' | 'decays_from';

export interface EdgeAttributes {
  weight: number;
  kinds: EdgeKind[];
}

export type MemoryGraph = DirectedGraph<Record<string, never>, EdgeAttributes>;

export const EDGE_WEIGHTS = { later: 0.75, earlier: 0.25, simultaneous: 0.5, decaysFrom: 0.5, coAccessHalf: 2 };

export function coAccessWeight(count: number): number {
  return count / (count + EDGE_WEIGHTS.coAccessHalf);
}

export function buildMemoryGraph(docs: RecallDoc[]): MemoryGraph {
  const graph: MemoryGraph = new DirectedGraph();
  const created = new Map<string, number>();
  for (const doc of docs) {
    graph.addNode(doc.id);
    created.set(doc.id, parseTimestamp(doc.created_at) ?? 0);
  }
  const add = (from: string, to: string, weight: number, kind: EdgeKind) => {
    if (from === to || !graph.hasNode(from) || !graph.hasNode(to)) return;
    if (graph.hasEdge(from, to)) {
      const attrs = graph.getEdgeAttributes(from, to);
      if (attrs.kinds.includes(kind)) return;
      graph.mergeEdgeAttributes(from, to, { weight: attrs.weight + weight, kinds: [...attrs.kinds, kind] });
    } else {
      graph.addDirectedEdge(from, to, { weight, kinds: [kind] });
    }
  };
  for (const doc of docs) {
    for (const link of doc.links) {
      if (link.kind === 'related') {
        const a = created.get(doc.id)!;
        const b = created.get(link.target);
        if (b === undefined) continue;
        const forward = b > a ? EDGE_WEIGHTS.later : b < a ? EDGE_WEIGHTS.earlier : EDGE_WEIGHTS.simultaneous;
        add(doc.id, link.target, forward, 'related');
        add(link.target, doc.id, 1 - forward, 'related');
      } else if (link.kind === 'decays_from') {
        add(doc.id, link.target, EDGE_WEIGHTS.decaysFrom, 'decays_from');
        add(link.target, doc.id, EDGE_WEIGHTS.decaysFrom, 'decays_from');
      }
    }
    for (const [other, count] of Object.entries(doc.co_access)) {
      add(doc.id, other, coAccessWeight(count), 'co_access');
    }
  }
  graph.forEachNode((node) => {
    let total = 0;
    graph.forEachOutEdge(node, (_edge, attrs) => (total += attrs.weight));
    if (total <= 1) return;
    graph.forEachOutEdge(node, (edge, attrs) => graph.setEdgeAttribute(edge, 'weight', attrs.weight / total));
  });
  return graph;
}
