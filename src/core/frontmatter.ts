import { load as loadYaml, CORE_SCHEMA } from 'js-yaml';
import { isMap, isScalar, isSeq, parseDocument, Scalar, visit, type Document, type Node, type YAMLMap, type YAMLSeq } from 'yaml';

/**
 * The YAML frontmatter of a markdown note: finding it, reading it, and editing fields in
 * place without changing any other byte (body, unknown fields, comments, quoting, order).
 */

export interface FrontmatterSplit {
  /** Everything up to and including the opening fence line. */
  head: string;
  /** The YAML text between the fences. */
  yaml: string;
  /** The closing fence line, with its line ending. */
  fence: string;
  /** Everything after the closing fence: the body, byte for byte. */
  body: string;
}

/**
 * Split a note into frontmatter and body; null when it has no (closed) frontmatter. What the
 * patterns /^(\uFEFF?)---[ \t]*(\r?\n)/ (the opening fence) and /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/gm
 * (the first closing one after a \n) gave (the tests keep them as the reference), read by hand:
 * their match arrays and walk were ~3 % of a first recall's parse at 10k.
 */
export function splitFrontmatter(text: string): FrontmatterSplit | null {
  // the opening fence: a byte-order mark, ---, spaces and tabs, a line end
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!text.startsWith('---', i)) return null;
  i += 3;
  while (isBlank(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === 0x0d) i++;
  if (text.charCodeAt(i) !== 0x0a) return null;
  const start = i + 1;
  // the closing fence at the start of a line that follows a \n (the first line of the YAML is one)
  for (let line = start; ; ) {
    const end = fenceEnd(text, line);
    if (end >= 0) return { head: text.slice(0, start), yaml: text.slice(start, line), fence: text.slice(line, end), body: text.slice(end) };
    const next = text.indexOf('\n', line);
    if (next < 0) return null;
    line = next + 1;
  }
}

const isBlank = (c: number) => c === 0x20 || c === 0x09;

/**
 * Where the closing fence pattern's match at `at` ends (--- or ..., spaces and tabs, then a \n
 * or \r\n taken, or the end of the text or of a line, which `$` matches before \r, \u2028 and
 * \u2029 too, taken not); -1 when it does not match there.
 */
function fenceEnd(text: string, at: number): number {
  if (!text.startsWith('---', at) && !text.startsWith('...', at)) return -1;
  let i = at + 3;
  while (isBlank(text.charCodeAt(i))) i++;
  if (i === text.length) return i;
  const c = text.charCodeAt(i);
  if (c === 0x0a) return i + 1;
  if (c === 0x0d) return text.charCodeAt(i + 1) === 0x0a ? i + 2 : i;
  return c === 0x2028 || c === 0x2029 ? i : -1;
}

/** How deep a frontmatter value may nest, and how many values it may hold once its aliases are expanded. */
export const FRONTMATTER_DEPTH = 32;
export const FRONTMATTER_VALUES = 10_000;

/** A frontmatter beyond the reader's bounds (nesting, aliases expanding it): refused with this reason. */
export class FrontmatterLimitError extends Error {}

/**
 * Parse frontmatter YAML (YAML 1.2 core schema: timestamps stay strings). Throws on bad YAML,
 * and on YAML that is valid but unbounded: nested deeper than FRONTMATTER_DEPTH, or holding
 * more than FRONTMATTER_VALUES values once its aliases are expanded (a 700-byte alias bomb
 * expands to 10^10 strings: everything that walks the value, a JSON view, a comparison, would
 * take minutes and gigabytes). The check walks at most FRONTMATTER_VALUES values.
 */
export function readFrontmatter(yaml: string): unknown {
  let data: unknown;
  try {
    data = readFlatFrontmatter(yaml);
    if (data === undefined) data = loadYaml(yaml, { schema: CORE_SCHEMA });
  } catch (error) {
    if (error instanceof RangeError) throw new FrontmatterLimitError(`frontmatter nested deeper than ${FRONTMATTER_DEPTH} levels`);
    throw error;
  }
  valuesWithin(data);
  return data;
}

/**
 * readFrontmatter's bounds on a value read: throws FrontmatterLimitError when it nests deeper
 * than FRONTMATTER_DEPTH or holds over FRONTMATTER_VALUES values; otherwise how many it holds
 * (itself included, each list item and map entry, walking at most FRONTMATTER_VALUES values).
 * Exported for tests.
 */
