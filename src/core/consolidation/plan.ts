import { memoryStrength } from '../decay';
import { ARCHIVE_FOLDER, type Memory } from '../memory';
import { archivedPath, revivedPath } from '../memory-files';
import type { EngramSettings, Tier } from '../settings';
import { demote, impliedTier } from '../tiers';
import { parseTimestamp } from '../time';
import { degreeOf, pruneVerdict } from './prune';
import type { ClusterAction } from './semantic';
import type { ConflictDecision } from './conflicts';

/**
 * What one consolidation run will do, decided before anything is written (SPEC §8). The plan
 * is saved first and every action is idempotent, so a run killed at any point is completed
 * by the next one: a move whose source is gone and whose target exists is done; a field
 * already at its planned value is not written again.
 */
export interface ConsolidationPlan {
  format: 1;
  started_at: string;
  /**
   * Each memory action carries `seen`, the memory's last_accessed_at when the plan was made:
   * it is carried out only while the memory still shows that time (a memory used since, by a
   * touch during the run or before a resumed one, is decided again by the next run), and a
   * strengthening only while the half-life is still `from`: exactly once, even when a killed
   * run is completed by the next one.
   */
  prune: Array<{ id: string; from: string; to: string; seen?: string }>;
  /** Archived memories going back to their folder (absent in plans written before it existed). */
  revive?: Array<{ id: string; from: string; to: string; seen?: string }>;
  strengthen: Array<{ id: string; half_life_days: number; from?: number; seen?: string }>;
  tiers: Array<{ id: string; from: Tier; to: Tier; seen?: string }>;
  clusters: ClusterAction[];
  stale: Array<{ id: string; paths: string[] }>;
  /** Volatility of memories whose related paths did or did not change (validation/volatility.ts). */
  volatility?: Array<{ id: string; volatility: number }>;
  conflicts: ConflictDecision[];
  /** The repository's HEAD at this run, recorded in runs.jsonl for the next one. */
  git_head: string | null;
}

/**
 * Strengthen (step 5): a memory used since it was last strengthened (or since it was made) that
 * survived proved durable: its base half-life grows by the retrieval boost (spaced repetition
 * made permanent), and `strengthened_at` records the run. The decision rests on the memory's
 * own fields, not on this machine's log of runs, so two clones of a vault consolidating the
 * same state at the same time make the same change (issue 14).
 * Revive: a memory in archive/ whose tier says it is no longer archived (a touch merged in from
 * another machine while this one archived it, or a person's edit) goes back to its folder,
 * unless it is weak enough to be pruned again.
 * Tiers (step 7): demote to the tier the memory's strength implies (days since access in its
 * own half-lives, tiers.ts); never promote; core stays.
 */
export function buildPlan(memories: Memory[], now: number, startedAt: string, settings: EngramSettings): ConsolidationPlan {
  const degree = degreeOf(memories);
  const plan: ConsolidationPlan = { format: 1, started_at: startedAt, prune: [], revive: [], strengthen: [], tiers: [], clusters: [], stale: [], conflicts: [], git_head: null };
  for (const memory of memories) {
    const verdict = pruneVerdict(memory, degree.get(memory.id) ?? 0, now, settings);
    let archived = memory.path.startsWith(`${ARCHIVE_FOLDER}/`);
    if (archived && memory.tier !== null && memory.tier !== 'archive' && verdict !== 'prune') {
      plan.revive!.push({ id: memory.id, from: memory.path, to: revivedPath(memory.path, memory.category), seen: memory.last_accessed_at });
      archived = false;
    }
    if (!archived && verdict === 'prune') {
      plan.prune.push({ id: memory.id, from: memory.path, to: archivedPath(memory.path), seen: memory.last_accessed_at });
      if (memory.tier !== 'archive') plan.tiers.push({ id: memory.id, from: memory.tier ?? 'active', to: 'archive', seen: memory.last_accessed_at });
      continue;
    }
    const accessed = parseTimestamp(memory.last_accessed_at)!;
    const since = strengthenedSince(memory);
    if (!archived && accessed > since && memoryStrength(memory, now, settings) >= 0.5) {
      plan.strengthen.push({ id: memory.id, half_life_days: memory.half_life_days + settings.retrievalBoostDays, from: memory.half_life_days, seen: memory.last_accessed_at });
    }
    const implied = archived ? 'archive' : impliedTier(memory, accessed, now, settings);
    const target = memory.tier ? demote(memory.tier, implied) : implied;
    if (target !== memory.tier) plan.tiers.push({ id: memory.id, from: memory.tier ?? implied, to: target, seen: memory.last_accessed_at });
  }
  return plan;
}

/** When a memory was last strengthened, or made: a use after that proves it durable. */
function strengthenedSince(memory: Memory): number {
  const stamp = memory.extra.strengthened_at;
  const at = typeof stamp === 'string' ? parseTimestamp(stamp) : null;
  return at ?? parseTimestamp(memory.created_at)!;
}

/** What one step of a plan changes, memory by memory (the `--verbose` / `--json` listing of a report). */
export function planChanges(plan: ConsolidationPlan, step: string): Array<{ id: string; change: string }> {
  switch (step) {
    case 'prune':
      return [...(plan.revive ?? []), ...plan.prune].map((p) => ({ id: p.id, change: `${p.from} -> ${p.to}` }));
    case 'git':
      return plan.stale.map((s) => ({ id: s.id, change: `stale: ${s.paths.join(', ')} changed` }));
    case 'cluster':
      return plan.clusters.flatMap((c) => [
        { id: c.id, change: `${c.action === 'create' ? 'new' : 'reinforced'} semantic memory of ${c.members.length} episodes` },
        ...c.new_members.map((m) => ({ id: m, change: `decays_from ${c.id}` })),
      ]);
    case 'strengthen':
      return plan.strengthen.map((s) => ({ id: s.id, change: `half_life_days -> ${s.half_life_days}` }));
    case 'conflicts':
      return plan.conflicts.map((c) => ({ id: c.loser, change: `stale: loses ${c.path} to ${c.winner}` }));
    case 'tiers':
      // a note without a tier (one a person wrote) gets the one it is in: said so, not "active -> active"
      return plan.tiers.map((t) => ({ id: t.id, change: t.from === t.to ? `no tier -> ${t.to}` : `${t.from} -> ${t.to}` }));
    default:
      return [];
  }
}
