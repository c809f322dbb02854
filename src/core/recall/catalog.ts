import { analyze, startsNoDate } from '../analyzer';
import { contentHash } from '../ids';
import { MemoryParseError } from '../errors';
import { LINK_KINDS, type LinkKind, type MemoryLink } from '../links';
import { ARCHIVE_FOLDER, bodyText, decodeNote, parseMemory, type Memory } from '../memory';
import type { Category, Confidence, EngramSettings, Tier } from '../settings';
import { parseTimestamp } from '../time';
import { entityTerms } from './entities';
import { memoryTimeTerms, sharedTimeTerms } from './time-terms';
import { supersededBy } from '../supersession';
import { recallCount } from '../touch';
import { listMemoryStats } from '../memory-files';
import { signatureOf } from './engine-update';
import { MEMORY_FOLDERS, type Vault } from '../vault';
import { ShardedMap } from '../sharded-map';
import { writePieces } from '../memory-cache';
import type { ListedFile } from './snapshot';

/**
 * The memory catalog: what recall needs of every memory, kept in `.engram/cache/catalog.json`
 * and refreshed incrementally. Opening it lists the memory folders and stats each file;
 * only files whose size or mtime changed are read and parsed again, so a cold `engram
 * recall` does not re-parse the vault. Rows are compact arrays without the memory text
 * (results read their own files), which keeps the cache a third of the vault's size. The
 * cache is machine data: deleting it costs one full parse.
 */

/** A memory as recall sees it: times in ms, analysed terms, text loaded on demand. */
export interface RecallDoc {
  id: string;
  path: string;
  category: Category;
  confidence: Confidence;
  tier: Tier | null;
  archived: boolean;
  createdMs: number;
  accessMs: number;
  activationMs: number;
  access_count: number;
  is_error: boolean;
  half_life_days: number;
  activation: number;
  amplitude: number;
  agent_role: string | null;
  source: string | null;
  session: string | null;
  terms: string[];
  /**
   * Index terms that are not words: the days, months and years the memory is about
   * (time-terms.ts) and the entities it names (entities.ts). Absent: none.
   */
  facets?: string[];
  links: MemoryLink[];
  co_access: Record<string, number>;
  /** The memory that supersedes this one (frontmatter `superseded_by`, ADR 0004); absent or null: none. */
  superseded_by?: string | null;
  /** The body as an agent reads it; null until read (documents that came from the cache). */
  text: string | null;
  /**
   * contentHash of the text an embedder reads (memoryText): whether the stored vector is current
   * can be told without reading the file (re-embed reads only what changed). Absent: not known.
   */
  text_hash?: string;
  /** Tags, related paths and recalls (accesses less reinforcements), for results; undefined until read (the catalog does not keep them). */
  tags?: string[];
  related_paths?: string[];
  recall_count?: number;
}

export function toRecallDoc(memory: Memory, archived: boolean): RecallDoc {
  const text = bodyText(memory.body);
  const accessMs = parseTimestamp(memory.last_accessed_at)!;
  const createdMs = parseTimestamp(memory.created_at)!;
  return {
    id: memory.id,
    path: memory.path,
    category: memory.category,
    confidence: memory.confidence,
    tier: memory.tier,
    archived,
    createdMs,
    accessMs,
    activationMs: memory.activation_at ? parseTimestamp(memory.activation_at)! : accessMs,
    access_count: memory.access_count,
    is_error: memory.is_error,
    half_life_days: memory.half_life_days,
    activation: memory.activation,
    amplitude: memory.amplitude,
    agent_role: memory.agent_role,
    source: memory.source,
    session: memory.session,
    terms: analyze(`${text} ${memory.tags.join(' ')}`).terms,
    facets: [...memoryTimeTerms(text, createdMs), ...entityTerms(text)],
    links: memory.links,
    co_access: memory.co_access,
    superseded_by: supersededBy(memory),
    text,
    text_hash: contentHash(text),
    tags: memory.tags,
    related_paths: memory.related_paths,
    recall_count: recallCount(memory),
  };
}

/**
 * A string that holds no other: V8 keeps a slice of 13 characters or more (an id, a source, a
 * link's target read from a note, the first 16 digits of a hash) as a view that keeps the whole
 * text it was cut from alive, so 10,000 documents of a first load would keep their 10,000 file
 * texts; a copy keeps itself only (a view of a copy: joining two pieces into one flat string
 * kept less, but cost ~50 ms of a first recall's profile at 10k, against ~3). Exported for tests.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

const ownOrNull = (s: string | null): string | null => (s === null ? null : ownString(s));
/** A link with its own target and the kind as LINK_KINDS spells it (one string for every link of a kind). */
const ownLink = (link: MemoryLink): MemoryLink => ({ ...link, target: ownString(link.target), kind: LINK_KINDS[LINK_KINDS.indexOf(link.kind)] ?? link.kind });

