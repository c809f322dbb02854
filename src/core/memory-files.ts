import { splitFrontmatter } from './frontmatter';
import { isMemoryId } from './ids';
import { ARCHIVE_FOLDER, CATEGORY_FOLDERS } from './memory';
import type { FileStat, FileStore, FolderScan } from './ports';
import type { ListedFile } from './recall/snapshot';
import type { Category } from './settings';
import { sortInSlices } from './slicer';

/**
 * Where memories are, now that a file's name belongs to the person (ADR 0005): a memory is any
 * note under a memory folder (episodic/, semantic/, decisions/, archive/, at any depth; dot
 * folders skipped) whose frontmatter holds an Engram id. Its identity is that id, never its
 * file name or folder, so a person may rename and move it freely (in Obsidian, a file manager,
 * git, a sync tool) and Engram still finds it.
 */

/** The folders holding memory files, searched in this order. */
export const MEMORY_ROOTS: string[] = [...Object.values(CATEGORY_FOLDERS), ARCHIVE_FOLDER];

/** Deeper than this is a link loop or a mistake, not a person's filing. */
const MAX_DEPTH = 16;

/** The sub-folders of a folder worth walking: not hidden (`.trash`, `.git`), not named like a note. */
async function subFolders(files: FileStore, dir: string): Promise<string[]> {
  if (!files.folders) return [];
  return (await files.folders(dir)).filter((name) => !name.startsWith('.') && !name.endsWith('.md')).sort();
}

/**
 * `roots` and every folder under them that a walk of the memory folders visits (subFolders, at
 * most MAX_DEPTH deep; a folder that cannot be listed is given without any), roots in their
 * order, each before its sub-folders by name. `known`:
 * folders listed already (a load's scan, by path), whose sub-folders are taken from it: a root
 * found there is not listed again.
 */
export async function foldersUnder(files: FileStore, roots: readonly string[], known?: ReadonlyMap<string, unknown>): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    out.push(dir);
    // a folder that cannot be listed (gone, unreadable) has no sub-folders to offer: the rest goes on
    if (depth < MAX_DEPTH) for (const sub of await subFolders(files, dir).catch(() => [])) await walk(`${dir}/${sub}`, depth + 1);
  };
  for (const root of roots) {
    if (known?.has(root)) out.push(...[...known.keys()].filter((dir) => dir === root || dir.startsWith(`${root}/`)).sort(compareMemoryPaths));
    else await walk(root, 0);
  }
  return out;
}

/**
 * Every entry under the memory folders that could be a note (`.md`: files, and whatever else
 * carries that name so readers report it), as vault-relative paths: each folder's own entries
 * sorted by name, then its sub-folders, in `roots` order.
 */
export async function listMemoryPaths(files: FileStore, roots: string[] = MEMORY_ROOTS): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const name of (await files.list(dir)).sort()) if (name.endsWith('.md')) out.push(`${dir}/${name}`);
    if (depth < MAX_DEPTH) for (const sub of await subFolders(files, dir)) await walk(`${dir}/${sub}`, depth + 1);
  };
  for (const root of roots) await walk(root, 0);
  return out;
}

const isNote = (s: { name: string }) => s.name.endsWith('.md');
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The regular `.md` files under the memory folders with their size and mtime, in listMemoryPaths'
 * order. `pause`: each folder's names sorted in slices (slicer.ts), and a pause after each file,
 * for a process that answers requests meanwhile (sorting 100,000 names at once takes ~100 ms).
 */
export async function listMemoryStats(files: FileStore, roots: string[] = MEMORY_ROOTS, pause?: () => Promise<void>): Promise<ListedFile[]> {
  const out: ListedFile[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await files.listStats(dir);
    // in slices, the folder's other files are left out in the loop below, not by a filter of
    // 100,000 entries in one step (sorted first: a stable sort gives them in the same order)
    const listed = pause ? await sortInSlices(entries, byName, pause) : entries.filter(isNote).sort(byName);
    for (const s of listed) {
      if (!isNote(s)) continue;
      out.push([`${dir}/${s.name}`, s.size, s.mtimeMs]);
      await pause?.();
    }
    if (depth < MAX_DEPTH) for (const sub of await subFolders(files, dir)) await walk(`${dir}/${sub}`, depth + 1);
  };
  for (const root of roots) await walk(root, 0);
  return out;
}

