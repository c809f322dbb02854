import { analyze, expandNegations, STEM_LIMIT, tableEntry, tableNegation, tableTerm, tableWord, TOKEN_LIMIT } from './analyzer';

/**
 * Polarity by term (SPEC §6): which of a text's content terms are affirmed and which are
 * negated. One bit for the whole sentence is not enough: "use pnpm workspaces, not yarn"
 * negates yarn, not pnpm, and "we will not use pnpm workspaces" negates pnpm. Counted per
 * sentence, both hold one negation and compared as the same polarity, so the reversal was
 * folded into the decision it reverses.
 *
 * Scope, as in NegEx-style negation detection: a negation or reversal word flips the polarity
 * of the terms after it up to the end of its clause (punctuation that ends a clause, or a
 * contrasting conjunction: "but", "and", "however"...). Two operators in one scope cancel
 * ("don't stop using X" affirms X). Reversal words are negation words ("not", "never", "no
 * longer"...), verbs that end a practice ("stop", "quit", "drop", "abandon", "avoid"...) and
 * the phrases that name the rejected side of a choice ("instead of", "rather than"); "in
 * favour of" names the chosen side (it ends a reversal's flip and starts none), unless a
 * negation stands right before it ("not in favour of X" rejects X). The terms are
 * analyze()'s terms: the same stems the similarity is computed on.
 */
export interface Polarity {
  /** Every content term (as analyze gives them). */
  terms: Set<string>;
  /** Terms that occur negated and never affirmed. */
  negated: Set<string>;
  /** Terms that occur affirmed and never negated. */
  affirmed: Set<string>;
}

/** Stems of verbs that end or refuse a practice: "stop using X" (stopped, stops...) says X is over. */
const REVERSAL_STEMS = new Set('stop quit ceas discontinu abandon avoid drop deprec revert ban forbid forbad forbidden reject ditch'.split(' '));

/** Words that end a negation's scope inside a clause. */
const SCOPE_ENDS = new Set(['but', 'and', 'however', 'although', 'though', 'whereas', 'yet', 'except', 'while']);

/** Words of the phrases that flip a scope or are no term of it ("instead of", "rather than", "in favour of", "anymore"). */
const SCOPE_WORDS = new Set(['instead', 'rather', 'favour', 'favor', 'anymore']);

/** A clause ends at sentence punctuation followed by a space (not inside "db.internal" or "1,000"), brackets, dashes, new lines. */
const CLAUSE_BREAK = /[.,;:!?](?=\s|$)|[()[\]{}\n\r—–]|\s-\s/u;

/**
 * One word's analysis (its term, whether it is a negation), cached: polarity() looks at every
 * word of every text an import or a vault load indexes; without the cache a 5,000-line import
 * took 1.72 s instead of 1.29 s (medians of 3, interleaved). Bounded: cleared when full.
 */
const WORDS = new Map<string, { term: string | null; negation: boolean }>();
const WORDS_MAX = 50_000;

function wordOf(word: string): { term: string | null; negation: boolean } {
  let known = WORDS.get(word);
  if (known === undefined) {
    const analysed = analyze(word);
    known = { term: analysed.terms[0] ?? null, negation: analysed.negated };
    if (WORDS.size >= WORDS_MAX) WORDS.clear();
    WORDS.set(word, known);
  }
  return known;
}

function termOf(word: string): string | null {
  return wordOf(word).term;
}

/** The words of each clause of a lower-cased text: its clauses (CLAUSE_BREAK) cut into runs of letters and digits. */
export function clauseWordsByPattern(lower: string): string[][] {
  return lower.split(CLAUSE_BREAK).map((clause) => clause.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0));
}

/** \s below 0x80: tab, line feed, vertical tab, form feed, carriage return, space. */
const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);

/**
 * clauseWordsByPattern of an ASCII text, by hand (null: a character above 0x7f, the patterns
 * decide), leaving out the clauses without a word: polarity() split every import line twice
 * with regular expressions, into clauses and each clause into words. A clause break is never a
 * letter or a digit, so what matters is whether the gap between two words holds one: `.,;:!?`
 * before white space or the end, a bracket or a line break, or a hyphen between white spaces.
 */
