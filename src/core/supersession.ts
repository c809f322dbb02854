import { analyze, expandNegations, STEM_LIMIT, tableEntry, tableTerm, TOKEN_LIMIT } from './analyzer';
import { NO_TERMS, type Polarity } from './polarity';
import type { Category, Confidence } from './settings';
import { isMemoryId } from './ids';

/**
 * Supersession (ADR 0004): a newer memory replaces an older one about the same subject. Two
 * kinds of evidence, both read from the texts alone at write time:
 *
 * - a **reversal in plain words**: the new text negates or rejects a term the older one
 *   affirms ("we no longer squash-merge", "instead of on every pull request", "moved from
 *   LaunchDarkly to our own service", "will not use Testcontainers anymore") AND says so with
 *   a word of change ("no longer", "anymore", "instead of", "stop", "dropped", "switched / moved
 *   / migrated from", "replaced by", "from now on"...). A bare negation without such a word is
 *   weak evidence: between two stated facts or rules it opens a conflict (resonance.ts); between
 *   two observations of events ("No errors" / "Error rate flat", "locked the table" / "ran
 *   without locking") it is nothing: two events can differ without contradicting each other.
 * - a **changed value**: both texts speak of the same subject (their words other than values
 *   mostly shared) and each holds a value the other lacks: a number, a version, a host, a
 *   name ("staging database is db-staging-2.internal" / "...db-staging-3.internal"), and,
 *   without a word of change, neither names another subject (a word the other lacks that is no
 *   value: "staging" / "production" API server). Between
 *   two observations of events this needs a word of change too ("build 412 failed" and "build
 *   413 failed" are two builds), and never a different date (two dated reports are two events).
 *
 * The outcome (`decide`): facts, recency wins: the newer supersedes. Decisions: the newer wins
 * unless the older is verified and the newer is not; then a conflict for a person.
 */

/** Words that say something changed or ended. Matched on the lowercased text. */
const CHANGE_CUE =
  /\b(?:no longer|anymore|any more|any longer|instead of|rather than|in favou?r of|from now on|now|(?:stop|stopp|quit|drop|dropp|ditch|abandon|deprecat|retir|replac|switch|mov|migrat|upgrad|downgrad|chang|renam|revert)(?:s|ed|es|ing|e)?)\b/;

/** "switched from X to Y", "moved X from A to B", "replaced X with Y", "X replaced by Y": X is the rejected side. */
const FROM_TO = /\b(?:switch|switched|switches|switching|move|moved|moves|moving|migrate|migrated|migrates|migrating|upgrade|upgraded|upgrades|upgrading|downgrade|downgraded|change|changed|changes|changing|went|go|gone|port|ported)\b[^.;:!?]*?\bfrom\s+([^.;:!?]+?)\s+(?:to|onto|into|for)\b/dg;
const REPLACED_WITH = /\breplac(?:e|ed|es|ing)\s+([^.;:!?]+?)\s+(?:with|by)\b/dg;
const REPLACED_BY = /((?:[\p{L}\p{N}][\p{L}\p{N}._-]*\s+){1,4})(?:(?:was|were|is|are|has been|have been|got|gets|will be|to be)\s+)?replaced\s+(?:by|with)\b/dgu;

/** A reversal word and what it reverses, to the end of its clause: "no longer X", "instead of X", "stopped using X", "dropped X". */
const REVERSES = /\b(?:no longer|not any ?(?:more|longer)|instead of|rather than|(?:stop|stopped|stops|stopping|quit|quits|quitting|drop|dropped|drops|dropping|ditch|ditched|abandon|abandoned|deprecate|deprecated|retire|retired)(?:\s+(?:using|doing|running|writing|calling))?)\s+([^.;:!?,()[\]—–]+)/g;
/** "not X anymore", "never X any more", "not X any longer". */
const NOT_ANYMORE = /\b(?:not|never)\s+([^.;:!?,()[\]—–]*?)\s*\b(?:anymore|any more|any longer)\b/dg;
/** A reversed phrase's first six words, with the spaces between them as written. */
const FIRST_SIX = /^\S+(?:\s+\S+){0,5}/;
/**
 * Where a reversed phrase ends inside its clause: the other side of the choice, or another thought.
 * To the end of the phrase across line breaks (`s`): a clause wrapped onto the next line is cut
 * where the same clause on one line is (`.*$` did not reach past the line break, and the cut
 * fell on a later word or none).
 */
