import { analyze } from './analyzer';
import type { Category, EngramSettings } from './settings';

/**
 * Resonance on write (SPEC §6, wave interference). A new text is compared with what the
 * vault already holds: a near-identical memory is reinforced (constructive interference),
 * one on the same subject with the opposite polarity opens a conflict (destructive
 * interference), anything else is new.
 *
 * Lexical similarity: cosine between sets of stemmed content terms, |A∩B| / sqrt(|A|·|B|),
 * found through an inverted index so each comparison touches only memories sharing a term.
 */

export type Resonance =
  | { kind: 'new' }
  | { kind: 'reinforce'; id: string; similarity: number }
  | { kind: 'conflict'; id: string; similarity: number };

interface Entry {
  terms: Set<string>;
  negated: boolean;
  category: Category;
}

/** Conflicts need this many shared terms, so that small talk ("not sure" / "sure") does not. */
const MIN_CONFLICT_TERMS = 3;

export class ResonanceIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly postings = new Map<string, string[]>();

  constructor(private readonly settings: EngramSettings) {}

  get size(): number {
    return this.entries.size;
  }

  add(id: string, text: string, category: Category): void {
    if (this.entries.has(id)) return;
    const { terms, negated } = analyze(text);
    const set = new Set(terms);
    this.entries.set(id, { terms: set, negated, category });
    for (const term of set) {
      const list = this.postings.get(term);
      if (list) list.push(id);
      else this.postings.set(term, [id]);
    }
  }

  /** How `text` resonates with the indexed memories. */
  resonate(text: string, category: Category): Resonance {
    const { terms, negated } = analyze(text);
    const query = new Set(terms);
    if (query.size === 0) return { kind: 'new' };
    const overlap = new Map<string, number>();
    for (const term of query) {
      for (const id of this.postings.get(term) ?? []) overlap.set(id, (overlap.get(id) ?? 0) + 1);
    }
    let best: { id: string; similarity: number } | null = null;
    let conflict: { id: string; similarity: number } | null = null;
    for (const [id, shared] of overlap) {
      const entry = this.entries.get(id)!;
      const similarity = shared / Math.sqrt(query.size * entry.terms.size);
      if (entry.negated === negated) {
        if (entry.category === category && similarity >= this.settings.resonance.lexicalThreshold) {
          if (!best || similarity > best.similarity || (similarity === best.similarity && id < best.id)) best = { id, similarity };
        }
      } else if (shared >= MIN_CONFLICT_TERMS && similarity >= this.settings.resonance.conflictThreshold) {
        if (!conflict || similarity > conflict.similarity || (similarity === conflict.similarity && id < conflict.id)) conflict = { id, similarity };
      }
    }
    if (best) return { kind: 'reinforce', ...best };
    if (conflict) return { kind: 'conflict', ...conflict };
    return { kind: 'new' };
  }
}

/** Constructive interference (SPEC §6): amplitude += eventAmplitude × similarity. */
export function reinforcedAmplitude(amplitude: number, similarity: number, settings: EngramSettings): number {
  return Math.round((amplitude + settings.resonance.eventAmplitude * similarity) * 10_000) / 10_000;
}
