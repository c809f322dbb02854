import { stem } from './porter2';
import { DATE_CODE_ISO, wordDateCode } from './recall/dates';

/**
 * Text analysis for lexical similarity: lowercase, split on anything that is not a letter
 * or digit, expand "n't", drop English stop words, Porter2 stemming. Negation words are
 * reported apart so that "X" and "not X" compare as the same subject with opposite polarity.
 */

const STOP_WORDS = new Set(
  ('a about above after again against all am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each few for from further had has have having he her here hers ' +
    'herself him himself his how i if in into is it its itself just me more most my myself of off on once only or ' +
    'other our ours ourselves out over own same she should so some such than that the their theirs them themselves ' +
    'then there these they this those through to too under until up very was we were what when where which while who ' +
    'whom why will with would you your yours yourself yourselves s t d ll m re ve also us let get got im ive youre')
    .split(' '),
);

const NEGATIONS = new Set(['not', 'no', 'never', 'nor', 'none', 'nothing', 'cannot', 'without', 'neither']);

export interface Analysis {
  /** Stemmed content terms, negation words excluded. */
  terms: string[];
  /** Whether the text is negated (an odd number of negation words). */
  negated: boolean;
}

/**
 * Porter2 stems English words; its cost grows faster than the word's length (a 48 KB token,
 * a pasted base64 blob or minified line, took 20 s and more). No English word is longer than
 * this: a longer token is kept as it is, cut to TOKEN_LIMIT characters (still a distinctive
 * term), and never stemmed. Analysis stays linear in the text.
 */
export const STEM_LIMIT = 40;
export const TOKEN_LIMIT = 64;

/** Stems of the words seen lately: text repeats its words, and stemming is most of analysis. */
const stems = new Map<string, string>();
const STEM_CACHE = 50_000;

function stemmed(word: string): string {
  let out = stems.get(word);
  if (out === undefined) {
    if (stems.size >= STEM_CACHE) stems.clear();
    out = stem(word);
    stems.set(word, out);
  }
  return out;
}

/**
 * Lowercase, one apostrophe, and "n't" spelled out: "won't" is "will not" and "can't" "can not"
 * (not the words "wo" and "ca"), any other "n't" is " not".
 */