const PHRASE_END = /\s(?:in favou?r of|for|to|with|but|and|however|because|so|since|as)\s.*$/s;

/** Dates and times of day that make a report a dated event: ISO dates, "March 4", "4 March", weekdays. */
const DATE =
  /\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\byesterday\b|\btoday\b|\btonight\b|\blast night\b/gi;

/** What the supersession check needs to know of a text besides its polarity. */
export interface ChangeSignals {
  /** A word of change is present. */
  cue: boolean;
  /** Terms the text rejects in words of change: "no longer X", "X anymore", "instead of X", "stopped X", "from X to", "replaced X with". */
  rejected: Set<string>;
  /** Terms of its values: tokens holding a digit, and names (capitalised words not opening a sentence). */
  values: Set<string>;
  /** Its dates, lowercased: two texts with different dates are reports of two events. */
  dates: Set<string>;
}

export function changeSignals(text: string): ChangeSignals {
  const lower = expandNegations(text).replace(/\s-\s/g, ' — ');
  // each reversed phrase and where it starts in `lower` (the `d` patterns give their group's place)
  const phrases: Array<[phrase: string, at: number]> = [];
  // each pattern runs only where its fixed words are (an import runs this for every line, and
  // REPLACED_BY's search from every word was the costliest regular expression of an import)
  if (lower.includes('from')) for (const m of lower.matchAll(FROM_TO)) phrases.push([m[1]!, m.indices![1]![0]]);
  if (lower.includes('replac')) {
    for (const m of lower.matchAll(REPLACED_WITH)) phrases.push([m[1]!, m.indices![1]![0]]);
    if (lower.includes('replaced')) for (const m of lower.matchAll(REPLACED_BY)) phrases.push([m[1]!, m.indices![1]![0]]);
  }
  // (the group starts after `not\s+` and ends before `\s*`: nothing to trim)
  if (lower.includes('any')) for (const m of lower.matchAll(NOT_ANYMORE)) phrases.push([m[1]!, m.indices![1]![0]]);
  // exec from the start, not matchAll: matchAll makes a copy of the pattern at each call (10,000 RegExp compiles an import, ~1 % of its instructions)
  REVERSES.lastIndex = 0;
  // a phrase is its first six words as they stand in the text, spaces and all: it is cut out of the text below, and
  // "no longer run  the nightly" re-joined with single spaces would not be found there (nothing rejected)
  // (the group is the match's end, and starts with its first word: `\s+` before it takes every space)
  for (let m = REVERSES.exec(lower); m !== null; m = REVERSES.exec(lower)) if (!negatedAt(lower, m.index)) phrases.push([FIRST_SIX.exec(` ${m[1]!} `.replace(PHRASE_END, ' ').trim())?.[0] ?? '', m.index + m[0].length - m[1]!.length]);
  // a term named on both sides ("from Node 20 to Node 22": node) is not rejected
  let rejected = NO_TERMS;
  // no phrase (most texts): nothing rejected, and the text is not analysed again
  if (phrases.length > 0) {
    // each phrase blanked where it stands: its first occurrence could be inside another word
    // ("Our Jenkinsfile stays; we replaced Jenkins with Actions" kept "jenkins" and rejected nothing)
    let rest = lower;
    for (const [phrase, at] of phrases) rest = rest.slice(0, at) + ' '.repeat(phrase.length) + rest.slice(at + phrase.length);
    const kept = new Set(analyze(rest).terms);
    rejected = new Set(phrases.flatMap(([p]) => analyze(p).terms).filter((t) => !kept.has(t)));
  }
  const dates = text.match(DATE);
  const values = valueTerms(text);
  return { cue: CHANGE_CUE.test(lower), rejected, values: values.size === 0 ? NO_TERMS : values, dates: dates === null ? NO_TERMS : new Set(dates.map((d) => d.toLowerCase())) };
}

/** "don't stop X", "won't quit X": a reversal at `index` of `lower` that is negated (it affirms X). */
function negatedAt(lower: string, index: number): boolean {
  return /\b(?:not|never|no)\s+(?:\w+\s+)?$/.test(lower.slice(Math.max(0, index - 20), index));
}

