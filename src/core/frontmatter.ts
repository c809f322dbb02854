import { load as loadYaml, CORE_SCHEMA } from 'js-yaml';
import { isMap, isScalar, isSeq, parseDocument, Scalar, type Document, type Node } from 'yaml';

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

const OPEN = /^(\uFEFF?)---[ \t]*(\r?\n)/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/gm;

/** Split a note into frontmatter and body; null when it has no (closed) frontmatter. */
export function splitFrontmatter(text: string): FrontmatterSplit | null {
  const open = OPEN.exec(text);
  if (!open) return null;
  const start = open[0].length;
  CLOSE.lastIndex = start;
  for (let m = CLOSE.exec(text); m; m = CLOSE.exec(text)) {
    if (m.index !== start && text[m.index - 1] !== '\n') continue;
    return {
      head: text.slice(0, start),
      yaml: text.slice(start, m.index),
      fence: m[0],
      body: text.slice(m.index + m[0].length),
    };
  }
  return null;
}

/** Parse frontmatter YAML (YAML 1.2 core schema: timestamps stay strings). Throws on bad YAML. */
export function readFrontmatter(yaml: string): unknown {
  return loadYaml(yaml, { schema: CORE_SCHEMA });
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
 * (quoting, flow or block), a new field is appended at the end of the frontmatter.
 * Every other byte of the note is kept. Throws when the frontmatter is missing or invalid.
 */
export function setFrontmatterFields(text: string, fields: Record<string, FieldValue>): string {
  const split = splitFrontmatter(text);
  if (!split) throw new Error('no frontmatter');
  const crlf = split.head.endsWith('\r\n');
  const fast = scalarLineEdit(split.yaml, fields, crlf);
  if (fast !== null) return split.head + fast + split.fence + split.body;
  const doc = parseDocument(split.yaml);
  if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]!.message}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new Error('frontmatter is not a mapping');

  const edited = surgicalEdit(split.yaml, doc, fields, crlf) ?? documentEdit(doc, fields, crlf);
  return split.head + edited + split.fence + split.body;
}

/**
 * The common case without building a YAML document: scalar values on `key: value` lines at
 * the top level. Each value is rewritten in its own quoting style (the same bytes the
 * document-based edit writes), and the result is checked with the reader's parser: the named
 * fields hold the new values and every other field is unchanged. Anything else (collections,
 * multi-line scalars, a value with `#`, a duplicate key, a check that fails) returns null and
 * takes the document-based path. A consolidation writes thousands of these: building two YAML
 * documents per write was a third of its time.
 */
function scalarLineEdit(yaml: string, fields: Record<string, FieldValue>, crlf: boolean): string | null {
  const entries = Object.entries(fields);
  if (entries.some(([key, value]) => (value !== null && typeof value === 'object') || !/^[A-Za-z_][\w-]*$/.test(key))) return null;
  let before: Record<string, unknown>;
  try {
    const parsed = readFrontmatter(yaml);
    if (parsed === undefined || parsed === null) before = {};
    else if (typeof parsed === 'object' && !Array.isArray(parsed)) before = parsed as Record<string, unknown>;
    else return null;
  } catch {
    return null;
  }
  const lines = yaml.split('\n');
  const appended: string[] = [];
  for (const [key, value] of entries) {
    const at: number[] = [];
    lines.forEach((line, i) => {
      if (line.startsWith(`${key}:`)) at.push(i);
    });
    if (at.length === 0) {
      if (key in before) return null;
      appended.push(`${key}: ${renderFieldValue(value)}`);
      continue;
    }
    if (at.length > 1) return null;
    if (sameValue(before[key], value)) continue;
    const i = at[0]!;
    const line = lines[i]!;
    const cr = line.endsWith('\r') ? '\r' : '';
    const m = /^([^:]+:[ \t]+)("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"[\]{}&*!|>%@`,][^#]*?)([ \t]+#.*)?$/.exec(cr ? line.slice(0, -1) : line);
    if (!m) return null;
    if (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1]!)) return null; // a continued scalar
    const token = m[2]!;
    const style = token.startsWith('"') ? Scalar.QUOTE_DOUBLE : token.startsWith("'") ? Scalar.QUOTE_SINGLE : Scalar.PLAIN;
    lines[i] = `${m[1]!}${renderScalar(value as string | number | boolean | null, style)}${m[3] ?? ''}${cr}`;
  }
  let out = lines.join('\n');
  if (appended.length > 0) {
    const eol = crlf ? '\r\n' : '\n';
    if (out.length > 0 && !out.endsWith('\n')) out += eol;
    out += appended.join(eol) + eol;
  }
  let after: unknown;
  try {
    after = readFrontmatter(out);
  } catch {
    return null;
  }
  if (typeof after !== 'object' || after === null || Array.isArray(after)) return null;
  const now = after as Record<string, unknown>;
  for (const key of new Set([...Object.keys(before), ...Object.keys(now)])) {
    if (!sameValue(now[key], key in fields ? fields[key] : before[key])) return null;
  }
  return out;
}

function surgicalEdit(yaml: string, doc: Document, fields: Record<string, FieldValue>, crlf: boolean): string | null {
  const map = doc.contents;
  const edits: Edit[] = [];
  const appended: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const pair = map && isMap(map) ? map.items.find((p) => isScalar(p.key) && p.key.value === key) : undefined;
    if (!pair) {
      appended.push(`${key}: ${renderFieldValue(value)}`);
      continue;
    }
    const node = pair.value as Node | null;
    if (!node || !node.range) return null;
    if (sameValue(node.toJSON(), value)) continue;
    const rendered = renderLike(node, value);
    if (rendered === null) return null;
    edits.push({ start: node.range[0], end: node.range[1], text: rendered });
  }
  let out = yaml;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  if (appended.length > 0) {
    const eol = crlf ? '\r\n' : '\n';
    if (out.length > 0 && !out.endsWith('\n')) out += eol;
    out += appended.join(eol) + eol;
  }
  return verify(out, doc, fields) ? out : null;
}

/** The fallback for shapes the surgical edit does not handle (block collections, odd nodes). */
function documentEdit(doc: Document, fields: Record<string, FieldValue>, crlf: boolean): string {
  for (const [key, value] of Object.entries(fields)) {
    const existing = doc.get(key, true) as Node | undefined;
    if (existing && sameValue(existing.toJSON(), value)) continue;
    if (isScalar(existing) && !Array.isArray(value) && (value === null || typeof value !== 'object')) {
      existing.value = value;
      continue;
    }
    const node = doc.createNode(value) as Node & { flow?: boolean };
    if (existing && 'flow' in existing) node.flow = Boolean((existing as { flow?: boolean }).flow);
    doc.set(key, node);
  }
  let out = doc.toString({ flowCollectionPadding: false, lineWidth: 0 });
  if (crlf) out = out.replace(/\r?\n/g, '\r\n');
  return out;
}

/** Re-parse the edited YAML: the named fields hold the new values, all others are unchanged. */
function verify(yaml: string, before: Document, fields: Record<string, FieldValue>): boolean {
  const after = parseDocument(yaml);
  if (after.errors.length > 0) return false;
  const old = (before.toJSON() ?? {}) as Record<string, unknown>;
  const now = (after.toJSON() ?? {}) as Record<string, unknown>;
  if (typeof now !== 'object' || now === null) return false;
  const keys = new Set([...Object.keys(old), ...Object.keys(now)]);
  for (const key of keys) {
    const expected = key in fields ? fields[key] : old[key];
    if (!sameValue(now[key], expected)) return false;
  }
  return true;
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
  const present = keys.filter((key) => key in before);
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
