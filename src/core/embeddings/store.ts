import { contentHash } from '../ids';
import { memoryText } from '../memory';
import type { Embedder } from '../ports';
import type { Vault } from '../vault';

/**
 * Stored vectors (SPEC §12): `.engram/embeddings.bin` is packed Float32 rows, and
 * `.engram/embeddings.index.json` says which row holds which memory's vector (with its content
 * hash), the model, the dimensions, how many bytes of the bin it covers and their checksum.
 * Only memories whose content hash changed are embedded again; another model means a full
 * re-embed.
 *
 * Format 2 (written now): the index lists the memories in their order (`rows`: id, row, hash);
 * a row may be anywhere in the bin, and rows no memory holds any more are left until they are a
 * quarter of the bin. An update that only adds vectors (a night's new episodes) appends their
 * rows at the end of the bytes the index covers, flushes them, then writes the index atomically:
 * the 153 MB bin of 100k memories was rewritten and checksummed twice a night. The checksum
 * (FNV-1a over the words) is carried on from the index's over the appended words. Otherwise
 * the bin is written whole (compacted: row i is the i-th memory), atomically, then the index.
 * Format 1 (read, and appended to: its rows are in the index's order) maps id → [row, hash].
 *
 * A crash during an append leaves the index as it was, covering the bytes it did: what follows
 * them (a torn append) is never read, and the next append cuts it. A bin that does not match
 * its index (shorter, from another run, damaged) is detected on load and rebuilt, with a
 * message.
 */
export const EMBEDDINGS_BIN = '.engram/embeddings.bin';
export const EMBEDDINGS_INDEX = '.engram/embeddings.index.json';
const FORMAT = 2;

export interface EmbeddingIndexFile {
  format: number;
  model: string;
  dimensions: number;
  bytes: number;
  checksum: number;
  /** Format 1: id → [row, content hash] */
  entries?: Record<string, [number, string]>;
  /** Format 2: the memories in order, each [id, row, content hash]. */
  rows?: Array<[string, number, string]>;
}

/** Where each memory's row is in the bin, and what the index covers: what an append continues. */
export interface VectorsLayout {
  /** The bin row of the i-th memory (StoredVectors' row i). */
  rows: Int32Array;
  /** Rows the index covers (bytes / 4 / dimensions), held or not. */
  binRows: number;
  checksum: number;
}

export interface StoredVectors {
  model: string;
  dimensions: number;
  ids: string[];
  hashes: string[];
  /**
   * Row i is vectors[i*dimensions .. (i+1)*dimensions). Vectors this process read or appended
   * may be packed into it only when it is first asked for (see binBacked): copyStoredRows copies
   * rows without packing them.
   */
  readonly vectors: Float32Array;
}

/** Where stored vectors' rows are without packing them: row i is bin row rows[i], bin rows held in chunks of whole rows, in order. */
interface BinRows {
  chunks: Float32Array[];
  rows: Int32Array;
}

/** The bin rows of vectors not packed yet (binBacked). */
const unpacked = new WeakMap<StoredVectors, BinRows>();

/**
 * Stored vectors whose rows stay where the bin read (or appended) has them: at 100k each packing
 * was a new 153 MB array whose first touch (its pages) cost about a second of CPU, and a
 * consolidation packed them up to three times (a load out of order, each update) to copy the
 * episodes' rows once more for clustering. `vectors` packs them on first use and keeps that.
 */
function binBacked(model: string, dimensions: number, ids: string[], hashes: string[], bin: BinRows): StoredVectors {
  let packed: Float32Array | null = null;
  const stored: StoredVectors = {
    model,
    dimensions,
    ids,
    hashes,
    get vectors(): Float32Array {
      if (packed === null) {
        packed = new Float32Array(ids.length * dimensions);
        copyStoredRows(stored, packed, ids.length, (i) => i);
        unpacked.delete(stored);
      }
      return packed;
    },
  };
  unpacked.set(stored, bin);
  return stored;
}

/**
 * Bins read with room past their rows (FileStore.readWithRoom): the buffer's byte up to which
 * views of it are in use. An append continues in memory from the view that ends there (its rows
 * written into the room, read back as one array with the rest: the clustering then takes the
 * episodes' rows where they are, see storedArray); any other view of the buffer ends earlier and
 * is not appended to in place (two updates from the same vectors do not write the same room).
 */
const inUseTo = new WeakMap<ArrayBufferLike, number>();