export function valuesWithin(data: unknown): number {
  let budget = FRONTMATTER_VALUES;
  const walk = (value: unknown, depth: number): void => {
    if (--budget < 0) throw new FrontmatterLimitError(`frontmatter holds over ${FRONTMATTER_VALUES} values once its YAML aliases are expanded`);
    if (value === null || typeof value !== 'object') return;
    if (depth >= FRONTMATTER_DEPTH) throw new FrontmatterLimitError(`frontmatter nested deeper than ${FRONTMATTER_DEPTH} levels (or a YAML alias inside its own anchor)`);
    for (const child of Array.isArray(value) ? value : Object.values(value as Record<string, unknown>)) walk(child, depth + 1);
  };
  walk(data, 0);
  return FRONTMATTER_VALUES - budget;
}

/** A top-level field line as Engram writes it: a key at the margin, one space, a value. */
export const FIELD_LINE = /^([A-Za-z_][\w-]*): (.+)$/;
/** A JSON string (control characters are refused before): YAML reads such a double-quoted scalar as JSON does. */
const QUOTED = '"(?:[^"\\\\]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*"';
const QUOTED_VALUE = new RegExp(`^${QUOTED}$`);
const QUOTED_LIST = new RegExp(`^\\[(?:${QUOTED}(?:, ${QUOTED})*)?\\]$`);
/** A decimal without exponent or leading zeros, its integer part at most 15 digits: YAML's int or float, as Number reads it. */
const NUMBER = '-?(?:0|[1-9]\\d{0,14})(?:\\.\\d{1,20})?';
/** js-yaml reads the integer -0 as 0 (Number and JSON: -0). */
const MINUS_ZERO = /: -0[,}]/;
const NUMBER_MAP = new RegExp(`^\\{(?:${QUOTED}: ${NUMBER}(?:, ${QUOTED}: ${NUMBER})*)?\\}$`);
const PLAIN_NOT_STRING = /^(?:null|true|false)$/i;

/**
 * Characters that make js-yaml refuse a document or read lines differently (and tabs, carriage
 * returns, surrogates): control characters but \n, DEL and C1, the line and paragraph separators,
 * lone or paired surrogates (code units: the pattern has no u flag), the byte-order mark, U+FFFE
 * and U+FFFF. Written as the code units it does not match: \n, printable ASCII, U+00A0-U+2027,
 * U+202A-U+D7FF, U+E000-U+FEFE and U+FF00-U+FFFD.
 */
const UNUSUAL_CHARACTER = /[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;

/**
 * Whether a text holds an UNUSUAL_CHARACTER. The pattern, not a loop over the code units: a first
 * recall at 10k tests 10,000 frontmatters once each, mostly before the loop was optimised (29 ms
 * of its profile; the pattern's compiled scan took 6-7 ms against the loop's 19-35 over the same
 * 10,000 texts). Exported for tests (compared with the loop on every code unit).
 */
export function hasUnusualCharacter(text: string): boolean {
  return UNUSUAL_CHARACTER.test(text);
}

/**
 * The frontmatter Engram writes, read without a YAML parser: one `key: value` line per field,
 * each value a plain word or phrase, a decimal, true / false / null, a double-quoted string
 * without control characters, a list of such strings, or a map of such strings to decimals.
 * What it returns is what js-yaml's core schema returns for the same text (the test compares
 * them); any other shape (a comment, an indented line, a repeated key, an exponent, a
 * single-quoted string...) gives undefined and the YAML parser reads it. Reading a memory is
 * most of a first run, an import's check of what it writes, and a consolidation: js-yaml was
 * 60 % of parsing a memory file.
 */
export function readFlatFrontmatter(yaml: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  // a repeated key is an error to YAML
  const flat = eachFlatField(yaml, (key, value) => {
    if (Object.prototype.hasOwnProperty.call(data, key)) return false;
    data[key] = value;
    return true;
  });
  return flat ? data : undefined;
}

/**
 * readFlatFrontmatter's reading without its object: each field's key and value (what
 * readFlatFrontmatter would hold under that key), in order, handed to `field`, which returns
 * false to stop. Returns false when readFlatFrontmatter would give undefined (the YAML parser's
 * case) or `field` stopped; true when every line was a flat field. Repeated keys are the
 * caller's to refuse (readFlatFrontmatter refuses them), as is the walk's bound on values.
 */
export function eachFlatField(yaml: string, field: (key: string, value: unknown) => boolean): boolean {
  if (yaml === '' || hasUnusualCharacter(yaml) || yaml.includes('__proto__')) return false;
  const end = yaml.endsWith('\n') ? yaml.length - 1 : yaml.length;
  if (end === 0) return false;
  for (let start = 0; start < end; ) {
    let stop = yaml.indexOf('\n', start);
    if (stop < 0 || stop > end) stop = end;
    const colon = fieldKeyEnd(yaml, start, stop);
    if (colon < 0) return false;
    const key = yaml.slice(start, colon);
    const text = yaml.slice(colon + 2, stop);
    start = stop + 1;
    // a key such as NULL is read by YAML as null, then "null"
    if ((key.length === 4 || key.length === 5) && PLAIN_NOT_STRING.test(key)) return false; // null, true, false in any case
    const value = flatValue(text);
    if (value === undefined || !field(key, value)) return false;
  }
  return true;
}

const isKeyStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;

/**
 * Where the key of the line yaml[start, stop) ends, when the line is what FIELD_LINE matches
 * (its key, then ": ", then at least one character: the reader refused line breaks other than
 * the \n lines are cut at); -1 otherwise. Exported for tests (compared with FIELD_LINE).
 */
export function fieldKeyEnd(yaml: string, start: number, stop: number): number {
  if (start >= stop || !isKeyStart(yaml.charCodeAt(start))) return -1;
  let i = start + 1;
  // each key character (a letter, _, a digit or -) tested in the loop, not by a function: a first
  // recall at 10k runs this over 200,000 keys, mostly before it is optimised, two calls a character
  for (; i < stop; i++) {
    const c = yaml.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || c === 0x5f || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d)) break;
  }
  return i + 2 < stop && yaml.charCodeAt(i) === 0x3a && yaml.charCodeAt(i + 1) === 0x20 ? i : -1;
}