/**
 * What a whitespace-separated token says as a value, whatever its place: `always` (a digit, an
 * inner capital, an address), `capital` (a name when it does not open a sentence), and its
 * terms, worked out when first needed. Cached as polarity's words are: an import looks at every
 * token of every line, and texts repeat their tokens. Bounded: cleared when full.
 */
export interface ValueToken {
  always: boolean;
  capital: boolean;
  token: string;
  terms: string[] | null;
}
const VALUE_TOKENS = new Map<string, ValueToken | null>();
const VALUE_TOKENS_MAX = 50_000;

function valueToken(raw: string): ValueToken | null {
  let known = VALUE_TOKENS.get(raw);
  if (known === undefined) {
    known = asciiValueToken(raw);
    if (known === undefined) known = valueTokenByPattern(raw);
    if (VALUE_TOKENS.size >= VALUE_TOKENS_MAX) VALUE_TOKENS.clear();
    VALUE_TOKENS.set(raw, known);
  }
  return known;
}

/** valueToken by its regular expressions (any text). */
export function valueTokenByPattern(raw: string): ValueToken | null {
  const token = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  return token === ''
    ? null
    : {
        // a digit; LaunchDarkly, iOS, PostgreSQL; hosts, paths, versions: edge-gw.harbor.internal
        always: /\p{N}/u.test(token) || /.\p{Lu}/u.test(token) || /[\p{L}\p{N}][./:][\p{L}\p{N}]/u.test(token),
        capital: /^\p{Lu}/u.test(token),
        token,
        terms: null,
      };
}

/** An ASCII letter or digit (what \p{L} and \p{N} match below 0x80): 1 a digit, 2 a capital, 3 a small letter, 0 neither. */
function asciiClass(c: number): number {
  if (c >= 0x30 && c <= 0x39) return 1;
  if (c >= 0x41 && c <= 0x5a) return 2;
  if (c >= 0x61 && c <= 0x7a) return 3;
  return 0;
}

/**
 * valueTokenByPattern of an ASCII token by hand (undefined: not ASCII, the patterns decide): the
 * first sight of each token of an import ran five Unicode regular expressions over it (~40 % of
 * changeSignals' time at 10,000 lines). test/core/supersession.test.ts compares both.
 */
export function asciiValueToken(raw: string): ValueToken | null | undefined {
  const n = raw.length;
  for (let i = 0; i < n; i++) if (raw.charCodeAt(i) >= 0x80) return undefined;
  let start = 0;
  while (start < n && asciiClass(raw.charCodeAt(start)) === 0) start++;
  if (start === n) return null;
  let end = n;
  while (asciiClass(raw.charCodeAt(end - 1)) === 0) end--;
  const token = start === 0 && end === n ? raw : raw.slice(start, end);
  let always = false;
  const last = token.length;
  for (let i = 0; i < last && !always; i++) {
    const c = token.charCodeAt(i);
    const kind = asciiClass(c);
    // a digit; a capital after any character but a line break (`.`); a letter or digit, then . / or :, then a letter or digit
    if (kind === 1 || (kind === 2 && i > 0 && token.charCodeAt(i - 1) !== 0x0a && token.charCodeAt(i - 1) !== 0x0d)) always = true;
    else if ((c === 0x2e || c === 0x2f || c === 0x3a) && i > 0 && i + 1 < last && asciiClass(token.charCodeAt(i - 1)) !== 0 && asciiClass(token.charCodeAt(i + 1)) !== 0) always = true;
  }
  return { always, capital: asciiClass(token.charCodeAt(0)) === 2, token, terms: null };
}

/** Value terms: the terms of tokens with a digit, and of capitalised words that do not open a sentence. */
export function valueTerms(text: string): Set<string> {
  return asciiValueTerms(text) ?? valueTermsByPattern(text);
}

/** \s below 0x80: tab, line feed, vertical tab, form feed, carriage return, space. */
const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);

/**
 * valueTermsByPattern of an ASCII text, by hand (null: a character above 0x7f, the patterns
 * decide): its tokens are the runs between white space, a sentence starts after a token ending
 * in `.!?:;` or at a line feed, and only a token holding a digit, a capital, `.`, `/` or `:` can
 * be a value (the others are not looked up). Every import line was cut into sentences and
 * tokens by three regular expressions, and each token looked up in the token cache.
 */
