import { memoryStrength } from '../decay';
import type { Memory } from '../memory';
import type { EngramSettings } from '../settings';

/**
 * Prune (SPEC §8 step 1): memories whose Ebbinghaus strength fell below 0.05 move to
 * `archive/` (never deleted). Kept regardless: core memories, verified decisions, and
 * well-connected memories (three or more associations: links either way and co-access
 * partners), which the seeds' "coherence" keeps alive.
 */
export const PRUNE_STRENGTH = 0.05;
export const WELL_CONNECTED = 3;

/** Partners an id's list holds before it becomes a Set (degreeOf). */
const FEW_PARTNERS = 8;

export function degreeOf(memories: Memory[]): Map<string, number> {
  // each id's distinct partners: a list while there are few (most memories have two or three:
  // a Set each was 10,000 Sets in a first consolidation at 10k), a Set past FEW_PARTNERS
  const neighbours = new Map<string, string[] | Set<string>>();
  const add = (a: string, b: string) => {
    if (a === b) return;
    const partners = neighbours.get(a);
    if (partners === undefined) neighbours.set(a, [b]);
    else if (!Array.isArray(partners)) partners.add(b);
    else if (!partners.includes(b)) {
      if (partners.length < FEW_PARTNERS) partners.push(b);
      else neighbours.set(a, new Set([...partners, b]));
    }
  };
  for (const m of memories) {
    for (const link of m.links) {
      add(m.id, link.target);
      add(link.target, m.id);
    }
    for (const other of Object.keys(m.co_access)) {
      add(m.id, other);
      add(other, m.id);
    }
  }
  // each id's count, in the same order (a spread of the 10,000 entries and a pair for each was
  // three arrays a memory in a first consolidation)
  const degree = new Map<string, number>();
  for (const [id, partners] of neighbours) degree.set(id, Array.isArray(partners) ? partners.length : partners.size);
  return degree;
}

export type PruneVerdict = 'prune' | 'keep-core' | 'keep-verified-decision' | 'keep-connected' | 'keep-strong';

export function pruneVerdict(memory: Memory, degree: number, now: number, settings: EngramSettings): PruneVerdict {
  if (memory.tier === 'core') return 'keep-core';
  if (memoryStrength(memory, now, settings) >= PRUNE_STRENGTH) return 'keep-strong';
  if (memory.category === 'decision' && memory.confidence === 'verified') return 'keep-verified-decision';
  if (degree >= WELL_CONNECTED) return 'keep-connected';
  return 'prune';
}