/** listMemoryStats' listing, and how many entries listMemoryPaths gives (readable or not). */
export interface MemoryScan {
  files: ListedFile[];
  entries: number;
  /** The entries listMemoryPaths gives that are not among `files` (not regular files), as paths. */
  others: string[];
  /** With `hidden`: each folder's names that start with '.' (temp files among them: FileStore.sweepTemp's), as listed, for every folder walked (sub-folders too). */
  hidden?: Map<string, string[]>;
}

/**
 * listMemoryStats and the length of listMemoryPaths from one walk: with a store's `scan`, one
 * read of each folder (a cold recall and context list the vault once, where they listed it
 * twice, reading each folder four times); without one, from listStats, folders and list.
 * `stat: false`: files the store knows regular by their folder entry may come with size and
 * mtime -1, for a load that reads every file (loadCatalog fills them in from its reads).
 * `hidden`: each folder's names that start with '.' too (every folder walked, at any depth), for
 * a sweep of its temp files.
 */
export async function scanMemoryFiles(files: FileStore, roots: string[] = MEMORY_ROOTS, options: { stat?: boolean; hidden?: boolean } = {}): Promise<MemoryScan> {
  const out: ListedFile[] = [];
  const others: string[] = [];
  const hidden = options.hidden ? new Map<string, string[]>() : undefined;
  let entries = 0;
  const look = async (dir: string): Promise<FolderScan> => {
    if (files.scan) return options.stat === false ? files.scan(dir, { stat: false }) : files.scan(dir);
    const [stats, folders, names] = [await files.listStats(dir), files.folders ? await files.folders(dir) : [], await files.list(dir)];
    const regular = new Set(stats.map((s) => s.name));
    return { files: stats, folders, others: names.filter((name) => !regular.has(name)) };
  };
  const walk = async (dir: string, depth: number): Promise<void> => {
    const scan = await look(dir);
    // by filter, not a loop: run once, before it is optimised, a loop over the 10,000 entries of a
    // first consolidation's episodic/ cost ~1.7-3 ms of CPU, the filter ~0.3-0.9 ms more than none
    if (hidden) hidden.set(dir, [...scan.files.filter((s) => s.name.charCodeAt(0) === 0x2e).map((s) => s.name), ...scan.others.filter((name) => name.charCodeAt(0) === 0x2e)]);
    const listed = scan.files.filter((s) => s.name.endsWith('.md')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const s of listed) out.push([`${dir}/${s.name}`, s.size, s.mtimeMs]);
    const rest = scan.others.filter((name) => name.endsWith('.md'));
    for (const name of rest) others.push(`${dir}/${name}`);
    entries += listed.length + rest.length;
    if (depth < MAX_DEPTH) for (const sub of scan.folders.filter((name) => !name.startsWith('.') && !name.endsWith('.md')).sort()) await walk(`${dir}/${sub}`, depth + 1);
  };
  for (const root of roots) await walk(root, 0);
  return { files: out, entries, others, ...(hidden ? { hidden } : {}) };
}

/**
 * The order listMemoryPaths lists in: by memory folder (MEMORY_ROOTS' order), then inside a
 * folder its own files by name before its sub-folders by name.
 */
export function compareMemoryPaths(a: string, b: string): number {
  const [pa, pb] = [a.split('/'), b.split('/')];
  const rank = (root: string) => (MEMORY_ROOTS.includes(root) ? MEMORY_ROOTS.indexOf(root) : MEMORY_ROOTS.length);
  if (pa[0] !== pb[0]) return rank(pa[0]!) - rank(pb[0]!) || (pa[0]! < pb[0]! ? -1 : 1);
  for (let i = 1; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] === pb[i]) continue;
    const [fileA, fileB] = [i === pa.length - 1, i === pb.length - 1];
    if (fileA !== fileB) return fileA ? -1 : 1;
    return pa[i]! < pb[i]! ? -1 : 1;
  }
  return pa.length - pb.length;
}

