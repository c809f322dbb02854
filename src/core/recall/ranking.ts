import type { Radius } from '../tiers';
import type { EngramSettings } from '../settings';

/**
 * Ranking (SPEC §7): score = relevance × decay × confidence weight × (1 + ACT-R bonus).
 * - decay = floor + (1 − floor) × strength: the full Ebbinghaus strength in the default
 *   radius; in `deep` and `all` the caller asked for old memories on purpose, so decay is a
 *   mild factor there (floor 0.6 and 0.8), never a veto.
 * - ACT-R bonus = min(cap, scale × ln(1 + activation)): saturating and capped, it breaks ties
 *   and never drowns relevance.
 */
export function decayFactor(strength: number, radius: Radius, settings: EngramSettings): number {
  const floor = settings.recall.decayFloor[radius];
  return floor + (1 - floor) * strength;
}

export function activationBonus(activation: number, settings: EngramSettings): number {
  return Math.min(settings.recall.activationCap, settings.recall.activationScale * Math.log(1 + Math.max(0, activation)));
}
