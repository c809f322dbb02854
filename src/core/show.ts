import { activationAt } from './activation';
import { memoryHalfLife, memoryStrength } from './decay';
import type { Memory } from './memory';
import type { EngramSettings, Tier } from './settings';
import { currentTier, impliedTier } from './tiers';
import { daysSinceAccess } from './decay';
import { parseTimestamp } from './time';

/** A memory with the values computed at `now` (SPEC §14 `show`). */
export interface MemoryView {
  [field: string]: unknown;
  strength: number;
  effective_half_life_days: number;
  activation_now: number;
  tier_now: Tier;
  tier_by_days: Tier;
  days_since_access: number;
  due_for_validation: boolean;
}

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

export function describeMemory(memory: Memory, now: number, settings: EngramSettings): MemoryView {
  const { body, links, extra, ...fields } = memory;
  const activation = activationAt(memory, now, settings);
  return {
    ...extra,
    ...fields,
    links,
    text: body.trim(),
    strength: round(memoryStrength(memory, now, settings)),
    effective_half_life_days: round(memoryHalfLife(memory, settings)),
    activation_now: round(activation),
    tier_now: currentTier(memory, now, settings),
    tier_by_days: impliedTier(memory, parseTimestamp(memory.last_accessed_at)!, now, settings),
    days_since_access: round(daysSinceAccess(memory, now), 2),
    due_for_validation: activation >= settings.activation.validationThreshold,
  };
}
