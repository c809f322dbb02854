import { activationAt } from '../activation';
import { EngramError } from '../errors';
import type { FieldValue } from '../frontmatter';
import { sha256Hex } from '../ids';
import type { Memory } from '../memory';
import { automaticRunSuppressed } from '../procedural-utility';
import { createProposal } from '../review';
import type { Confidence } from '../settings';
import { formatTimestamp, parseTimestamp, daysBetween } from '../time';
import type { Vault } from '../vault';
import { editText } from '../versions';
import { ChatError, type ChatModel } from './chat';
import { gatherEvidence, type ProjectHistory } from './evidence';
import { decide } from './policy';
import { appendRun, readRuns, runsOnDay, type ValidationRun } from './runs';
import { parseVerdict, verdictRequest } from './verdict';

/**
 * Validation (SPEC §10, opt-in): a memory that is due (or named by a person) is judged by the
 * configured chat model against evidence gathered from the vault and the repository, and the
 * policy decides what the verdict may change (policy.ts). Safe by default: off until
 * `validation.enabled`; a dry run (only the run log is written) until `validation.dryRun` is
 * turned off; at most `validation.dailyCap` model calls a UTC day.
 *
 * Due: activation at or above the threshold, lowered for volatile memories (whose related
 * paths keep changing in git) to threshold × (1 − volatilityWeight × volatility); not stale;
 * no open review; not validated within the activation half-life (so a memory used heavily is
 * checked about once a month, not on every run).
 */
export interface ValidateOptions {
  chat: ChatModel;
  history: ProjectHistory | null;
  /** A person asked (`engram validate ID`): the memory need not be due, the utility floor does not apply. */
  manual: boolean;
}

export interface DueMemory {
  id: string;
  activation: number;
  threshold: number;
  volatility: number;
}

export function volatilityOf(memory: Memory): number {
  const v = memory.extra.volatility;
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
}

export function dueThreshold(memory: Memory, vault: Vault): number {
  const s = vault.settings;
  return s.activation.validationThreshold * (1 - s.validation.volatilityWeight * volatilityOf(memory));
}

export function dueForValidation(memories: Memory[], vault: Vault): DueMemory[] {
  const now = vault.now();
  const out: DueMemory[] = [];
  for (const m of memories) {
    if (m.confidence === 'stale' || m.path.startsWith('archive/') || m.extra.needs_review === true) continue;
    const activation = activationAt(m, now, vault.settings);
    const threshold = dueThreshold(m, vault);
    if (activation < threshold) continue;
    const last = typeof m.extra.validated_at === 'string' ? parseTimestamp(m.extra.validated_at) : null;
    if (last !== null && daysBetween(last, now) < vault.settings.activation.halfLifeDays) continue;
    out.push({ id: m.id, activation: Math.round(activation * 1000) / 1000, threshold: Math.round(threshold * 1000) / 1000, volatility: volatilityOf(m) });
  }
  return out.sort((a, b) => b.activation - a.activation || (a.id < b.id ? -1 : 1));
}

export class ValidationOffError extends EngramError {
  override name = 'ValidationOffError';
}

/** Whether a run may be made now: validation on, the day's cap not reached. */
async function checkAllowed(vault: Vault): Promise<{ dryRun: boolean; runs: ValidationRun[] }> {
  const s = vault.settings.validation;
  if (!s.enabled) throw new ValidationOffError('validation is off: set "validation": {"enabled": true} in .engram/config.json (it starts as a dry run) and configure "chat"');
  const runs = await readRuns(vault);
  const today = runsOnDay(runs, vault.now());
  if (today >= s.dailyCap) throw new EngramError(`the daily validation cap is reached (${today} of ${s.dailyCap} runs today); try again tomorrow or raise validation.dailyCap`);
  return { dryRun: s.dryRun, runs };
}

/** Rank penalty of a flag: one confidence step down (verified → observed → inferred), remembered so review can restore it. */
function flagFields(memory: Memory, verdict: string, at: string, run: string): Record<string, FieldValue> {
  const lower: Partial<Record<Confidence, Confidence>> = { verified: 'observed', observed: 'inferred' };
  const fields: Record<string, FieldValue> = { needs_review: true, validation: verdict, validated_at: at, validation_run: run };
  const down = lower[memory.confidence];
  if (down) {
    fields.confidence = down;
    if (memory.extra.confidence_before_review === undefined) fields.confidence_before_review = memory.confidence;
  }
  return fields;
}