/**
 * Each link as ownLink makes it, in an array filled by push: the same array `links.map(ownLink)`
 * gives, but of one elements kind however it runs. `map` inlined by the optimising compiler makes
 * its array with holes (HOLEY_ELEMENTS) where the unoptimised builtin makes a packed one: in a
 * first recall at 10k catalogDoc was optimised ~1,000 files in, and from there its documents' links
 * had a map that encode, tableRows and the reverse link steps had not met, each thrown away and
 * compiled again (encode 4 times). Exported for tests.
 */
export function ownLinks(links: readonly MemoryLink[]): MemoryLink[] {
  const out: MemoryLink[] = [];
  for (let i = 0; i < links.length; i++) out.push(ownLink(links[i]!));
  return out;
}

/** The co-access of each catalog document that has none (most): one object they share and never change. */
const NO_CO_ACCESS: Record<string, number> = {};

function hasKey(record: Record<string, number>): boolean {
  for (const key in record) if (Object.prototype.hasOwnProperty.call(record, key)) return true;
  return false;
}

/**
 * toRecallDoc as the catalog keeps it: the fields of its row, as decode gives them from the
 * cache (no text, tags, related paths or recall count: results read those from their files),
 * with strings that hold nothing of the note's text. A first load over 10,000 files kept each
 * file's text, body and tags alive until the end, all copied by every young-generation GC.
 */
export function catalogDoc(memory: Memory, archived: boolean): RecallDoc {
  const text = bodyText(memory.body);
  const createdMs = parseTimestamp(memory.created_at)!;
  // a new memory's three times are one string: read once
  const accessMs = memory.last_accessed_at === memory.created_at ? createdMs : parseTimestamp(memory.last_accessed_at)!;
  const activationMs = !memory.activation_at ? accessMs : memory.activation_at === memory.last_accessed_at ? accessMs : parseTimestamp(memory.activation_at)!;
  const links = memory.links.length === 0 ? memory.links : ownLinks(memory.links);
  // without tags, the text alone: its copy with a space after it gives no other word
  const analysis = analyze(memory.tags.length === 0 ? text : `${text} ${memory.tags.join(' ')}`);
  // the terms of its day, shared with the other documents of that day when it names no date
  // (told by the analysis' pass when it can)
  const times = sharedTimeTerms(text, createdMs, startsNoDate(analysis));
  const entities = entityTerms(text);
  return {
    id: ownString(memory.id),
    path: memory.path,
    category: memory.category,
    confidence: memory.confidence,
    tier: memory.tier,
    archived,
    createdMs,
    accessMs,
    activationMs,
    access_count: memory.access_count,
    is_error: memory.is_error,
    half_life_days: memory.half_life_days,
    activation: memory.activation,
    amplitude: memory.amplitude,
    agent_role: ownOrNull(memory.agent_role),
    source: ownOrNull(memory.source),
    session: ownOrNull(memory.session),
    terms: analysis.terms,
    // the documents of a day share its terms (facets are read, never changed, by what indexes them)
    facets: entities.length === 0 ? (times as string[]) : [...times, ...entities],
    links,
    co_access: hasKey(memory.co_access) ? memory.co_access : NO_CO_ACCESS,
    superseded_by: ownOrNull(supersededBy(memory)),
    text: null,
    text_hash: ownString(contentHash(text)),
  };
}

type Row = [
  path: string, size: number, mtimeMs: number, category: Category, confidence: Confidence, tier: Tier | null,
  createdMs: number, accessMs: number, activationMs: number, accessCount: number, isError: 0 | 1, halfLife: number,
  activation: number, amplitude: number, role: string | null, source: string | null, session: string | null,
  terms: string, links: string, coAccess: string, facets: string, id: string, supersededBy: string, textHash: string,
];
type ErrorRow = [path: string, size: number, mtimeMs: number, error: string];

/**
 * A row's links, `kind|target` each, with a space between: `links.map(...).join(' ')` by a loop.
 * Optimised, the inlined `map` makes an array with holes where the builtin made a packed one, and
 * the `join` after it, compiled for the packed ones, was thrown away at its first holey one
 * (encode was compiled 4 times in a first recall at 10k). Exported for tests.
 */