/** Room to ask for past the bin's rows: an eighth of them and at least 1,024 (a night's new episodes). */
function roomFor(binRows: number, d: number): number {
  return Math.max(1024, Math.ceil(binRows / 8)) * d * 4;
}

/** A view of `count` floats right after `chunk` in its buffer, when that is room nothing else uses; else null. */
function roomAfter(chunk: Float32Array, count: number): Float32Array | null {
  const end = chunk.byteOffset + chunk.byteLength;
  if (inUseTo.get(chunk.buffer) !== end || chunk.buffer.byteLength - end < count * 4) return null;
  return new Float32Array(chunk.buffer, end, count);
}

/**
 * The stored vectors as one array, without packing them: row i of the stored vectors is row
 * rows[i] of `data` (rows null: row i). Null when they are held in several pieces (an append
 * that found no room).
 */
export function storedArray(stored: StoredVectors): { data: Float32Array; rows: Int32Array | null } | null {
  const bin = unpacked.get(stored);
  if (!bin) return { data: stored.vectors, rows: null };
  return bin.chunks.length === 1 ? { data: bin.chunks[0]!, rows: bin.rows } : null;
}

/** rowIndex's maps, one for each stored vectors' ids (which never change). */
const rowIndexes = new WeakMap<StoredVectors, Map<string, number>>();

/**
 * Each id's row in these stored vectors (an id listed twice: its last row), made once for them:
 * a consolidation looked its 100,000 ids up three times (its update, its clusters, the update
 * after them) and made the Map each time (~0.1 s, of an array per id).
 */
export function rowIndex(stored: StoredVectors): Map<string, number> {
  let index = rowIndexes.get(stored);
  if (!index) {
    index = new Map();
    const ids = stored.ids;
    for (let row = 0; row < ids.length; row++) index.set(ids[row]!, row);
    rowIndexes.set(stored, index);
  }
  return index;
}

/** Whether `vectors` of these stored vectors is packed already (binBacked's packing has happened or was never needed). Exported for tests. */
export function isPacked(stored: StoredVectors): boolean {
  return !unpacked.has(stored);
}

/**
 * copyRows from stored vectors: row i of `to` (from row `at`) is the stored row rowOf(i), for
 * i < count (rowOf(i) < 0: left as it is), read where the bin has it when the vectors are not
 * packed (runs of consecutive bin rows within one chunk at a time).
 */
export function copyStoredRows(stored: StoredVectors, to: Float32Array, count: number, rowOf: (i: number) => number, at = 0): void {
  const d = stored.dimensions;
  const bin = unpacked.get(stored);
  if (!bin) return copyRows(stored.vectors, to, d, count, rowOf, at);
  const { chunks, rows } = bin;
  const starts = [0];
  for (const chunk of chunks) starts.push(starts[starts.length - 1]! + chunk.length / d);
  for (let i = 0; i < count; ) {
    const row = rowOf(i);
    if (row < 0) {
      i++;
      continue;
    }
    const start = rows[row]!;
    let k = 0;
    while (start >= starts[k + 1]!) k++;
    const stop = starts[k + 1]!;
    let end = i + 1;
    while (end < count && start + (end - i) < stop) {
      const next = rowOf(end);
      if (next < 0 || rows[next] !== start + (end - i)) break;
      end++;
    }
    const from = (start - starts[k]!) * d;
    to.set(chunks[k]!.subarray(from, from + (end - i) * d), (at + i) * d);
    i = end;
  }
}

/**
 * The bin's rows (the bytes `layout` covers) as this process holds them, in chunks; null when
 * they are not at hand (vectors packed since, in another order).
 */
function binChunks(stored: StoredVectors, layout: VectorsLayout): Float32Array[] | null {
  const d = stored.dimensions;
  const bin = unpacked.get(stored);
  if (bin) return bin.rows === layout.rows && bin.chunks.reduce((n, c) => n + c.length, 0) === layout.binRows * d ? bin.chunks : null;
  if (stored.vectors.length !== layout.binRows * d || layout.rows.length !== layout.binRows) return null;
  for (let i = 0; i < layout.rows.length; i++) if (layout.rows[i] !== i) return null;
  return [stored.vectors];
}

/** FNV-1a over the bin's 32-bit words: detects a bin that is not the one the index describes. `from`: the checksum of the words before these. */
export function checksum(vectors: Float32Array, from = 0x811c9dc5): number {
  const words = new Uint32Array(vectors.buffer, vectors.byteOffset, vectors.length);
  let hash = from;
  for (let i = 0; i < words.length; i++) hash = Math.imul(hash ^ words[i]!, 0x01000193) >>> 0;
  return hash;
}

