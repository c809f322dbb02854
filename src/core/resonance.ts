import { isLabelWord, opposedTerms, polarity, whatItAdds, whatItAddsByMeaning, type Polarity } from './polarity';
import type { Category, Confidence, EngramSettings } from './settings';
import { changeSignals, detectChange, mayChange, type Change, type ChangeSide, type ChangeSignals } from './supersession';

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
 * imports near-linear even when most texts share common words. Polarity is per term
 * (polarity.ts): a candidate is reinforced only when the new text adds nothing to it, and a
 * conflict needs a shared term that one text affirms and the other negates.
 */

export type Resonance =
  | { kind: 'new' }
  | { kind: 'reinforce'; id: string; similarity: number }
  | { kind: 'conflict'; id: string; similarity: number };

/** An analysis kept elsewhere (a write index row): decoded when first asked for. */
export interface StoredAnalysis {
  /** The terms, in order, and the negated ones: what indexing needs of every memory. */
  terms: string[];
  negated: string[];
  polarity: () => Polarity;
  signals: () => ChangeSignals;
}

/**
 * A text as writing compares it: its polarity, and its change signals (supersession.ts), each
 * worked out once, when first asked for. A new text is analysed once for resonance, changes
 * and the index (three polarity() runs a line before); a memory from the write index
 * (write-index.ts) comes with both, decoded from its row only when it is a candidate.
 */
export class AnalysedText {
  private p: Polarity | null = null;
  private s: ChangeSignals | null = null;

  constructor(
    readonly text: string | null,
    private readonly stored: StoredAnalysis | null = null,
  ) {}

  get polarity(): Polarity {
    return (this.p ??= this.stored ? this.stored.polarity() : polarity(this.text ?? ''));
  }

  get signals(): ChangeSignals {
    return (this.s ??= this.stored ? this.stored.signals() : changeSignals(this.text ?? ''));
  }

  /** The terms in order (polarity().terms), without decoding a stored polarity. */
  get termList(): readonly string[] {
    return this.stored ? this.stored.terms : [...this.polarity.terms];
  }

  /** The negated terms, without decoding a stored polarity. */
  get negatedList(): Iterable<string> {
    return this.stored ? this.stored.negated : this.polarity.negated;
  }
}

const analysed = (text: string | AnalysedText): AnalysedText => (typeof text === 'string' ? new AnalysedText(text) : text);

/**
 * An indexed memory. Its terms as a set and its polarity are the analysis', decoded when it is
 * first compared: a remember into 10,000 memories compares a few hundred.
 */
class Entry {
  constructor(
    readonly id: string,
    /** Its analysis, or how to make it (a write index row, decoded when first compared). */
    private source: AnalysedText | (() => AnalysedText),
    readonly termCount: number,
    readonly category: Category,
    /** An archived memory: remembering it again reinforces (and revives) it; it opens no conflicts. */
    readonly archived: boolean,
    readonly confidence: Confidence,
    readonly createdMs: number,
    /** Already replaced by a newer memory: a change replaces its successor, not it. */
    public superseded: boolean,
    /** In an index with a focus: the focus terms it holds (ResonanceIndex.addFocused). */
    private readonly focusTerms: readonly string[] | null = null,
  ) {}

  get focused(): boolean {
    return this.focusTerms !== null;
  }

  /** How many of `query`'s terms it holds; in an index with a focus (which holds `query`), without decoding its analysis. */
  shared(query: ReadonlySet<string>): number {
    let shared = 0;
    if (this.focusTerms) {
      for (const t of this.focusTerms) if (query.has(t)) shared++;
    } else {
      const terms = this.terms;
      for (const t of query) if (terms.has(t)) shared++;
    }
    return shared;
  }

  /** Whether it holds every one of `terms` (all in the focus, with one): stops at the first it lacks. */
  holdsAll(terms: readonly string[]): boolean {
    if (this.focusTerms) {
      for (const t of terms) if (!this.focusTerms.includes(t)) return false;
      return true;
    }
    const own = this.terms;
    for (const t of terms) if (!own.has(t)) return false;
    return true;
  }

  /** For supersession (supersession.ts) too: its signals are read when it is a candidate. */
  get analysis(): AnalysedText {
    if (typeof this.source === 'function') this.source = this.source();
    return this.source;
  }

  get terms(): Set<string> {
    return this.analysis.polarity.terms;
  }

  get polarity(): Polarity {
    return this.analysis.polarity;
  }
}

