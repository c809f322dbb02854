import { Bm25Index } from './bm25';
import type { DocTable } from './doc-table';
import type { EngineParts } from './recall';
import type { Bm25Params } from './bm25';
import type { Category, Confidence, Tier } from '../settings';

/**
 * The recall engine saved as it is in memory (`.engram/cache/recall.snapshot`): a small JSON
 * header, then the typed arrays, each 8-byte aligned, among them the string columns (the file
 * listing, ids, roles, sources, sessions, the terms of both indexes), each one UTF-8 text and
 * the end of each entry. Opening an unchanged vault reads this one file and makes array views
 * over it: no per-memory parsing, no index building, and no string made but those a query
 * reads (a term its binary search looks at, a result's path and source). Any change in the
 * listing (a file added, removed, or with another size or mtime) sends recall back to the
 * catalog, which re-parses only what changed, and a new snapshot is written.
 *
 * Format 6. Format 5 kept the strings in the JSON header: at 10k, 1.4 MB of JSON that a cold
 * recall decoded and parsed into ~70,000 strings (~55 ms of CPU, and most of its garbage
 * collection) to read a dozen of them. A file of another format is not a snapshot (decodeSnapshot
 * gives null): recall rebuilds from the catalog and writes this one.
 */

export const SNAPSHOT_PATH = '.engram/cache/recall.snapshot';
const MAGIC = 'ENGRAMS6';
const CATEGORY_CODES: Category[] = ['episodic', 'semantic', 'decision'];
const CONFIDENCE_CODES: Confidence[] = ['verified', 'observed', 'inferred', 'stale'];
const TIER_CODES: Array<Tier | null> = ['core', 'active', 'warm', 'cold', 'archive', null];

/** A memory file as listed: path, size, mtime. */
export type ListedFile = [path: string, size: number, mtimeMs: number];

type TypedArray = Uint8Array | Uint16Array | Int32Array | Float64Array;
const TYPES = { u8: Uint8Array, u16: Uint16Array, i32: Int32Array, f64: Float64Array } as const;
type TypeName = keyof typeof TYPES;

/**
 * The string columns, each stored as the sections `<name>Text` (u8: the entries' UTF-8, one
 * after the other) and `<name>Ends` (i32: where each entry ends in the decoded text, in UTF-16
 * code units; a null entry is ~ of where it would end). `listing`: every listed file's path
 * (sizes and mtimes are the listSize / listMtime sections); `ids`: each document's memory id
 * (the frontmatter's: file names are free).
 */
const STRING_COLUMNS = ['listing', 'ids', 'role', 'source', 'session', 'lexicalTerms', 'episodeTerms'] as const;
type StringColumn = (typeof STRING_COLUMNS)[number];

interface Header {
  fingerprint: string;
  episodeNames: string[];
  /** Columns whose text UTF-8 would not give back (a lone surrogate, a value not a string): kept here as JSON. */
  json: Partial<Record<StringColumn, Array<string | null>>>;
  /** The episode index's terms are the word index's (no episodeTerms sections). */
  sameTerms: boolean;
  /** No two documents hold the same id (EngineParts.uniqueIds). Absent (a file written before it was kept): not known. */
  uniqueIds?: boolean;
  /**
   * The ids documents name (a related, decays_from or contradicts link, a co-access partner,
   * `superseded_by`) that no document holds, each as [row that names it, id], by row then id,
   * each once (snapshot-splice.ts unresolvedNames): a file added later with one of these ids
   * changes other rows' links, which a splice cannot see without it. Absent: not known (a file
   * written before it was kept, or by a patch): the next change rebuilds.
   */
  unresolved?: Array<[row: number, id: string]>;
  sections: Record<string, [offset: number, length: number, type: TypeName]>;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * A string column packed (see STRING_COLUMNS), or null when packing would not give it back
 * exactly: an entry neither a string nor null/undefined (which JSON read back as null), or a
 * lone surrogate, which UTF-8 cannot hold.
 */
export function packStrings(list: ReadonlyArray<string | null | undefined>): { text: Uint8Array; ends: Int32Array } | null {
  const ends = new Int32Array(list.length);
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    if (entry === null || entry === undefined) {
      ends[i] = ~at;
      continue;
    }
    if (typeof entry !== 'string') return null;
    parts.push(entry);
    at += entry.length;
    ends[i] = at;
  }
  const joined = parts.join('');
  const text = new TextEncoder().encode(joined);
  if (SURROGATE.test(joined) && new TextDecoder().decode(text) !== joined) return null;
  return { text, ends };
}