/**
 * Row i of `to` (from row `at`) is row rowOf(i) of `from`, for i < count: copied a run of
 * consecutive rows at a time (a subarray and a set per row cost a nightly run at 100k seconds;
 * its rows mostly keep their order). rowOf(i) < 0: left as it is.
 */
export function copyRows(from: Float32Array, to: Float32Array, d: number, count: number, rowOf: (i: number) => number, at = 0): void {
  for (let i = 0; i < count; ) {
    const start = rowOf(i);
    let end = i + 1;
    if (start >= 0) while (end < count && rowOf(end) === start + (end - i)) end++;
    if (start >= 0) to.set(from.subarray(start * d, (start + end - i) * d), (at + i) * d);
    i = end;
  }
}

/** `layout`: with vectors, where their rows are in the bin (what the next update appends to). */
export type LoadResult = { vectors: StoredVectors | null; problem: string | null; layout?: VectorsLayout };

/** The vectors of an index and the bin's bytes it covers (aligned), or the problem. */
function readIndexed(index: EmbeddingIndexFile, covered: Uint8Array, roomy = false): LoadResult {
  const rebuilt = (what: string): LoadResult => ({ vectors: null, problem: `${what}: the embeddings will be rebuilt` });
  const binVectors = new Float32Array(covered.buffer, covered.byteOffset, covered.length / 4);
  // the bytes past what the index covers (room, a torn append) are free for the next append in memory
  if (roomy) inUseTo.set(covered.buffer, covered.byteOffset + covered.byteLength);
  if (checksum(binVectors) !== index.checksum) return rebuilt(`${EMBEDDINGS_BIN} does not match its index (checksum)`);
  const d = index.dimensions;
  if (index.format === 1) {
    const count = Object.keys(index.entries ?? {}).length;
    if (count * d * 4 !== index.bytes) return rebuilt(`${EMBEDDINGS_INDEX} lists ${count} vectors for ${index.bytes} bytes`);
    const ids = new Array<string>(count);
    const hashes = new Array<string>(count);
    for (const [id, [row, hash]] of Object.entries(index.entries!)) {
      ids[row] = id;
      hashes[row] = hash;
    }
    return { vectors: { model: index.model, dimensions: d, ids, hashes, vectors: binVectors }, problem: null, layout: { rows: Int32Array.from(ids, (_, i) => i), binRows: count, checksum: index.checksum } };
  }
  const listed = index.rows ?? [];
  const binRows = index.bytes / 4 / d;
  const count = listed.length;
  const ids = new Array<string>(count);
  const hashes = new Array<string>(count);
  const rows = new Int32Array(count);
  const seen = new Set<string>();
  const used = new Uint8Array(binRows);
  let inOrder = count === binRows;
  for (let i = 0; i < count; i++) {
    const [id, row, hash] = listed[i]!;
    if (typeof id !== 'string' || typeof hash !== 'string' || !Number.isInteger(row) || row < 0 || row >= binRows || used[row] || seen.has(id)) {
      return rebuilt(`${EMBEDDINGS_INDEX} lists ${count} vectors, not one row each of the ${binRows} in ${index.bytes} bytes`);
    }
    seen.add(id);
    used[row] = 1;
    ids[i] = id;
    hashes[i] = hash;
    rows[i] = row;
    if (row !== i) inOrder = false;
  }
  // out of order (rows appended, rows no memory holds): read where they are, packed when asked for
  const vectors = inOrder ? { model: index.model, dimensions: d, ids, hashes, vectors: binVectors } : binBacked(index.model, d, ids, hashes, { chunks: [binVectors], rows });
  return { vectors, problem: null, layout: { rows, binRows, checksum: index.checksum } };
}