export function linksField(links: readonly MemoryLink[]): string {
  let out = '';
  for (let i = 0; i < links.length; i++) {
    const link = links[i]!;
    out += i === 0 ? `${link.kind}|${link.target}` : ` ${link.kind}|${link.target}`;
  }
  return out;
}

/** A row's co-access, `id:count` each in Object.entries' order, with a space between (linksField's reason). Exported for tests. */
export function coAccessField(coAccess: Record<string, number>): string {
  const entries = Object.entries(coAccess);
  let out = '';
  for (let i = 0; i < entries.length; i++) {
    const [id, n] = entries[i]!;
    out += i === 0 ? `${id}:${n}` : ` ${id}:${n}`;
  }
  return out;
}

function encode(doc: RecallDoc, size: number, mtimeMs: number): Row {
  return [
    doc.path, size, mtimeMs, doc.category, doc.confidence, doc.tier, doc.createdMs, doc.accessMs, doc.activationMs,
    doc.access_count, doc.is_error ? 1 : 0, doc.half_life_days, doc.activation, doc.amplitude, doc.agent_role, doc.source,
    doc.session, doc.terms.join(' '), linksField(doc.links), coAccessField(doc.co_access),
    (doc.facets ?? []).join(' '),
    doc.id,
    doc.superseded_by ?? '',
    doc.text_hash ?? '',
  ];
}

function decode(row: Row): RecallDoc {
  const path = row[0];
  const coAccess: Record<string, number> = {};
  if (row[19]) for (const pair of row[19].split(' ')) coAccess[pair.slice(0, pair.lastIndexOf(':'))] = Number(pair.slice(pair.lastIndexOf(':') + 1));
  return {
    id: row[21],
    path,
    category: row[3],
    confidence: row[4],
    tier: row[5],
    archived: path.startsWith(`${ARCHIVE_FOLDER}/`),
    createdMs: row[6],
    accessMs: row[7],
    activationMs: row[8],
    access_count: row[9],
    is_error: row[10] === 1,
    half_life_days: row[11],
    activation: row[12],
    amplitude: row[13],
    agent_role: row[14],
    source: row[15],
    session: row[16],
    terms: row[17] ? row[17].split(' ') : [],
    facets: row[20] ? row[20].split(' ') : [],
    links: row[18] ? row[18].split(' ').map((s) => ({ kind: s.slice(0, s.indexOf('|')) as LinkKind, target: s.slice(s.indexOf('|') + 1) })) : [],
    co_access: coAccess,
    superseded_by: row[22] ? row[22] : null,
    text: null,
    ...(row[23] ? { text_hash: row[23] } : {}),
  };
}

export interface CacheFile {
  format: number;
  fingerprint: string;
  rows: Array<Row | ErrorRow>;
}

export const CATALOG_PATH = '.engram/cache/catalog.json';
const FORMAT = 6;

export interface Catalog {
  docs: RecallDoc[];
  problems: MemoryParseError[];
  /** Files parsed in this load (the rest came from the cache). */
  parsed: number;
  /** Each document's indexSignature, in order, from its row's joined terms and facets. */
  signatures(): Float64Array;
}


/** What the catalog derives from a memory's text (terms, facets): a new version rebuilds the caches. */
const ANALYSIS_VERSION = 4;

/** What makes cached rows stale besides the files themselves. */
function fingerprint(settings: EngramSettings): string {
  return JSON.stringify({ maxFileBytes: settings.maxFileBytes, halfLifeDays: settings.halfLifeDays, analysis: ANALYSIS_VERSION });
}

/** Every file in the memory folders (at any depth) with its size and mtime, in catalog order (`pause`: sorted in slices). */
export async function listMemoryFiles(vault: Vault, pause?: () => Promise<void>): Promise<ListedFile[]> {
  return listMemoryStats(vault.ports.files, MEMORY_FOLDERS, pause);
}

export function catalogFingerprint(settings: EngramSettings): string {
  return fingerprint(settings);
}

/**
 * `lean`: documents parsed here are catalogDoc's (what their rows keep, as documents from the
 * cache are: no text, tags, related paths or recall count), for a caller that indexes them and
 * reads its results' files (openRecall); otherwise toRecallDoc's, with all of those.
 * `pause`: awaited after each file (and each slice of the cache read), so that a process loading
 * in the background (the MCP server's preload, the plugin's start) lets requests in between
 * slices instead of blocking for the whole load; it decides when to pause (slicer.ts).
 */