/** A double-quoted value without a backslash or another quote inside: its text is what is between the quotes. */
function plainQuoted(text: string): boolean {
  if (text.length < 2 || text.charCodeAt(text.length - 1) !== 0x22) return false;
  for (let i = 1; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/**
 * A list of double-quoted strings without a backslash or another quote inside (`["a", "b c"]`,
 * what Engram writes: each string is the characters between its quotes), as JSON.parse reads it;
 * undefined for anything else, which QUOTED_LIST and JSON.parse then judge. `text` starts with
 * `[`. Exported for tests (compared with the pattern and JSON.parse).
 */
export function plainQuotedList(text: string): string[] | undefined {
  const out: string[] = [];
  const n = text.length;
  for (let i = 1; ; i += 2) {
    if (text.charCodeAt(i) !== 0x22) return undefined;
    let end = i + 1;
    for (; end < n; end++) {
      const c = text.charCodeAt(end);
      if (c === 0x22) break;
      if (c === 0x5c) return undefined;
    }
    if (end >= n) return undefined;
    out.push(text.slice(i + 1, end));
    i = end + 1;
    if (i === n - 1 && text.charCodeAt(i) === 0x5d) return out;
    if (text.charCodeAt(i) !== 0x2c || text.charCodeAt(i + 1) !== 0x20) return undefined;
  }
}

const isDigitCode = (c: number) => c >= 0x30 && c <= 0x39;

/** Whether `text` is a NUMBER alone (`^NUMBER$`), read by hand. Exported for tests (compared with the pattern). */
export function isNumberText(text: string): boolean {
  const n = text.length;
  let i = text.charCodeAt(0) === 0x2d ? 1 : 0;
  const first = text.charCodeAt(i);
  if (first === 0x30) i++;
  else if (first >= 0x31 && first <= 0x39) {
    const from = i;
    while (++i < n && isDigitCode(text.charCodeAt(i)));
    if (i - from > 15) return false;
  } else return false;
  if (i === n) return true;
  if (text.charCodeAt(i) !== 0x2e) return false;
  const from = ++i;
  while (i < n && isDigitCode(text.charCodeAt(i))) i++;
  return i === n && i - from >= 1 && i - from <= 20;
}

/** A letter, a digit, _, ., - or /: a character of a plain word (isPlainText). */
const isPlainCode = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x2d && c <= 0x39) || c === 0x5f;

/**
 * A plain scalar the core schema reads as a string, unless it is a null or boolean word: a letter
 * or _ first, then words of letters, digits, _, ., - and / one space apart (what
 * /^[A-Za-z_][\w.\-/]*(?: [\w.\-/]+)*$/ matches), read by hand. Exported for tests (compared with the pattern).
 */
export function isPlainText(text: string): boolean {
  const n = text.length;
  const c0 = text.charCodeAt(0);
  if (!((c0 >= 0x61 && c0 <= 0x7a) || (c0 >= 0x41 && c0 <= 0x5a) || c0 === 0x5f)) return false;
  for (let i = 1; i < n; i++) {
    const c = text.charCodeAt(i);
    // one space between words: a plain character after it (past the end: NaN, none)
    if (!isPlainCode(c) && !(c === 0x20 && isPlainCode(text.charCodeAt(i + 1)))) return false;
  }
  return true;
}

/**
 * A flat value's text read as the YAML core schema reads it; undefined for the YAML parser. The
 * forms Engram writes (a plain list, a decimal, a plain word) are read by hand, the others by the
 * patterns: a first recall at 10k reads 200,000 fields.
 */
function flatValue(text: string): unknown {
  const first = text.charCodeAt(0);
  if (first === 0x22 /* " */) {
    if (plainQuoted(text)) return text.slice(1, -1);
    return QUOTED_VALUE.test(text) ? (JSON.parse(text) as string) : undefined;
  }
  if (text === '[]') return [];
  if (text === '{}') return {};
  if (first === 0x5b /* [ */) return plainQuotedList(text) ?? (QUOTED_LIST.test(text) ? (JSON.parse(text) as string[]) : undefined);
  if (first === 0x7b /* { */) {
    if (!NUMBER_MAP.test(text) || MINUS_ZERO.test(text)) return undefined;
    const map = JSON.parse(text) as Record<string, number>;
    // a repeated key is an error to YAML; JSON keeps the last
    return (text.match(/": /g)?.length ?? 0) === Object.keys(map).length ? map : undefined;
  }
  if (isNumberText(text)) return text === '-0' ? undefined : Number(text);
  if (text === 'null') return null;
  if (text === 'true' || text === 'false') return text === 'true';
  // null, true and false in any case are four or five letters
  return isPlainText(text) && !((text.length === 4 || text.length === 5) && PLAIN_NOT_STRING.test(text)) ? text : undefined;
}

export type FieldValue = string | number | boolean | null | string[] | Record<string, number>;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Set top-level frontmatter fields in a note's text and return the new text. Only the
 * values of the named fields change: an existing value is rewritten in its own style
 * (quoting, flow or block; a block mapping entry by entry, a block list by appending), a new
 * field is appended at the end of the frontmatter. Every other byte of the note is kept: the
 * frontmatter is never serialised again. An alias that refers to a value being changed is
 * replaced by the value it had, so no other field changes. The result is checked with the
 * reader's parser; an edit that cannot be made so throws, and nothing is written.
 */
export function setFrontmatterFields(text: string, fields: Record<string, FieldValue>): string {
  const split = splitFrontmatter(text);
  if (!split) throw new Error('no frontmatter');
  const crlf = split.head.endsWith('\r\n');
  const fast = scalarLineEdit(split.yaml, fields, crlf);
  if (fast !== null) return split.head + fast + split.fence + split.body;
  return split.head + documentEdit(split.yaml, fields, crlf) + split.fence + split.body;
}

/** setFrontmatterFields' line-based path alone (scalarLineEdit): null where it does not apply. Exported for tests. */
export function setFrontmatterFieldsByLines(text: string, fields: Record<string, FieldValue>): string | null {
  const split = splitFrontmatter(text);
  if (!split) return null;
  const fast = scalarLineEdit(split.yaml, fields, split.head.endsWith('\r\n'));
  return fast === null ? null : split.head + fast + split.fence + split.body;
}

/** setFrontmatterFields without the line-based fast path (scalarLineEdit): what the fast path must equal. Exported for tests. */
export function setFrontmatterFieldsByDocument(text: string, fields: Record<string, FieldValue>): string {
  const split = splitFrontmatter(text);
  if (!split) throw new Error('no frontmatter');
  return split.head + documentEdit(split.yaml, fields, split.head.endsWith('\r\n')) + split.fence + split.body;
}

function documentEdit(yaml: string, fields: Record<string, FieldValue>, crlf: boolean): string {
  let before: unknown;
  try {
    before = readFrontmatter(yaml) ?? {};
  } catch (error) {
    if (error instanceof FrontmatterLimitError) throw error;
    throw new Error(`invalid YAML: ${String((error as Error).message).split('\n')[0]}`);
  }
  if (typeof before !== 'object' || Array.isArray(before)) throw new Error('frontmatter is not a mapping');
  const doc = parseDocument(yaml, { uniqueKeys: false });
  if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]!.message}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new Error('frontmatter is not a mapping');
  const edited = surgicalEdit(yaml, doc, before as Record<string, unknown>, fields, crlf);
  if (edited === null || !verify(edited, before as Record<string, unknown>, fields)) {
    throw new Error(`cannot set ${Object.keys(fields).join(', ')} without changing other fields of this frontmatter; edit it by hand`);
  }
  return edited;
}

/**
 * The common case without building a YAML document: scalar values on `key: value` lines at
 * the top level, and new fields of any value (appended, one line each). Each value is rewritten in its own quoting style (the same bytes the
 * document-based edit writes), and the result is checked with the reader's parser: the named
 * fields hold the new values and every other field is unchanged. Anything else (collections,
 * multi-line scalars, a value with `#`, a duplicate key, a check that fails) returns null and
 * takes the document-based path. A consolidation writes thousands of these: building two YAML
 * documents per write was a third of its time.
 */
function scalarLineEdit(yaml: string, fields: Record<string, FieldValue>, crlf: boolean): string | null {
  const entries = Object.entries(fields);
  if (entries.some(([key]) => !/^[A-Za-z_][\w-]*$/.test(key))) return null;
  let before: Record<string, unknown>;
  // read by readFlatFrontmatter (every line a flat field): the edit's lines alone are checked
  let flat: Record<string, unknown> | undefined;
  let values = 0;
  try {
    flat = readFlatFrontmatter(yaml);
    if (flat !== undefined) values = valuesWithin(flat);
    const parsed = flat ?? readFrontmatter(yaml);
    if (parsed === undefined || parsed === null) before = {};
    else if (typeof parsed === 'object' && !Array.isArray(parsed)) before = parsed as Record<string, unknown>;
    else return null;
  } catch {
    return null;
  }
  const lines = yaml.split('\n');
  const appended: string[] = [];
  // the lines changed ([line, key]; null: appended), for the check of a flat frontmatter's edit
  const changed: Array<[number | null, string]> = [];
  for (const [key, value] of entries) {
    const at: number[] = [];
    lines.forEach((line, i) => {
      if (line.startsWith(`${key}:`)) at.push(i);
    });
    if (at.length === 0) {
      if (hasOwn(before, key)) return null;
      // a new field, whatever its value: one line appended, as the document path appends it
      // (a consolidation's links to a pattern, `link_ids: [...]`, took that path 10,000 times)
      appended.push(`${key}: ${renderFieldValue(value)}`);
      changed.push([null, key]);
      continue;
    }
    if (at.length > 1) return null;
    if (sameValue(valueOf(before, key), value)) continue;
    // a list or a mapping there already is rewritten in its own style by the document path
    if (value !== null && typeof value === 'object') return null;
    const i = at[0]!;
    const line = lines[i]!;
    const cr = line.endsWith('\r') ? '\r' : '';
    const m = /^([^:]+:[ \t]+)("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"[\]{}&*!|>%@`,][^#]*?)([ \t]+#.*)?$/.exec(cr ? line.slice(0, -1) : line);
    if (!m) return null;
    if (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1]!)) return null; // a continued scalar
    const token = m[2]!;
    const style = token.startsWith('"') ? Scalar.QUOTE_DOUBLE : token.startsWith("'") ? Scalar.QUOTE_SINGLE : Scalar.PLAIN;
    lines[i] = `${m[1]!}${renderScalar(value, style)}${m[3] ?? ''}${cr}`;
    changed.push([i, key]);
  }
  let out = lines.join('\n');
  if (appended.length > 0) {
    const eol = crlf ? '\r\n' : '\n';
    if (out.length > 0 && !out.endsWith('\n')) out += eol;
    out += appended.join(eol) + eol;
  }
  if (flat !== undefined && flatEditHolds(flat, values, fields, changed, lines, appended, crlf)) return out;
  let after: unknown;
  try {
    after = readFrontmatter(out);
  } catch {
    return null;
  }
  if (typeof after !== 'object' || after === null || Array.isArray(after)) return null;
  const now = after as Record<string, unknown>;
  for (const key of new Set([...Object.keys(before), ...Object.keys(now)])) {
    if (!sameValue(valueOf(now, key), hasOwn(fields, key) ? fields[key] : valueOf(before, key))) return null;
  }
  return out;
}

/**
 * scalarLineEdit's check, from the changed lines alone, of the edit of a frontmatter that
 * readFlatFrontmatter read whole (`before`, holding `values` values): true only when reading
 * the edited text again would give `before` with the named fields set, every other field as it
 * was. That text is the same lines, the changed ones (`changed`: the line's index, null for the
 * `appended` ones, in order) replaced or added, joined by \n. So it is flat too, and read
 * line by line the same, when each changed line is a flat field line alone (eachFlatField: no
 * line break in it, the rules its whole text gets are each line's, \n and `__proto__` never
 * spanning two lines) holding its own key and the value written, no key is repeated (a replaced
 * line keeps the key its line had, which no other line has; an appended key is not in `before`,
 * by scalarLineEdit), and the values stay within FRONTMATTER_VALUES (a flat value nests no
 * deeper than a list of strings or a map of numbers). False, the whole text read again, where
 * any of this does not hold: a \r\n line end appended, a line YAML reads otherwise. Parsing
 * the whole edited text was ~half of the 854 tier rewrites' ~60 ms in the bench vault's first
 * consolidation (profiled). Exported for tests.
 */
export function flatEditHolds(before: Record<string, unknown>, values: number, fields: Record<string, FieldValue>, changed: Array<[number | null, string]>, lines: string[], appended: string[], crlf: boolean): boolean {
  if (appended.length > 0 && crlf) return false;
  let grown = 0;
  let next = 0;
  for (const [at, key] of changed) {
    const line = at === null ? appended[next++]! : lines[at]!;
    // one line (no \n): eachFlatField hands it over once when it is a flat field
    let read: unknown;
    if (line.includes('\n') || !eachFlatField(line, (k, v) => ((read = v), k === key)) || !sameValue(read, fields[key])) return false;
    grown += countOf(read) - (at === null ? 0 : countOf(valueOf(before, key)));
  }
  return values + grown <= FRONTMATTER_VALUES;
}

/** The values a flat field's value counts for under FRONTMATTER_VALUES: itself, and a list's items or a map's entries. */
function countOf(value: unknown): number {
  return value !== null && typeof value === 'object' ? 1 + Object.keys(value).length : 1;
}

function surgicalEdit(yaml: string, doc: Document, before: Record<string, unknown>, fields: Record<string, FieldValue>, crlf: boolean): string | null {
  const eol = crlf ? '\r\n' : '\n';
  const map = doc.contents;
  const edits: Edit[] = [];
  const appended: string[] = [];
  const anchored: Array<{ anchor: string; old: string }> = [];
  for (const [key, value] of Object.entries(fields)) {
    const pair = map && isMap(map) ? map.items.find((p) => isScalar(p.key) && p.key.value === key) : undefined;
    if (!pair) {
      appended.push(`${key}: ${renderFieldValue(value)}`);
      continue;
    }
    const node = pair.value as Node | null;
    if (sameValue(valueOf(before, key), value)) continue;
    if (node && 'anchor' in node && typeof node.anchor === 'string' && node.range) {
      anchored.push({ anchor: node.anchor, old: isScalar(node) && !node.tag ? yaml.slice(node.range[0], node.range[1]) : JSON.stringify(valueOf(before, key)) });
    }
    const own = node && !(node as { anchor?: string }).anchor && !(node as { tag?: string }).tag ? inPlace(yaml, node, value, eol) : null;
    if (own) edits.push(...own);
    else {
      const region = valueRegion(yaml, pair.key as Node, node);
      if (!region) return null;
      // a comment that followed the old value (or an empty one) stays separated from the new
      const spaced = region.end < yaml.length && !/\s/.test(yaml[region.end]!) ? ' ' : '';
      edits.push({ ...region, text: ` ${renderFieldValue(value)}${yaml[region.end - 1] === '\n' ? eol : spaced}` });
    }
  }
  // an alias of a value being changed keeps the value it had
  if (anchored.length > 0) {
    visit(doc, {
      Alias(_, alias) {
        const old = anchored.find((a) => a.anchor === alias.source);
        if (old && alias.range && !edits.some((e) => e.start <= alias.range![0] && alias.range![1] <= e.end)) edits.push({ start: alias.range[0], end: alias.range[1], text: old.old });
      },
    });
  }
  let out = yaml;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  if (appended.length > 0) {
    // a top-level mapping indented as a whole (`  id: …` on every line) takes new fields at its indentation
    const indent = topIndent(yaml, map);
    if (out.length > 0 && !out.endsWith('\n')) out += eol;
    out += appended.map((line) => indent + line).join(eol) + eol;
  }
  return out;
}

/** The indentation of a top-level mapping's first key ('' for the usual unindented frontmatter). */
function topIndent(yaml: string, map: unknown): string {
  if (!map || !isMap(map) || map.items.length === 0) return '';
  const key = map.items[0]!.key as Node | null;
  if (!key || !isScalar(key) || !key.range) return '';
  const indent = yaml.slice(yaml.lastIndexOf('\n', key.range[0] - 1) + 1, key.range[0]);
  return /^[ ]+$/.test(indent) ? indent : '';
}

/**
 * Edits that change a value in its own style, or null: a scalar in its quoting, a flow list
 * or mapping as a flow one, a block mapping entry by entry (changed values in place, new
 * entries appended at its indentation, comments kept), a block list by appending.
 */
function inPlace(yaml: string, node: Node, value: FieldValue, eol: string): Edit[] | null {
  if (!node.range) return null;
  if (isScalar(node) || ((isSeq(node) || isMap(node)) && node.flow)) {
    if (isScalar(node) && node.range[0] === node.range[1]) return null; // `key:` with nothing after it
    if (isScalar(node) && (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED)) return null; // `|` and `>` own their lines
    const rendered = renderLike(node, value);
    return rendered === null ? null : [{ start: node.range[0], end: node.range[1], text: rendered }];
  }
  if (isMap(node) && value !== null && typeof value === 'object' && !Array.isArray(value)) return blockMapEdit(yaml, node, value, eol);
  if (isSeq(node) && Array.isArray(value)) return blockSeqEdit(yaml, node, value, eol);
  return null;
}

function blockMapEdit(yaml: string, node: YAMLMap, value: Record<string, number>, eol: string): Edit[] | null {
  const items = node.items;
  if (items.length === 0 || !items.every((p) => isScalar(p.key) && p.key.range && isScalar(p.value) && p.value.range && !p.value.anchor && !p.value.tag)) return null;
  const byKey = new Map(items.map((p) => [String((p.key as Scalar).value), p.value as Scalar]));
  if ([...byKey.keys()].some((k) => !hasOwn(value, k))) return null; // a removal: the whole value is rewritten
  const edits: Edit[] = [];
  const added: string[] = [];
  const firstKey = items[0]!.key as Scalar;
  const indent = yaml.slice(yaml.lastIndexOf('\n', firstKey.range![0] - 1) + 1, firstKey.range![0]);
  if (!/^[ \t]*$/.test(indent)) return null;
  for (const [k, v] of Object.entries(value)) {
    const existing = byKey.get(k);
    if (!existing) added.push(`${indent}${renderScalar(k, firstKey.type)}: ${renderScalar(v)}${eol}`);
    else if (!sameValue(existing.toJSON(), v)) edits.push({ start: existing.range![0], end: existing.range![1], text: renderScalar(v, existing.type) });
  }
  if (added.length > 0) {
    const at = node.range![1];
    edits.push({ start: at, end: at, text: (yaml[at - 1] === '\n' ? '' : eol) + added.join('') });
  }
  return edits;
}

function blockSeqEdit(yaml: string, node: YAMLSeq, value: string[], eol: string): Edit[] | null {
  const items = node.items;
  if (!items.every((item) => isScalar(item) && item.range && !item.anchor && !item.tag)) return null;
  const old = items.map((item) => (item as Scalar).toJSON() as unknown);
  const start = node.range![0];
  const indent = yaml.slice(yaml.lastIndexOf('\n', start - 1) + 1, start);
  if (!/^[ \t]*$/.test(indent) || value.length === 0 || items.length === 0) return null;
  const style = (items[0] as Scalar).type;
  const at = node.range![1];
  const closed = yaml[at - 1] === '\n';
  if (value.length > old.length && old.every((v, i) => sameValue(v, value[i]))) {
    // appended items: new lines after the last, every existing line (and its comment) kept
    const lines = value.slice(old.length).map((v) => `${indent}- ${renderScalar(v, style)}${eol}`);
    return [{ start: at, end: at, text: (closed ? '' : eol) + lines.join('') }];
  }
  const lines = value.map((v, i) => `${i === 0 ? '' : indent}- ${renderScalar(v, style)}`).join(eol);
  return [{ start, end: at, text: lines + (closed ? eol : '') }];
}

/** From just after the key's colon to the end of its value (a block value's last line break included). */
function valueRegion(yaml: string, key: Node, node: Node | null): { start: number; end: number } | null {
  if (!key.range) return null;
  const colon = yaml.indexOf(':', key.range[1]);
  if (colon < 0) return null;
  const end = node?.range ? node.range[1] : colon + 1;
  return end < colon + 1 ? null : { start: colon + 1, end };
}

/** Re-read with the reader's parser: the named fields hold the new values, all others are unchanged. */
function verify(yaml: string, before: Record<string, unknown>, fields: Record<string, FieldValue>): boolean {
  let after: unknown;
  try {
    after = readFrontmatter(yaml);
  } catch {
    return false;
  }
  if (typeof after !== 'object' || after === null || Array.isArray(after)) return false;
  const now = after as Record<string, unknown>;
  for (const key of new Set([...Object.keys(before), ...Object.keys(now)])) {
    if (!sameValue(valueOf(now, key), hasOwn(fields, key) ? fields[key] : valueOf(before, key))) return false;
  }
  return true;
}

/**
 * Whether a mapping has a key of its own. A frontmatter may hold any key, `__proto__`,
 * `constructor` or `toString` included: `key in object` would find those on every object's
 * prototype and take them for fields (issue 22, finding 15).
 */
function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** A mapping's own value for a key (undefined when it has none, whatever its prototype holds). */
function valueOf(object: Record<string, unknown>, key: string): unknown {
  return hasOwn(object, key) ? object[key] : undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function renderLike(node: Node, value: FieldValue): string | null {
  if (isScalar(node)) {
    if (value !== null && typeof value === 'object') return null;
    return renderScalar(value, node.type);
  }
  if (isSeq(node) && node.flow && Array.isArray(value)) {
    const first = node.items[0];
    const style = isScalar(first) ? first.type : Scalar.QUOTE_DOUBLE;
    return `[${value.map((v) => renderScalar(v, style)).join(', ')}]`;
  }
  if (isMap(node) && node.flow && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const first = node.items[0];
    const style = first && isScalar(first.key) ? first.key.type : Scalar.QUOTE_DOUBLE;
    const entries = Object.entries(value).map(([k, v]) => `${renderScalar(k, style)}: ${renderScalar(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return null;
}

/** A value for a field the note did not have: the style of SPEC §2's example. */
export function renderFieldValue(value: FieldValue): string {
  if (Array.isArray(value)) return `[${value.map((v) => renderScalar(v, Scalar.QUOTE_DOUBLE)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${renderScalar(v)}`).join(', ')}}`;
  }
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) return JSON.stringify(value);
  return renderScalar(value);
}

const PLAIN_SAFE = /^[A-Za-z_][\w .\-/]*$/;

function renderScalar(value: string | number | boolean | null, style?: string): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (style === Scalar.QUOTE_SINGLE && !/[\n\r]/.test(value)) return `'${value.replace(/'/g, "''")}'`;
  if (style === Scalar.PLAIN || style === undefined) {
    if (PLAIN_SAFE.test(value) && !/[ .]$/.test(value) && !/^(true|false|null|yes|no|on|off|~)$/i.test(value)) {
      return value;
    }
  }
  return JSON.stringify(value);
}

