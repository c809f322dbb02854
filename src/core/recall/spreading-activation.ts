import type { EdgeKind, MemoryGraph } from './memory-graph';

/**
 * Spreading activation (SPEC §7, Collins & Loftus; ACT-R): activation flows from the seeds
 * along the association graph to depth 2, multiplied by gamma (0.6) per hop and by each
 * edge's (fan-normalised) weight. A path never returns to a node it passed through.
 */
export interface SpreadStep {
  from: string;
  kinds: EdgeKind[];
  amount: number;
}

export interface Spread {
  /** Activation received by each node from the seeds (seeds included, from other seeds). */
  received: Map<string, number>;
  /** The largest contribution each node received, for explanations. */
  via: Map<string, SpreadStep & { path: string[] }>;
}

export function spreadActivation(graph: MemoryGraph, seeds: Map<string, number>, gamma: number, depth: number): Spread {
  const received = new Map<string, number>();
  const via = new Map<string, SpreadStep & { path: string[] }>();
  let frontier: Array<{ node: string; value: number; path: string[] }> = [...seeds]
    .filter(([node]) => graph.hasNode(node))
    .map(([node, value]) => ({ node, value, path: [node] }));
  for (let hop = 0; hop < depth; hop++) {
    const next: typeof frontier = [];
    for (const { node, value, path } of frontier) {
      graph.forEachOutEdge(node, (_edge, attrs, _source, target) => {
        if (path.includes(target)) return;
        const amount = value * gamma * attrs.weight;
        if (amount <= 0) return;
        received.set(target, (received.get(target) ?? 0) + amount);
        const best = via.get(target);
        if (!best || amount > best.amount) via.set(target, { from: node, kinds: attrs.kinds, amount, path: [...path, target] });
        next.push({ node: target, value: amount, path: [...path, target] });
      });
    }
    frontier = next;
  }
  return { received, via };
}