const ID_LINE = /^id:[ \t]*(["']?)(mem-[a-z0-9]{12})\1[ \t]*(?:#.*)?$/m;

/** A flow-mapping frontmatter (`{id: mem-…, category: …}`, one mapping): its top-level `id` entry. */
const FLOW_ID = /^\s*\{(?:[^{}[\]]*,)?\s*id:[ \t]*(["']?)(mem-[a-z0-9]{12})\1\s*[,}]/;

/**
 * The Engram id a note's frontmatter holds (its top-level `id:` line), or null. Cheap: no YAML
 * parse, for finding a memory among thousands; the memory itself is parsed when it is read.
 */
export function frontmatterId(text: string): string | null {
  const split = splitFrontmatter(text);
  if (!split) return null;
  // a file name no longer says the id (ADR 0005): a one-line flow mapping a person wrote is still found by it
  let id = ID_LINE.exec(split.yaml)?.[2] ?? FLOW_ID.exec(split.yaml)?.[2];
  if (!id) {
    // a top-level mapping indented as a whole: its id line has the indentation of its first key
    const indent = /^(?:[ \t]*(?:#.*)?\r?\n)*( +)[^\s#]/.exec(split.yaml)?.[1];
    if (indent) id = new RegExp(`^${indent}id:[ \\t]*(["']?)(mem-[a-z0-9]{12})\\1[ \\t]*(?:#.*)?$`, 'm').exec(split.yaml)?.[2];
  }
  return id && isMemoryId(id) ? id : null;
}

/** What copying adds to a name: `NAME 1` (Obsidian, iCloud), `NAME (1)`, `NAME copy` (Finder), `NAME - Copy` (Windows). */
const COPY_SUFFIX = /(?: \d+| \(\d+\)| copy(?: \d+)?| - Copy(?: \(\d+\))?)$/i;

/**
 * A name sync tools and copies give a second file of the same note: a sync conflict copy's name
 * always; `NAME 2.md`, `NAME copy.md` only beside `NAME.md` among `names` (the other files of the
 * id), since a readable name may end in a number of its own (`Upgrade to Node 20.md`).
 */
export function looksLikeCopy(name: string, names: Set<string> = new Set()): boolean {
  if (/\.sync-conflict-\d{8}-\d{6}/.test(name) || /\(conflicted copy/i.test(name)) return true;
  const base = name.replace(/\.md$/, '');
  const original = base.replace(COPY_SUFFIX, '');
  return original !== base && names.has(`${original}.md`);
}

/**
 * Of several files holding one id, the one that is the memory: outside archive/ before inside,
 * a name that is not a copy's (a sync conflict copy, `NAME 1.md` beside `NAME.md`) before one
 * that is, then the shallower path, then the shorter (`NAME.md` before `NAME copy.md`), then the
 * first by name. Everyone who needs "the" file of an id (locate, the loader, the merge of
 * copies) uses this rule, so they agree.
 */
export function preferredPath(paths: string[]): string {
  // one file (nearly every id): the sort below would pick it after ranking it
  if (paths.length === 1) return paths[0]!;
  const names = new Set(paths.map((p) => p.slice(p.lastIndexOf('/') + 1)));
  const rank = (path: string): number[] => [
    isArchivePath(path) ? 1 : 0,
    looksLikeCopy(path.slice(path.lastIndexOf('/') + 1), names) ? 1 : 0,
    path.split('/').length,
    path.length,
  ];
  return [...paths].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    return a < b ? -1 : a > b ? 1 : 0;
  })[0]!;
}

export function isArchivePath(path: string): boolean {
  return path.startsWith(`${ARCHIVE_FOLDER}/`);
}

/**
 * Where a memory goes when archived: the same name and sub-folder under archive/
 * (`episodic/ops/Staging DB reset.md` -> `archive/ops/Staging DB reset.md`).
 */
export function archivedPath(path: string): string {
  if (isArchivePath(path)) return path;
  const slash = path.indexOf('/');
  return `${ARCHIVE_FOLDER}/${path.slice(slash + 1)}`;
}

/** Where an archived memory goes back to: its category's folder, with its name and sub-folder. */
export function revivedPath(path: string, category: Category): string {
  const rest = isArchivePath(path) ? path.slice(ARCHIVE_FOLDER.length + 1) : path.slice(path.indexOf('/') + 1);
  return `${CATEGORY_FOLDERS[category]}/${rest}`;
}

/** `path`, or the first of `NAME 2.md`, `NAME 3.md`, ... that `taken` says is free. */
export async function freePath(path: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  if (!(await taken(path))) return path;
  for (let n = 2; ; n++) {
    const candidate = path.replace(/\.md$/, ` ${n}.md`);
    if (!(await taken(candidate))) return candidate;
  }
}

type Row = [size: number, mtimeMs: number, id: string | null];

interface IdCacheFile {
  format: number;
  rows: Array<[path: string, size: number, mtimeMs: number, id: string | null]>;
}

export const ID_INDEX_PATH = '.engram/cache/ids.json';
const ID_INDEX_FORMAT = 1;

/**
 * ids.json ends with a table of its rows by id, for a reader that wants the rows of one id (a
 * cold touch) without reading the file (1.1 MB at 10,000 memories: ~6 ms of system time to copy
 * into fresh pages, and a search of every byte): `"byId":"` then one entry a row that holds an
 * id, sorted by id and then by place, then the count in ten digits, then `"}`. An entry is the
 * id's 12 characters after `mem-`, the row's byte offset in the file (8 hex digits) and its
 * length in bytes (4 hex digits). A reader opens the file once (FileStore.openRanges), reads the
 * count at its end, finds the id's entries by binary search and reads their rows: ~20 positioned
 * reads of a few bytes. The file stays what older readers read: the same `format` and `rows`,
 * the table a string beside them (JSON.parse keeps it, and no `,"mem-…"]` can occur in it).
 */
const TABLE_KEY = ',"byId":"';
const ENTRY_BYTES = 24;
const COUNT_DIGITS = 10;
/** The table's end: the count and `"}`. */
const TABLE_END_BYTES = COUNT_DIGITS + 2;
const ENTRY = /^[a-z0-9]{12}[0-9a-f]{12}$/;
const NON_ASCII = /[^\0-\x7f]/;

/** The UTF-8 length of a JSON text (JSON.stringify writes a lone surrogate as an escape, so every surrogate here is half of a pair). */
function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0xdc00 && c < 0xe000 ? 0 : 3;
  }
  return bytes;
}

/**
 * ids.json's text: JSON.stringify of the rows, then the table of them by id (TABLE_KEY). A row
 * too long for its entry's 4 hex digits (a path of more than ~10,000 characters escaped), or a
 * file past 4 GB, leaves the table out: readers then read the whole file, as before the table.
 */
export function idCacheText(rows: Map<string, Row>): string {
  const head = `{"format":${ID_INDEX_FORMAT},"rows":[`;
  const parts: string[] = [];
  const entries: Array<{ id: string; at: number; length: number }> = [];
  let at = head.length;
  let fits = true;
  // every id `mem-` and 12 characters (what frontmatterId gives): see below
  let plain = true;
  for (const [path, [size, mtimeMs, id]] of rows) {
    const row = JSON.stringify([path, size, mtimeMs, id]);
    const length = utf8Length(row);
    if (id !== null) {
      entries.push({ id, at, length });
      if (id.length !== 16 || !id.startsWith('mem-')) plain = false;
    }
    if (length > 0xffff) fits = false;
    parts.push(row);
    at += length + 1;
  }
  const json = `${head}${parts.join(',')}]`;
  if (!fits || at > 0xffffffff) return `${json}}`;
  const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
  const entry = (e: { id: string; at: number; length: number }) => `${e.id.slice(4)}${hex(e.at, 8)}${hex(e.length, 4)}`;
  // Each entry is the id's 12 characters after `mem-`, then the offset in 8 hex digits: as strings
  // they sort by id, then by offset, without a comparator called from the sort (~130,000 calls
  // at 10k: 16 of this function's 47 ms in a first consolidation's profile). Other ids: by id.
  const table = plain ? entries.map(entry).sort() : entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.at - b.at)).map(entry);
  return `${json}${TABLE_KEY}${table.join('')}${String(entries.length).padStart(COUNT_DIGITS, '0')}"}`;
}

/**
 * The rows of ids.json that hold `id`, in the file's order, from its table (idCacheText) by
 * positioned reads; undefined when the store cannot read parts of a file, there is no file, or
 * it has no table or one that does not check out (each entry's form, each row it points to
 * holding the id): the caller then reads the whole file.
 */
export async function rowsFromTable(files: FileStore, id: string): Promise<Map<string, Row> | undefined> {
  if (!files.openRanges || !isMemoryId(id)) return undefined;
  const reader = await files.openRanges(ID_INDEX_PATH).catch(() => null);
  if (!reader) return undefined;
  const decoder = new TextDecoder();
  const text = async (at: number, length: number): Promise<string> => decoder.decode(await reader.read(at, length));
  try {
    const end = await text(reader.size - TABLE_END_BYTES, TABLE_END_BYTES);
    if (!/^\d{10}"}$/.test(end)) return undefined;
    const count = Number(end.slice(0, COUNT_DIGITS));
    const start = reader.size - TABLE_END_BYTES - count * ENTRY_BYTES;
    if (start < TABLE_KEY.length || (await text(start - TABLE_KEY.length, TABLE_KEY.length)) !== TABLE_KEY) return undefined;
    const entry = async (i: number): Promise<string | undefined> => {
      const e = await text(start + i * ENTRY_BYTES, ENTRY_BYTES);
      return ENTRY.test(e) ? e : undefined;
    };
    // the first entry whose id is not below the one sought
    const key = id.slice(4);
    let [lo, hi] = [0, count];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = await entry(mid);
      if (e === undefined) return undefined;
      if (e.slice(0, 12) < key) lo = mid + 1;
      else hi = mid;
    }
    const rows = new Map<string, Row>();
    for (let i = lo; i < count; i++) {
      const e = await entry(i);
      if (e === undefined) return undefined;
      if (e.slice(0, 12) !== key) break;
      const row = JSON.parse(await text(parseInt(e.slice(12, 20), 16), parseInt(e.slice(20), 16))) as unknown;
      if (!Array.isArray(row) || row.length !== 4 || typeof row[0] !== 'string' || typeof row[1] !== 'number' || typeof row[2] !== 'number' || row[3] !== id) return undefined;
      rows.set(row[0], [row[1], row[2], id]);
    }
    return rows;
  } catch {
    return undefined;
  } finally {
    await reader.close().catch(() => undefined);
  }
}

/**
 * Which file holds which id: the frontmatter id of every memory file, kept in
 * `.engram/cache/ids.json` and refreshed by listing (size and mtime): only files that changed
 * are read again. Machine data: deleting it costs one read of every memory file.
 */
/**
 * Where `needle` first occurs in `bytes` at or after `from`, or -1 (Horspool: a mismatch skips
 * by how far the window's last byte is from the needle's end). The first byte of a row's tail
 * (a comma) occurs thousands of times in ids.json, so a loop that stops at each (or a call of
 * Buffer's `indexOf` for each) compared most of the file's bytes: 8 % of a cold touch at 10k.
 * A row's tail (`,"mem-…"]`, 20 bytes) skips ~20 bytes a step.
 */
export function indexOfBytes(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  const n = needle.length;
  if (n === 0) return from <= bytes.length ? from : -1;
  // Node's Buffer (the runner's reads) searches a byte sequence in native code: 3x less CPU
  // than this loop in a cold process (6 look-ups in a 1.1 MB ids.json: ~9 ms against ~28), where
  // the loop runs mostly unoptimised; a plain Uint8Array's indexOf finds one byte only
  if (typeof (bytes as { readUInt8?: unknown }).readUInt8 === 'function') return (bytes as unknown as { indexOf(value: Uint8Array, byteOffset: number): number }).indexOf(needle, from);
  const skip = new Uint32Array(256).fill(n);
  for (let k = 0; k < n - 1; k++) skip[needle[k]!] = n - 1 - k;
  const lastByte = needle[n - 1]!;
  for (let at = from; at + n <= bytes.length; at += skip[bytes[at + n - 1]!]!) {
    if (bytes[at + n - 1] !== lastByte) continue;
    let k = 0;
    while (k < n - 1 && bytes[at + k] === needle[k]) k++;
    if (k === n - 1) return at;
  }
  return -1;
}

export class IdIndex {
  private rows: Map<string, Row> | null = null;
  private byId = new Map<string, string[]>();
  /** Rows changed by moved() since ids.json was written, and whether byId must be rebuilt from them. */
  private unsaved = false;
  private byIdStale = false;
  /** ids.json's bytes as read for findInCacheText (null: none), until the rows are parsed. */
  private cacheBytes: Uint8Array | null | undefined = undefined;
  /** Rows learn() was told before the rows were loaded. */
  private learned: Map<string, Row> | null = null;
  /**
   * The rows findInCacheText found for each id, kept for the next look-up of the id (a touch
   * locates each memory twice: to read it, then under its lock to write it), with the size and
   * mtime a read of the file confirmed since, as find() keeps them in the loaded rows.
   */
  private idRows = new Map<string, Map<string, Row>>();

  constructor(private readonly files: FileStore) {}

  /** The files that held `id` at the last refresh, the preferred first. */
  private candidates(id: string): string[] {
    if (this.byIdStale) this.setRows(this.rows!);
    const paths = this.byId.get(id) ?? [];
    return paths.length > 1 ? [preferredPath(paths), ...paths.filter((p) => p !== preferredPath(paths))] : paths;
  }

  /**
   * The path of the file holding `id`. First the last known paths, trusted while the file has
   * the size and mtime it had when its id was read; otherwise the memory folders are listed
   * and the files that changed read again.
   */
  async find(id: string): Promise<string | null> {
    if (!this.rows) {
      // a command that looks up a few ids reads only their rows: parsing every row and
      // indexing them was most of what a cold touch spent finding its file
      const found = await this.findInCacheText(id);
      if (found !== undefined) return found;
      await this.loadCache();
    }
    for (const path of this.candidates(id)) {
      const row = this.rows!.get(path);
      const stat = await this.files.stat(path).catch(() => null);
      if (!row || !stat) continue;
      if (stat.size === row[0] && stat.mtimeMs === row[1]) return path;
      // written since (a touch, an edit): one read tells whether it still holds the id
      const bytes = await this.files.read(path).catch(() => null);
      const now = bytes ? frontmatterId(new TextDecoder().decode(bytes)) : null;
      if (now === id) {
        this.rows!.set(path, [stat.size, stat.mtimeMs, id]);
        return path;
      }
      // no id readable now (a save in progress, emptied then written): still this memory's file;
      // the caller's stable read waits for the save and checks the id again
      if (now === null) return path;
    }
    await this.refresh();
    const found = this.candidates(id)[0];
    if (found) return found;
    // a file named by the id whose id cannot be read now (a save in progress emptied it): the
    // caller's stable read waits for the save and checks the id
    for (const root of MEMORY_ROOTS) if (await this.files.stat(`${root}/${id}.md`).catch(() => null)) return `${root}/${id}.md`;
    return null;
  }

  /**
   * find() before the cache is parsed: the rows of ids.json that hold `id` (each row ends with
   * `,"ID"]`, which no escaped path can contain, and starts at the `["` before it), and the
   * first of them (the preferred first) that find() would return without a refresh: its file
   * has the size and mtime of its row, or was written since and still holds the id (or none
   * readable yet). undefined when this cannot answer alone (no cache, no row, every file gone
   * or holding another id): find() then does what it always did.
   */
  private async findInCacheText(id: string): Promise<string | null | undefined> {
    if (!isMemoryId(id)) return undefined;
    // the id's rows from the table at the end of ids.json, when the store reads parts of files;
    // otherwise (or with no table: an older build wrote it) searched in the whole text
    let rows = this.idRows.get(id);
    if (!rows) {
      rows = (this.cacheBytes === undefined ? await rowsFromTable(this.files, id) : undefined) ?? (await this.rowsInText(id));
      if (!rows) return undefined;
      this.idRows.set(id, rows);
    }
    const paths = [...rows.keys()];
    if (paths.length === 0) return undefined;
    // the candidates in find()'s order, each judged as find() judges it
    const preferred = paths.length > 1 ? preferredPath(paths) : paths[0]!;
    for (const path of [preferred, ...paths.filter((p) => p !== preferred)]) {
      const row = rows.get(path)!;
      const stat = await this.files.stat(path).catch(() => null);
      if (!stat) continue;
      if (stat.size === row[0] && stat.mtimeMs === row[1]) return path;
      // written since (a touch, a spread: ids.json is written by refreshes only): one read
      // tells whether it still holds the id, as in find(); parsing every row for this was
      // most of a cold touch whose neighbours had been touched before
      const bytes = await this.files.read(path).catch(() => null);
      const now = bytes ? frontmatterId(new TextDecoder().decode(bytes)) : null;
      if (now === id) {
        rows.set(path, [stat.size, stat.mtimeMs, id]);
        return path;
      }
      if (now === null) return path;
    }
    return undefined;
  }

  /** The rows of ids.json that hold `id`, found in its whole text (read once for several ids); undefined when there is none to search. */
  private async rowsInText(id: string): Promise<Map<string, Row> | undefined> {
    if (this.cacheBytes === undefined) this.cacheBytes = await this.files.read(ID_INDEX_PATH).catch(() => null);
    // searched as bytes, only the rows found decoded: decoding the whole file (a MB at 10k
    // memories) cost a cold touch more than finding its rows (ids and the row's brackets are
    // ASCII, and no byte of a multi-byte UTF-8 character is)
    const bytes = this.cacheBytes;
    const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
    if (bytes === null || indexOfBytes(bytes, ascii(`{"format":${ID_INDEX_FORMAT},"rows":[`), 0) !== 0) return undefined;
    const rows = new Map<string, Row>();
    const tail = ascii(`,"${id}"]`);
    const decoder = new TextDecoder();
    try {
      for (let at = indexOfBytes(bytes, tail, 0); at >= 0; at = indexOfBytes(bytes, tail, at + 1)) {
        let start = at - 1; // the row's `["`
        while (start >= 0 && (bytes[start] !== 0x5b || bytes[start + 1] !== 0x22)) start--;
        if (start < 0) return undefined;
        const [path, size, mtimeMs] = JSON.parse(decoder.decode(bytes.subarray(start, at + tail.length))) as [string, number, number, string];
        rows.set(path, [size, mtimeMs, id]);
      }
    } catch {
      return undefined;
    }
    return rows;
  }

  /**
   * A move Engram made: the file at `from` is now at `to` (a link and an unlink: the same file,
   * its size and mtime kept). Its row follows it when the moved file still has the row's size
   * and mtime, as refresh would trust it, so no refresh reads it again to learn the id it holds:
   * consolidation's first run moves thousands of memories to archive/, and re-reading each was
   * 18 % of its profile. The rows are written by saveMoves() (or the next refresh).
   */
  async moved(from: string, to: string, known?: FileStat): Promise<void> {
    if (!this.rows) await this.loadCache();
    const row = this.rows!.get(from);
    if (!row) return;
    // `known`: the size and mtime the caller saw the file have under its lock just before the move
    const stat = known ?? (await this.files.stat(to).catch(() => null));
    if (!stat || stat.size !== row[0] || stat.mtimeMs !== row[1]) return;
    this.rows!.delete(from);
    this.rows!.set(to, row);
    this.unsaved = true;
    this.byIdStale = true;
  }

  /**
   * A reader read the file at `path` whole, with this size and mtime, and found `id` in it (or
   * none): the row a refresh would make from reading it, so the refresh need not. Consolidation
   * reads every memory to plan, then looked up ids that made the index read them all again (the
   * first run of a vault without ids.json). Applied when the rows are loaded.
   */
  learn(path: string, size: number, mtimeMs: number, id: string | null): void {
    if (this.rows) this.applyLearned(path, [size, mtimeMs, id]);
    else (this.learned ??= new Map()).set(path, [size, mtimeMs, id]);
  }

  /** refresh()'s rule for one listed file: a row with the same size and mtime stands; otherwise the id read (or, none readable, the one it had). */
  private applyLearned(path: string, [size, mtimeMs, id]: Row): void {
    const row = this.rows!.get(path);
    if (row && row[0] === size && row[1] === mtimeMs) return;
    const now = id ?? row?.[2] ?? null;
    this.rows!.set(path, [size, mtimeMs, now]);
    this.unsaved = true;
    // a new file goes last in its id's paths, as setRows would put it (its row is the last);
    // the same id: nothing to change. Rebuilding byId (100k rows) after each pattern a
    // consolidation writes cost it 6 s at 100k
    if (this.byIdStale || (row && row[2] === now)) return;
    if (row) this.byIdStale = true;
    else if (now) this.byId.set(now, [...(this.byId.get(now) ?? []), path]);
  }

  /**
   * A reader listed the memory folders and read every file whole (`listed`: each path in
   * listMemoryPaths' order with the size, mtime and id read): the rows a refresh would make
   * from that listing (a row with the same size and mtime stands; otherwise the id read, or,
   * none, the one it had). Returns every id with the files holding it, as all() would, without
   * listing the folders again. The rows are written by the caller's saveMoves() (consolidation,
   * the one reader that adopts, ends its moves and its run with it) or the next refresh: a first
   * consolidation wrote ids.json here and again after its moves (7.6 MB each at 100k).
   */
  async adopt(listed: Array<[path: string, size: number, mtimeMs: number, id: string | null]>): Promise<Map<string, string[]>> {
    if (!this.rows) await this.loadCache();
    const previous = this.rows!;
    const next = new Map<string, Row>();
    let changed = false;
    for (const [path, size, mtimeMs, id] of listed) {
      const row = previous.get(path);
      if (row && row[0] === size && row[1] === mtimeMs) next.set(path, row);
      else {
        changed = true;
        next.set(path, [size, mtimeMs, id ?? row?.[2] ?? null]);
      }
    }
    if (next.size !== previous.size) changed = true;
    this.setRows(next);
    if (changed) this.unsaved = true;
    return new Map(this.byId);
  }

  /** Write the rows moved() or adopt() changed, if any. */
  async saveMoves(): Promise<void> {
    if (this.unsaved) await this.saveCache();
  }

  /** Every id with the files holding it, fresh from the disk. */
  async all(): Promise<Map<string, string[]>> {
    await this.refresh();
    return new Map(this.byId);
  }

  async refresh(): Promise<void> {
    if (!this.rows) await this.loadCache();
    const previous = this.rows!;
    const next = new Map<string, Row>();
    let changed = false;
    for (const [path, size, mtimeMs] of await listMemoryStats(this.files)) {
      const row = previous.get(path);
      if (row && row[0] === size && row[1] === mtimeMs) {
        next.set(path, row);
        continue;
      }
      changed = true;
      const bytes = await this.files.read(path).catch(() => null);
      // a file caught mid-save (no id readable yet) keeps the id it had
      next.set(path, [size, mtimeMs, (bytes ? frontmatterId(new TextDecoder().decode(bytes)) : null) ?? row?.[2] ?? null]);
    }
    if (next.size !== previous.size) changed = true;
    this.setRows(next);
    if (changed || this.unsaved) await this.saveCache();
  }

  /** How many times byId was rebuilt from the rows (the tests' measure of the work). */
  byIdBuilds = 0;

  private setRows(rows: Map<string, Row>): void {
    this.byIdBuilds++;
    this.rows = rows;
    this.byIdStale = false;
    this.byId = new Map();
    // each id's paths in the rows' order; an array made here is filled here only (applyLearned
    // makes a new one), so one given out before is never changed
    for (const [path, [, , id]] of rows) {
      if (!id) continue;
      const paths = this.byId.get(id);
      if (paths) paths.push(path);
      else this.byId.set(id, [path]);
    }
  }

  private async loadCache(): Promise<void> {
    const rows = new Map<string, Row>();
    try {
      // the bytes findInCacheText read, when it did
      const bytes = this.cacheBytes !== undefined ? this.cacheBytes : await this.files.read(ID_INDEX_PATH);
      this.cacheBytes = null;
      const text = bytes ? new TextDecoder().decode(bytes) : null;
      const cache = text ? (JSON.parse(text) as IdCacheFile) : null;
      if (cache?.format === ID_INDEX_FORMAT && Array.isArray(cache.rows)) {
        for (const [path, size, mtimeMs, id] of cache.rows) rows.set(path, [size, mtimeMs, id]);
      }
    } catch {
      // a damaged cache is rebuilt from the notes
    }
    this.setRows(rows);
    if (this.learned) for (const [path, row] of this.learned) this.applyLearned(path, row);
    this.learned = null;
  }

  private async saveCache(): Promise<void> {
    this.unsaved = false;
    const text = idCacheText(this.rows!);
    try {
      await this.files.mkdir('.engram/cache');
      await this.files.write(ID_INDEX_PATH, text);
    } catch {
      // an optimisation: a read-only vault still answers
    }
  }
}
