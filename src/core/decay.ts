import type { MemoryState } from './memory';
import type { EngramSettings } from './settings';
import { daysBetween, parseTimestamp } from './time';

/**
 * Ebbinghaus with spaced repetition (SPEC §3):
 *   effectiveHalfLife = (is_error ? base * errorMultiplier : base) + access_count * retrievalBoostDays
 * Errors are tagged with extra durability (the amygdala effect); every retrieval pushes the
 * forgetting curve further out.
 */
export function effectiveHalfLife(base: number, accessCount: number, isError: boolean, settings: EngramSettings): number {
  const tagged = isError ? base * settings.errorMultiplier : base;
  return tagged + accessCount * settings.retrievalBoostDays;
}

/**
 * Ebbinghaus forgetting curve (SPEC §3): strength = 0.5 ^ (elapsedDays / effectiveHalfLife),
 * elapsed since the last access. A future access time counts as now.
 */
export function strengthAfter(elapsedDays: number, halfLifeDays: number): number {
  return Math.pow(0.5, Math.max(0, elapsedDays) / halfLifeDays);
}

export function memoryHalfLife(memory: MemoryState, settings: EngramSettings): number {
  return effectiveHalfLife(memory.half_life_days, memory.access_count, memory.is_error, settings);
}

/** A memory's strength at `now` (ms). Core memories do not decay. */
export function memoryStrength(memory: MemoryState, now: number, settings: EngramSettings): number {
  if (memory.tier === 'core') return 1;
  return strengthAfter(daysSinceAccess(memory, now), memoryHalfLife(memory, settings));
}

export function daysSinceAccess(memory: MemoryState, now: number): number {
  return daysBetween(parseTimestamp(memory.last_accessed_at)!, now);
}