export function asciiValueTerms(text: string): Set<string> | null {
  const values = new Set<string>();
  const n = text.length;
  let place = 0; // the token's place in its sentence
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return null;
    if (isSpace(c)) {
      if (c === 0x0a) place = 0;
      i++;
      continue;
    }
    const start = i;
    let maybe = false;
    for (; i < n; i++) {
      const d = text.charCodeAt(i);
      if (d >= 0x80) return null;
      if (isSpace(d)) break;
      // a digit or ':' (0x30-0x3a), a capital, '.', '/'
      if ((d >= 0x30 && d <= 0x3a) || (d >= 0x41 && d <= 0x5a) || d === 0x2e || d === 0x2f) maybe = true;
    }
    if (maybe) {
      const word = plainWordValue(text, start, i, place > 0);
      if (word === undefined) {
        const value = valueToken(text.slice(start, i));
        if (value !== null && (value.always || (place > 0 && value.capital))) for (const t of (value.terms ??= analyze(value.token).terms)) values.add(t);
      } else if (word !== null) values.add(word);
    }
    place++;
    const last = text.charCodeAt(i - 1);
    if (last === 0x2e || last === 0x21 || last === 0x3f || last === 0x3a || last === 0x3b) place = 0; // . ! ? : ; then white space (or the end)
  }
  return values;
}

/**
 * The value term of the ASCII token text[start, end) when it is one word between edge
 * punctuation ("term2y", "Redis,", "(v2)"): its term when it is a value (a digit, a capital
 * inside, or a capital opening it when not `first` of its sentence), null when it is not or
 * has none (a stop word), undefined for any other token (valueToken decides). The word is
 * looked up in analyze's word table where it stands: most value tokens of an import are such
 * words, and each was cut out and looked up in the token cache (asciiValueTerms' time).
 */
function plainWordValue(text: string, start: number, end: number, notFirst: boolean): string | null | undefined {
  let from = start;
  while (from < end && asciiClass(text.charCodeAt(from)) === 0) from++;
  if (from === end) return null;
  let to = end;
  while (asciiClass(text.charCodeAt(to - 1)) === 0) to--;
  let always = false;
  let hash = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    const kind = asciiClass(c);
    if (kind === 0) return undefined; // punctuation inside: a host, a path, a version
    if (kind === 1 || (kind === 2 && i > from)) always = true;
    hash = (Math.imul(hash, 31) + (kind === 2 ? c + 32 : c)) | 0;
  }
  if (!always && !(notFirst && asciiClass(text.charCodeAt(from)) === 2)) return null;
  // analyze's term of one word: cut when long, else its stem (none for a stop word or a negation)
  if (to - from > STEM_LIMIT) return text.slice(from, Math.min(to, from + TOKEN_LIMIT)).toLowerCase();
  return tableTerm(tableEntry(text, from, to, hash));
}

/** valueTerms by its regular expressions (any text). */
export function valueTermsByPattern(text: string): Set<string> {
  const values = new Set<string>();
  for (const sentence of text.replace(/([.!?:;])\s+/gu, '$1\n').split(/\n+/u)) {
    const tokens = sentence.split(/\s+/u).filter((t) => t !== '');
    tokens.forEach((raw, i) => {
      const value = valueToken(raw);
      if (value === null || !(value.always || (i > 0 && value.capital))) return;
      for (const t of (value.terms ??= analyze(value.token).terms)) values.add(t);
    });
  }
  return values;
}

/** A memory as the check sees it. */
export interface ChangeSide {
  id: string;
  terms: Set<string>;
  polarity: Polarity;
  signals: ChangeSignals;
  category: Category;
  confidence: Confidence;
  createdMs: number;
}

export interface Change {
  /** `supersede`: the newer replaces the older; `conflict`: a person decides (the newer ranks first meanwhile). */
  outcome: 'supersede' | 'conflict';
  /** What was found, for the conflict note and `--explain`. */
  reason: string;
  /** Shared terms over sqrt of both sizes. */
  similarity: number;
}

const cosine = (shared: number, a: number, b: number) => (a === 0 || b === 0 ? 0 : shared / Math.sqrt(a * b));

