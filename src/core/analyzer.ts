import stem from 'wink-porter2-stemmer';

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

export function analyze(text: string): Analysis {
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
