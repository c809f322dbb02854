import { readFrontmatter, setFrontmatterFields, splitFrontmatter, type FieldValue } from '../../src/core/frontmatter';
import { MemoryParseError } from '../../src/core/errors';
import { parseMemory } from '../../src/core/memory';
import { seededRandom } from '../../src/core/random';
import { resolveSettings } from '../../src/core/settings';

/**
 * A fuzzer of the frontmatter reader and writer. Each case is a random note (known and
 * unknown fields in every YAML style a person or a tool writes: quoting, flow and block
 * collections, comments, anchors and aliases, multi-line scalars, CRLF, a byte-order mark,
 * then sometimes damaged by random edits) and a random metadata write of the kind Engram
 * makes. What must hold:
 * - reading ends (bounded) with a memory or a MemoryParseError naming a reason;
 * - the write either is refused with a reason (an Error with a message) or returns a note
 *   whose body and head are byte for byte the original, whose written fields read back as
 *   written, whose other fields read back unchanged, and in which every line outside the
 *   written fields is still there, in order (comments included);
 * - writing the same values again changes nothing.
 */
export interface FuzzReport {
  tried: number;
  written: number;
  refused: number;
  unreadable: number;
  /** Cases where a property did not hold: the note, the write and what went wrong. */
  failures: Array<{ seed: string; note: string; fields: Record<string, FieldValue>; problem: string }>;
  /** Refusal reasons, counted (first 60 characters). */
  reasons: Record<string, number>;
}

const settings = resolveSettings(undefined);
const ID = 'mem-fuzz00000001';

type Rand = () => number;