/** What indexing a memory may say besides its text and category. */
export interface EntryOptions {
  archived?: boolean;
  confidence?: Confidence;
  createdMs?: number;
  superseded?: boolean;
}

/** A change `resonate` found: an older memory the new text supersedes, or disputes. */
export interface FoundChange extends Change {
  id: string;
}

/** Supersessions a single new text makes at most (the same fact said in a few older memories). */
const MAX_CHANGES = 3;
/** Entries looked at for a changed value: the rarest terms' postings first, up to this many. */
const MAX_VALUE_CANDIDATES = 4000;

/** Conflicts need this many shared terms, so that small talk ("not sure" / "sure") does not. */
const MIN_CONFLICT_TERMS = 3;

export class TermIndex {
  readonly postings = new Map<string, Entry[]>();

  add(entry: Entry, terms: Iterable<string>): void {
    for (const term of terms) {
      const list = this.postings.get(term);
      if (list) list.push(entry);
      else this.postings.set(term, [entry]);
    }
  }

  /**
   * Terms from the rarest (fewest postings) to the commonest, ties by the term: each term's count
   * looked up once (a comparator looking both up cost ~2 % of an import).
   */
  byRarity(terms: Iterable<string>): string[] {
    const keyed: Array<[number, string]> = [];
    for (const t of terms) keyed.push([this.postings.get(t)?.length ?? 0, t]);
    keyed.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    return keyed.map((k) => k[1]);
  }

  /**
   * At most how many of `query`'s terms an entry shares, from the postings of its rarest terms
   * (the prefix of `best`: every entry at cosine ≥ threshold is in one of them): an entry holds
   * exactly the prefix terms in whose postings it is, and at most every other term besides.
   * Made only when reading those postings costs less than comparing the `lists`' entries whole
   * (a line that negates a common word: "no longer use X" had every memory holding "use" compared
   * for a conflict); null otherwise.
   */
  sharedBound(query: Set<string>, threshold: number, lists: Entry[][]): ((e: Entry) => number) | null {
    let compared = 0;
    for (const list of lists) compared += list.length;
    if (compared === 0) return null;
    const byRarity = this.byRarity(query);
    const prefix = Math.max(1, query.size - Math.ceil(threshold * threshold * query.size - 1e-9) + 1);
    let scanned = 0;
    for (const term of byRarity.slice(0, prefix)) scanned += this.postings.get(term)?.length ?? 0;
    if (scanned >= compared) return null;
    const hits = new Map<Entry, number>();
    for (const term of byRarity.slice(0, prefix)) for (const entry of this.postings.get(term) ?? []) hits.set(entry, (hits.get(entry) ?? 0) + 1);
    const others = query.size - Math.min(prefix, byRarity.length);
    return (e) => (hits.get(e) ?? 0) + others;
  }

  /**
   * The best entry at cosine ≥ threshold that `accept` takes (ties: smaller id), scanning only
   * the prefix postings: every entry at that cosine shares one of the prefix terms, so a
   * rejected best leaves the next best to be found.
   */
  best(query: Set<string>, threshold: number, minShared: number, accept: (e: Entry) => boolean): { id: string; similarity: number } | null {
    const byRarity = this.byRarity(query);
    const prefix = Math.max(1, query.size - Math.ceil(threshold * threshold * query.size - 1e-9) + 1);
    // Count filter: an entry found in k of the prefix postings shares exactly k prefix terms and
    // at most every other term of the query, so it is compared whole only when k plus the rest
    // can reach the cosine. Comparing every entry of the prefix postings whole cost a set lookup
    // per query term each: an import of long lines (500 words) grew with the square of its size.
    const hits = new Map<Entry, number>();
    for (const term of byRarity.slice(0, prefix)) {
      for (const entry of this.postings.get(term) ?? []) hits.set(entry, (hits.get(entry) ?? 0) + 1);
    }
    const rest = query.size - prefix;
    const candidates: Entry[] = [];
    for (const [entry, k] of hits) {
      if (k + rest >= Math.max(minShared, threshold * Math.sqrt(query.size * entry.termCount) - 1e-9)) candidates.push(entry);
    }
    return bestOf([candidates], query, threshold, minShared, accept);
  }
}

/**
 * The best entry of `lists` at cosine ≥ threshold that `accept` takes (ties: smaller id).
 * `bound`: at most how many query terms an entry shares (one that cannot reach `minShared` and
 * the threshold with that many is not compared).
 */