export function asciiClauseWords(lower: string): string[][] | null {
  const clauses: string[][] = [];
  let words: string[] = [];
  const n = lower.length;
  let i = 0;
  while (i < n) {
    const c = lower.charCodeAt(i);
    if (c >= 0x80) return null;
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a)) {
      const start = i;
      for (i++; i < n; i++) {
        const d = lower.charCodeAt(i);
        if (!((d >= 0x61 && d <= 0x7a) || (d >= 0x30 && d <= 0x39) || (d >= 0x41 && d <= 0x5a))) break;
      }
      words.push(lower.slice(start, i));
      continue;
    }
    let breaks: boolean;
    if (c === 0x2e || c === 0x2c || c === 0x3b || c === 0x3a || c === 0x21 || c === 0x3f) breaks = i + 1 === n || isSpace(lower.charCodeAt(i + 1)); // . , ; : ! ?
    else if (c === 0x28 || c === 0x29 || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x0a || c === 0x0d) breaks = true; // ( ) [ ] { } \n \r
    else breaks = isSpace(c) && lower.charCodeAt(i + 1) === 0x2d && i + 2 < n && isSpace(lower.charCodeAt(i + 2)); // \s-\s
    if (breaks && words.length > 0) {
      clauses.push(words);
      words = [];
    }
    i++;
  }
  if (words.length > 0) clauses.push(words);
  return clauses;
}

export function polarity(text: string): Polarity {
  return asciiPolarity(text) ?? polarityOfWords(text);
}

/**
 * polarity() by its clauses' words, each word analysed alone (wordOf): any text. The reference
 * for asciiPolarity (test/core/polarity.test.ts compares both); `everyClause`: the scope rules
 * run over every clause, the reference for Scope's plain clauses (compared too).
 */
export function polarityOfWords(text: string, everyClause = false): Polarity {
  const scope = new Scope(everyClause);
  const normalised = expandNegations(text);
  for (const words of asciiClauseWords(normalised) ?? clauseWordsByPattern(normalised)) {
    for (const word of words) {
      const { term, negation } = wordOf(word);
      scope.push(word, term, negation);
    }
    scope.endClause();
  }
  return scope.polarity();
}

/** An ASCII letter or digit. */
const isWordChar = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a);

/**
 * polarity() of an ASCII text without an apostrophe or backquote (expandNegations only
 * lower-cases it), scanned once: each word is looked up in analyze's word table where it stands
 * (its lower-case word, term and negation read from there), and the clause breaks are
 * asciiClauseWords'. Null for any other text. An import analysed every word of every line by a
 * substring, a Map look-up (wordOf) and the clause arrays: a quarter of its planning.
 */
export function asciiPolarity(text: string): Polarity | null {
  const scope = new Scope();
  const n = text.length;
  let broken = false; // a clause break since the last word
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (isWordChar(c)) {
      if (broken) {
        scope.endClause();
        broken = false;
      }
      const from = i;
      let hash = 0;
      do {
        hash = (Math.imul(hash, 31) + (c >= 0x41 && c <= 0x5a ? c + 32 : c)) | 0;
        c = ++i < n ? text.charCodeAt(i) : 0;
      } while (isWordChar(c));
      if (i - from > STEM_LIMIT) {
        // analyze's term of a long word: cut, never stemmed (it is no word polarity looks for)
        const term = text.slice(from, Math.min(i, from + TOKEN_LIMIT)).toLowerCase();
        scope.push(term, term, false);
      } else {
        const e = tableEntry(text, from, i, hash);
        scope.push(tableWord(e), tableTerm(e), tableNegation(e));
      }
      continue;
    }
    if (c >= 0x80 || c === 0x27 || c === 0x60) return null;
    // asciiClauseWords' breaks: . , ; : ! ? before white space or the end; brackets, line breaks; \s-\s
    if (c === 0x2e || c === 0x2c || c === 0x3b || c === 0x3a || c === 0x21 || c === 0x3f) {
      if (i + 1 === n || isSpace(text.charCodeAt(i + 1))) broken = true;
    } else if (c === 0x28 || c === 0x29 || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x0a || c === 0x0d) broken = true;
    else if (isSpace(c) && text.charCodeAt(i + 1) === 0x2d && i + 2 < n && isSpace(text.charCodeAt(i + 2))) broken = true;
    i++;
  }
  scope.endClause();
  return scope.polarity();
}

