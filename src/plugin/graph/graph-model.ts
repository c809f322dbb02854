import { memoryHalfLife, memoryStrength } from '../../core/decay';
import type { MemoryState } from '../../core/memory';
import type { EngramSettings, Tier } from '../../core/settings';
import { currentTier } from '../../core/tiers';

/**
 * What the memory graph view draws (SPEC §13): a node per memory, coloured by the tier the
 * next decay pass would write and sized by strength; an edge per link, by kind. Pure data,
 * built from memory states, so the view can be rebuilt or patched when frontmatter changes.
 */
export const GRAPH_TIERS = ['core', 'active', 'warm', 'cold', 'archive'] as const satisfies readonly Tier[];
export const EDGE_KINDS = ['related', 'co_access', 'decays_from', 'contradicts'] as const;
export type GraphEdgeKind = (typeof EDGE_KINDS)[number];

export interface GraphNode {
  id: string;
  path: string;
  category: string;
  tier: Tier;
  strength: number;
  halfLifeDays: number;
  lastAccessedAt: string;
}

export interface GraphEdge {
  source: string;
  target: string;
  kind: GraphEdgeKind;
  /** related / decays_from / contradicts 1; co_access the count. */
  weight: number;
}

export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export function graphNode(memory: MemoryState, now: number, settings: EngramSettings): GraphNode {
  return {
    id: memory.id,
    path: memory.path,
    category: memory.category,
    tier: currentTier(memory, now, settings),
    strength: memoryStrength(memory, now, settings),
    halfLifeDays: memoryHalfLife(memory, settings),
    lastAccessedAt: memory.last_accessed_at,
  };
}

/**
 * Nodes and edges of the memories given. Co-access is symmetric (one edge per pair, the larger
 * count); `supersedes` is drawn as related; open conflict notes add `contradicts` edges.
 */
export function buildGraphModel(memories: MemoryState[], conflicts: Array<[string, string]>, now: number, settings: EngramSettings): GraphModel {
  const present = new Set(memories.map((m) => m.id));
  const edges = new Map<string, GraphEdge>();
  const add = (source: string, target: string, kind: GraphEdgeKind, weight: number) => {
    if (source === target || !present.has(source) || !present.has(target)) return;
    const [a, b] = kind === 'co_access' || kind === 'contradicts' ? [source, target].sort() : [source, target];
    const key = `${kind}|${a}|${b}`;
    const existing = edges.get(key);
    if (!existing || existing.weight < weight) edges.set(key, { source: a!, target: b!, kind, weight });
  };
  for (const m of memories) {
    for (const link of m.links) add(m.id, link.target, link.kind === 'supersedes' ? 'related' : link.kind, 1);
    for (const [other, count] of Object.entries(m.co_access)) if (count > 0) add(m.id, other, 'co_access', count);
  }
  for (const [a, b] of conflicts) add(a, b, 'contradicts', 1);
  return { nodes: memories.map((m) => graphNode(m, now, settings)), edges: [...edges.values()] };
}

export function tierCounts(nodes: Array<{ tier: Tier }>): Record<Tier, number> {
  const counts = { core: 0, active: 0, warm: 0, cold: 0, archive: 0 } as Record<Tier, number>;
  for (const n of nodes) counts[n.tier]++;
  return counts;
}