function pick<T>(rand: Rand, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

function int(rand: Rand, n: number): number {
  return Math.floor(rand() * n);
}

const WORDS = ['alpha', 'beta', 'gamma', 'kite', 'tier', 'x', 'ü', '日本', 'with space', 'a:b', 'a #b', "it's", 'say "hi"', '- dash', '[x]', '{y}', 'true', 'null', '12', '3.5', '', '*star', '&amp', '!bang', '%pc', '@at', '`tick`', '>fold', '|pipe'];
const KEYS = ['reviewer', 'status', 'aliases', 'project', 'note', 'cssclasses', 'weird key', 'ключ', 'rank', 'links', 'due', 'x-y', 'meta'];

/** A YAML scalar in one of its styles. */
function scalar(rand: Rand): string {
  const word = pick(rand, WORDS);
  switch (int(rand, 7)) {
    case 0:
      return JSON.stringify(word);
    case 1:
      return `'${word.replace(/'/g, "''")}'`;
    case 2:
      return String(int(rand, 1000));
    case 3:
      return pick(rand, ['true', 'false', 'null', '~', '1.5', '-3', '0x1F', '2026-11-01', '"2026-11-01T10:00:00Z"']);
    default:
      return /^[A-Za-z][A-Za-z ]*$/.test(word) ? word : JSON.stringify(word);
  }
}

function comment(rand: Rand): string {
  return rand() < 0.25 ? `  # ${pick(rand, WORDS)}` : '';
}

/** A value for an unknown field: scalars, flow and block collections, multi-line scalars, anchors. */
function value(rand: Rand, indent: string, depth: number, anchors: string[]): string {
  const r = rand();
  if (anchors.length > 0 && r < 0.06) return ` *${pick(rand, anchors)}`;
  if (r < 0.12 && depth < 3) {
    const name = `a${anchors.length}`;
    anchors.push(name);
    return ` &${name}${value(rand, indent, depth + 1, anchors)}`;
  }
  if (r < 0.45 || depth >= 3) return ` ${scalar(rand)}`;
  if (r < 0.55) return ` [${Array.from({ length: int(rand, 4) }, () => scalar(rand)).join(', ')}]`;
  if (r < 0.62) return ` {${Array.from({ length: int(rand, 3) }, () => `${pick(rand, KEYS).replace(/ /g, '_')}: ${scalar(rand)}`).join(', ')}}`;
  if (r < 0.75) return `\n${Array.from({ length: 1 + int(rand, 3) }, () => `${indent}  -${value(rand, `${indent}  `, depth + 1, anchors)}`).join('\n')}`;
  if (r < 0.88) {
    const keys = [...new Set(Array.from({ length: 1 + int(rand, 3) }, () => pick(rand, KEYS).replace(/ /g, '_')))];
    return `\n${keys.map((k) => `${indent}  ${k}:${value(rand, `${indent}  `, depth + 1, anchors)}${comment(rand)}`).join('\n')}`;
  }
  return ` ${pick(rand, ['|', '>', '|-'])}\n${indent}  ${pick(rand, WORDS)}\n${indent}  ${pick(rand, WORDS)}`;
}

/** Engram's own fields, in the styles people and tools leave them in. */
function knownField(rand: Rand, key: string): string {
  switch (key) {
    case 'id':
      return `id: ${pick(rand, [ID, `"${ID}"`, `'${ID}'`])}`;
    case 'category':
      return `category: ${pick(rand, ['episodic', '"episodic"'])}`;
    case 'created_at':
      return `created_at: ${pick(rand, ['"2026-11-01T10:00:00Z"', "'2026-11-01T10:00:00Z'", '2026-11-01T10:00:00Z'])}`;
    case 'tier':
      return `tier: ${pick(rand, ['active', '"warm"', "'cold'"])}`;
    case 'access_count':
      return `access_count: ${int(rand, 9)}`;
    case 'co_access':
      return rand() < 0.5
        ? `co_access: ${pick(rand, ['{}', '{"mem-aaaaaaaaaaaa": 2}', "{'mem-aaaaaaaaaaaa': 1, 'mem-bbbbbbbbbbbb': 3}", '{mem-aaaaaaaaaaaa: 1}'])}`
        : `co_access:\n  mem-aaaaaaaaaaaa: ${int(rand, 5)}${comment(rand)}\n  mem-bbbbbbbbbbbb: 1`;
    case 'tags':
      return rand() < 0.5 ? `tags: ${pick(rand, ['[]', '["a", "b"]', '[a, b]'])}` : `tags:\n  - a${comment(rand)}\n  - b`;
    default:
      return `${key}: ${scalar(rand)}`;
  }
}

/** A random note: its frontmatter lines and its body. */
export function randomNote(rand: Rand): string {
  const anchors: string[] = [];
  const lines: string[] = [];
  const known = ['id', 'category', 'created_at', 'tier', 'access_count', 'co_access', 'tags'].filter((k) => k === 'id' || k === 'category' || k === 'created_at' || rand() < 0.6);
  const unknown = [...new Set(Array.from({ length: int(rand, 5) }, () => pick(rand, KEYS)))];
  const all = [...known.map((k) => ({ k, known: true })), ...unknown.map((k) => ({ k, known: false }))].sort(() => rand() - 0.5);
  for (const { k, known: isKnown } of all) {
    if (rand() < 0.1) lines.push(`# ${pick(rand, WORDS)}`);
    const key = /^[\w-]+$/.test(k) ? k : JSON.stringify(k);
    lines.push(isKnown ? `${knownField(rand, k)}${comment(rand)}` : `${key}:${value(rand, '', 0, anchors)}${comment(rand)}`);
  }
  const eol = rand() < 0.15 ? '\r\n' : '\n';
  const bom = rand() < 0.05 ? '\uFEFF' : '';
  const body = pick(rand, ['Body.\n', 'A body with --- inside\n---\nand a fence-like line.\n', '', 'no newline at end', '# Heading\n\n[[mem-aaaaaaaaaaaa|related]]\n']);
  return `${bom}---${eol}${lines.join(eol)}${eol}---${eol}${body.replace(/\n/g, eol)}`;
}

/** Damage a note the way careless hands and tools do: a character inserted, deleted, duplicated. */
export function damage(rand: Rand, note: string): string {
  let out = note;
  for (let n = 1 + int(rand, 3); n > 0; n--) {
    const at = int(rand, out.length + 1);
    const r = rand();
    if (r < 0.4) out = out.slice(0, at) + pick(rand, [':', '-', '#', '"', "'", '[', ']', '{', '}', '\t', ' ', '\n', '*', '&', '|', '>', '?', '%', '@', '`', '!']) + out.slice(at);
    else if (r < 0.7) out = out.slice(0, at) + out.slice(at + 1 + int(rand, 4));
    else {
      const line = out.slice(out.lastIndexOf('\n', at - 1) + 1, out.indexOf('\n', at) < 0 ? out.length : out.indexOf('\n', at) + 1);
      out = out.slice(0, at) + line + out.slice(at);
    }
  }
  return out;
}

/** A metadata write of the kind Engram makes (touch, consolidation, curation). */
function randomFields(rand: Rand, before: Record<string, unknown>): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  const coAccess = (typeof before.co_access === 'object' && before.co_access !== null && !Array.isArray(before.co_access) ? before.co_access : {}) as Record<string, number>;
  const tags = Array.isArray(before.tags) ? (before.tags as unknown[]).map(String) : [];
  for (let n = 1 + int(rand, 4); n > 0; n--) {
    switch (int(rand, 9)) {
      case 0:
        fields.tier = pick(rand, ['active', 'warm', 'cold', 'archive']);
        break;
      case 1:
        fields.access_count = int(rand, 50);
        break;
      case 2:
        fields.last_accessed_at = '2026-11-05T00:00:00Z';
        break;
      case 3:
        fields.activation = Math.round(rand() * 1000) / 100;
        break;
      case 4:
        fields.co_access = { ...coAccess, [pick(rand, ['mem-aaaaaaaaaaaa', 'mem-cccccccccccc'])]: 1 + int(rand, 4) };
        break;
      case 5:
        fields.tags = [...tags, pick(rand, ['new', 'c', 'with space'])];
        break;
      case 6:
        fields.decays_from = '[[mem-dddddddddddd]]';
        break;
      case 7:
        fields[pick(rand, KEYS)] = pick(rand, ['set by engram', 7, true]);
        break;
      default:
        fields.confidence = pick(rand, ['verified', 'stale']);
    }
  }
  return fields;
}

