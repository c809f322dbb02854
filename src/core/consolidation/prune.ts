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

export function degreeOf(memories: Memory[]): Map<string, number> {
  const neighbours = new Map<string, Set<string>>();
  const add = (a: string, b: string) => {
    if (a === b) return;
    let set = neighbours.get(a);
    if (!set) neighbours.set(a, (set = new Set()));
    set.add(b);
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
  for (const [id, set] of neighbours) degree.set(id, set.size);
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
