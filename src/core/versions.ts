import { MemoryParseError, NotFoundError, UsageError, WriteConflictError } from './errors';
import { setFrontmatterFields, splitFrontmatter, type FieldValue } from './frontmatter';
import { nameKey } from './file-names';
import { assertMemoryId, contentHash } from './ids';
import { noteName } from './links';
import { parseMemory, type Memory } from './memory';
import { FRONTMATTER_ALLOWANCE } from './remember';
import { formatTimestamp } from './time';
import { LAYOUT, type Vault } from './vault';

/**
 * Versions of a memory's content (SPEC §10: every content change is a new version, and can be
 * reverted).
 *
 * The content of a memory is its body: the text and its link lines, byte for byte. The
 * frontmatter (counters, tier, confidence, activation) is state, not content, and is not
 * versioned. Every content change made through Engram (`edit`, `revert`, a review applied,
 * links removed by a purge) goes through `changeBody`, which records versions as immutable
 * files under `.engram/versions/<id>/`, one JSON file per version, created exclusively and
 * never rewritten. The memory keeps its id across versions, so every link and co-access
 * entry that points at it (related, supersedes, decays_from) stays valid.
 *
 * A memory that was never changed through Engram has no recorded version: its history is its
 * current body (version 1). A body changed outside Engram (in Obsidian) since the last
 * recorded version shows as one more version, not yet recorded; the next change through
 * Engram records it first, so no text is ever lost.
 *
 * API (small on purpose):
 * - `memoryHistory(vault, id)`: every version, oldest first, numbered from 1;
 * - `changeBody(vault, id, change, meta)`: the one way to change a body (under the memory's
 *   lock, compare-and-swap against other writers);
 * - `editText(vault, id, text, meta)`: new text, the link line kept;
 * - `revertTo(vault, id, n, meta)`: version n's body back, as a new version;
 * - `deleteHistory(vault, id)`: for `forget --purge` only.
 */

export const VERSIONS_FOLDER = LAYOUT.versions;

export interface MemoryVersion {
  /** 1 for the oldest. */
  n: number;
  /** When this body became the memory's content (the file's mtime for a change seen outside Engram). */
  at: string;
  /** contentHash of the body (the frontmatter's content_hash when it was written). */
  hash: string;
  /** Why: "created", "edit", "revert to 2", "changed outside Engram", or the caller's reason. */
  reason: string;
  /** Who made the change, when known: an agent role, "cli", "review". */
  by: string | null;
  /** The body, byte for byte. */
  body: string;
  /** False for the current body when no version records it yet. */
  recorded: boolean;
  /**
   * Set when the record of this version cannot be read (torn, edited by hand, truncated by a
   * sync tool): its path and what is wrong. Its body is then '' and it cannot be shown or
   * reverted to; it keeps its number, so the versions after it keep theirs.
   */
  damaged?: string;
}

/** A version record that does not read back: kept in place (never rewritten), reported with its path. */
export interface DamagedRecord {
  path: string;
  /** The sequence number its file name gives (0 when the name has none). */
  seq: number;
  problem: string;
}

/** Why a content change is made, recorded with the version. */
export interface ChangeMeta {
  reason: string;
  by?: string | null;
  /**
   * `forget --purge` only: what the current body, recorded first when no version holds it,
   * leaves out (links naming the purged memory's file, which hold its words). When that is the
   * new body, no second version is recorded.
   */
  scrub?: (body: string) => string;
}

export interface ChangeResult {
  id: string;
  path: string;
  /** The version now current. */
  version: number;
  /** False when the body already was the one asked for (nothing written). */
  changed: boolean;
}

interface VersionRecord {
  format: 1;
  id: string;
  seq: number;
  at: string;
  hash: string;
  reason: string;
  by: string | null;
  body: string;
}

const MAX_WRITE_ATTEMPTS = 20;

function folderOf(id: string): string {
  return `${VERSIONS_FOLDER}/${assertMemoryId(id)}`;
}