/** A packed column read back: its decoded text, and entry i of it (a slice: no copy for 13 chars or more). */
export class PackedStrings {
  readonly length: number;
  constructor(
    readonly text: string,
    readonly ends: Int32Array,
  ) {
    this.length = ends.length;
    const last = ends.length === 0 ? 0 : ends[ends.length - 1]!;
    if ((last < 0 ? ~last : last) !== text.length) throw new Error('a string column does not match its text');
  }

  /** Where entry i starts in the text. */
  start(i: number): number {
    if (i === 0) return 0;
    const end = this.ends[i - 1]!;
    return end < 0 ? ~end : end;
  }

  at(i: number): string | null {
    const end = this.ends[i]!;
    return end < 0 ? null : this.text.slice(this.start(i), end);
  }

  /** Whether entry i is exactly `value` (no string made). */
  equals(i: number, value: string): boolean {
    const end = this.ends[i]!;
    const start = this.start(i);
    return end >= 0 && end - start === value.length && this.text.startsWith(value, start);
  }

  /**
   * Whether the entries are exactly `values`, in order: each ends where its value does, and the
   * values joined are the text. One comparison of the whole text where comparing entry by entry
   * made a flat copy of each value built by concatenation (a path: folder, '/', name) to compare it.
   */
  equalsAll(values: readonly string[]): boolean {
    if (values.length !== this.ends.length) return false;
    let at = 0;
    for (let i = 0; i < values.length; i++) {
      at += values[i]!.length;
      if (this.ends[i] !== at) return false;
    }
    return values.join('') === this.text;
  }

  /**
   * The entry that is exactly `value` (a non-empty string), the first one; -1 when none. Finds
   * it in the text (no string made per entry), then checks that it is a whole entry.
   */
  find(value: string): number {
    if (value.length === 0) return -1;
    for (let at = this.text.indexOf(value); at >= 0; at = this.text.indexOf(value, at + 1)) {
      // the first entry that ends after `at`: the one `at` falls in
      let lo = 0;
      let hi = this.ends.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const end = this.ends[mid]!;
        if ((end < 0 ? ~end : end) > at) hi = mid;
        else lo = mid + 1;
      }
      if (this.start(lo) === at && this.ends[lo] === at + value.length) return lo;
    }
    return -1;
  }

  /** Whether every entry is null. */
  allNull(): boolean {
    for (let i = 0; i < this.ends.length; i++) if (this.ends[i]! >= 0) return false;
    return true;
  }
}

const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/**
 * An array of `length` values made on first read (`at(i)`), for the engine's string columns:
 * a query reads a few entries, and making all 10,000 (or 15,000 terms) is most of what opening
 * a snapshot cost. An ordinary array to its readers (indexing, length, iteration, slice, map,
 * writes); anything that lists its keys or describes its entries makes every entry first.
 */
