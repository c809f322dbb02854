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

/**
 * A superseded memory (ADR 0004) is kept and searchable but weighs half: it answers only when
 * nothing current does, and is held below its successor whatever its other factors.
 */
export const SUPERSEDED_WEIGHT = 0.5;

/**
 * Relevance is protected from the priors together (issue 20): whatever confidence, decay,
 * activation and role do to a score, a match more than RELEVANCE_MARGIN times as relevant as
 * another ranks above it. Scores stay the product of their factors unless that product would
 * put a match below a far less relevant one; then it is lifted just above the best score among
 * those (`lifted` says from what). Taken in ascending relevance, so a lift counts for the
 * matches above it. Superseded and stale memories are never lifted (they are not weaker, they
 * are replaced or wrong), though they still count as the ones to stay above.
 */
export const RELEVANCE_MARGIN = 1.5;
const LIFT = 1 + 1e-6;

export interface Protectable {
  relevance: number;
  score: number;
  /** May be lifted (not superseded, not stale). */
  liftable: boolean;
  /** Set when lifted: the score the factors gave. */
  lifted?: number;
}

export function protectRelevance<T extends Protectable>(items: T[], margin = RELEVANCE_MARGIN): T[] {
  const ascending = [...items].sort((a, b) => a.relevance - b.relevance);
  let below = 0; // items[0..below) have relevance × margin < the current one's
  let best = 0; // the best score among them
  for (const item of ascending) {
    while (below < ascending.length && ascending[below]!.relevance * margin < item.relevance) best = Math.max(best, ascending[below++]!.score);
    if (item.liftable && best > 0 && item.score <= best) {
      item.lifted = item.score;
      item.score = best * LIFT;
    }
  }
  return items;
}
