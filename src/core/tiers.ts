import { daysBetween, parseTimestamp } from './time';
import type { MemoryState } from './memory';
import type { EngramSettings, Tier } from './settings';

/** Tiers a memory can move through automatically, from most to least present. */
const LADDER: Tier[] = ['active', 'warm', 'cold', 'archive'];

/**
 * The tier implied by whole days since last access (SPEC §4): active 0-7, warm 8-21,
 * cold 22-60, archive beyond. Bounds come from settings.
 */
export function tierForDays(days: number, settings: EngramSettings): Tier {
  const whole = Math.floor(Math.max(0, days));
  if (whole <= settings.tierDays.active) return 'active';
  if (whole <= settings.tierDays.warm) return 'warm';
  if (whole <= settings.tierDays.cold) return 'cold';
  return 'archive';
}

/**
 * The tier a memory is in now: the one written in the file, demoted to the one its days
 * imply (what the next decay pass would write), or the implied one when the file has none.
 * Core stays core. Touch promotes one step from here, so a memory left untouched for months
 * comes back through cold and warm, not straight to active.
 */
export function currentTier(memory: MemoryState, now: number, settings: EngramSettings): Tier {
  return tierAt(memory.tier, parseTimestamp(memory.last_accessed_at)!, now, settings);
}

/** currentTier from the fields a catalog row keeps (tier written, last access in ms). */
export function tierAt(written: Tier | null, accessMs: number, now: number, settings: EngramSettings): Tier {
  const implied = tierForDays(daysBetween(accessMs, now), settings);
  return written ? demote(written, implied) : implied;
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