export function lazyArray<T>(length: number, at: (i: number) => T): T[] {
  const made = new Uint8Array(length);
  const values = new Array<T>(length);
  const indexOf = (key: string | symbol): number => {
    if (typeof key !== 'string' || !INDEX_KEY.test(key)) return -1;
    const i = Number(key);
    return i < values.length ? i : -1;
  };
  const all = () => {
    for (let i = 0; i < made.length; i++) {
      if (made[i] !== 0) continue;
      made[i] = 1;
      values[i] = at(i);
    }
  };
  return new Proxy(values, {
    get(target, key, receiver) {
      const i = indexOf(key);
      if (i >= 0 && i < made.length && made[i] === 0) {
        made[i] = 1;
        target[i] = at(i);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      const i = indexOf(key);
      return (i >= 0 && i < made.length) || Reflect.has(target, key);
    },
    set(target, key, value) {
      const i = indexOf(key);
      if (i >= 0 && i < made.length) made[i] = 1;
      // on the array itself: with the proxy as receiver, the write would ask it for the entry's descriptor
      return Reflect.set(target, key, value);
    },
    deleteProperty(target, key) {
      all();
      return Reflect.deleteProperty(target, key);
    },
    defineProperty(target, key, descriptor) {
      all();
      return Reflect.defineProperty(target, key, descriptor);
    },
    getOwnPropertyDescriptor(target, key) {
      all();
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      all();
      return Reflect.ownKeys(target);
    },
  });
}

function typeOf(array: TypedArray): TypeName {
  if (array instanceof Uint8Array) return 'u8';
  if (array instanceof Uint16Array) return 'u16';
  if (array instanceof Int32Array) return 'i32';
  return 'f64';
}

/**
 * `signatures`: each document's indexSignature (engine-update.ts), in table order; a snapshot
 * saved with them can be patched in place when files change only in their fields.
 */
export function encodeSnapshot(parts: EngineParts, files: ListedFile[], fingerprint: string, signatures?: Float64Array, unresolved?: Array<[number, string]>): Uint8Array {
  return joinPieces(snapshotPieces(parts, files, fingerprint, signatures, unresolved));
}

/** Pieces of bytes one after the other, in one array. */
export function joinPieces(pieces: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** Zeros that pad a section to the next multiple of 8 bytes. */
const PADDING = new Uint8Array(8);

/**
 * encodeSnapshot's bytes as the pieces they are made of, one after the other: the magic and the
 * header's length, the header, then each array's own bytes (views, not copies), zeros padding
 * each to 8 bytes. A first recall at 10k copied them into one fresh 4.9 MB buffer before the
 * write (~1,200 new pages for the kernel to fault in, then the copy): a store that takes
 * pieces (FileStore.writeChunks) writes them as they are.
 */
export function snapshotPieces(parts: EngineParts, files: ListedFile[], fingerprint: string, signatures?: Float64Array, unresolved?: Array<[number, string]>): Uint8Array[] {
  const t = parts.table;
  const lexical = parts.lexical.toArrays();
  const episodes = parts.episodes.toArrays();
  // columns filled by plain loops: TypedArray.from with a mapping function walks an iterator
  // and calls back per element (the bulk of encoding a 10,000-memory snapshot)
  const fileIndex = new Map<string, number>();
  const listSize = new Float64Array(files.length);
  const listMtime = new Float64Array(files.length);
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    fileIndex.set(f[0], i);
    listSize[i] = f[1];
    listMtime[i] = f[2];
  }
  const docFile = new Int32Array(t.paths.length);
  for (let i = 0; i < docFile.length; i++) docFile[i] = fileIndex.get(t.paths[i]!) ?? -1;
  const category = new Uint8Array(t.category.length);
  for (let i = 0; i < category.length; i++) category[i] = CATEGORY_CODES.indexOf(t.category[i]!);
  const confidence = new Uint8Array(t.confidence.length);
  for (let i = 0; i < confidence.length; i++) confidence[i] = CONFIDENCE_CODES.indexOf(t.confidence[i]!);
  const tier = new Uint8Array(t.tier.length);
  for (let i = 0; i < tier.length; i++) tier[i] = TIER_CODES.indexOf(t.tier[i]!);
  const arrays: Record<string, TypedArray> = {
    listSize, listMtime, docFile, category, confidence, tier,
    archived: t.archived, isError: t.isError, createdMs: t.createdMs, accessMs: t.accessMs, activationMs: t.activationMs,
    halfLifeDays: t.halfLifeDays, activation: t.activation, amplitude: t.amplitude, accessCount: t.accessCount,
    linkOffsets: t.linkOffsets, linkTargets: t.linkTargets, linkKinds: t.linkKinds, coOffsets: t.coOffsets, coTargets: t.coTargets,
    coCounts: t.coCounts, successor: t.successor, lexOffsets: lexical.offsets, lexDocs: lexical.docs, lexTfs: lexical.tfs, lexLengths: lexical.lengths,
    epOffsets: episodes.offsets, epDocs: episodes.docs, epTfs: episodes.tfs, epLengths: episodes.lengths, episodeOf: parts.episodeOf,
  };
  if (signatures) arrays.signature = signatures;
  const sameTerms = sameStrings(lexical.terms, episodes.terms);
  const columns: Record<StringColumn, ReadonlyArray<string | null>> = {
    listing: files.map((f) => f[0]),
    ids: t.ids,
    role: t.role,
    source: t.source,
    session: t.session,
    lexicalTerms: lexical.terms,
    episodeTerms: sameTerms ? [] : episodes.terms,
  };
  const kept: Header['json'] = {};
  for (const name of STRING_COLUMNS) {
    const packed = packStrings(columns[name]);
    if (packed) {
      arrays[`${name}Text`] = packed.text;
      arrays[`${name}Ends`] = packed.ends;
    } else kept[name] = columns[name].map((entry) => entry ?? null);
  }
  // parts that say their ids are distinct checked them already (frozenPartsFromDocs, a snapshot's
  // parts): a first recall hashed its 10,000 ids into a Set twice; otherwise they are checked here
  const uniqueIds = parts.uniqueIds === true || new Set(t.ids).size === t.ids.length;
  return piecesOf({ fingerprint, episodeNames: parts.episodeNames, json: kept, sameTerms, uniqueIds, unresolved }, arrays);
}

/**
 * The snapshot's bytes in pieces from its header (less the sections) and its arrays, in the
 * order of the file: what snapshotPieces writes, and a splice (snapshot-splice.ts) too.
 */
export function piecesOf(fields: Omit<Header, 'sections'>, arrays: Record<string, TypedArray>): Uint8Array[] {
  const header = headerOf(fields, arrays);
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(12);
  head.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(head.buffer).setUint32(8, json.length, true);
  const pieces: Uint8Array[] = [head, json];
  const pad = (length: number) => {
    if (length % 8 !== 0) pieces.push(PADDING.subarray(0, 8 - (length % 8)));
  };
  pad(12 + json.length);
  for (const array of Object.values(arrays)) {
    pieces.push(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    pad(array.byteLength);
  }
  return pieces;
}

/** The header of a snapshot of these arrays, in the file's order: each section's place, length and type. */
export function headerOf(fields: Omit<Header, 'sections'>, arrays: Record<string, TypedArray>): Header {
  const sections: Header['sections'] = {};
  let offset = 0;
  for (const [name, array] of Object.entries(arrays)) {
    sections[name] = [offset, array.length, typeOf(array)];
    offset += Math.ceil(array.byteLength / 8) * 8;
  }
  // in this order (the file's bytes do not depend on how the header was made); no unresolved: not written
  return { fingerprint: fields.fingerprint, episodeNames: fields.episodeNames, json: fields.json, sameTerms: fields.sameTerms, uniqueIds: fields.uniqueIds, unresolved: fields.unresolved, sections };
}

/** Whether two lists hold the same strings in the same order (the episode index's terms are the word index's when it was built from them). */
function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export interface Snapshot {
  fingerprint: string;
  /** Whether the vault's files are still exactly the ones the snapshot was built from. */
  matches(listing: ListedFile[]): boolean;
  /**
   * The files of `listing` whose size or mtime differ from the snapshot's, when it lists the
   * same paths in the same order; null when files were added, removed or renamed.
   */
  changedFiles(listing: ListedFile[]): string[] | null;
  /** Each document's index signature (engine-update.ts), when the snapshot was saved with them. */
  signatures: Float64Array | null;
  parts: (params: { lexical: Bm25Params; episodes: Bm25Params }) => EngineParts;
  /** The file as it is stored, for a splice (snapshot-splice.ts). */
  raw: RawSnapshot;
}

/** A snapshot's header, its sections as views over the file, and its string columns (null: kept as JSON). */
export interface RawSnapshot {
  header: Readonly<Header>;
  view: (name: string) => TypedArray;
  strings: (name: StringColumn) => PackedStrings | null;
}

export type { Header as SnapshotHeader, StringColumn, TypedArray };
export { CATEGORY_CODES, CONFIDENCE_CODES, TIER_CODES, STRING_COLUMNS };

/**
 * The values `codes` names, one a code (`missing` for a code out of range). A plain loop: Array.from
 * with a mapping function walks an iterator and calls back per element (~4 ms a column at 10k, cold).
 */
function decoded<T>(codes: TypedArray, values: readonly T[], missing?: T): T[] {
  const out = new Array<T>(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = codes[i]! < values.length ? values[codes[i]!]! : missing!;
  return out;
}

/** A string column read back: packed (PackedStrings) or, where packing would not give it back, the header's JSON list. */
type Strings = Pick<PackedStrings, 'length' | 'at' | 'equals' | 'equalsAll' | 'allNull'>;

function everyEntry(strings: Strings): Array<string | null> {
  const out = new Array<string | null>(strings.length);
  for (let i = 0; i < out.length; i++) out[i] = strings.at(i);
  return out;
}

function listStrings(list: ReadonlyArray<string | null>): Strings {
  return {
    length: list.length,
    at: (i) => list[i]!,
    equals: (i, value) => list[i] === value,
    equalsAll: (values) => values.length === list.length && values.every((value, i) => list[i] === value),
    allNull: () => list.every((entry) => entry === null),
  };
}

/** Read a snapshot; null when it is not one (damaged, truncated, another format). */
export function decodeSnapshot(input: Uint8Array): Snapshot | null {
  try {
    const bytes = input.byteOffset % 8 === 0 ? input : input.slice();
    if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) return null;
    const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length))) as Header;
    const start = Math.ceil((12 + length) / 8) * 8;
    const view = (name: string): TypedArray => {
      const [offset, count, type] = header.sections[name]!;
      const Type = TYPES[type];
      const at = bytes.byteOffset + start + offset;
      if (at + count * Type.BYTES_PER_ELEMENT > bytes.byteOffset + bytes.length) throw new Error('truncated');
      return new Type(bytes.buffer as ArrayBuffer, at, count);
    };
    return openSnapshot(header, view);
  } catch {
    return null;
  }
}