/** The words of the clause a Scope reads, with their terms and negations (read up to its count; what lies beyond is stale). */
const CLAUSE = { words: [] as string[], terms: [] as Array<string | null>, negations: [] as boolean[] };

/**
 * The scope rules over a text's words, a clause at a time: each clause's words (lower case),
 * with their terms and negations, are pushed, then the clause is ended.
 *
 * A plain clause (no negation, no reversal verb, no term that ends a scope, none of
 * SCOPE_WORDS) flips nothing and leaves out no term: it affirms its terms, in their order. Until
 * the first clause that is not plain, the affirmed terms are the terms themselves, and no set
 * of them is built (most texts: the set and its growth were an import's largest allocation);
 * from that clause on, the rules run, from the terms the plain clauses before it affirmed.
 */
class Scope {
  /** analyze(text)'s terms, in its order. */
  private readonly terms = new Set<string>();
  /** The terms affirmed and negated so far: made when the rules first run (rule()). */
  private positive: Set<string> = NO_TERMS;
  private negative: Set<string> = NO_TERMS;
  /** The clause's words, terms and negations: CLAUSE's arrays, shared by every Scope (one at a time: polarity() is synchronous). */
  private readonly words = CLAUSE.words;
  private readonly termsOf = CLAUSE.terms;
  private readonly negations = CLAUSE.negations;
  private count = 0;
  /** The clause being pushed is not plain. */
  private special = false;
  /** How many terms the plain clauses so far hold (the first of `terms`), while `ruled` is false. */
  private settled = 0;
  /** The rules run over every clause (from the first that is not plain on). */
  private ruled = false;

  /** `everyClause`: the rules run over every clause, plain or not (the reference: polarityOfWords). */
  constructor(everyClause = false) {
    if (everyClause) this.rule();
  }

  /** From now on the rules run: the sets of affirmed and negated terms are made. */
  private rule(): void {
    this.ruled = true;
    this.positive = new Set<string>();
    this.negative = new Set<string>();
  }

  push(word: string, term: string | null, negation: boolean): void {
    const k = this.count++;
    this.words[k] = word;
    this.termsOf[k] = term;
    this.negations[k] = negation;
    if (term !== null) {
      this.terms.add(term);
      if (REVERSAL_STEMS.has(term) || SCOPE_ENDS.has(word)) this.special = true;
    }
    if (negation || SCOPE_WORDS.has(word)) this.special = true;
  }

  endClause(): void {
    if (!this.ruled) {
      if (!this.special) {
        this.count = 0;
        this.settled = this.terms.size;
        return;
      }
      // the first clause that is not plain: the ones before it affirmed their terms
      this.rule();
      let k = 0;
      for (const term of this.terms) {
        if (k++ === this.settled) break;
        this.positive.add(term);
      }
    }
    this.special = false;
    const { words, termsOf, negations, positive, negative } = this;
    const count = this.count;
    this.count = 0;
    let flipped = false;
    // the word after the last negation (and its "longer"): "not in favour of X" rejects X
    let afterNegation = -1;
    for (let i = 0; i < count; i++) {
      const word = words[i]!;
      const next = i + 1 < count ? words[i + 1] : undefined;
      if (SCOPE_ENDS.has(word)) {
        flipped = false;
        continue;
      }
      if (negations[i]) {
        flipped = !flipped;
        // "no longer", "not any longer": one negation, "longer" says nothing more
        if (next === 'longer') i++;
        else if (next === 'any' && i + 2 < count && words[i + 2] === 'longer') i += 2;
        afterNegation = i + 1;
        continue;
      }
      if ((word === 'instead' && next === 'of') || (word === 'rather' && next === 'than')) {
        flipped = !flipped;
        i++;
        continue;
      }
      if (word === 'in' && (next === 'favour' || next === 'favor') && i + 2 < count && words[i + 2] === 'of') {
        // the chosen side: affirmed after a reversal ("dropped yarn in favour of pnpm") and
        // without one ("we are in favour of pnpm"); negated only when a negation stands right
        // before it ("not in favour of pnpm", "no longer in favour of pnpm")
        if (afterNegation !== i) flipped = false;
        i += 2;
        continue;
      }
      if (word === 'anymore') continue;
      const term = termsOf[i]!;
      if (term !== null && REVERSAL_STEMS.has(term)) {
        // the verb stays a term of the text (it is one for similarity), and flips what follows
        (flipped ? negative : positive).add(term);
        flipped = !flipped;
        continue;
      }
      if (term !== null) (flipped ? negative : positive).add(term);
    }
  }