/** File names sort as (sequence, time, hash): the order versions were recorded in. */
function recordName(record: VersionRecord): string {
  return `${String(record.seq).padStart(6, '0')}-${record.at.replace(/[-:.]/g, '')}-${record.hash}.json`;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The sequence number a record's file name starts with (0 when it has none). */
function seqOfName(name: string): number {
  const m = /^(\d{1,9})-/.exec(name);
  return m ? Number(m[1]) : 0;
}

/** Why a record's text is not a version record of `id`, or null when it is one. */
function recordProblem(text: string, id: string): string | null {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return 'it is not valid JSON (cut short, or edited by hand)'; // the engine's message differs between Node versions
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'it is not a JSON object';
  const r = record as Partial<VersionRecord>;
  if (r.format !== 1) return `format is ${JSON.stringify(r.format ?? null)}, not 1`;
  if (r.id !== id) return `it names ${JSON.stringify(r.id ?? null)}, not ${id}`;
  if (typeof r.seq !== 'number' || !Number.isInteger(r.seq) || r.seq < 1) return 'seq is not a whole number';
  for (const key of ['at', 'hash', 'reason', 'body'] as const) if (typeof r[key] !== 'string') return `${key} is not a string`;
  if (r.by !== null && typeof r.by !== 'string') return 'by is neither a string nor null';
  return null;
}

/** One entry per record file, in the order they were recorded: the record, or what is wrong with it. */
type RecordEntry = { record: VersionRecord; damaged?: undefined } | { record?: undefined; damaged: DamagedRecord };

async function readRecords(vault: Vault, id: string): Promise<RecordEntry[]> {
  const folder = folderOf(id);
  const names = (await vault.ports.files.list(folder)).filter((n) => n.endsWith('.json')).sort();
  const entries: RecordEntry[] = [];
  for (const name of names) {
    const path = `${folder}/${name}`;
    let text: string;
    try {
      const bytes = await vault.ports.files.read(path);
      if (bytes === null) continue; // removed since the listing
      text = strictUtf8.decode(bytes);
    } catch (error) {
      entries.push({ damaged: { path, seq: seqOfName(name), problem: `it cannot be read (${error instanceof Error ? error.message : String(error)})` } });
      continue;
    }
    const problem = recordProblem(text, id);
    if (problem) entries.push({ damaged: { path, seq: seqOfName(name), problem } });
    else entries.push({ record: JSON.parse(text) as VersionRecord });
  }
  return entries;
}

/** The highest sequence number recorded, damaged records included (a new record never reuses one). */
function lastSeq(entries: RecordEntry[]): number {
  return entries.reduce((max, e) => Math.max(max, e.record ? e.record.seq : e.damaged.seq), 0);
}

/** Every damaged version record of a memory (for doctor). */
export async function damagedRecords(vault: Vault, id: string): Promise<DamagedRecord[]> {
  return (await readRecords(vault, id)).flatMap((e) => (e.damaged ? [e.damaged] : []));
}

/** The ids that have a folder of version records. */
export async function versionedIds(vault: Vault): Promise<string[]> {
  const { files } = vault.ports;
  const folders = files.folders ? await files.folders(VERSIONS_FOLDER) : [];
  return folders.filter((name) => /^mem-[a-z0-9]{12}$/.test(name)).sort();
}

function describeDamage(d: DamagedRecord): string {
  return `${d.path}: ${d.problem}`;
}

async function writeRecord(vault: Vault, record: VersionRecord): Promise<void> {
  const folder = folderOf(record.id);
  await vault.ports.files.mkdir(folder);
  try {
    await vault.ports.files.write(`${folder}/${recordName(record)}`, `${JSON.stringify(record)}\n`, { expect: null });
  } catch (error) {
    if (!(error instanceof WriteConflictError)) throw error; // the same version, already recorded
  }
}

function toVersion(entry: RecordEntry, n: number): MemoryVersion {
  if (entry.damaged) {
    return { n, at: '', hash: '', reason: 'damaged record', by: null, body: '', recorded: true, damaged: describeDamage(entry.damaged) };
  }
  const record = entry.record;
  return { n, at: record.at, hash: record.hash, reason: record.reason, by: record.by, body: record.body, recorded: true };
}

/** The current body as a version, when the records do not end with it (a damaged last record does not: its text is unknown). */
async function unrecordedCurrent(vault: Vault, memory: Memory, entries: RecordEntry[]): Promise<VersionRecord | null> {
  const last = entries[entries.length - 1];
  if (last?.record && last.record.body === memory.body) return null;
  const hash = contentHash(memory.body);
  const untouched = entries.length === 0 && memory.content_hash === hash;
  let at = memory.created_at;
  if (!untouched) {
    const stat = await vault.ports.files.stat(memory.path);
    at = stat ? formatTimestamp(Math.floor(stat.mtimeMs / 1000) * 1000) : formatTimestamp(vault.now());
  }
  return { format: 1, id: memory.id, seq: lastSeq(entries) + 1, at, hash, reason: untouched ? 'created' : 'changed outside Engram', by: null, body: memory.body };
}

async function readMemory(vault: Vault, id: string): Promise<{ memory: Memory; text: string }> {
  const path = await vault.locate(id);
  if (!path) throw new NotFoundError(`no memory with id ${id}`);
  const loaded = await vault.read(path, { stable: true });
  if (!loaded) throw new NotFoundError(`no memory with id ${id}`);
  return loaded;
}

/**
 * Every version of a memory, oldest first, numbered from 1; the last one is the current body. A
 * damaged record stays in its place, marked `damaged` (with its path), so no number shifts.
 */
export async function memoryHistory(vault: Vault, id: string): Promise<MemoryVersion[]> {
  const { memory } = await readMemory(vault, id);
  const entries = await readRecords(vault, id);
  const current = await unrecordedCurrent(vault, memory, entries);
  const all: RecordEntry[] = current ? [...entries, { record: current }] : entries;
  return all.map((entry, i) => ({ ...toVersion(entry, i + 1), recorded: entry.record !== current }));
}

/** Version n of a history, refused with the record's path when it is damaged or missing. */
export function versionOf(history: MemoryVersion[], id: string, n: number, command: string): MemoryVersion {
  const version = history[n - 1];
  if (!version) throw new NotFoundError(`${command}: ${id} has versions 1 to ${history.length}, not ${n}`);
  if (version.damaged) throw new MemoryParseError(version.damaged.slice(0, version.damaged.indexOf(': ')), `version ${n} of ${id} cannot be read: ${version.damaged.slice(version.damaged.indexOf(': ') + 2)}`);
  return version;
}

/**
 * Change a memory's body: `change` gets the memory as it is now and returns the new body (null:
 * no change). Under the memory's lock: the current body is recorded first when no version holds
 * it, the file is written with compare-and-swap (retried from a fresh read when another writer
 * got in between), then the new version is recorded. `content_hash` follows the body; `fields`
 * may set more frontmatter in the same write. Refuses a result over the file size limit.
 */
export async function changeBody(
  vault: Vault,
  id: string,
  change: (memory: Memory) => string | null,
  meta: ChangeMeta,
  fields?: (memory: Memory) => Record<string, FieldValue>,
): Promise<ChangeResult> {
  assertMemoryId(id);
  return vault.ports.locks.withLock(id, async () => {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const { memory, text } = await readMemory(vault, id);
      const entries = await readRecords(vault, id);
      const current = await unrecordedCurrent(vault, memory, entries);
      const currentNumber = entries.length + (current ? 1 : 0);
      const body = change(memory);
      if (body === null || body === memory.body) return { id, path: memory.path, version: currentNumber, changed: false };
      const split = splitFrontmatter(text)!;
      const hash = contentHash(body);
      let next: string;
      try {
        next = setFrontmatterFields(split.head + split.yaml + split.fence + body, { content_hash: hash, ...(fields?.(memory) ?? {}) });
      } catch (error) {
        throw new MemoryParseError(memory.path, error instanceof Error ? error.message : String(error));
      }
      const size = new TextEncoder().encode(next).length;
      if (size > vault.settings.maxFileBytes) {
        throw new UsageError(`the memory would be ${size} bytes, over the ${vault.settings.maxFileBytes}-byte limit of a memory file (maxFileBytes): nothing written`);
      }
      if (next.includes('\0')) throw new UsageError('the text contains a NUL byte: nothing written');
      parseMemory(memory.path, next, vault.settings); // the new file must read back
      if (current && meta.scrub) {
        current.body = meta.scrub(current.body);
        current.hash = contentHash(current.body);
      }
      if (current) await writeRecord(vault, current);
      try {
        await vault.ports.files.write(memory.path, next, { expect: text });
      } catch (error) {
        if (error instanceof WriteConflictError) continue;
        throw error;
      }
      if (current?.body === body) return { id, path: memory.path, version: currentNumber, changed: true };
      const seq = (current?.seq ?? lastSeq(entries)) + 1;
      await writeRecord(vault, { format: 1, id, seq, at: formatTimestamp(vault.now()), hash, reason: meta.reason, by: meta.by ?? null, body });
      return { id, path: memory.path, version: currentNumber + 1, changed: true };
    }
    throw new WriteConflictError(id);
  });
}