export async function loadVectors(vault: Vault): Promise<LoadResult> {
  const { files } = vault.ports;
  const indexBytes = await files.read(EMBEDDINGS_INDEX);
  if (!indexBytes) return { vectors: null, problem: null };
  let index: EmbeddingIndexFile;
  try {
    index = JSON.parse(new TextDecoder().decode(indexBytes)) as EmbeddingIndexFile;
    if ((index.format !== 1 && index.format !== FORMAT) || typeof index.model !== 'string' || !(index.dimensions > 0)) throw new Error('unknown format');
    if (index.format === 1 ? typeof index.entries !== 'object' || index.entries === null : !Array.isArray(index.rows)) throw new Error('no rows');
    if (!Number.isInteger(index.bytes) || index.bytes < 0 || index.bytes % (4 * index.dimensions) !== 0) throw new Error(`${index.bytes} bytes`);
  } catch (error) {
    return { vectors: null, problem: `${EMBEDDINGS_INDEX} is unreadable (${error instanceof Error ? error.message : String(error)}): the embeddings will be rebuilt` };
  }
  // with room past the rows where the store can: tonight's new rows are appended there in memory
  const roomy = files.readWithRoom !== undefined;
  const bin = roomy ? await files.readWithRoom!(EMBEDDINGS_BIN, roomFor(index.bytes / 4 / index.dimensions, index.dimensions)) : await files.read(EMBEDDINGS_BIN);
  // longer than the index says: an append the index was never written for (a crash), not read
  if (!bin || bin.length < index.bytes) {
    return { vectors: null, problem: `${EMBEDDINGS_BIN} has ${bin?.length ?? 0} bytes where its index says ${index.bytes}: the embeddings will be rebuilt` };
  }
  const covered = bin.subarray(0, index.bytes);
  return covered.byteOffset % 4 === 0 ? readIndexed(index, covered, roomy) : readIndexed(index, covered.slice());
}

/** The whole bin (row i: the i-th memory), then its index; returns the layout written. */
export async function saveVectors(vault: Vault, stored: StoredVectors): Promise<VectorsLayout> {
  const { files } = vault.ports;
  const rows = Int32Array.from(stored.ids, (_, i) => i);
  const layout: VectorsLayout = { rows, binRows: stored.ids.length, checksum: checksum(stored.vectors) };
  await files.write(EMBEDDINGS_BIN, new Uint8Array(stored.vectors.buffer, stored.vectors.byteOffset, stored.vectors.byteLength));
  await writeIndex(vault, stored, layout);
  return layout;
}

async function writeIndex(vault: Vault, stored: Omit<StoredVectors, 'vectors'>, layout: VectorsLayout): Promise<void> {
  const index: EmbeddingIndexFile = {
    format: FORMAT,
    model: stored.model,
    dimensions: stored.dimensions,
    bytes: layout.binRows * stored.dimensions * 4,
    checksum: layout.checksum,
    rows: stored.ids.map((id, i) => [id, layout.rows[i]!, stored.hashes[i]!]),
  };
  await vault.ports.files.write(EMBEDDINGS_INDEX, `${JSON.stringify(index)}\n`);
}

/**
 * The update as an append (see the format above), when the store can append, every memory kept
 * has its vector where it was, and the rows no memory holds stay under a quarter of the bin:
 * the new vectors' rows written after the bytes the index covers, then the index. Null: not
 * possible, nothing written.
 */
async function appendVectors(vault: Vault, loaded: LoadResult, stored: Omit<StoredVectors, 'vectors'>, fresh: Map<number, Float32Array>, rowOf: Map<string, number>): Promise<LoadResult | null> {
  const append = vault.ports.files.append?.bind(vault.ports.files);
  const before = loaded.layout;
  const previous = loaded.vectors;
  if (!append || !before || !previous || previous.dimensions !== stored.dimensions) return null;
  const d = stored.dimensions;
  const count = stored.ids.length;
  // what the bin holds after the append, without packing it (binBacked); not at hand: packed
  const chunks = binChunks(previous, before);
  const binRows = before.binRows + fresh.size;
  if ((binRows - count) * 4 > binRows) return null;
  const rows = new Int32Array(count);
  // the new rows right after the bin's in its buffer when there is room (one array: see storedArray)
  const last = chunks?.[chunks.length - 1];
  const inRoom = last && fresh.size > 0 ? roomAfter(last, fresh.size * d) : null;
  // taken at once (an update from the same vectors meanwhile finds no room); unused if this append fails
  if (inRoom) inUseTo.set(inRoom.buffer, inRoom.byteOffset + inRoom.byteLength);
  const added = inRoom ?? new Float32Array(fresh.size * d);
  let next = before.binRows;
  for (let i = 0; i < count; i++) {
    const vector = fresh.get(i);
    if (vector) {
      added.set(vector, (next - before.binRows) * d);
      rows[i] = next++;
    } else rows[i] = before.rows[rowOf.get(stored.ids[i]!)!]!;
  }
  const layout: VectorsLayout = { rows, binRows, checksum: checksum(added, before.checksum) };
  // none added (memories removed only): the index alone changes; a bin shorter than the index
  // covers (another writer replaced it meanwhile) is written whole
  if (added.length > 0 && !(await append(EMBEDDINGS_BIN, new Uint8Array(added.buffer, added.byteOffset, added.byteLength), before.binRows * d * 4))) return null;
  await writeIndex(vault, stored, layout);
  let held = chunks && added.length > 0 ? [...chunks, added] : chunks;
  if (chunks && inRoom) {
    held = [...chunks.slice(0, -1), new Float32Array(last!.buffer, last!.byteOffset, last!.length + inRoom.length)];
  }
  const vectors = held
    ? binBacked(stored.model, d, stored.ids, stored.hashes, { chunks: held, rows })
    : { ...stored, vectors: packedVectors(previous, count, d, (i) => (fresh.has(i) ? -1 : rowOf.get(stored.ids[i]!)!), fresh) };
  return { vectors, problem: null, layout };
}

