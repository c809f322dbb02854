import { analyze } from '../analyzer';

/**
 * Entities a text names, found without a model (English): proper names, a capitalised word or
 * a run of them that does not merely start a sentence ("Max", "Fort Wayne", "Lord of the
 * Rings"); acronyms ("LGBTQ", "NYC"); and quoted titles ("Nothing is Impossible", 'Embracing
 * Identity'). Not entities: the pronoun I, month and weekday names (dates are time terms, see
 * time-terms.ts), and a single capitalised word that starts a sentence or follows a line's
 * "Speaker:" label, which is capitalised for that reason alone. A comma or any other
 * punctuation ends a name ("Wow, Caroline" names Caroline).
 *
 * Each entity is indexed as one term, `entity:` and its analysed words joined by "_"
 * (`entity:fort_wayn`), beside the words: a question that names an entity favours the
 * memories that name it as one (a person addressed or spoken of, a place, a title) over those
 * that only share a word, and a name of several words matches as a phrase.
 */

export const ENTITY_PREFIX = 'entity:';

const NOT_NAMES = new Set([
  'i', 'im', 'ive', 'id', 'ill',
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
]);
/** Small words that continue a capitalised name: "Lord of the Rings", "Bank of America". */
const CONNECTORS = new Set(['of', 'the', 'de', 'da', 'van', 'von']);
/** Abbreviations whose full stop does not end a sentence. */
const TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'prof', 'mt']);

interface Word {
  text: string;
  /** Whether a sentence (or a line, or a "Speaker:" label) ends right before it. */
  initial: boolean;
  /** Whether only spaces separate it from the word before (a name runs on only over spaces). */
  joined: boolean;
}

/** ASCII white space, as \s matches it there: tab, line feed, vertical tab, form feed, carriage return, space. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const isAlnum = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
/** Characters that end a sentence or a label ([.!?:;]). */
const isStop = (c: number) => c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3a || c === 0x3b;

/**
 * A word that entityTerms never reads (sparse asciiWords): not capitalised, not a connector. Its
 * text is no name and no connector, and it is joined to nothing, so a run of names stops at it
 * as at the word it stands for; a run of such words is one of it.
 */
const OTHER_WORD: Word = /* @__PURE__ */ Object.freeze({ text: '', initial: false, joined: false });

/** Whether text[from, to) is one of TITLES in any case (mr mrs ms dr st prof mt), compared in place. */
function isTitle(text: string, from: number, to: number): boolean {
  const n = to - from;
  if (n < 2 || n > 4) return false;
  const a = text.charCodeAt(from) | 0x20;
  const b = text.charCodeAt(from + 1) | 0x20;
  if (n === 2) return (a === 0x6d && (b === 0x72 || b === 0x73 || b === 0x74)) || (a === 0x64 && b === 0x72) || (a === 0x73 && b === 0x74);
  const c = text.charCodeAt(from + 2) | 0x20;
  if (n === 3) return a === 0x6d && b === 0x72 && c === 0x73;
  return a === 0x70 && b === 0x72 && c === 0x6f && (text.charCodeAt(from + 3) | 0x20) === 0x66;
}

/** Whether text[from, to) is one of CONNECTORS in any case (of the de da van von), compared in place. */
function isConnector(text: string, from: number, to: number): boolean {
  const n = to - from;
  if (n < 2 || n > 3) return false;
  const a = text.charCodeAt(from) | 0x20;
  const b = text.charCodeAt(from + 1) | 0x20;
  if (n === 2) return (a === 0x6f && b === 0x66) || (a === 0x64 && (b === 0x65 || b === 0x61));
  const c = text.charCodeAt(from + 2) | 0x20;
  return (a === 0x74 && b === 0x68 && c === 0x65) || (a === 0x76 && (b === 0x61 || b === 0x6f) && c === 0x6e);
}

/**
 * words() of a text of ASCII characters alone, scanned by hand: the same tokens as the
 * regular expression (a letter or digit and the letters, digits, apostrophes and hyphens
 * after it; any other character but white space alone), the same line starts (a line break
 * in the white space before a word) and the same flags. Null when the text holds another
 * character (then the regular expression reads it). `sparse`: each run of words that neither
 * start with a capital letter nor are connectors is one OTHER_WORD, which entityTerms reads as
 * it reads them (they are most words, and each was a string and an object). Exported for tests.
 */
export function asciiWords(text: string, sparse = false): Word[] | null {
  const out: Word[] = [];
  let initial = true;
  let joined = false;
  let lineStart = false;
  /** Whether the last word is a title (its full stop ends no sentence). */
  let title = false;
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return null;
    if (isSpace(c)) {
      if (c === 10) lineStart = true;
      i++;
      continue;
    }
    if (!isAlnum(c)) {
      if (isStop(c) && !(c === 0x2e && title)) initial = true;
      joined = c === 0x2e && !initial;
      lineStart = false;
      i++;
      continue;
    }
    const from = i;
    for (i++; i < n; i++) {
      const d = text.charCodeAt(i);
      if (!(isAlnum(d) || d === 0x27 || d === 0x2d)) break;
    }
    if (lineStart) initial = true;
    title = isTitle(text, from, i);
    if (!sparse || (c >= 0x41 && c <= 0x5a) || isConnector(text, from, i)) out.push({ text: text.slice(from, i), initial, joined: joined && !initial });
    else if (out.length === 0 || out[out.length - 1] !== OTHER_WORD) out.push(OTHER_WORD);
    initial = false;
    joined = true;
    lineStart = false;
  }
  return out;
}

