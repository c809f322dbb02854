import type { ValidationSettings } from '../settings';
import type { Verdict } from './verdict';

/**
 * What a verdict does (the self-maintaining-memory design's policy table). The cardinal rule:
 * weak or contradictory evidence never modifies a memory's content.
 *
 * | verdict                                         | action                                                    |
 * |-------------------------------------------------|-----------------------------------------------------------|
 * | any, confidence below minConfidence             | flag: needs review, rank-penalised, text untouched        |
 * | valid, clearly worded (or no new wording)       | refresh: validation metadata only                         |
 * | valid, unclear wording, a new wording proposed  | reword as a new version with autoApplyRewording and        |
 * |                                                 | confidence >= autoApplyConfidence; otherwise queue it      |
 * | partially_valid or outdated, a correction       | queue the correction for a person; never applied by itself |
 * | partially_valid or outdated, no correction      | flag                                                      |
 * | ambiguous, unsupported                          | flag                                                      |
 */
export type PolicyAction =
  | { action: 'refresh' }
  | { action: 'reword'; text: string }
  | { action: 'queue'; kind: 'rewording' | 'correction'; text: string }
  | { action: 'flag'; why: string };

export function decide(verdict: Verdict, settings: ValidationSettings): PolicyAction {
  if (verdict.confidence < settings.minConfidence) return { action: 'flag', why: `low confidence (${verdict.confidence} < ${settings.minConfidence})` };
  switch (verdict.verdict) {
    case 'valid':
      if (verdict.wording === 'clear' || verdict.proposed_text === null) return { action: 'refresh' };
      if (settings.autoApplyRewording && verdict.confidence >= settings.autoApplyConfidence) return { action: 'reword', text: verdict.proposed_text };
      return { action: 'queue', kind: 'rewording', text: verdict.proposed_text };
    case 'partially_valid':
    case 'outdated':
      if (verdict.proposed_text === null) return { action: 'flag', why: `${verdict.verdict} with no correction proposed` };
      return { action: 'queue', kind: 'correction', text: verdict.proposed_text };
    case 'ambiguous':
    case 'unsupported':
      return { action: 'flag', why: verdict.verdict };
  }
}
