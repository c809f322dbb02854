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

export function analyze(text: string): Analysis {
  const words = text
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .replace(/n't\b/g, ' not')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
  const terms: string[] = [];
  let negations = 0;
  for (const word of words) {
    if (NEGATIONS.has(word)) {
      negations++;
      continue;
    }
    if (STOP_WORDS.has(word)) continue;
    terms.push(stem(word));
  }
  return { terms, negated: negations % 2 === 1 };
}
