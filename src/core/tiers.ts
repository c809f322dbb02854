import { effectiveHalfLife } from './decay';
import { MS_PER_DAY, parseTimestamp } from './time';
import type { MemoryState } from './memory';
import type { EngramSettings, Tier } from './settings';

/** Tiers a memory can move through automatically, from most to least present. */
const LADDER: Tier[] = ['active', 'warm', 'cold', 'archive'];

/**
 * The tier for whole days since last access of the episodic baseline (SPEC §4): active 0-7,
 * warm 8-21, cold 22-60, archive beyond. Bounds come from settings (`tierDays`), and they
 * are days of an episodic memory with the base episodic half-life, never accessed.
 */
export function tierForDays(days: number, settings: EngramSettings): Tier {
  const whole = Math.floor(Math.max(0, days));
  if (whole <= settings.tierDays.active) return 'active';
  if (whole <= settings.tierDays.warm) return 'warm';
  if (whole <= settings.tierDays.cold) return 'cold';
  return 'archive';
}

/**
 * Tiers follow strength (SPEC §4): the days since access are measured in the memory's own
 * half-lives, converted to days of the episodic baseline (days × baseline / effective
 * half-life), then mapped by `tierForDays`. An episodic memory never accessed keeps the
 * bounds as written; a 90-day decision stays active 90 days, about as long as it is as
 * strong as a week-old episode; an error (half-life × 2) or a memory used often keeps each
 * tier proportionally longer. Two memories in the same tier have about the same strength.
 */
export function tierFor(daysSinceAccess: number, halfLifeDays: number, settings: EngramSettings): Tier {
  return tierForDays(baselineDays(daysSinceAccess, halfLifeDays, settings), settings);
}

/** Days since access expressed in days of the episodic baseline (see tierFor). */
export function baselineDays(daysSinceAccess: number, halfLifeDays: number, settings: EngramSettings): number {
  return (Math.max(0, daysSinceAccess) * settings.halfLifeDays.episodic) / halfLifeDays;
}

/** What the tier rule needs of a memory: a parsed one, a catalog document, a plugin's cache entry. */
export interface TierInputs {
  tier: Tier | null;
  half_life_days: number;
  access_count: number;
  is_error: boolean;
}

/** The tier a memory's strength implies at `now` (`accessMs`: its last access), ignoring what is written. */
export function impliedTier(memory: TierInputs, accessMs: number, now: number, settings: EngramSettings): Tier {
  const halfLife = effectiveHalfLife(memory.half_life_days, memory.access_count, memory.is_error, settings);
  return tierFor((now - accessMs) / MS_PER_DAY, halfLife, settings);
}

/**
 * The tier a memory is in now: the one written in the file, demoted to the one its strength
 * implies (what the next decay pass would write), or the implied one when the file has none.
 * Core stays core. Touch promotes one step from here, so a memory left untouched for months
 * comes back through cold and warm, not straight to active.
 */
export function currentTier(memory: MemoryState, now: number, settings: EngramSettings): Tier {
  return tierAt(memory, parseTimestamp(memory.last_accessed_at)!, now, settings);
}

/** currentTier from the fields a catalog document keeps (tier written, last access in ms, half-life inputs). */
export function tierAt(memory: TierInputs, accessMs: number, now: number, settings: EngramSettings): Tier {
  if (memory.tier === 'core') return 'core';
  const implied = impliedTier(memory, accessMs, now, settings);
  return memory.tier ? demote(memory.tier, implied) : implied;
}

/** The tier a new memory starts in: the one its age implies (an imported old episode is not active). */
export function newMemoryTier(memory: Omit<TierInputs, 'tier'>, createdMs: number, now: number, settings: EngramSettings): Tier {
  // impliedTier's rule without a copy of `memory` made for it (a new object for every import line)
  return tierFor((now - createdMs) / MS_PER_DAY, effectiveHalfLife(memory.half_life_days, memory.access_count, memory.is_error, settings), settings);
}

/** Touch (SPEC §4): graduated recall promotes exactly one tier; core never changes. */
export function promote(tier: Tier): Tier {
  if (tier === 'core') return 'core';
  return LADDER[Math.max(0, LADDER.indexOf(tier) - 1)]!;
}

/** The decay pass only demotes: the lower of the current tier and the implied one; core stays. */
export function demote(tier: Tier, implied: Tier): Tier {
  if (tier === 'core') return 'core';
  return LADDER.indexOf(implied) > LADDER.indexOf(tier) ? implied : tier;
}

/** Search radius by tier (SPEC §4). Creative mode draws from everything. */
export const RADIUS_TIERS = {
  default: ['core', 'active', 'warm'],
  deep: ['core', 'active', 'warm', 'cold'],
  all: ['core', 'active', 'warm', 'cold', 'archive'],
} as const satisfies Record<string, readonly Tier[]>;
export type Radius = keyof typeof RADIUS_TIERS;