/**
 * Whether two texts of `a` and `b` terms that share `shared` can be a change at all: detectChange
 * finds none below two shared terms or a cosine of 0.35 (both of its tests need them). A caller
 * that knows `shared` without decoding the older text's analysis skips it here.
 */
export function mayChange(shared: number, a: number, b: number): boolean {
  return shared >= 2 && cosine(shared, a, b) >= 0.35;
}

/** The evidence that `incoming` changes what `older` says, or null. */
export function detectChange(incoming: ChangeSide, older: ChangeSide): Change | null {
  if (incoming.id === older.id) return null;
  let shared = 0;
  for (const t of incoming.terms) if (older.terms.has(t)) shared++;
  if (!mayChange(shared, incoming.terms.size, older.terms.size)) return null;
  const similarity = cosine(shared, incoming.terms.size, older.terms.size);
  const events = incoming.category === 'episodic' && older.category === 'episodic';

  // a reversal: the new text negates or rejects what the older affirms, with a word of change
  const reversed = incoming.signals.rejected.size === 0 ? [] : [...older.polarity.affirmed].filter((t) => incoming.signals.rejected.has(t));
  // the same subject: a shared word besides the reversed ones ("squash" reversed, "merge" kept),
  // or most words shared ("will not use Testcontainers for integration tests anymore")
  const subject = shared - reversed.length >= 1 || similarity >= 0.5;
  if (reversed.length > 0 && shared >= 2 && similarity >= 0.35 && subject) {
    return decide(incoming, older, `reversed in plain words (${reversed.sort().join(', ')})`, similarity);
  }

  // a changed value about the same subject (the cheap conditions of the last test first: an
  // import compares each line with thousands of candidates)
  if (shared < 3 || similarity < 0.45 || (events && !incoming.signals.cue)) return null;
  const newValues = [...incoming.signals.values].filter((t) => !older.terms.has(t));
  const oldValues = [...older.signals.values].filter((t) => !incoming.terms.has(t));
  if (newValues.length === 0 || oldValues.length === 0) return null;
  // the same subject: most words shared (the subject's names count: "Kotlin" in "Kotlin 1.9" / "Kotlin 2.0"),
  // and a shared word that is not a value (or four shared words)
  const subjectShared = [...incoming.terms].filter((t) => older.terms.has(t) && !incoming.signals.values.has(t) && !older.signals.values.has(t)).length;
  if (differentDates(incoming.signals.dates, older.signals.dates)) return null;
  // two episodic notes of one template ("build 412 failed", "build 413 failed") are two events:
  // between notes a value changes only when the newer says so in words of change
  if (events && !incoming.signals.cue) return null;
  if (shared < 3 || (subjectShared < 1 && shared < 4) || similarity < 0.45) return null;
  // another subject named with the same words: each text holds a word the other lacks that is no
  // value ("the staging API server listens on port 8080" / "the production API server ... 9090"):
  // two facts side by side, unless the newer says in words that something changed
  if (!incoming.signals.cue && ownWord(incoming, older) && ownWord(older, incoming)) return null;
  return decide(incoming, older, `a new value (${newValues.sort().join(', ')} for ${oldValues.sort().join(', ')})`, similarity);
}

/** Whether `side` holds a term `other` lacks that is no value of its own. */
function ownWord(side: ChangeSide, other: ChangeSide): boolean {
  for (const t of side.terms) if (!other.terms.has(t) && !side.signals.values.has(t)) return true;
  return false;
}

function differentDates(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0 && b.size === 0) return false;
  if (a.size !== b.size) return true;
  for (const d of a) if (!b.has(d)) return true;
  return false;
}

/** Facts: recency wins. Decisions: the newer wins unless the older is verified and the newer is not. */
function decide(incoming: ChangeSide, older: ChangeSide, reason: string, similarity: number): Change {
  const guarded = older.category === 'decision' && older.confidence === 'verified' && incoming.confidence !== 'verified';
  return guarded ? { outcome: 'conflict', reason: `${reason}; the older is a verified decision`, similarity } : { outcome: 'supersede', reason, similarity };
}

/** The memory that supersedes this one (frontmatter `superseded_by`), or null: cleared, empty or not an id. */
export function supersededBy(memory: { extra: Record<string, unknown> }): string | null {
  const value = memory.extra.superseded_by;
  return typeof value === 'string' && isMemoryId(value.trim()) ? value.trim() : null;
}
