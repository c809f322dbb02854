import { pathMatches } from '../consolidation/git-invalidation';
import { ARCHIVE_FOLDER, type Memory } from '../memory';

/**
 * Volatility (the self-maintaining-memory design): how often the code a memory is about
 * changes, as an exponentially weighted average measured at each consolidation with a
 * repository: 1 when one of its related paths changed since the last run, 0 otherwise,
 *
 *     volatility ← smoothing × changed + (1 − smoothing) × volatility
 *
 * A volatile memory is due for validation sooner (validate.ts: the threshold is lowered by
 * volatilityWeight × volatility). Written as the `volatility` field, rounded to 3 decimals;
 * below 0.001 it becomes 0 and is no longer written, so a memory about quiet code costs no
 * writes. Deterministic: the same memories and changed paths give the same values.
 */
export function volatilityUpdates(memories: Memory[], changed: string[], smoothing: number): Array<{ id: string; volatility: number }> {
  const out: Array<{ id: string; volatility: number }> = [];
  for (const memory of memories) {
    if (memory.related_paths.length === 0 || memory.path.startsWith(`${ARCHIVE_FOLDER}/`)) continue;
    const before = typeof memory.extra.volatility === 'number' && Number.isFinite(memory.extra.volatility) ? memory.extra.volatility : 0;
    const hit = memory.related_paths.some((r) => changed.some((c) => pathMatches(r, c))) ? 1 : 0;
    const after = Math.round((smoothing * hit + (1 - smoothing) * before) * 1000) / 1000;
    if (after !== before) out.push({ id: memory.id, volatility: after });
  }
  return out;
}