function bestOf(lists: Entry[][], query: Set<string>, threshold: number, minShared: number, accept: (e: Entry) => boolean, bound: ((e: Entry) => number) | null = null): { id: string; similarity: number } | null {
  // one list holds each entry once (postings): nothing to step over
  const seen = lists.length > 1 ? new Set<Entry>() : null;
  let best: { id: string; similarity: number } | null = null;
  for (const list of lists) {
    for (const entry of list) {
      if (seen) {
        if (seen.has(entry)) continue;
        seen.add(entry);
      }
      const sizeRatio = entry.termCount / query.size;
      if (sizeRatio < threshold * threshold || sizeRatio > 1 / (threshold * threshold)) continue;
      if (bound) {
        const most = bound(entry);
        if (most < minShared || most / Math.sqrt(query.size * entry.termCount) < threshold) continue;
      }
      const shared = entry.shared(query);
      if (shared < minShared) continue;
      const similarity = shared / Math.sqrt(query.size * entry.termCount);
      if (similarity < threshold) continue;
      if (best && (similarity < best.similarity || (similarity === best.similarity && entry.id > best.id))) continue;
      if (accept(entry)) best = { id: entry.id, similarity };
    }
  }
  return best;
}

export class ResonanceIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly index = new TermIndex();
  /**
   * Term → the entries that negate it. A conflict needs a term one text affirms and the other
   * negates, so its candidates are the entries negating a term the new text affirms, and the
   * entries holding a term the new text negates: few, where a scan of every posting at the
   * conflict threshold cost a 5,000-line import three times its time.
   */
  private readonly negating = new Map<string, Entry[]>();
  /** Entries that are not episodes (semantic, decisions): what an episode without a word of change can change. */
  private notEpisodes = 0;

  /**
   * `focus`: the only terms looked up (an index built for one text: resonate and changes look up
   * nothing but its terms, negated terms and rejected words). The postings of every other term
   * are left out, and a memory holding none of the focus terms gets no entry: a single remember
   * into 10,000 memories indexes the few thousand postings it reads instead of ~250,000. Such an
   * index takes no vector match (`resonate` needs an entry for every memory then).
   */
  constructor(
    private readonly settings: EngramSettings,
    private readonly focus: ReadonlySet<string> | null = null,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  add(id: string, text: string | AnalysedText, category: Category, options: EntryOptions = {}): void {
    if (this.entries.has(id)) return;
    const analysis = analysed(text);
    const terms = analysis.termList;
    this.insert(new Entry(id, analysis, terms.length, category, options.archived ?? false, options.confidence ?? 'observed', options.createdMs ?? 0, options.superseded ?? false), terms, analysis.negatedList);
  }

  /**
   * A memory of an index with a focus, known by the focus terms it holds (`terms`, `negated`:
   * those of its terms and negated terms in the focus) and its number of terms; `analysis` is
   * made only if it is compared. One that holds no focus term is only counted.
   */
  addFocused(id: string, analysis: () => AnalysedText, termCount: number, terms: readonly string[], negated: readonly string[], category: Category, options: EntryOptions = {}): void {
    if (terms.length === 0 && negated.length === 0) {
      if (category !== 'episodic') this.notEpisodes++;
      return;
    }
    if (this.entries.has(id)) return;
    this.insert(new Entry(id, analysis, termCount, category, options.archived ?? false, options.confidence ?? 'observed', options.createdMs ?? 0, options.superseded ?? false, terms), terms, negated);
  }

  /** A text looked up in an index with a focus must be the one it was built for (its terms in the focus), or postings would be missing. */
  private checkFocus(terms: Iterable<string>): void {
    if (this.focus) for (const t of terms) if (!this.focus.has(t)) throw new Error(`resonance index built for another text (${t} is not in its focus)`);
  }

  private insert(entry: Entry, terms: Iterable<string>, negated: Iterable<string>): void {
    this.entries.set(entry.id, entry);
    if (entry.category !== 'episodic') this.notEpisodes++;
    const focus = this.focus;
    this.index.add(entry, focus ? [...terms].filter((t) => focus.has(t)) : terms);
    for (const term of negated) {
      if (focus && !focus.has(term)) continue;
      const list = this.negating.get(term);
      if (list) list.push(entry);
      else this.negating.set(term, [entry]);
    }
  }

  /**
   * How `text` resonates with the indexed memories. A reinforcement keeps the memory's words
   * and drops the new text's, so it is taken only when the new text adds nothing: no term the
   * memory lacks (label words such as "Decided:" aside) and no term of opposite polarity. A
   * near-identical text that reverses the memory ("we will not use X" for "use X, not Y") is
   * the same subject negated: a conflict. Anything else near-identical that adds words is
   * written as a new memory: if in doubt, keep the user's words.
   *
   * `vectorMatch` is the memory an embedder found closest in meaning (cosine ≥ the vector
   * threshold); it is reinforced unless the new text negates what it affirms (or the reverse)
   * or adds a negation or a number it does not hold. `bounded` false: every conflict candidate
   * is compared whole (the reference the tests compare TermIndex.sharedBound's use with).
   */
  resonate(text: string | AnalysedText, category: Category, vectorMatch?: { id: string; similarity: number } | null, bounded = true): Resonance {
    const incoming = analysed(text).polarity;
    this.checkFocus(incoming.terms);
    const { lexicalThreshold, conflictThreshold } = this.settings.resonance;
    let vectorOpposed: { id: string; similarity: number } | null = null;
    if (vectorMatch) {
      if (this.focus) throw new Error('resonate: a vector match needs an index of every memory (no focus)');
      const entry = this.entries.get(vectorMatch.id);
      if (!entry) return { kind: 'reinforce', ...vectorMatch };
      const { added, opposed } = whatItAddsByMeaning(incoming, entry.polarity);
      if (added.length === 0 && opposed.length === 0) return { kind: 'reinforce', ...vectorMatch };
      if (opposed.length > 0 && !entry.archived) vectorOpposed = vectorMatch;
    }
    const query = incoming.terms;
    if (query.size === 0) return vectorOpposed ? { kind: 'conflict', ...vectorOpposed } : { kind: 'new' };
    const reinforce = this.reinforcement(incoming, category, lexicalThreshold);
    if (reinforce) return { kind: 'reinforce', ...reinforce };
    if (vectorOpposed) return { kind: 'conflict', ...vectorOpposed };
    // the lists that exist, in this order (most texts negate nothing, and few memories negate a term)
    const candidates: Entry[][] = [];
    for (const t of incoming.affirmed) {
      const list = this.negating.get(t);
      if (list) candidates.push(list);
    }
    for (const t of incoming.negated) {
      const list = this.index.postings.get(t);
      if (list) candidates.push(list);
    }
    // two observations of events differ without contradicting each other ("No errors" / "Error
    // rate flat"): between them only a reversal said in words of change counts (changes())
    const conflict = bestOf(candidates, query, conflictThreshold, MIN_CONFLICT_TERMS, (e) => !e.archived && !(category === 'episodic' && e.category === 'episodic') && opposedTerms(incoming, e.polarity).length > 0, bounded ? this.index.sharedBound(query, conflictThreshold, candidates) : null);
    if (conflict) return { kind: 'conflict', ...conflict };
    return { kind: 'new' };
  }

  /**
   * The memory `incoming` reinforces (the best at cosine ≥ threshold, ties to the smaller id), or
   * null. A reinforcement adds nothing: the memory holds each of the new text's terms but label
   * words (whatItAdds), so it is in the postings of every one of them, and only the shortest of
   * those lists is read; a term no memory holds ends the look-up (most lines of an import). The
   * prefix scan of TermIndex.best, which counted the hits of about a fifth of the terms in a Map
   * for every line, is left for a text of label words alone.
   */
  private reinforcement(incoming: Polarity, category: Category, threshold: number): { id: string; similarity: number } | null {
    const query = incoming.terms;
    const required: string[] = [];
    let shortest: Entry[] | null = null;
    for (const t of query) {
      if (isLabelWord(t)) continue;
      const list = this.index.postings.get(t);
      if (list === undefined) return null;
      required.push(t);
      if (shortest === null || list.length < shortest.length) shortest = list;
    }
    const accept = (e: Entry): boolean => {
      if (e.category !== category) return false;
      const { added, opposed } = whatItAdds(incoming, e.polarity);
      return added.length === 0 && opposed.length === 0;
    };
    if (shortest === null) return this.index.best(query, threshold, 1, accept);
    // those of the right category holding every required term (most fail at the first few): compared whole
    const candidates: Entry[] = [];
    for (const entry of shortest) if (entry.category === category && entry.holdsAll(required)) candidates.push(entry);
    return candidates.length === 0 ? null : bestOf([candidates], query, threshold, 1, accept);
  }

  /** Record that a memory was superseded (so that a later change replaces its successor instead). */
  markSuperseded(id: string, superseded = true): void {
    const entry = this.entries.get(id);
    if (entry) entry.superseded = superseded;
  }

  /**
   * The older memories `text` supersedes or disputes (supersession.ts), best first: those that
   * affirm a term it negates or rejects, and, when it holds a value, those sharing its rarest
   * words. Already superseded and newer memories are left out. `countFilter` false: every
   * candidate is compared whole (the reference the tests compare the count filter with).
   */
  changes(text: string | AnalysedText, category: Category, confidence: Confidence, createdMs: number, countFilter = true): FoundChange[] {
    const analysis = analysed(text);
    const incoming = analysis.polarity;
    const signals = analysis.signals;
    this.checkFocus(incoming.terms);
    this.checkFocus(signals.rejected);
    const side: ChangeSide = { id: '', terms: incoming.terms, polarity: incoming, signals, category, confidence, createdMs };
    const seen = new Set<Entry>();
    const found: FoundChange[] = [];
    // An episode that neither rejects a word nor says a change changes no other episode
    // (detectChange: no reversal without a rejected word, no new value between two episodes
    // without a word of change); skipped before their signals are even computed.
    const changesNoEpisode = category === 'episodic' && !signals.cue && signals.rejected.size === 0;
    // the candidates, each once, in the order they are found (a list, not a closure made for
    // every line: the bundle names each closure it makes, ~1 µs a line)
    const candidates: Entry[] = [];
    if (signals.cue) {
      for (const term of new Set([...incoming.negated, ...signals.rejected])) {
        for (const entry of this.index.postings.get(term) ?? []) {
          if (seen.has(entry)) continue;
          seen.add(entry);
          candidates.push(entry);
        }
      }
    }
    // Count filter: an entry found only through the value terms' postings is in the postings of
    // exactly the scanned terms it holds (`hits`), and holds at most every term not scanned
    // (`unscanned`) besides: when even that many shared terms cannot make a change (mayChange,
    // detectChange's first test), it is left without comparing its terms one by one. Lines with
    // values in a vault of decisions and facts on common subjects compared thousands each.
    const hits = new Map<Entry, number>();
    let unscanned = 0;
    if (signals.values.size > 0 && !(changesNoEpisode && this.notEpisodes === 0)) {
      // a change needs cosine ≥ 0.45 (supersession.ts): it shares one of the rarest |A| − ⌈0.2·|A|⌉ + 1 terms
      const byRarity = this.index.byRarity(incoming.terms);
      const prefix = byRarity.length - Math.ceil(0.2 * byRarity.length - 1e-9) + 1;
      let scanned = 0;
      unscanned = byRarity.length;
      for (const term of byRarity.slice(0, Math.max(1, prefix))) {
        const list = this.index.postings.get(term) ?? [];
        if (scanned + list.length > MAX_VALUE_CANDIDATES) break;
        scanned += list.length;
        unscanned--;
        for (const entry of list) {
          if (seen.has(entry)) continue; // found by a cue: compared whole
          const k = hits.get(entry);
          if (k === undefined) candidates.push(entry);
          hits.set(entry, (k ?? 0) + 1);
        }
      }
    }
    for (const entry of candidates) {
      // an archived memory is replaced too: plain recall still reaches it
      if (entry.superseded || entry.createdMs > createdMs) continue;
      if (changesNoEpisode && entry.category === 'episodic') continue;
      // too little in common to be a change: decided before its analysis is decoded (with a focus, from its focus terms)
      if (entry.focused && !mayChange(entry.shared(incoming.terms), incoming.terms.size, entry.termCount)) continue;
      const k = hits.get(entry);
      if (countFilter && k !== undefined && !mayChange(k + unscanned, incoming.terms.size, entry.termCount)) continue;
      const change = detectChange(side, { id: entry.id, terms: entry.terms, polarity: entry.polarity, signals: entry.analysis.signals, category: entry.category, confidence: entry.confidence, createdMs: entry.createdMs });
      if (change) found.push({ id: entry.id, ...change });
    }
    return found
      .sort((a, b) => (a.outcome === b.outcome ? 0 : a.outcome === 'supersede' ? -1 : 1) || b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
      .slice(0, MAX_CHANGES);
  }
}

/** Constructive interference (SPEC §6): amplitude += eventAmplitude × similarity. */
export function reinforcedAmplitude(amplitude: number, similarity: number, settings: EngramSettings): number {
  return Math.round((amplitude + settings.resonance.eventAmplitude * similarity) * 10_000) / 10_000;
}
