import { appendJsonLine, readJsonLines } from './jsonl-log';
import type { EngramSettings } from './settings';
import { formatTimestamp } from './time';
import type { Vault } from './vault';

/**
 * Procedural utility (ACT-R's procedural half, the self-maintaining-memory design): each
 * automatic loop learns what its proposals are worth from the decisions people make on them,
 * by the delta rule
 *
 *     U ← U + α (R − U)
 *
 * with R = +1.0 for an approval, +0.4 for an approval that needed editing, −1.0 for a
 * rejection, and +0.5 when a memory the loop produced is later cited in an answer. U starts
 * at 0. Utility is deterministic and clock-free: no noise term, moved only by decisions.
 *
 * Advisory only: `engram loops` shows it with a recommendation; it never changes a loop's
 * settings. The one opt-in effect (procedural.utilityFloorEnabled) skips an automatic run of
 * a loop whose utility fell below the floor; runs asked for by hand are never affected.
 *
 * Every decision is one line of `.engram/loops.jsonl` (the audit: who decided what, on which
 * proposal, the reward and the utility before and after), and the utilities are the fold of
 * that log, so what `engram loops` shows can always be traced back.
 */
export const LOOPS = ['validation', 'clustering', 'conflicts'] as const;
export type Loop = (typeof LOOPS)[number];

export const DECISIONS = ['approved', 'approved_edited', 'rejected', 'cited'] as const;
export type Decision = (typeof DECISIONS)[number];

export const REWARDS: Record<Decision, number> = { approved: 1.0, approved_edited: 0.4, rejected: -1.0, cited: 0.5 };

export const LOOPS_LOG = '.engram/loops.jsonl';

export const LOOP_DESCRIPTIONS: Record<Loop, string> = {
  validation: 'validation verdicts: corrections, rewordings and flags in the review queue',
  clustering: 'consolidation: repeated episodes turned into semantic memories',
  conflicts: 'consolidation: conflicts resolved by dominance',
};

export interface LoopDecision {
  at: string;
  loop: Loop;
  decision: Decision;
  /** What was decided on: a proposal (review-…), a memory or a conflict note. */
  subject: string;
  reward: number;
  utility_before: number;
  utility_after: number;
  /** Who or what recorded it: review apply, review reject, cite, curation… */
  by: string;
  reason?: string;
}

/** The delta rule, rounded to 6 decimals so that the log and the fold agree exactly. */
export function deltaRule(utility: number, reward: number, alpha: number): number {
  return Math.round((utility + alpha * (reward - utility)) * 1e6) / 1e6;
}

export interface LoopReport {
  loop: Loop;
  description: string;
  utility: number;
  decisions: number;
  counts: Record<Decision, number>;
  last_decision_at: string | null;
  recommendation: string | null;
  /** With the opt-in floor: automatic runs of this loop are skipped. */
  suppressed: boolean;
}

export function recommendation(utility: number, decisions: number, settings: EngramSettings): string | null {
  if (decisions < settings.procedural.minDecisions) return null;
  if (utility <= -0.5) return 'consistently rejected; consider snoozing';
  if (utility >= 0.5) return 'high-value loop';
  return null;
}

/** Utilities folded from the log: a replay of every decision in order. */
export function foldDecisions(lines: LoopDecision[], settings: EngramSettings): LoopReport[] {
  const state = new Map<Loop, { utility: number; counts: Record<Decision, number>; last: string | null }>(
    LOOPS.map((l) => [l, { utility: 0, counts: { approved: 0, approved_edited: 0, rejected: 0, cited: 0 }, last: null }]),
  );
  for (const line of lines) {
    const s = state.get(line.loop);
    if (!s) continue;
    s.utility = deltaRule(s.utility, REWARDS[line.decision], settings.procedural.learningRate);
    s.counts[line.decision]++;
    s.last = line.at;
  }
  return LOOPS.map((loop) => {
    const s = state.get(loop)!;
    const decisions = Object.values(s.counts).reduce((a, b) => a + b, 0);
    return {
      loop,
      description: LOOP_DESCRIPTIONS[loop],
      utility: s.utility,
      decisions,
      counts: s.counts,
      last_decision_at: s.last,
      recommendation: recommendation(s.utility, decisions, settings),
      suppressed: settings.procedural.utilityFloorEnabled && decisions >= settings.procedural.minDecisions && s.utility < settings.procedural.utilityFloor,
    };
  });
}

export async function readDecisions(vault: Vault): Promise<LoopDecision[]> {
  return readJsonLines<LoopDecision>(vault, LOOPS_LOG, (line) => (LOOPS as readonly string[]).includes(line.loop) && (DECISIONS as readonly string[]).includes(line.decision));
}

export async function loopReports(vault: Vault): Promise<LoopReport[]> {
  return foldDecisions(await readDecisions(vault), vault.settings);
}

export interface DecisionInput {
  loop: Loop;
  decision: Decision;
  subject: string;
  by: string;
  reason?: string;
  /** Record only if no decision of this kind was recorded on this subject (a citation bonus is paid once). */
  once?: boolean;
}

/**
 * Record a decision and move the loop's utility, under the loops lock (one writer at a time,
 * so the utility before is the utility after the previous line). Returns the line written,
 * or null when `once` found the decision already recorded.
 */
export async function recordDecision(vault: Vault, input: DecisionInput): Promise<LoopDecision | null> {
  return vault.ports.locks.withLock('loops', async () => {
    const lines = await readDecisions(vault);
    if (input.once && lines.some((l) => l.loop === input.loop && l.decision === input.decision && l.subject === input.subject)) return null;
    const before = foldDecisions(lines, vault.settings).find((r) => r.loop === input.loop)!.utility;
    const reward = REWARDS[input.decision];
    const line: LoopDecision = {
      at: formatTimestamp(vault.now()),
      loop: input.loop,
      decision: input.decision,
      subject: input.subject,
      reward,
      utility_before: before,
      utility_after: deltaRule(before, reward, vault.settings.procedural.learningRate),
      by: input.by,
      ...(input.reason ? { reason: input.reason } : {}),
    };
    await appendJsonLine(vault, LOOPS_LOG, line);
    return line;
  });
}

/** The opt-in floor: whether an automatic run of `loop` should be skipped. Manual runs never ask. */
export async function automaticRunSuppressed(vault: Vault, loop: Loop): Promise<boolean> {
  if (!vault.settings.procedural.utilityFloorEnabled) return false;
  return (await loopReports(vault)).find((r) => r.loop === loop)!.suppressed;
}