/**
 * A snapshot from its header and its sections: views over its file (decodeSnapshot), or the
 * arrays a splice made (snapshot-splice.ts), which open as the file they are written to would.
 * Throws when a section is missing or does not fit.
 */
export function openSnapshot(header: Header, view: (name: string) => TypedArray, texts: Partial<Record<StringColumn, string>> = {}): Snapshot {
  // each column checked here (a damaged file is no snapshot), its strings made when read
  const packed = (name: StringColumn): Strings => {
    const list = header.json[name];
    if (list) return listStrings(list);
    return new PackedStrings(texts[name] ?? new TextDecoder().decode(view(`${name}Text`)), view(`${name}Ends`) as Int32Array);
  };
  const listing = packed('listing');
  const listSize = view('listSize') as Float64Array;
  const listMtime = view('listMtime') as Float64Array;
  if (listSize.length !== listing.length || listMtime.length !== listing.length) throw new Error('a listing of another length');
  const docFile = view('docFile') as Int32Array;
  const n = docFile.length;
  const ids = packed('ids');
  const role = packed('role');
  const source = packed('source');
  const session = packed('session');
  if (ids.length !== n || role.length !== n || source.length !== n || session.length !== n) throw new Error('a column of another length');
  const uniqueIds = header.uniqueIds === true;
  const table: DocTable = {
    n,
    // every id is read by the engine's map of them, which it makes at once unless ids are unique
    ids: uniqueIds ? lazyArray(n, (i) => ids.at(i)!) : (everyEntry(ids) as string[]),
    paths: lazyArray(n, (i) => (docFile[i]! >= 0 && docFile[i]! < listing.length ? listing.at(docFile[i]!)! : (undefined as unknown as string))),
    category: decoded(view('category'), CATEGORY_CODES),
    confidence: decoded(view('confidence'), CONFIDENCE_CODES),
    tier: decoded(view('tier'), TIER_CODES, null),
    // every role is read by the engine (deriveRow); most vaults have none
    role: role.allNull() ? new Array<string | null>(n).fill(null) : everyEntry(role),
    source: lazyArray(n, (i) => source.at(i)),
    session: lazyArray(n, (i) => session.at(i)),
    archived: view('archived') as Uint8Array,
    isError: view('isError') as Uint8Array,
    createdMs: view('createdMs') as Float64Array,
    accessMs: view('accessMs') as Float64Array,
    activationMs: view('activationMs') as Float64Array,
    halfLifeDays: view('halfLifeDays') as Float64Array,
    activation: view('activation') as Float64Array,
    amplitude: view('amplitude') as Float64Array,
    accessCount: view('accessCount') as Int32Array,
    linkOffsets: view('linkOffsets') as Int32Array,
    linkTargets: view('linkTargets') as Int32Array,
    linkKinds: view('linkKinds') as Uint8Array,
    coOffsets: view('coOffsets') as Int32Array,
    coTargets: view('coTargets') as Int32Array,
    coCounts: view('coCounts') as Float64Array,
    successor: view('successor') as Int32Array,
    texts: new Array<string | null>(n).fill(null),
  };
  const lexicalTerms = packed('lexicalTerms');
  const episodeTerms = header.sameTerms ? lexicalTerms : packed('episodeTerms');
  // a term's binary search reads ~14 of them: made when read
  const lexicalList = lazyArray(lexicalTerms.length, (i) => lexicalTerms.at(i)!);
  const lexical = { terms: lexicalList, offsets: view('lexOffsets') as Int32Array, docs: view('lexDocs') as Int32Array, tfs: view('lexTfs') as Uint16Array, lengths: view('lexLengths') as Int32Array };
  const episodes = { terms: header.sameTerms ? lexicalList : lazyArray(episodeTerms.length, (i) => episodeTerms.at(i)!), offsets: view('epOffsets') as Int32Array, docs: view('epDocs') as Int32Array, tfs: view('epTfs') as Uint16Array, lengths: view('epLengths') as Int32Array };
  const episodeOf = view('episodeOf') as Int32Array;
  const stored: Partial<Record<StringColumn, Strings>> = { listing, ids, role, source, session, lexicalTerms, episodeTerms };
  return {
    fingerprint: header.fingerprint,
    matches: (files) => {
      if (files.length !== listing.length) return false;
      for (let i = 0; i < files.length; i++) {
        const f = files[i]!;
        if (f[1] !== listSize[i] || f[2] !== listMtime[i]) return false;
      }
      return listing.equalsAll(files.map((f) => f[0]));
    },
    changedFiles: (files) => {
      if (files.length !== listing.length) return null;
      const changed: string[] = [];
      for (let i = 0; i < files.length; i++) {
        const f = files[i]!;
        if (!listing.equals(i, f[0])) return null;
        if (f[1] !== listSize[i] || f[2] !== listMtime[i]) changed.push(f[0]);
      }
      return changed;
    },
    signatures: header.sections.signature ? (view('signature') as Float64Array) : null,
    parts: (params) => ({
      table,
      lexical: Bm25Index.fromArrays(params.lexical, lexical),
      episodes: Bm25Index.fromArrays(params.episodes, episodes),
      episodeOf,
      episodeNames: header.episodeNames,
      uniqueIds,
    }),
    raw: {
      header,
      view,
      strings: (name) => {
        if (header.json[name]) return null;
        const column = stored[name] ?? packed(name);
        return column instanceof PackedStrings ? column : null;
      },
    },
  };
}
