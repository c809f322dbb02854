import { readFrontmatter, removeFrontmatterFields, setFrontmatterFields, splitFrontmatter, type FieldValue, type FrontmatterSplit } from '../frontmatter';
import { contentHash } from '../ids';
import type { EngramSettings } from '../settings';
import { mergeFields, same, type Fields } from './fields';

/**
 * Merging two versions of one memory file (issue 14): the frontmatter field by field by
 * meaning (fields.ts), the body as text with a line merge (git's own, reached through
 * `TextMerger`), so that conflict markers can only ever appear in the body, and only where
 * both sides changed the same lines.
 *
 * Bytes: the result is ours' file with only the merged fields rewritten by the same surgical
 * edit every Engram write uses. Formatting changes theirs made to the frontmatter (a comment, a
 * field moved) are kept too when they merge cleanly as lines once every merged field holds its
 * merged value on all three versions.
 */

/** A three-way line merge: the merged text and the number of conflict blocks left in it. */
export type TextMerger = (base: string, ours: string, theirs: string) => { text: string; conflicts: number };

export interface MemoryMerge {
  text: string;
  /** Conflict blocks left in the body: both sides changed the same lines. */
  bodyConflicts: number;
  /** Fields both sides changed differently (kept in `merge_clash`). */
  clashes: string[];
}

export interface MemoryMergeOptions {
  settings: EngramSettings;
  /** The line merge for the three-way case (the headless runner's is git's own). */
  mergeText?: TextMerger;
  /** The file's path in the vault (its folder decides a category clash). */
  path?: string;
  /** Names for the two sides in conflict markers of a merge without base (default ours, theirs). */
  labels?: { ours: string; theirs: string };
}

interface Version {
  split: FrontmatterSplit;
  fields: Fields;
}

function version(text: string | null): Version | null {
  if (text === null) return null;
  const split = splitFrontmatter(text);
  if (!split) return null;
  try {
    const data = readFrontmatter(split.yaml);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
    return { split, fields: data as Fields };
  } catch {
    return null;
  }
}

/**
 * Why a version cannot be merged by meaning: its frontmatter does not parse (or is not a
 * mapping), or it has none while `other` does. Null when it can be, or when neither has a
 * frontmatter (a plain note, merged as lines). The merge driver fails loudly on a reason: a
 * line merge of such a file succeeds wrongly (two sides' equal `access_count: 2` lines merge
 * as one) and leaves a file nobody can read.
 */
export function unmergeableReason(text: string, other: string): string | null {
  const split = splitFrontmatter(text);
  // a frontmatter opened and never closed is a damaged memory, not a plain text (a line merge would write markers into it)
  if (!split && /^\uFEFF?---[ \t]*\r?\n/.test(text)) return 'its frontmatter is not closed (no --- line after its fields)';
  if (!split) return splitFrontmatter(other) ? 'it has no frontmatter while the other side has one' : null;
  try {
    const data = readFrontmatter(split.yaml);
    return data === null || typeof data !== 'object' || Array.isArray(data) ? 'its frontmatter is not a mapping of fields' : null;
  } catch (error) {
    return `its frontmatter does not parse (${(error instanceof Error ? error.message : String(error)).split('\n')[0]!})`;
  }
}

/**
 * Merge ours and theirs over their common base (null: two copies without one, as a sync tool
 * leaves them). Returns null when ours or theirs is not a note with a frontmatter mapping (a
 * conflict already in the file, another kind of file): the caller merges it as plain text.
 */
export function mergeMemoryText(base: string | null, ours: string, theirs: string, options: MemoryMergeOptions): MemoryMerge | null {
  const o = version(ours);
  const t = version(theirs);
  if (!o || !t) return null;
  const b = version(base);
  const folder = options.path?.split('/').slice(-2, -1)[0];
  const rewritten = laterConsolidation(b, o, t);
  if (rewritten) {
    // the text's title follows the text
    const loser = rewritten === o ? t : o;
    loser.fields = { ...loser.fields };
    if ('aliases' in rewritten.fields) loser.fields.aliases = rewritten.fields.aliases;
    else delete loser.fields.aliases;
  }
  const merged = mergeFields(b?.fields ?? null, o.fields, t.fields, { settings: options.settings, folder });

  if (b && !options.mergeText) throw new Error('a three-way merge needs a line merge (mergeText)');
  const body = rewritten
    ? { text: rewritten.split.body, conflicts: 0 }
    : b
      ? options.mergeText!(b.split.body, o.split.body, t.split.body)
      : mergeWithoutBase(o.split.body, t.split.body, options.labels ?? { ours: 'ours', theirs: 'theirs' });
  if (merged.rehash && body.conflicts === 0) merged.fields.content_hash = contentHash(body.text);

  const removed = [...new Set([...Object.keys(o.fields), ...Object.keys(t.fields)])].filter((k) => !(k in merged.fields));
  const frontOf = (v: Version) => withFields(v, merged.fields, removed);
  const oursFront = frontOf(o);
  let front = oursFront;
  if (b) {
    try {
      const lines = options.mergeText!(frontOf(b), oursFront, frontOf(t));
      if (lines.conflicts === 0 && same(readFrontmatter(lines.text), merged.fields)) front = lines.text;
    } catch {
      // theirs' or the base's layout could not take the values: ours' layout it is
    }
  }
  return { text: o.split.head + front + o.split.fence + body.text, bodyConflicts: body.conflicts, clashes: merged.clashes };
}

