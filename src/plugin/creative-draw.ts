import { creativeDraw } from '../core/creative';
import type { Memory } from '../core/memory';
import type { RecallDoc } from '../core/recall/catalog';
import type { EngramSettings } from '../core/settings';

/**
 * Creative recall's draw over the index's documents: the core's draw (weighted towards faded
 * memories) needs only what decides a memory's strength, which every document carries; the
 * cards drawn are then read. Returns the ids drawn, in the order drawn.
 */
export function drawIds(docs: RecallDoc[], n: number, now: number, random: () => number, settings: EngramSettings): string[] {
  const states = docs.map((d) => ({ id: d.id, tier: d.tier, last_accessed_at: new Date(d.accessMs).toISOString(), half_life_days: d.half_life_days, access_count: d.access_count, is_error: d.is_error }));
  return creativeDraw(states as unknown as Memory[], n, now, random, settings).map((m) => m.id);
}