const KEY_LINE = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\-\]}][^:]*?)\s*:(?:\s|$)/;

/** Top-level key spans: each key line and the lines that continue its value. */
function fieldSpans(yaml: string): Array<{ key: string; from: number; to: number }> {
  const lines = yaml.split('\n');
  const spans: Array<{ key: string; from: number; to: number }> = [];
  lines.forEach((line, i) => {
    const m = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"][^:]*?)\s*:(?:\s|$)/.exec(line);
    if (!m) return;
    let key = m[1]!;
    if (key.startsWith("'") || key.startsWith('"')) key = key.slice(1, -1).replace(/''/g, "'");
    // the value continues on every line up to the next key or comment line (indented lines,
    // list items, blank lines, the rest of a flow collection)
    let to = i;
    while (to + 1 < lines.length && !KEY_LINE.test(lines[to + 1]!) && !lines[to + 1]!.startsWith('#')) to++;
    spans.push({ key, from: i, to });
  });
  return spans;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Check one case; returns a problem, or null when every property held. */
export function checkCase(note: string, fields: Record<string, FieldValue>, report: FuzzReport): string | null {
  // reading: a memory or a reason, never anything else
  try {
    parseMemory(`episodic/${ID}.md`, note, settings);
  } catch (error) {
    if (!(error instanceof MemoryParseError) || error.reason.trim() === '') return `reading threw ${String(error)}`;
  }
  const split = splitFrontmatter(note);
  let before: unknown;
  let parsed = false;
  try {
    before = split ? readFrontmatter(split.yaml) : undefined;
    parsed = split !== null;
  } catch {
    before = undefined;
  }
  // an empty frontmatter reads as nothing: fields may be added to it
  const readable = parsed && (before === undefined || before === null || (typeof before === 'object' && !Array.isArray(before)));
  let out: string;
  try {
    out = setFrontmatterFields(note, fields);
  } catch (error) {
    if (!(error instanceof Error) || error.message.trim() === '') return `refused without a reason: ${String(error)}`;
    const reason = error.message.slice(0, 60);
    report.reasons[reason] = (report.reasons[reason] ?? 0) + 1;
    report.refused++;
    if (!readable) report.unreadable++;
    return null;
  }
  if (!readable) return 'wrote a note whose frontmatter the reader refuses';
  report.written++;
  const after = splitFrontmatter(out);
  if (!after) return 'the written note has no frontmatter';
  if (after.head !== split!.head || after.fence !== split!.fence || after.body !== split!.body) return 'head, fence or body changed';
  let data: Record<string, unknown>;
  try {
    data = (readFrontmatter(after.yaml) ?? {}) as Record<string, unknown>;
  } catch (error) {
    return `the written frontmatter does not read back: ${String(error)}`;
  }
  const old = (before ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(old), ...Object.keys(data)])) {
    const expected = key in fields ? fields[key] : old[key];
    if (!same(data[key], expected)) return `field ${key}: read back ${JSON.stringify(data[key])}, expected ${JSON.stringify(expected)}`;
  }
  // every line outside the written fields is still there, in order
  const edited = new Set<number>();
  for (const span of fieldSpans(split!.yaml)) if (span.key in fields) for (let i = span.from; i <= span.to; i++) edited.add(i);
  const outLines = after.yaml.split('\n');
  let cursor = 0;
  const inLines = split!.yaml.split('\n');
  for (let i = 0; i < inLines.length; i++) {
    // an alias of a written field is replaced by the value it had (checked above)
    if (edited.has(i) || /(^|[\s[{,:])\*[^\s,\]}]+/.test(inLines[i]!)) continue;
    const found = outLines.indexOf(inLines[i]!, cursor);
    if (found < 0) return `line ${i + 1} of the frontmatter changed or was lost: ${JSON.stringify(inLines[i])}`;
    cursor = found + 1;
  }
  if (setFrontmatterFields(out, fields) !== out) return 'writing the same values again changed the note';
  return null;
}

export function runFuzz(seed: string, cases: number, onProgress?: (report: FuzzReport) => void): FuzzReport {
  const report: FuzzReport = { tried: 0, written: 0, refused: 0, unreadable: 0, failures: [], reasons: {} };
  for (let i = 0; i < cases; i++) {
    const caseSeed = `${seed}:${i}`;
    const rand = seededRandom(caseSeed);
    let note = randomNote(rand);
    if (rand() < 0.3) note = damage(rand, note);
    let before: Record<string, unknown> = {};
    try {
      const split = splitFrontmatter(note);
      const parsed = split ? readFrontmatter(split.yaml) : null;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) before = parsed as Record<string, unknown>;
    } catch {
      // damaged: the write must be refused
    }
    const fields = randomFields(rand, before);
    report.tried++;
    let problem: string | null;
    try {
      problem = checkCase(note, fields, report);
    } catch (error) {
      problem = `the check itself threw: ${String(error)}`;
    }
    if (problem) report.failures.push({ seed: caseSeed, note, fields, problem });
    if (onProgress && (i + 1) % 10_000 === 0) onProgress(report);
  }
  return report;
}
