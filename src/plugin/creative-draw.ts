import { effectiveHalfLife, strengthAfter } from '../core/decay';
import type { RecallDoc } from '../core/recall/catalog';
import type { EngramSettings } from '../core/settings';
import { daysBetween } from '../core/time';

/** The core's floor (src/core/creative.ts): even the strongest memory can be drawn. */
const FLOOR = 0.05;

/**
 * Creative recall's draw over the warm index's documents, the same draw as the core's
 * `creativeDraw` (weighted reservoir sampling, weight 1 - strength + 0.05, in id order, so the
 * same random numbers draw the same cards) without a Memory per document: every document
 * carries what decides its strength. Only the cards drawn are read afterwards. Returns the ids
 * drawn, in the order drawn.
 */
export function drawIds(docs: RecallDoc[], n: number, now: number, random: () => number, settings: EngramSettings): string[] {
  // ids are `mem-` and hexadecimal digits: code-unit order is the core's localeCompare order, and faster
  const sorted = [...docs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const keyed = sorted.map((doc) => {
    const strength = doc.tier === 'core' ? 1 : strengthAfter(daysBetween(doc.accessMs, now), effectiveHalfLife(doc.half_life_days, doc.access_count, doc.is_error, settings));
    return { id: doc.id, key: Math.pow(random(), 1 / (1 - strength + FLOOR)) };
  });
  keyed.sort((a, b) => b.key - a.key);
  return keyed.slice(0, Math.max(0, n)).map((k) => k.id);
}