/** Validate one memory now. Returns the run as recorded. */
export async function validateMemory(vault: Vault, id: string, options: ValidateOptions): Promise<ValidationRun> {
  const { dryRun, runs } = await checkAllowed(vault);
  const memory = await vault.resolve(id);
  const at = formatTimestamp(vault.now());
  const runId = `val-${sha256Hex(`${memory.id}|${at}|${runs.length}`).slice(0, 12)}`;
  const earlier = runs.filter((r) => r.memory === memory.id);
  const evidence = await gatherEvidence(vault, memory, earlier, options.history);
  const shown = evidence.map((e) => e.id);
  const base: ValidationRun = { run: runId, memory: memory.id, at, model: options.chat.model, manual: options.manual, dry_run: dryRun, outcome: 'malformed', shown };

  let answer: string;
  try {
    answer = await options.chat.complete(verdictRequest(memory, evidence));
  } catch (error) {
    const run: ValidationRun = error instanceof ChatError ? { ...base, outcome: error.kind, error: error.message } : { ...base, outcome: 'network', error: error instanceof Error ? error.message : String(error) };
    await appendRun(vault, run);
    return run;
  }
  const parsed = parseVerdict(answer, shown);
  if (!parsed.ok) {
    const run: ValidationRun = { ...base, outcome: parsed.outcome, error: parsed.error, ...(parsed.verdict ? { verdict: parsed.verdict.verdict, confidence: parsed.verdict.confidence, cited: parsed.verdict.evidence } : {}) };
    await appendRun(vault, run);
    return run;
  }
  const verdict = parsed.verdict;
  const action = decide(verdict, vault.settings.validation);
  const judged: ValidationRun = { ...base, verdict: verdict.verdict, confidence: verdict.confidence, wording: verdict.wording, cited: verdict.evidence, reason: verdict.reason, proposed_text: verdict.proposed_text };
  let run: ValidationRun;
  switch (action.action) {
    case 'refresh':
      run = { ...judged, outcome: 'refreshed' };
      if (!dryRun) await vault.update(memory.id, () => ({ validated_at: at, validation: 'valid', validation_run: runId }));
      break;
    case 'reword':
      run = { ...judged, outcome: 'reworded' };
      if (!dryRun) {
        await editText(vault, memory.id, action.text, { reason: `rewording by validation ${runId} (confidence ${verdict.confidence})`, by: 'validation' });
        await vault.update(memory.id, () => ({ validated_at: at, validation: 'valid, reworded', validation_run: runId }));
      }
      break;
    case 'queue': {
      run = { ...judged, outcome: 'queued' };
      if (!dryRun) {
        const proposal = await createProposal(vault, { kind: action.kind, memory, loop: 'validation', seed: runId, verdict: verdict.verdict, confidence: verdict.confidence, run: runId, reason: verdict.reason, proposed_text: action.text, evidence });
        run.proposal = proposal.path;
        // a correction means the memory is not right as it stands: flagged until a person decides
        await vault.update(memory.id, (m): Record<string, FieldValue> =>
          action.kind === 'correction'
            ? { ...flagFields(m, verdict.verdict, at, runId), review: `[[${proposal.id}]]` }
            : { validated_at: at, validation: 'valid, rewording proposed', validation_run: runId, review: `[[${proposal.id}]]` },
        );
      }
      break;
    }
    case 'flag': {
      run = { ...judged, outcome: 'flagged', reason: `${action.why}: ${verdict.reason}` };
      if (!dryRun) {
        const proposal = await createProposal(vault, { kind: 'flag', memory, loop: 'validation', seed: runId, verdict: verdict.verdict, confidence: verdict.confidence, run: runId, reason: `${action.why}. ${verdict.reason}`, proposed_text: null, evidence });
        run.proposal = proposal.path;
        await vault.update(memory.id, (m) => ({ ...flagFields(m, verdict.verdict, at, runId), review: `[[${proposal.id}]]` }));
      }
      break;
    }
  }
  await appendRun(vault, run);
  return run;
}

export interface DueReport {
  due: DueMemory[];
  runs: ValidationRun[];
  /** Why the rest were not validated: the daily cap, or the utility floor. */
  stopped: string | null;
}

/** The automatic trigger (cron): validate what is due, most active first, within the daily cap. */
export async function validateDue(vault: Vault, options: Omit<ValidateOptions, 'manual'>): Promise<DueReport> {
  const { memories } = await vault.loadAll({ archive: false });
  const due = dueForValidation(memories, vault);
  if (!vault.settings.validation.enabled) throw new ValidationOffError('validation is off: set "validation": {"enabled": true} in .engram/config.json (it starts as a dry run) and configure "chat"');
  if (await automaticRunSuppressed(vault, 'validation')) return { due, runs: [], stopped: 'the validation loop is below the utility floor (procedural.utilityFloorEnabled): automatic runs are skipped; engram validate ID still works' };
  const runs: ValidationRun[] = [];
  for (const item of due) {
    const today = runsOnDay(await readRuns(vault), vault.now());
    if (today >= vault.settings.validation.dailyCap) return { due, runs, stopped: `daily cap reached (${today} of ${vault.settings.validation.dailyCap})` };
    runs.push(await validateMemory(vault, item.id, { ...options, manual: false }));
  }
  return { due, runs, stopped: null };
}