/**
 * Remove top-level fields from a note's frontmatter and return the new text: the lines of each
 * named field (its key line and the value's continuation lines) go, every other byte stays.
 * Checked with the reader's parser; a shape this cannot cut cleanly is edited as a document.
 * Throws when the frontmatter is missing or invalid.
 */
export function removeFrontmatterFields(text: string, keys: string[]): string {
  const split = splitFrontmatter(text);
  if (!split) throw new Error('no frontmatter');
  const parsed = readFrontmatter(split.yaml);
  const before = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const present = keys.filter((key) => hasOwn(before, key));
  if (present.length === 0) return text;
  const expected = { ...before };
  for (const key of present) delete expected[key];
  const lines = split.yaml.split('\n');
  const drop = new Set<number>();
  for (const key of present) {
    const at = lines.findIndex((line) => line.startsWith(`${key}:`) || line.startsWith(`"${key}":`) || line.startsWith(`'${key}':`));
    if (at < 0) continue;
    drop.add(at);
    for (let i = at + 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (/^[ \t-]/.test(line)) drop.add(i);
      else break;
    }
  }
  const cut = lines.filter((_, i) => !drop.has(i)).join('\n');
  let check: unknown;
  try {
    check = readFrontmatter(cut);
  } catch {
    check = undefined;
  }
  if (sameValue(check ?? {}, expected)) return split.head + cut + split.fence + split.body;
  const doc = parseDocument(split.yaml);
  if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]!.message}`);
  for (const key of present) doc.delete(key);
  let out = doc.toString({ flowCollectionPadding: false, lineWidth: 0 });
  if (split.head.endsWith('\r\n')) out = out.replace(/\r?\n/g, '\r\n');
  return split.head + out + split.fence + split.body;
}
