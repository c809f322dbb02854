import type { Edge, EdgeKind } from './associations';

/**
 * Spreading activation (SPEC §7; Collins & Loftus, ACT-R): activation flows from the seeds
 * along the association graph to `depth` hops, multiplied by gamma (0.6) per hop and by each
 * edge's fan-normalised weight. A path never returns to a node it passed through.
 */
export interface SpreadSource {
  from: number;
  kinds: EdgeKind[];
  amount: number;
  path: number[];
}

export interface Spread {
  /** Activation received by each node (seeds too, from other seeds). */
  received: Map<number, number>;
  /** The largest single contribution each node received, for explanations. */
  via: Map<number, SpreadSource>;
  /** The largest seed value among the seeds each node received from (association caps). */
  strongestSeed: Map<number, number>;
}

export function spreadActivation(edges: (node: number) => Edge[], seeds: ReadonlyMap<number, number>, gamma: number, depth: number): Spread {
  const received = new Map<number, number>();
  const via = new Map<number, SpreadSource>();
  const strongestSeed = new Map<number, number>();
  let frontier = [...seeds].map(([node, value]) => ({ node, value, path: [node] }));
  for (let hop = 0; hop < depth; hop++) {
    const next: typeof frontier = [];
    for (const { node, value, path } of frontier) {
      for (const edge of edges(node)) {
        if (path.includes(edge.target)) continue;
        const amount = value * gamma * edge.weight;
        if (amount <= 0) continue;
        received.set(edge.target, (received.get(edge.target) ?? 0) + amount);
        const seed = seeds.get(path[0]!)!;
        if (seed > (strongestSeed.get(edge.target) ?? 0)) strongestSeed.set(edge.target, seed);
        const best = via.get(edge.target);
        const route = [...path, edge.target];
        if (!best || amount > best.amount) via.set(edge.target, { from: node, kinds: edge.kinds, amount, path: route });
        next.push({ node: edge.target, value: amount, path: route });
      }
    }
    frontier = next;
  }
  return { received, via, strongestSeed };
}