export function expandNegations(text: string): string {
  const lower = text.toLowerCase();
  // every replacement below needs an apostrophe (or a character made one): most texts have none
  if (!/['’`]/.test(lower)) return lower;
  return lower
    .replace(/[’`]/g, "'")
    .replace(/\bwon't\b/g, 'will not')
    .replace(/\bcan't\b/g, 'can not')
    .replace(/\bshan't\b/g, 'shall not')
    .replace(/n't\b/g, ' not');
}

/**
 * The words of a lower-cased text: its maximal runs of letters and digits (what splitting on
 * /[^\p{L}\p{N}]+/u and dropping empty pieces gives). A text of ASCII characters alone (after
 * lower-casing its letters are a-z) is cut by hand, without a regular expression or the
 * array of pieces; any other text by the regular expression. Exported for tests.
 */
export function words(lower: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (c >= 0x80) return lower.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(lower.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) out.push(lower.slice(start));
  return out;
}

/**
 * The words analysis has met, looked up by their characters in the text: a word is hashed and
 * compared where it stands, so the ~400,000 words of a 10,000-memory first run make no
 * substring, no string hash and no Map look-up each; only a word met for the first time is
 * cut out, lower-cased and stemmed. Each entry is a word (lower case) and what analysis makes
 * of it: its term (the stem, or the word cut to TOKEN_LIMIT), or STOP / NEGATION. Open
 * addressing over a power-of-two slot array; emptied when full (what it holds is a function
 * of the word alone, as the stem cache is).
 */
const STOP = 0;
const NEGATION = 1;
let slotBits = 16;
const tableWords: string[] = [];
const tableValues: Array<string | typeof STOP | typeof NEGATION> = [];
/** Each entry's wordDateCode (recall/dates.ts): what findDates' startsNothing makes of the word. */
const tableDateCodes: number[] = [];
/** Entry + 1 of each slot (0: empty); half of them at most are filled. */
let tableSlots = new Int32Array(1 << slotBits);

/** The word table emptied, with 2^bits slots (the tests fill a small one). */
export function resetWordTable(bits = 16): void {
  slotBits = bits;
  tableWords.length = 0;
  tableValues.length = 0;
  tableDateCodes.length = 0;
  tableSlots = new Int32Array(1 << bits);
}

/** How often analyzeAscii found a word in the table and how often it added one (for the tests). */
export const wordTableCounts = { found: 0, added: 0 };

/**
 * The word table's entry for the ASCII word text[from, to), added when new (letters and digits,
 * at most STEM_LIMIT of them, compared in lower case; `hash` as analyzeAscii makes it:
 * h = h * 31 + lower-case code). Polarity's and valueTerms' scans read its lower-case word
 * (tableWord), term and negation (tableTerm, tableNegation) at once, before the next look-up (a
 * full table is emptied), instead of cutting each word out and looking it up in a Map.
 */
export function tableEntry(text: string, from: number, to: number, hash: number): number {
  const mask = tableSlots.length - 1;
  // Fibonacci hashing: the top bits of the product (similar words, "term38" and "term39", have
  // near hashes, which linear probing piled up in runs: 1.3 million probes for 15,000 words)
  let slot = Math.imul(hash, 0x9e3779b1) >>> (32 - slotBits);
  for (;;) {
    const e = tableSlots[slot]! - 1;
    if (e < 0) break;
    const word = tableWords[e]!;
    if (word.length === to - from) {
      let k = 0;
      for (; k < word.length; k++) {
        const c = text.charCodeAt(from + k);
        if (word.charCodeAt(k) !== (c >= 0x41 && c <= 0x5a ? c + 32 : c)) break;
      }
      if (k === word.length) {
        wordTableCounts.found++;
        return e;
      }
    }
    slot = (slot + 1) & mask;
  }
  if (tableWords.length >= tableSlots.length / 2) {
    resetWordTable(slotBits);
    return tableEntry(text, from, to, hash);
  }
  const word = text.slice(from, to).toLowerCase();
  const e = tableWords.length;
  tableWords.push(word);
  tableValues.push(NEGATIONS.has(word) ? NEGATION : STOP_WORDS.has(word) ? STOP : stem(word));
  tableDateCodes.push(wordDateCode(word));
  tableSlots[slot] = e + 1;
  wordTableCounts.added++;
  return e;
}

export const tableWord = (e: number): string => tableWords[e]!;

/** The term of an entry (its stem), null for a stop word or a negation. */
export function tableTerm(e: number): string | null {
  const value = tableValues[e]!;
  return typeof value === 'string' ? value : null;
}

export const tableNegation = (e: number): boolean => tableValues[e] === NEGATION;

/**
 * analyzeAscii's terms as it finds them, copied out at the end into an array of their number: an
 * array grown by push keeps up to half its length again in spare slots, and a first load keeps
 * the terms of each of 10,000 memories (~110 bytes each of its ~1.8 KB a memory at 10k). Reused
 * from one text to the next, up to FOUND_TERMS_KEPT of them.
 */
let foundTerms: string[] = [];
const FOUND_TERMS_KEPT = 4096;

/** How many terms analyzeAscii's reused array holds now (for the tests: a long text's are let go). */
export const foundTermsHeld = (): number => foundTerms.length;

/**
 * analyze() of a text of ASCII characters without an apostrophe or backquote (nothing for
 * expandNegations to replace: its lower case is all it does), scanned once by hand: each
 * maximal run of letters and digits is a word (words()), looked up in the word table where it
 * stands. Null for any other text (analyze then takes the general path). Exported for tests.
 */
export function analyzeAscii(text: string): Analysis | null {
  const terms = foundTerms;
  let count = 0;
  let negations = 0;
  // startsNothing's state (recall/dates.ts), word by word: the number pending before the next
  // word, and whether the text still starts nothing
  let pending = 0;
  let quiet = true;
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a))) {
      if (c >= 0x80 || c === 0x27 || c === 0x60) {
        if (count > FOUND_TERMS_KEPT) foundTerms = [];
        return null;
      }
      if (c === 0x2c) pending = 0; // a comma
      i++;
      continue;
    }
    const from = i;
    let hash = 0;
    do {
      hash = (Math.imul(hash, 31) + (c >= 0x41 && c <= 0x5a ? c + 32 : c)) | 0;
      c = ++i < n ? text.charCodeAt(i) : 0;
    } while ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a));
    if (i - from > STEM_LIMIT) {
      terms[count++] = text.slice(from, Math.min(i, from + TOKEN_LIMIT)).toLowerCase();
      quiet = false; // not known: findDates looks
      continue;
    }
    const e = tableEntry(text, from, i, hash);
    const value = tableValues[e]!;
    if (value === NEGATION) negations++;
    else if (value !== STOP) terms[count++] = value;
    if (quiet) {
      const code = tableDateCodes[e]!;
      pending = (code >> (2 * pending)) & 3;
      // c is the character after the word: a '-' after four digits may make an ISO date
      if (pending === 3 || ((code & DATE_CODE_ISO) !== 0 && c === 0x2d)) quiet = false;
    }
  }
  // a long text's terms are not kept past its analysis
  if (count > FOUND_TERMS_KEPT) foundTerms = [];
  const analysis = { terms: terms.slice(0, count), negated: negations % 2 === 1 };
  lastAscii = analysis;
  lastAsciiQuiet = quiet;
  return analysis;
}

/** analyzeAscii's last analysis, and whether its text starts nothing for findDates. */
let lastAscii: Analysis | null = null;
let lastAsciiQuiet = false;

/**
 * Whether findDates finds nothing in the text of `analysis` (its startsNothing says so), told
 * from analyzeAscii's pass over it: true only for the last analysis analyzeAscii made, when its
 * text starts nothing; false is "not known" (findDates then looks). A text's start of a longer
 * text analysed (a body before its tags) starts nothing when the whole does.
 */
export function startsNoDate(analysis: Analysis): boolean {
  return analysis === lastAscii && lastAsciiQuiet;
}

export function analyze(text: string): Analysis {
  return analyzeAscii(text) ?? analyzeAnyText(text);
}

/** analyze() of any text: lower case, negations spelled out, words(), the stem cache. Exported for tests. */
export function analyzeAnyText(text: string): Analysis {
  const terms: string[] = [];
  let negations = 0;
  for (const word of words(expandNegations(text))) {
    if (NEGATIONS.has(word)) {
      negations++;
      continue;
    }
    if (STOP_WORDS.has(word)) continue;
    terms.push(word.length > STEM_LIMIT ? word.slice(0, TOKEN_LIMIT) : stemmed(word));
  }
  return { terms, negated: negations % 2 === 1 };
}