/** The update's vectors packed (row i: the i-th memory's): the kept rows from `previous` (rowOf(i) < 0: a fresh one), then the fresh ones. */
function packedVectors(previous: StoredVectors | null, count: number, d: number, rowOf: (i: number) => number, fresh: Map<number, Float32Array>): Float32Array {
  const vectors = new Float32Array(count * d);
  if (previous) {
    const rows = Int32Array.from({ length: count }, (_, i) => rowOf(i));
    copyStoredRows(previous, vectors, count, (i) => rows[i]!);
  }
  for (const [i, vector] of fresh) vectors.set(vector, i * d);
  return vectors;
}

/** Remove the vectors of these memories (a purge); true when any was stored. */
export async function dropVectors(vault: Vault, ids: string[]): Promise<boolean> {
  const { vectors } = await loadVectors(vault);
  if (!vectors) return false;
  const gone = new Set(ids);
  const keep = vectors.ids.flatMap((id, row) => (gone.has(id) ? [] : [row]));
  if (keep.length === vectors.ids.length) return false;
  const next = new Float32Array(keep.length * vectors.dimensions);
  keep.forEach((row, k) => next.set(vectors.vectors.subarray(row * vectors.dimensions, (row + 1) * vectors.dimensions), k * vectors.dimensions));
  await saveVectors(vault, { ...vectors, ids: keep.map((row) => vectors.ids[row]!), hashes: keep.map((row) => vectors.hashes[row]!), vectors: next });
  return true;
}

export interface EmbedSource {
  id: string;
  text: string;
  /**
   * contentHash(text), when the caller has it already: then `text` is read only if the memory
   * must be embedded (a getter may make it then). A consolidation updates the vectors of every
   * live memory twice (its episodes, then the patterns it wrote): at 100k the second update
   * made and hashed the 100,000 texts again (about a second) only to find them all stored.
   */
  hash?: string;
}

/** A memory whose text is not at hand: its vector is kept when `hash` is the stored one. */
interface KnownSource {
  id: string;
  hash: string;
  text?: undefined;
}

export interface EmbedReport {
  model: string;
  dimensions: number;
  total: number;
  embedded: number;
  kept: number;
  removed: number;
  rebuilt: string | null;
}

/**
 * Bring the stored vectors up to date with `sources`: embed what is new or changed (by
 * content hash), keep the rest, drop what is gone. `force` re-embeds everything (a model
 * migration). Writes nothing when nothing changed.
 */
export async function updateVectors(vault: Vault, sources: EmbedSource[], embedder: Embedder, options: EmbedOptions = {}): Promise<EmbedReport> {
  return (await applyVectors(vault, await loadVectors(vault), sources, embedder, options)).report;
}

/**
 * updateVectors from the vectors as this process last loaded or wrote them (`from`; null: loaded
 * here), also returning them as they are now: what loadVectors would read back. A consolidation
 * updates the vectors, clusters on them and updates them again; at 100k each load read and
 * checked the 153 MB bin again (about 1.5 s).
 */
export async function updateVectorsFrom(vault: Vault, from: LoadResult | null, sources: EmbedSource[], embedder: Embedder): Promise<VectorsUpdate> {
  return applyVectors(vault, from ?? (await loadVectors(vault)), sources, embedder, {});
}

export interface EmbedOptions {
  force?: boolean;
  onProgress?: (done: number, total: number) => void;
}

/** A memory as the catalog or the plugin's index knows it: where it is and the hash of its text, no text. */
export interface IndexedMemory {
  id: string;
  path: string;
  /** contentHash(memoryText(memory)), as the catalog keeps it (RecallDoc.text_hash); absent: unknown. */
  text_hash?: string;
}