/**
 * Two consolidations of the same episodes (a semantic memory with the same id, `source:
 * consolidation`, each side's text as consolidation wrote it: its content_hash holds) that
 * wrote different texts (one clone had edited an episode, or saw one more): the text is
 * consolidation's to rewrite, so the later consolidation's text is taken whole (by created_at,
 * then strengthened_at; the same time: the text whose hash sorts last, the same on every
 * machine) instead of a line merge that stops the pull with markers. A text a person edited on
 * either side is merged as lines, as any text.
 */
function laterConsolidation(base: Version | null, ours: Version, theirs: Version): Version | null {
  if (ours.split.body === theirs.split.body) return null;
  if (base && (base.split.body === ours.split.body || base.split.body === theirs.split.body)) return null; // one side changed it: the line merge takes that side
  const written = (v: Version) => v.fields.source === 'consolidation' && v.fields.category === 'semantic' && v.fields.content_hash === contentHash(v.split.body);
  if (!written(ours) || !written(theirs)) return null;
  const time = (v: Version) => [v.fields.created_at, v.fields.strengthened_at].map((x) => (typeof x === 'string' ? Date.parse(x) || 0 : 0));
  const [o, t] = [time(ours), time(theirs)];
  for (let k = 0; k < o.length; k++) if (o[k] !== t[k]) return o[k]! > t[k]! ? ours : theirs;
  return contentHash(ours.split.body) > contentHash(theirs.split.body) ? ours : theirs;
}

/** A version's frontmatter text with every merged field set to its merged value. */
function withFields(version: Version, fields: Fields, removed: string[]): string {
  const { split } = version;
  const changed: Record<string, FieldValue> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (JSON.stringify(version.fields[key]) !== JSON.stringify(value)) changed[key] = value as FieldValue;
  }
  const gone = removed.filter((key) => key in version.fields);
  if (Object.keys(changed).length === 0 && gone.length === 0) return split.yaml;
  let note = `${split.head}${split.yaml}${split.fence}`;
  if (Object.keys(changed).length > 0) note = setFrontmatterFields(note, changed);
  if (gone.length > 0) note = removeFrontmatterFields(note, gone);
  return splitFrontmatter(note)!.yaml;
}

/**
 * Two bodies without a base: equal, or one holds the other (lines appended on one copy, or a
 * copy merged before), or else their common leading and trailing lines around one conflict
 * block holding both middles: both texts stay visible, nothing is dropped. (What git's line
 * merge makes of the two over a base of their common lines, built here without git, so that
 * the plugin can do it too.)
 */
function mergeWithoutBase(ours: string, theirs: string, labels: { ours: string; theirs: string }): { text: string; conflicts: number } {
  if (ours.includes(theirs)) return { text: ours, conflicts: 0 };
  if (theirs.includes(ours)) return { text: theirs, conflicts: 0 };
  const eol = ours.includes('\r\n') ? '\r\n' : '\n';
  const a = ours.split('\n');
  const c = theirs.split('\n');
  let head = 0;
  while (head < a.length - 1 && head < c.length - 1 && a[head] === c[head]) head++;
  let tail = 0;
  while (tail < a.length - head - 1 && tail < c.length - head - 1 && a[a.length - 1 - tail] === c[c.length - 1 - tail]) tail++;
  const middle = (lines: string[]) => lines.slice(head, lines.length - tail).map((l) => `${l.replace(/\r$/, '')}${eol}`).join('');
  const before = a.slice(0, head).map((l) => `${l}\n`).join('');
  const after = a.slice(a.length - tail).join('\n');
  const text = `${before}<<<<<<< ${labels.ours}${eol}${middle(a)}=======${eol}${middle(c)}>>>>>>> ${labels.theirs}${eol}${after}`;
  return { text, conflicts: 1 };
}