/**
 * A body's text and its link block: the trailing lines made only of typed links
 * (`[[Name|related]] [[mem-…|supersedes]]`) that Engram writes after the text.
 */
export function splitLinkBlock(body: string): { text: string; links: string } {
  const lines = body.replace(/\s+$/, '').split('\n');
  let cut = lines.length;
  while (cut > 0) {
    const line = lines[cut - 1]!.trim();
    if (line === '' || /^(?:\[\[[^\]|\n]+\|(?:related|decays_from|supersedes|contradicts)\]\]\s*)+$/.test(line)) cut--;
    else break;
  }
  const links = lines.slice(cut).map((l) => l.trim()).filter((l) => l !== '').join(' ');
  return { text: lines.slice(0, cut).join('\n'), links };
}

/** A new body: `text`, and the link block of `body` kept after it (the format new memories are written in). */
export function replaceText(body: string, text: string): string {
  const { links } = splitLinkBlock(body);
  const clean = text.replace(/\r\n/g, '\n').trim();
  return links ? `${clean}\n\n${links}\n` : `${clean}\n`;
}

/** `edit`: the memory says `text` now; its links are kept; the old text stays in the history. */
export async function editText(vault: Vault, id: string, text: string, meta: ChangeMeta = { reason: 'edit' }): Promise<ChangeResult> {
  if (text.trim() === '') throw new UsageError('edit: the new text is empty (to remove a memory, use forget)');
  const limit = vault.settings.maxFileBytes - FRONTMATTER_ALLOWANCE;
  const bytes = new TextEncoder().encode(text.trim()).length;
  if (bytes > limit) throw new UsageError(`text: ${bytes} bytes, over the ${limit}-byte limit for a memory's text (a memory file holds at most ${vault.settings.maxFileBytes} bytes)`);
  return changeBody(vault, id, (memory) => replaceText(memory.body, text), meta);
}