  polarity(): Polarity {
    const { terms, positive, negative } = this;
    // every clause plain: every term affirmed, in order
    if (!this.ruled) return { terms, negated: NO_TERMS, affirmed: terms.size === 0 ? NO_TERMS : terms };
    // one side empty (most texts): each is its set as it is, not a copy; an empty side is the
    // shared empty set, and the affirmed terms are the terms themselves when they are the same
    // in the same order (most texts): an import keeps every line's sets until its end, and they
    // were a quarter of its heap (60,000 Sets at 10,000 lines, each copied by the scavenges)
    if (negative.size === 0) return { terms, negated: NO_TERMS, affirmed: positive.size === 0 ? NO_TERMS : sameInOrder(positive, terms) ? terms : positive };
    if (positive.size === 0) return { terms, negated: sameInOrder(negative, terms) ? terms : negative, affirmed: NO_TERMS };
    return {
      terms,
      negated: new Set([...negative].filter((t) => !positive.has(t))),
      affirmed: new Set([...positive].filter((t) => !negative.has(t))),
    };
  }
}

/**
 * The empty set of terms every polarity and change signals with none share. Never added to:
 * nothing adds to a Polarity's or ChangeSignals' sets once made (they are read only).
 */
export const NO_TERMS: Set<string> = new Set<string>();

/** Whether two sets hold the same elements in the same order (iteration order is part of what a polarity gives). */
function sameInOrder(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  const other = b.values();
  for (const x of a) if (other.next().value !== x) return false;
  return true;
}

/** A term one text affirms and the other negates: the same subject with opposite polarity. */
export function opposedTerms(a: Polarity, b: Polarity): string[] {
  const out: string[] = [];
  for (const t of a.negated) if (b.affirmed.has(t)) out.push(t);
  for (const t of a.affirmed) if (b.negated.has(t)) out.push(t);
  return out.sort();
}

/**
 * Words that label a statement without changing what it says: remembering "Decided: X" or
 * "Important: always X" again says X. Added to a memory's words, they do not make it new.
 * Stemmed at the first use, not at load: every command loaded this module, and stemming them
 * was the first use of the stemmer for commands that analyse nothing (`touch`, `--version`).
 */
let labelWords: Set<string> | undefined;

export function isLabelWord(term: string): boolean {
  labelWords ??= new Set(
    'decided decision decisions agreed note noted remember reminder important fyi really actually basically definitely always indeed please'
      .split(' ')
      .map((w) => termOf(w))
      .filter((t): t is string => t !== null),
  );
  return labelWords.has(term);
}

/**
 * What `incoming` says that `existing` does not: its terms the memory lacks (label words
 * aside), and the terms whose polarity the two texts disagree on. A reinforcement keeps only
 * the memory's words, so it is safe only when both are empty.
 */
export function whatItAdds(incoming: Polarity, existing: Polarity): { added: string[]; opposed: string[] } {
  const added = [...incoming.terms].filter((t) => !existing.terms.has(t) && !isLabelWord(t)).sort();
  return { added, opposed: opposedTerms(incoming, existing) };
}

/**
 * For a match found by meaning (vectors), where a paraphrase shares few words: what must not be
 * dropped is a negation the memory lacks and a number it does not hold ("2 hours" for "an hour").
 */
export function whatItAddsByMeaning(incoming: Polarity, existing: Polarity): { added: string[]; opposed: string[] } {
  const added = [...incoming.terms].filter((t) => !existing.terms.has(t) && (incoming.negated.has(t) || /\p{N}/u.test(t))).sort();
  return { added, opposed: opposedTerms(incoming, existing) };
}
