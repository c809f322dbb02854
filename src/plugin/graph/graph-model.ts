import { effectiveHalfLife, strengthAfter } from '../../core/decay';
import type { RecallDoc } from '../../core/recall/catalog';
import type { EngramSettings, Tier } from '../../core/settings';
import { impliedTier, tierAt } from '../../core/tiers';
import { MS_PER_DAY } from '../../core/time';

/**
 * What the memory graphs and the sidebar show of a memory (SPEC §13): its tier by the core's
 * rule, its strength, half-life, last access and the day its tier next drops; and an edge per
 * link, by kind. Pure data, built from the plugin's in-memory catalog (no note is read).
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
  lastAccessMs: number;
}

export interface GraphEdge {
  source: string;
  target: string;
  kind: GraphEdgeKind;
  /** related / decays_from / contradicts 1; co_access the count. */
  weight: number;
}

export function graphNode(doc: RecallDoc, now: number, settings: EngramSettings): GraphNode {
  const halfLife = effectiveHalfLife(doc.half_life_days, doc.access_count, doc.is_error, settings);
  const tier = doc.archived ? 'archive' : tierAt(doc, doc.accessMs, now, settings);
  return {
    id: doc.id,
    path: doc.path,
    category: doc.category,
    tier,
    strength: doc.tier === 'core' ? 1 : strengthAfter((now - doc.accessMs) / MS_PER_DAY, halfLife),
    halfLifeDays: halfLife,
    lastAccessMs: doc.accessMs,
  };
}

/** When a memory's tier drops one step if it is not used (null: core, or already archive). */
export function demotionOf(doc: RecallDoc, now: number, settings: EngramSettings): number | null {
  const tier = doc.archived ? 'archive' : tierAt(doc, doc.accessMs, now, settings);
  return tier === 'core' || tier === 'archive' ? null : nextDemotion(doc, tier, now, settings);
}

/**
 * The first moment (to the hour, within ten years) at which the core's tier rule gives a lower
 * tier than `tier`; tiers only drop with time, so a binary search over the rule finds it.
 */
export function nextDemotion(doc: RecallDoc, tier: Tier, now: number, settings: EngramSettings): number | null {
  const lower = (t: number) => GRAPH_TIERS.indexOf(impliedTier({ ...doc, tier: null }, doc.accessMs, t, settings)) > GRAPH_TIERS.indexOf(tier);
  const hour = 3_600_000;
  let lo = now;
  let hi = now + 3650 * MS_PER_DAY;
  if (!lower(hi)) return null;
  while (hi - lo > hour) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (lower(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The edges among `docs`: co-access is symmetric (one edge per pair, the larger count);
 * `supersedes` is drawn as related; open conflicts add `contradicts` edges.
 */
export function graphEdges(docs: Iterable<RecallDoc>, present: (id: string) => boolean, conflicts: Array<[string, string]>): GraphEdge[] {
  const edges = new Map<string, GraphEdge>();
  const add = (source: string, target: string, kind: GraphEdgeKind, weight: number) => {
    if (source === target || !present(source) || !present(target)) return;
    const [a, b] = kind === 'co_access' || kind === 'contradicts' ? [source, target].sort() : [source, target];
    const key = edgeKey(kind, a!, b!);
    const existing = edges.get(key);
    if (!existing || existing.weight < weight) edges.set(key, { source: a!, target: b!, kind, weight });
  };
  for (const doc of docs) {
    for (const link of doc.links) add(doc.id, link.target, link.kind === 'supersedes' ? 'related' : link.kind, 1);
    for (const [other, count] of Object.entries(doc.co_access)) if (count > 0) add(doc.id, other, 'co_access', count);
  }
  for (const [a, b] of conflicts) add(a, b, 'contradicts', 1);
  return [...edges.values()];
}

export function edgeKey(kind: GraphEdgeKind, a: string, b: string): string {
  return `${kind}|${a}|${b}`;
}

export function tierCounts(nodes: Iterable<{ tier: Tier }>): Record<Tier, number> {
  const counts = { core: 0, active: 0, warm: 0, cold: 0, archive: 0 } as Record<Tier, number>;
  for (const n of nodes) counts[n.tier]++;
  return counts;
}

/** A short label from a memory's text: its first words (the title), at most `max` characters. */
export function firstWords(text: string, max = 48): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut.slice(0, max)).replace(/[\s,;:.-]+$/, '')}…`;
}