/** Exported for tests (the reference asciiWords is compared with). */
export function words(text: string): Word[] {
  return asciiWords(text) ?? regexWords(text);
}

/** The reference: the regular expression over any text. Exported for tests. */
export function regexWords(text: string): Word[] {
  const out: Word[] = [];
  let initial = true;
  let joined = false;
  // the tokens cover every character but white space, so what lies between the end of one and
  // the start of the next is white space: a line ends before a word when that gap holds a line
  // break. Looking only at the gap keeps the scan linear in the text (testing the whole text
  // before each word made it quadratic: a 1 MB query took half a minute).
  let end = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[^\p{L}\p{N}\s]/gu)) {
    const token = m[0];
    const lineStart = text.slice(end, m.index).includes('\n');
    end = m.index + token.length;
    if (!/^[\p{L}\p{N}]/u.test(token)) {
      const previous = out[out.length - 1];
      if (/[.!?:;]/.test(token) && !(token === '.' && previous && TITLES.has(previous.text.toLowerCase()))) initial = true;
      joined = token === '.' && !initial;
      continue;
    }
    if (lineStart) initial = true;
    out.push({ text: token, initial, joined: joined && !initial });
    initial = false;
    joined = true;
  }
  return out;
}

/** A capitalised word that can be (part of) a name. */
const name = (w: string) => /^\p{Lu}/u.test(w) && !NOT_NAMES.has(w.toLowerCase().replace(/['’]/g, ''));
const acronym = (w: string) => /^\p{Lu}{2,}$/u.test(w.replace(/['’]s$/, ''));

function key(name: string): string | null {
  const terms = analyze(name).terms;
  if (terms.length === 0 || (terms.length === 1 && NOT_NAMES.has(terms[0]!))) return null;
  return `${ENTITY_PREFIX}${terms.join('_')}`;
}

/** `name`'s key added to `found` (when it has one). */
function addKey(found: Set<string>, name: string): void {
  const k = key(name);
  if (k) found.add(k);
}

/**
 * A text in which entityTerms finds nothing without reading its words: ASCII, no quotation mark
 * past its first character (a title takes two), and no capital letter but, at most, its first
 * character, which begins a word that starts a sentence, alone (no name runs on from it) and not
 * an acronym (its second letter is no capital). Many notes read so ("Use pnpm, not npm here";
 * all the bench's "Observation 12: auth retry..."), and reading their words was ~5 % of a first
 * recall at 10k. Exported for tests.
 */
export const NAMELESS = /^[^\u0080-\uffff][^A-Z"'\u0080-\uffff]*$/;

/** How many texts entityTerms read word by word (for the tests: NAMELESS ones are not). */
export const entityCounts = { read: 0 };

/** The entity terms of a text, each once, in order of appearance. */
export function entityTerms(text: string): string[] {
  return NAMELESS.test(text) ? [] : namedEntityTerms(text);
}

/** entityTerms read from the text's words, without the NAMELESS shortcut. Exported for tests (the reference). */
export function namedEntityTerms(text: string): string[] {
  entityCounts.read++;
  const found = new Set<string>();
  // a title needs a quotation mark: most texts have none, and the scan costs a pass over the text
  if (/["“'‘]/.test(text)) for (const m of text.matchAll(/["“]([^"”\n]{2,80})["”]|(?<![\p{L}\p{N}])['‘]([^'’\n]{2,80})['’](?![\p{L}\p{N}])/gu)) {
    const title = m[1] ?? m[2]!;
    if (title.split(/\s+/).length <= 8) addKey(found, title);
  }
  // only capitalised words and connectors are read below: the others, in an ASCII text, come as one OTHER_WORD a run
  const list = asciiWords(text, true) ?? regexWords(text);
  for (let i = 0; i < list.length; i++) {
    const w = list[i]!;
    if (!name(w.text)) continue;
    // a run of capitalised words, possibly joined by connectors ("Lord of the Rings")
    let end = i + 1;
    for (;;) {
      let k = end;
      while (k < list.length && list[k]!.joined && CONNECTORS.has(list[k]!.text.toLowerCase())) k++;
      if (k < list.length && list[k]!.joined && name(list[k]!.text)) end = k + 1;
      else break;
    }
    const run = list.slice(i, end);
    i = end - 1;
    if (w.initial && run.length === 1 && !acronym(w.text)) continue;
    // a run that starts a sentence drops a leading article ("The Lord of the Rings")
    // a run that starts a sentence may owe its first capital to that ("Hey Mel", "The Lord of
    // the Rings", "Fort Wayne is…"): it is indexed with and without its first word
    const parts = run.map((x) => x.text);
    if (w.initial) addKey(found, parts.slice(1).join(' '));
    if (!w.initial || !/^(the|a|an)$/i.test(parts[0]!)) addKey(found, parts.join(' '));
  }
  return [...found];
}

/**
 * The entity terms of a question: the entities it names, written as in a memory, and, since
 * questions are often typed in lower case, its words and pairs of adjacent words that memories
 * name as entities (`known`).
 */
export function queryEntityTerms(query: string, known: (term: string) => boolean): string[] {
  const found = new Set(entityTerms(query).filter(known));
  const terms = analyze(query).terms;
  for (let i = 0; i < terms.length; i++) {
    for (const k of [`${ENTITY_PREFIX}${terms[i]}`, `${ENTITY_PREFIX}${terms[i]}_${terms[i + 1]}`]) {
      if (!k.endsWith('_undefined') && known(k)) found.add(k);
    }
  }
  return [...found];
}
