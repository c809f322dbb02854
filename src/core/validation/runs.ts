import { appendJsonLine, readJsonLines } from '../jsonl-log';
import { formatDay, parseTimestamp } from '../time';
import type { Vault } from '../vault';
import type { Verdict, VerdictKind } from './verdict';

/**
 * Every validation run, one JSON line in `.engram/validation-runs.jsonl`: what was asked, of
 * which model, what came back and what was done. Failures (timeouts, error statuses,
 * malformed answers, refusals, citations of unseen evidence) are recorded and never applied.
 * Earlier runs of a memory are evidence for the next; the day's runs count against the cap.
 */
export const RUNS_LOG = '.engram/validation-runs.jsonl';

export type RunOutcome =
  | 'refreshed' // valid: validation metadata refreshed
  | 'reworded' // a clearer wording applied as a new version (auto-apply on, high confidence)
  | 'queued' // a correction or rewording waits in the review queue
  | 'flagged' // weak, ambiguous or unsupported: needs review, rank-penalised, text untouched
  | 'unseen_evidence' // the verdict cited evidence it was not shown: rejected
  | 'malformed' // the answer was not a verdict
  | 'timeout'
  | 'http'
  | 'network'
  | 'refused'
  | 'empty';

export interface ValidationRun {
  run: string;
  memory: string;
  at: string;
  model: string;
  /** Asked by a person (`engram validate ID`) rather than found due. */
  manual: boolean;
  /** Nothing was written but this line: what would have happened. */
  dry_run: boolean;
  outcome: RunOutcome;
  /** The evidence ids shown to the model. */
  shown: string[];
  verdict?: VerdictKind;
  confidence?: number;
  wording?: Verdict['wording'];
  cited?: string[];
  reason?: string;
  proposed_text?: string | null;
  /** The review note made for it. */
  proposal?: string;
  /** What went wrong (failures). */
  error?: string;
}

export async function readRuns(vault: Vault): Promise<ValidationRun[]> {
  return readJsonLines<ValidationRun>(vault, RUNS_LOG, (run) => typeof run.run === 'string' && typeof run.memory === 'string');
}

export async function appendRun(vault: Vault, run: ValidationRun): Promise<void> {
  await appendJsonLine(vault, RUNS_LOG, run);
}

/** Runs (model calls) made on the UTC day of `now`: the daily cap counts these. */
export function runsOnDay(runs: ValidationRun[], now: number): number {
  const day = formatDay(now);
  return runs.filter((r) => {
    const at = parseTimestamp(r.at);
    return at !== null && formatDay(at) === day;
  }).length;
}
