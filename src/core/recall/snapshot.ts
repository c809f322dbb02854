import { Bm25Index } from './bm25';
import type { DocTable } from './doc-table';
import type { EngineParts } from './recall';
import type { Bm25Params } from './bm25';
import type { Category, Confidence, Tier } from '../settings';

/**
 * The recall engine saved as it is in memory (`.engram/cache/recall.snapshot`): a JSON
 * header with the strings and the file listing it was built from, then the typed arrays,
 * each 8-byte aligned. Opening an unchanged vault reads this one file and makes array
 * views over it: no per-memory parsing, no index building. Any change in the listing
 * (a file added, removed, or with another size or mtime) sends recall back to the catalog,
 * which re-parses only what changed, and a new snapshot is written.
 */

export const SNAPSHOT_PATH = '.engram/cache/recall.snapshot';
const MAGIC = 'ENGRAMS5';
const CATEGORY_CODES: Category[] = ['episodic', 'semantic', 'decision'];
const CONFIDENCE_CODES: Confidence[] = ['verified', 'observed', 'inferred', 'stale'];
const TIER_CODES: Array<Tier | null> = ['core', 'active', 'warm', 'cold', 'archive', null];

/** A memory file as listed: path, size, mtime. */
export type ListedFile = [path: string, size: number, mtimeMs: number];

type TypedArray = Uint8Array | Uint16Array | Int32Array | Float64Array;
const TYPES = { u8: Uint8Array, u16: Uint16Array, i32: Int32Array, f64: Float64Array } as const;
type TypeName = keyof typeof TYPES;

interface Header {
  fingerprint: string;
  /** Every listed file's path; sizes and mtimes are the listSize / listMtime sections. */
  listing: string[];
  /** Each document's memory id (the frontmatter's: file names are free). */
  ids: string[];
  strings: Pick<DocTable, 'role' | 'source' | 'session'>;
  lexicalTerms: string[];
  episodeTerms: string[];
  episodeNames: string[];
  sections: Record<string, [offset: number, length: number, type: TypeName]>;
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
export function encodeSnapshot(parts: EngineParts, files: ListedFile[], fingerprint: string, signatures?: Float64Array): Uint8Array {
  return joinPieces(snapshotPieces(parts, files, fingerprint, signatures));
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
export function snapshotPieces(parts: EngineParts, files: ListedFile[], fingerprint: string, signatures?: Float64Array): Uint8Array[] {
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
  const sections: Header['sections'] = {};
  let offset = 0;
  for (const [name, array] of Object.entries(arrays)) {
    sections[name] = [offset, array.length, typeOf(array)];
    offset += Math.ceil(array.byteLength / 8) * 8;
  }
  const header: Header = {
    fingerprint,
    listing: files.map((f) => f[0]),
    ids: t.ids,
    strings: { role: t.role, source: t.source, session: t.session },
    lexicalTerms: lexical.terms,
    episodeTerms: episodes.terms,
    episodeNames: parts.episodeNames,
    sections,
  };
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
    const s = header.strings;
    const listSize = view('listSize') as Float64Array;
    const listMtime = view('listMtime') as Float64Array;
    const docFile = view('docFile') as Int32Array;
    const paths = Array.from(docFile, (i) => header.listing[i]!);
    const category = view('category') as Uint8Array;
    const confidence = view('confidence') as Uint8Array;
    const tier = view('tier') as Uint8Array;
    const table: DocTable = {
      n: paths.length,
      ids: header.ids,
      paths,
      category: Array.from(category, (c) => CATEGORY_CODES[c]!),
      confidence: Array.from(confidence, (c) => CONFIDENCE_CODES[c]!),
      tier: Array.from(tier, (c) => TIER_CODES[c] ?? null),
      ...s,
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
      texts: new Array<string | null>(paths.length).fill(null),
    };
    const lexical = { terms: header.lexicalTerms, offsets: view('lexOffsets') as Int32Array, docs: view('lexDocs') as Int32Array, tfs: view('lexTfs') as Uint16Array, lengths: view('lexLengths') as Int32Array };
    const episodes = { terms: header.episodeTerms, offsets: view('epOffsets') as Int32Array, docs: view('epDocs') as Int32Array, tfs: view('epTfs') as Uint16Array, lengths: view('epLengths') as Int32Array };
    const episodeOf = view('episodeOf') as Int32Array;
    return {
      fingerprint: header.fingerprint,
      matches: (listing) => {
        if (listing.length !== header.listing.length) return false;
        for (let i = 0; i < listing.length; i++) {
          const f = listing[i]!;
          if (f[0] !== header.listing[i] || f[1] !== listSize[i] || f[2] !== listMtime[i]) return false;
        }
        return true;
      },
      changedFiles: (listing) => {
        if (listing.length !== header.listing.length) return null;
        const changed: string[] = [];
        for (let i = 0; i < listing.length; i++) {
          const f = listing[i]!;
          if (f[0] !== header.listing[i]) return null;
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
      }),
    };
  } catch {
    return null;
  }
}