export interface RevertResult extends ChangeResult {
  reverted_to: number;
  /** Links of the old version to memories that no longer exist: left out. */
  dropped_links: string[];
}

/**
 * `revert`: the body of version `n` becomes the current one, as a new version (the history
 * only grows). Its bytes come back exactly, except links to memories that no longer exist
 * (purged since), which are left out and listed.
 */
export async function revertTo(vault: Vault, id: string, n: number, meta: Partial<ChangeMeta> = {}): Promise<RevertResult> {
  const history = await memoryHistory(vault, id);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`revert: N must be a version number (1, 2, ...), got ${n}`);
  // a version that does not exist is missing, not a usage error (exit 1, as for a missing memory)
  const target = versionOf(history, id, n, 'revert');
  const dropped: string[] = [];
  for (const m of target.body.matchAll(/\[\[(mem-[a-z0-9]{12})(?:\|[^\]\n]*)?\]\]/g)) {
    const other = m[1]!;
    if (other !== id && !dropped.includes(other) && !(await vault.locate(other))) dropped.push(other);
  }
  const body = dropped.length > 0 ? removeLinks(target.body, new Set(dropped)) : target.body;
  const result = await changeBody(vault, id, () => body, { reason: meta.reason ?? `revert to ${n}`, by: meta.by ?? null });
  return { ...result, reverted_to: n, dropped_links: dropped };
}

/** Marks a removed link while a line is rebuilt. */
const GONE = '\u0000';

/**
 * A body without its wikilinks to `ids` (`[[mem-…]]`) or to the notes named `names` (file names
 * without `.md`, compared as file-names.ts' nameKey, the way Obsidian resolves a link by name,
 * ADR 0005): a typed link or a bare link goes, a link with a label of its own
 * (`[[id|the retry decision]]`) leaves its label; a link line left empty goes.
 */
export function removeLinks(body: string, ids: Set<string>, names: Set<string> = new Set()): string {
  const lines: string[] = [];
  const linked = (target: string) => ids.has(noteName(target.trim())) || names.has(nameKey(noteName(target.trim())));
  for (const line of body.split('\n')) {
    let changed = false;
    const marked = line.replace(/\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g, (link, target: string, label: string | undefined) => {
      if (!linked(target)) return link;
      changed = true;
      const kind = (label ?? '').trim();
      return kind === '' || /^(related|decays_from|supersedes|contradicts)$/.test(kind) ? GONE : kind;
    });
    if (!changed) {
      lines.push(line);
      continue;
    }
    const next = marked.split(` ${GONE}`).join('').split(`${GONE} `).join('').split(GONE).join('');
    if (next.trim() !== '') lines.push(next);
  }
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '\n');
}

/** Remove every recorded version of a memory (`forget --purge`). Returns how many were removed. */
export async function deleteHistory(vault: Vault, id: string): Promise<number> {
  const folder = folderOf(id);
  const names = await vault.ports.files.list(folder);
  for (const name of names) await vault.ports.files.remove(`${folder}/${name}`);
  return names.filter((n) => n.endsWith('.json')).length;
}