/**
 * updateVectors over the memories the catalog (or the plugin's warm index) lists, reading only
 * the files whose text may have changed: a memory whose stored vector was made from a text with
 * the hash the catalog holds keeps it without a read. New or changed memories, and documents
 * without a hash, are read (a file gone or holding another id meanwhile is left for the next
 * run). `read`: how many memory files were read.
 */
export async function refreshVectors(vault: Vault, docs: Iterable<IndexedMemory>, embedder: Embedder, options: EmbedOptions = {}): Promise<EmbedReport & { read: number }> {
  const loaded = await loadVectors(vault);
  const previous = current(loaded, embedder, options);
  const hashOf = new Map<string, string>();
  previous?.ids.forEach((id, row) => hashOf.set(id, previous.hashes[row]!));
  const sources: Array<EmbedSource | KnownSource> = [];
  let read = 0;
  for (const doc of docs) {
    if (doc.text_hash !== undefined && hashOf.get(doc.id) === doc.text_hash) {
      sources.push({ id: doc.id, hash: doc.text_hash });
      continue;
    }
    read++;
    const file = await vault.read(doc.path).catch(() => null);
    if (!file || file.memory.id !== doc.id) continue;
    sources.push({ id: doc.id, text: memoryText(file.memory) });
  }
  return { ...(await applyVectors(vault, loaded, sources, embedder, options)).report, read };
}

function current(loaded: LoadResult, embedder: Embedder, options: EmbedOptions): StoredVectors | null {
  return loaded.vectors && loaded.vectors.model === embedder.model && !options.force ? loaded.vectors : null;
}

/** An update's report; `stored`: the vectors on disk after it, as loadVectors reads them; `hashes`: the sources' content hashes, in their order. */
export interface VectorsUpdate {
  report: EmbedReport;
  stored: LoadResult;
  hashes: string[];
}

/** The update (`stored`: `loaded` when nothing was written). */
async function applyVectors(vault: Vault, loaded: LoadResult, sources: Array<EmbedSource | KnownSource>, embedder: Embedder, options: EmbedOptions): Promise<VectorsUpdate> {
  const previous = current(loaded, embedder, options);
  const rowOf = previous ? rowIndex(previous) : new Map<string, number>();
  const hashes = sources.map((s) => s.hash ?? contentHash(s.text!));
  const todo: number[] = [];
  sources.forEach((source, i) => {
    const row = rowOf.get(source.id);
    if (row === undefined || previous!.hashes[row] !== hashes[i]) todo.push(i);
  });
  const texts = todo.map((i) => {
    const text = sources[i]!.text;
    if (text === undefined) throw new Error(`${sources[i]!.id}: no stored vector for its text and no text to embed`);
    return text;
  });
  const fresh = todo.length > 0 ? await embedder.embed(texts, options.onProgress) : [];
  const dimensions = fresh[0]?.length ?? previous?.dimensions ?? 0;
  for (const vector of fresh) {
    if (vector.length !== dimensions) throw new Error(`embedder ${embedder.model} returned ${vector.length} dimensions, expected ${dimensions}`);
  }
  const freshOf = new Map(todo.map((i, k) => [i, fresh[k]!]));
  const live = new Set(sources.map((s) => s.id));
  const removed = previous ? previous.ids.filter((id) => !live.has(id)).length : 0;
  const report: EmbedReport = {
    model: embedder.model,
    dimensions,
    total: sources.length,
    embedded: todo.length,
    kept: sources.length - todo.length,
    removed,
    rebuilt: loaded.problem,
  };
  const unchanged = previous !== null && todo.length === 0 && removed === 0 && previous.ids.length === sources.length;
  if (unchanged || dimensions === 0) return { report, stored: loaded, hashes };
  const ids = sources.map((s) => s.id);
  const unique = new Set(ids).size === ids.length;
  const appended = unique && previous ? await appendVectors(vault, loaded, { model: embedder.model, dimensions, ids, hashes }, freshOf, rowOf) : null;
  if (appended) return { report, stored: appended, hashes };
  const vectors = packedVectors(previous, sources.length, dimensions, (i) => (freshOf.has(i) ? -1 : rowOf.get(ids[i]!)!), freshOf);
  const stored: StoredVectors = { model: embedder.model, dimensions, ids, hashes, vectors };
  const layout = await saveVectors(vault, stored);
  // an id given twice is read back as a damaged index (format 1 kept one row of it: the same)
  return { report, stored: unique ? { vectors: stored, problem: null, layout } : await loadVectors(vault), hashes };
}