export async function loadCatalog(vault: Vault, options: { useCache?: boolean; listing?: ListedFile[]; pause?: () => Promise<void>; lean?: boolean } = {}): Promise<Catalog> {
  const useCache = options.useCache ?? true;
  const lean = options.lean ?? false;
  const print = fingerprint(vault.settings);
  const cached = new ShardedMap<Row | ErrorRow>(); // no step rehashes every row (sharded-map.ts)
  if (useCache) for (const row of (await readCache(vault, print, options.pause))?.rows ?? []) {
    cached.set(row[0], row);
    if (options.pause) await options.pause();
  }
  // a number: the row of docs[n], a document parsed here, encoded from it when the cache is
  // written (a row held for each of 10,000 parsed files was as many more arrays and joined
  // strings for every young-generation GC of a first load to copy)
  const rows: Array<Row | ErrorRow | number> = [];
  const docs: RecallDoc[] = [];
  // each document's row from the cache, or its listing (size, mtime) to encode it with
  const docRows: Array<Row | ListedFile> = [];
  const problems: MemoryParseError[] = [];
  let parsed = 0;
  for (const listed of options.listing ?? (await listMemoryFiles(vault, options.pause))) {
    // without a pause nothing is awaited here: `await undefined` is a promise and a turn of the
    // microtask queue for each of 10,000 files
    if (options.pause) await options.pause();
    const path = listed[0];
    // nothing to look up in an empty cache (a first load: each path's hash is work)
    let row = cached.size > 0 ? cached.get(path) : undefined;
    if (!row || row[1] !== listed[1] || row[2] !== listed[2]) {
      parsed++;
      // a file listed without its stats (scanMemoryFiles' `stat: false`) gets them from its read
      const fresh = listed[1] < 0 ? (parseListedNow(vault, listed, lean) ?? (await parseListed(vault, listed, lean))) : await parseFile(vault, path, lean);
      if (fresh instanceof MemoryParseError) row = [path, listed[1], listed[2], fresh.reason];
      else {
        rows.push(docs.length);
        docs.push(fresh);
        docRows.push(listed);
        continue;
      }
    }
    rows.push(row);
    if (row.length === 4) problems.push(new MemoryParseError(path, row[3]));
    else {
      docs.push(decode(row));
      docRows.push(row);
    }
  }
  const rowOf = (k: number): Row => {
    const row = docRows[k]!;
    return row.length === 3 ? encode(docs[k]!, row[1], row[2]) : row;
  };
  let written: Float64Array | null = null;
  if (useCache && (parsed > 0 || rows.length !== cached.size)) written = await writeCache(vault, print, rows, rowOf, options.pause);
  const signatures = () => {
    if (written) return written.slice();
    const out = new Float64Array(docs.length);
    for (let k = 0; k < docs.length; k++) out[k] = rowSignature(rowOf(k));
    return out;
  };
  return { docs, problems, parsed, signatures };
}

/**
 * Paths whose catalog row the catalog trusts (same size and mtime as the file) but which say
 * something else than a fresh parse of the file would (a file replaced with its times kept,
 * by a sync tool or a restore). Compares rows as the catalog stores them, so fields it does
 * not keep (text, tags, related paths, recalls) never count. Reads the cache, never writes it.
 */
export async function staleCatalogRows(vault: Vault): Promise<string[]> {
  const cache = await readCache(vault, fingerprint(vault.settings));
  if (!cache) return [];
  const listed = new Map((await listMemoryFiles(vault)).map(([path, size, mtimeMs]) => [path, { size, mtimeMs }]));
  const stale: string[] = [];
  for (const row of cache.rows) {
    const stat = listed.get(row[0]);
    if (!stat || row[1] !== stat.size || row[2] !== stat.mtimeMs) continue; // not trusted: the next load re-reads it
    const fresh = await parseFile(vault, row[0]);
    const expected = fresh instanceof MemoryParseError ? [row[0], stat.size, stat.mtimeMs, fresh.reason] : encode(fresh, stat.size, stat.mtimeMs);
    if (JSON.stringify(expected) !== JSON.stringify(row)) stale.push(row[0]);
  }
  return stale;
}

/** A memory file as a recall document, or why it cannot be one. */
export async function parseFile(vault: Vault, path: string, lean = false): Promise<RecallDoc | MemoryParseError> {
  try {
    const bytes = await vault.ports.files.read(path);
    if (!bytes) return new MemoryParseError(path, 'disappeared while being read');
    return docOf(vault, path, bytes, lean);
  } catch (error) {
    return parseError(path, error);
  }
}

