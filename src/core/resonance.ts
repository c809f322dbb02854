import { analyze } from './analyzer';
import type { Category, EngramSettings } from './settings';

/**
 * Resonance on write (SPEC §6, wave interference). A new text is compared with what the
 * vault already holds: a near-identical memory is reinforced (constructive interference),
 * one on the same subject with the opposite polarity opens a conflict (destructive
 * interference), anything else is new.
 *
 * Lexical similarity: cosine between sets of stemmed content terms, |A∩B| / sqrt(|A|·|B|).
 * Candidates come from an inverted index with prefix filtering (a similarity join): for
 * cosine ≥ t, two sets must share at least ⌈t²·|A|⌉ terms, so one of A's |A| − ⌈t²·|A|⌉ + 1
 * rarest terms must be shared. Only those terms' postings are scanned, which keeps bulk
 * imports near-linear even when most texts share common words. Texts are indexed apart by
 * polarity: reinforcement looks among the same polarity, conflicts among the opposite one.
 */

export type Resonance =
  | { kind: 'new' }
  | { kind: 'reinforce'; id: string; similarity: number }
  | { kind: 'conflict'; id: string; similarity: number };

interface Entry {
  id: string;
  terms: Set<string>;
  category: Category;
  /** An archived memory: remembering it again reinforces (and revives) it; it opens no conflicts. */
  archived: boolean;
}

/** Conflicts need this many shared terms, so that small talk ("not sure" / "sure") does not. */
const MIN_CONFLICT_TERMS = 3;

class PolarityIndex {
  readonly postings = new Map<string, Entry[]>();

  add(entry: Entry): void {
    for (const term of entry.terms) {
      const list = this.postings.get(term);
      if (list) list.push(entry);
      else this.postings.set(term, [entry]);
    }
  }

  /** The best entry at cosine ≥ threshold (ties: smaller id), scanning only the prefix postings. */
  best(query: Set<string>, threshold: number, minShared: number, accept: (e: Entry) => boolean): { id: string; similarity: number } | null {
    const byRarity = [...query].sort((a, b) => (this.postings.get(a)?.length ?? 0) - (this.postings.get(b)?.length ?? 0) || (a < b ? -1 : 1));
    const prefix = query.size - Math.ceil(threshold * threshold * query.size - 1e-9) + 1;
    const seen = new Set<Entry>();
    let best: { id: string; similarity: number } | null = null;
    for (const term of byRarity.slice(0, Math.max(1, prefix))) {
      for (const entry of this.postings.get(term) ?? []) {
        if (seen.has(entry)) continue;
        seen.add(entry);
        if (!accept(entry)) continue;
        const sizeRatio = entry.terms.size / query.size;
        if (sizeRatio < threshold * threshold || sizeRatio > 1 / (threshold * threshold)) continue;
        let shared = 0;
        for (const t of query) if (entry.terms.has(t)) shared++;
        if (shared < minShared) continue;
        const similarity = shared / Math.sqrt(query.size * entry.terms.size);
        if (similarity < threshold) continue;
        if (!best || similarity > best.similarity || (similarity === best.similarity && entry.id < best.id)) best = { id: entry.id, similarity };
      }
    }
    return best;
  }
}

export class ResonanceIndex {
  private readonly ids = new Set<string>();
  private readonly plain = new PolarityIndex();
  private readonly negated = new PolarityIndex();

  constructor(private readonly settings: EngramSettings) {}

  get size(): number {
    return this.ids.size;
  }

  add(id: string, text: string, category: Category, options: { archived?: boolean } = {}): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    const { terms, negated } = analyze(text);
    (negated ? this.negated : this.plain).add({ id, terms: new Set(terms), category, archived: options.archived ?? false });
  }

  /** How `text` resonates with the indexed memories. */
  resonate(text: string, category: Category): Resonance {
    const { terms, negated } = analyze(text);
    const query = new Set(terms);
    if (query.size === 0) return { kind: 'new' };
    const { lexicalThreshold, conflictThreshold } = this.settings.resonance;
    const same = negated ? this.negated : this.plain;
    const opposite = negated ? this.plain : this.negated;
    const reinforce = same.best(query, lexicalThreshold, 1, (e) => e.category === category);
    if (reinforce) return { kind: 'reinforce', ...reinforce };
    const conflict = opposite.best(query, conflictThreshold, MIN_CONFLICT_TERMS, (e) => !e.archived);
    if (conflict) return { kind: 'conflict', ...conflict };
    return { kind: 'new' };
  }
}

/** Constructive interference (SPEC §6): amplitude += eventAmplitude × similarity. */
export function reinforcedAmplitude(amplitude: number, similarity: number, settings: EngramSettings): number {
  return Math.round((amplitude + settings.resonance.eventAmplitude * similarity) * 10_000) / 10_000;
}
