import type { RecallDoc } from './catalog';

/**
 * The association graph recall spreads activation over (SPEC §7): `related` links, Hebbian
 * `co_access` and `decays_from` (an episode and the pattern it became), followed in both
 * directions; never `supersedes` or `contradicts`.
 *
 * Raw edge weights:
 * - related: 0.75 towards the later memory, 0.25 towards the earlier one (0.5 when they
 *   share a time). Within an episode what follows a memory is what it led to: an answer
 *   follows its question, an outcome its cause.
 * - co_access: n / (n + 2) for n co-accesses: Hebbian strength that saturates.
 * - decays_from: 0.5 both ways.
 * Fan normalisation: a node's outgoing weights are divided by their sum when it exceeds 1,
 * so a hub passes on no more than a memory with two links does.
 *
 * Edges are derived on demand from the documents (with a reverse index of links), so
 * building the index costs one pass over the links and a query touches only the seeds'
 * neighbourhood.
 */
export type EdgeKind = 'related' | 'co_access' | 'decays_from';

export interface Edge {
  target: number;
  weight: number;
  kinds: EdgeKind[];
}

export const EDGE_WEIGHTS = { later: 0.75, earlier: 0.25, simultaneous: 0.5, decaysFrom: 0.5, coAccessHalf: 2 } as const;

export function coAccessWeight(count: number): number {
  return count / (count + EDGE_WEIGHTS.coAccessHalf);
}

function relatedWeight(fromMs: number, toMs: number): number {
  return toMs > fromMs ? EDGE_WEIGHTS.later : toMs < fromMs ? EDGE_WEIGHTS.earlier : EDGE_WEIGHTS.simultaneous;
}

export class AssociationIndex {
  private readonly incoming = new Map<number, Array<{ source: number; kind: 'related' | 'decays_from' }>>();
  private readonly cache = new Map<number, Edge[]>();

  constructor(
    private readonly docs: readonly RecallDoc[],
    private readonly indexOf: ReadonlyMap<string, number>,
  ) {
    docs.forEach((doc, source) => {
      for (const link of doc.links) {
        if (link.kind !== 'related' && link.kind !== 'decays_from') continue;
        const target = indexOf.get(link.target);
        if (target === undefined || target === source) continue;
        const list = this.incoming.get(target);
        const entry = { source, kind: link.kind };
        if (list) list.push(entry);
        else this.incoming.set(target, [entry]);
      }
    });
  }

  /** Fan-normalised outgoing edges of a document. */
  edges(node: number): Edge[] {
    const cached = this.cache.get(node);
    if (cached) return cached;
    const doc = this.docs[node]!;
    const byTarget = new Map<number, Edge>();
    const add = (target: number | undefined, weight: number, kind: EdgeKind) => {
      if (target === undefined || target === node) return;
      const edge = byTarget.get(target);
      if (!edge) byTarget.set(target, { target, weight, kinds: [kind] });
      else if (!edge.kinds.includes(kind)) {
        edge.weight += weight;
        edge.kinds.push(kind);
      }
    };
    for (const link of doc.links) {
      const target = this.indexOf.get(link.target);
      if (target === undefined) continue;
      if (link.kind === 'related') add(target, relatedWeight(doc.createdMs, this.docs[target]!.createdMs), 'related');
      else if (link.kind === 'decays_from') add(target, EDGE_WEIGHTS.decaysFrom, 'decays_from');
    }
    for (const { source, kind } of this.incoming.get(node) ?? []) {
      if (kind === 'related') add(source, relatedWeight(doc.createdMs, this.docs[source]!.createdMs), 'related');
      else add(source, EDGE_WEIGHTS.decaysFrom, 'decays_from');
    }
    for (const [other, count] of Object.entries(doc.co_access)) add(this.indexOf.get(other), coAccessWeight(count), 'co_access');
    const edges = [...byTarget.values()];
    const total = edges.reduce((sum, e) => sum + e.weight, 0);
    if (total > 1) for (const edge of edges) edge.weight /= total;
    this.cache.set(node, edges);
    return edges;
  }
}