/**
 * parseFile of a file listed without its size and mtime (-1): they are filled in, in `listed`,
 * from the read (what a stat of the path says of the version read), so that a first load reads
 * each file once and stats none before; when the read fails, from a stat of the path, as a
 * listing with stats would have said them (-1 when that fails too: the next load looks again).
 */
async function parseListed(vault: Vault, listed: ListedFile, lean: boolean): Promise<RecallDoc | MemoryParseError> {
  const files = vault.ports.files;
  const path = listed[0];
  if (!files.readWithStat) {
    await statInto(vault, listed);
    return parseFile(vault, path, lean);
  }
  try {
    const read = await files.readWithStat(path);
    if (!read) {
      await statInto(vault, listed);
      return new MemoryParseError(path, 'disappeared while being read');
    }
    listed[1] = read.size;
    listed[2] = read.mtimeMs;
    return docOf(vault, path, read.bytes, lean);
  } catch (error) {
    if (listed[1] < 0) await statInto(vault, listed);
    return parseError(path, error);
  }
}

/**
 * parseListed through the store's readWithStatNow, without a promise: a first load of 10,000
 * files awaited two for each (parseListed's and the read's), ~40 ms of a first recall at 10k.
 * Undefined when the store has no such read, or the read finds no file or fails: parseListed
 * then reads it (and stats the path as it does).
 */
function parseListedNow(vault: Vault, listed: ListedFile, lean: boolean): RecallDoc | MemoryParseError | undefined {
  const files = vault.ports.files;
  if (!files.readWithStatNow) return undefined;
  const path = listed[0];
  let read: ReturnType<NonNullable<typeof files.readWithStatNow>>;
  try {
    read = files.readWithStatNow(path);
  } catch {
    return undefined;
  }
  if (!read) return undefined;
  listed[1] = read.size;
  listed[2] = read.mtimeMs;
  try {
    return docOf(vault, path, read.bytes, lean);
  } catch (error) {
    return parseError(path, error);
  }
}

/**
 * The size and mtime of a listed file, from a stat of its path, into `listed` (-1: not known). A
 * function of its own: a closure made in parseListed for each file was wrapped by the build's
 * keepNames at each call (a property defined on each closure, ~10 ms of a first recall at 10k).
 */
async function statInto(vault: Vault, listed: ListedFile): Promise<void> {
  const stat = await vault.ports.files.stat(listed[0]).catch(() => null);
  listed[1] = stat?.size ?? -1;
  listed[2] = stat?.mtimeMs ?? -1;
}

function docOf(vault: Vault, path: string, bytes: Uint8Array, lean: boolean): RecallDoc {
  const memory = parseMemory(path, decodeNote(path, bytes, vault.settings.maxFileBytes), vault.settings);
  return (lean ? catalogDoc : toRecallDoc)(memory, path.startsWith(`${ARCHIVE_FOLDER}/`));
}

function parseError(path: string, error: unknown): MemoryParseError {
  return error instanceof MemoryParseError ? error : new MemoryParseError(path, error instanceof Error ? error.message : String(error));
}

/** Fill in the text, tags and related paths of documents that came from the cache, from their files. */
export async function loadTexts(vault: Vault, docs: RecallDoc[]): Promise<void> {
  for (const doc of docs) {
    if (doc.text !== null && doc.tags !== undefined && doc.related_paths !== undefined && doc.recall_count !== undefined) continue;
    const bytes = await vault.ports.files.read(doc.path).catch(() => null);
    doc.text ??= '';
    doc.tags ??= [];
    doc.related_paths ??= [];
    doc.recall_count ??= 0;
    if (!bytes) continue;
    try {
      const memory = parseMemory(doc.path, decodeNote(doc.path, bytes, vault.settings.maxFileBytes), vault.settings);
      doc.text = bodyText(memory.body);
      doc.tags = memory.tags;
      doc.related_paths = memory.related_paths;
      doc.recall_count = recallCount(memory);
    } catch {
      // changed into something unreadable since the catalog was built: show no text
    }
  }
}

async function readCache(vault: Vault, print: string, pause?: () => Promise<void>): Promise<CacheFile | null> {
  try {
    const bytes = await vault.ports.files.read(CATALOG_PATH);
    if (!bytes) return null;
    const cache = pause ? await parseCatalogInSlices(bytes, pause) : (JSON.parse(new TextDecoder().decode(bytes)) as CacheFile);
    return cache.format === FORMAT && cache.fingerprint === print && Array.isArray(cache.rows) ? cache : null;
  } catch {
    return null; // a damaged cache is rebuilt from the markdown
  }
}

