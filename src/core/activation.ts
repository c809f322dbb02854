import type { MemoryState } from './memory';
import type { EngramSettings } from './settings';
import { daysBetween, parseTimestamp } from './time';

/**
 * ACT-R base-level activation (SPEC §5): the stored activation decays exponentially with
 * a half-life (30 days by default) from `activation_at`; each use adds a boost.
 */
export function activationAt(memory: MemoryState, now: number, settings: EngramSettings): number {
  if (memory.activation === 0) return 0;
  const since = memory.activation_at ?? memory.last_accessed_at;
  const days = Math.max(0, daysBetween(parseTimestamp(since)!, now));
  return memory.activation * Math.pow(0.5, days / settings.activation.halfLifeDays);
}

/** What a boost given at `at` is worth at `now`: the same exponential decay (SPEC §5, ACT-R). */
export function boostAt(boost: number, at: number, now: number, settings: EngramSettings): number {
  return boost * Math.pow(0.5, Math.max(0, daysBetween(at, now)) / settings.activation.halfLifeDays);
}

/** The kinds of use that boost activation (SPEC §5). */
export type Use = 'returned' | 'cited' | 'read';

export function boostFor(use: Use, settings: EngramSettings): number {
  const a = settings.activation;
  return use === 'returned' ? a.returnedBoost : use === 'cited' ? a.citedBoost : a.readBoost;
}

/** A memory's outgoing edges for spreading a boost: typed links and co-access partners. */
export function spreadEdges(memory: Pick<MemoryState, 'links' | 'co_access' | 'id'>): string[] {
  const targets = new Set<string>();
  for (const link of memory.links) {
    if (link.kind !== 'supersedes' && link.target !== memory.id) targets.add(link.target);
  }
  for (const other of Object.keys(memory.co_access)) if (other !== memory.id) targets.add(other);
  return [...targets];
}

/**
 * Spreading of a boost (SPEC §5, ACT-R): each hop halves it and splits it across the
 * spreading memory's edges (fan), so a hub does not warm everything it touches; never along
 * `supersedes`. Returns the share each other memory receives, above `minSpreadBoost`.
 */
export async function spreadBoost(
  sourceId: string,
  amount: number,
  neighbours: (id: string) => Promise<string[]>,
  settings: EngramSettings,
): Promise<Map<string, number>> {
  const shares = new Map<string, number>();
  let frontier = new Map<string, number>([[sourceId, amount]]);
  for (let hop = 0; hop < settings.activation.spreadHops; hop++) {
    const next = new Map<string, number>();
    for (const [id, value] of frontier) {
      const edges = (await neighbours(id)).filter((t) => t !== sourceId);
      if (edges.length === 0) continue;
      const share = value / 2 / edges.length;
      if (share < settings.activation.minSpreadBoost) continue;
      for (const target of edges) next.set(target, (next.get(target) ?? 0) + share);
    }
    for (const [id, value] of next) shares.set(id, (shares.get(id) ?? 0) + value);
    frontier = next;
  }
  return shares;
}

/** Activation values are written rounded: four decimals are far below any threshold. */
export function roundActivation(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