/** Bytes decoded and parsed per slice of a sliced cache read; rows written per slice of a sliced write. */
const SLICE_BYTES = 1 << 18;
const WRITE_ROWS = 256;

/**
 * The cache file parsed in slices (`pause` between them), giving what JSON.parse gives: a chunk
 * of bytes decoded at a time, and the rows it completes (flat arrays of strings and numbers, as
 * writeCache writes them) parsed at once, cut at the chunk's last `],[`; the rest waits for the
 * next chunk. The whole text is never joined (34 MB at 100,000 memories: a block of ~200 ms).
 * A cut inside a string leaves a piece with an open string, which JSON.parse refuses; a text
 * that does not have the cache's shape is refused too: then the whole text is parsed at once,
 * as without slices. Exported for tests (`sliceBytes`: a smaller chunk).
 */
export async function parseCatalogInSlices(bytes: Uint8Array, pause: () => Promise<void>, sliceBytes = SLICE_BYTES): Promise<CacheFile> {
  const decoder = new TextDecoder();
  let head: CacheFile | null = null;
  let rest = '';
  try {
    for (let at = 0; at < bytes.length; at += sliceBytes) {
      const last = at + sliceBytes >= bytes.length;
      rest += decoder.decode(bytes.subarray(at, Math.min(bytes.length, at + sliceBytes)), { stream: !last });
      if (!head) {
        const key = rest.indexOf('"rows":[');
        if (key < 0) {
          if (last) throw new Error('no rows');
          continue;
        }
        if (!rest.startsWith('{')) throw new Error('not an object');
        head = JSON.parse(`${rest.slice(0, key)}"rows":[]}`) as CacheFile;
        rest = rest.slice(key + 8);
      }
      if (last) {
        if (!rest.endsWith(']}')) throw new Error('not the end of the rows');
        rest = rest.slice(0, -2);
      }
      const cut = last ? rest.length : rest.lastIndexOf('],[') + 1;
      if (cut > 0) {
        for (const row of JSON.parse(`[${rest.slice(0, cut)}]`) as Array<Row | ErrorRow>) head.rows.push(row);
        rest = rest.slice(cut + 1);
      }
      await pause();
    }
  } catch {
    head = null;
  }
  return head ?? (JSON.parse(new TextDecoder().decode(bytes)) as CacheFile);
}

/** The cache's text in pieces: the head, the slices of rows between commas, the end. */
function* catalogPieces(parts: readonly string[]): Generator<string> {
  yield parts[0]!;
  for (let i = 1; i < parts.length; i++) {
    if (i > 1) yield ',';
    yield parts[i]!;
  }
  yield ']}';
}

/** signatureOf a document's row. */
const rowSignature = (row: Row): number => signatureOf(row[17], row[20], row[16]);

/**
 * The cache written, its text made a few hundred rows at a time (the same text as JSON.stringify
 * of the whole `{ format, fingerprint, rows }`, which is one block of ~300 ms at 100,000
 * memories), `pause` awaited after each slice; a number in `rows` is the row of that document
 * (rowOf), encoded there and dropped with its slice. Returns each document's signature (from its
 * row, in document order: rows less the error rows).
 */
async function writeCache(vault: Vault, print: string, rows: ReadonlyArray<Row | ErrorRow | number>, rowOf: (doc: number) => Row, pause?: () => Promise<void>): Promise<Float64Array> {
  const signatures: number[] = [];
  const parts = [JSON.stringify({ format: FORMAT, fingerprint: print, rows: [] }).slice(0, -2)];
  const slice: Array<Row | ErrorRow> = [];
  for (let at = 0; at < rows.length; at += WRITE_ROWS) {
    slice.length = 0;
    for (let i = at; i < rows.length && i < at + WRITE_ROWS; i++) {
      const entry = rows[i]!;
      const row = typeof entry === 'number' ? rowOf(entry) : entry;
      if (row.length !== 4) signatures.push(rowSignature(row));
      slice.push(row);
    }
    parts.push(JSON.stringify(slice).slice(1, -1));
    await pause?.();
  }
  try {
    await vault.ports.files.mkdir('.engram/cache');
    await writePieces(vault.ports.files, CATALOG_PATH, catalogPieces(parts));
  } catch {
    // The cache is an optimisation: a read-only vault still answers.
  }
  return Float64Array.from(signatures);
}
