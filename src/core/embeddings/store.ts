import { contentHash } from '../ids';
import { memoryText } from '../memory';
import type { Embedder } from '../ports';
import type { Vault } from '../vault';

/**
 * Stored vectors (SPEC §12): `.engram/embeddings.bin` is one packed Float32Array (a row per
 * memory), `.engram/embeddings.index.json` maps id → row and content hash, with the model,
 * the dimensions, the byte length and a checksum of the bin. Both are written atomically, the
 * bin first; a bin that does not match its index (truncated, from another run, damaged) is
 * detected on load and rebuilt, with a message. Only memories whose content hash changed are
 * embedded again; deleted memories are compacted away; another model means a full re-embed.
 */
export const EMBEDDINGS_BIN = '.engram/embeddings.bin';
export const EMBEDDINGS_INDEX = '.engram/embeddings.index.json';
const FORMAT = 1;

export interface EmbeddingIndexFile {
  format: number;
  model: string;
  dimensions: number;
  bytes: number;
  checksum: number;
  /** id → [row, content hash] */
  entries: Record<string, [number, string]>;
}

export interface StoredVectors {
  model: string;
  dimensions: number;
  ids: string[];
  hashes: string[];
  /** Row i is vectors[i*dimensions .. (i+1)*dimensions). */
  vectors: Float32Array;
}

/** FNV-1a over the bin's 32-bit words: detects a bin that is not the one the index describes. */
export function checksum(vectors: Float32Array): number {
  const words = new Uint32Array(vectors.buffer, vectors.byteOffset, vectors.length);
  let hash = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) hash = Math.imul(hash ^ words[i]!, 0x01000193) >>> 0;
  return hash;
}

export type LoadResult = { vectors: StoredVectors | null; problem: string | null };

export async function loadVectors(vault: Vault): Promise<LoadResult> {
  const { files } = vault.ports;
  const indexBytes = await files.read(EMBEDDINGS_INDEX);
  if (!indexBytes) return { vectors: null, problem: null };
  let index: EmbeddingIndexFile;
  try {
    index = JSON.parse(new TextDecoder().decode(indexBytes)) as EmbeddingIndexFile;
    if (index.format !== FORMAT || typeof index.model !== 'string' || !(index.dimensions > 0)) throw new Error('unknown format');
  } catch (error) {
    return { vectors: null, problem: `${EMBEDDINGS_INDEX} is unreadable (${error instanceof Error ? error.message : String(error)}): the embeddings will be rebuilt` };
  }
  const bin = await files.read(EMBEDDINGS_BIN);
  if (!bin || bin.length !== index.bytes) {
    return { vectors: null, problem: `${EMBEDDINGS_BIN} has ${bin?.length ?? 0} bytes where its index says ${index.bytes}: the embeddings will be rebuilt` };
  }
  const aligned = bin.byteOffset % 4 === 0 ? bin : bin.slice();
  const vectors = new Float32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
  if (checksum(vectors) !== index.checksum) return { vectors: null, problem: `${EMBEDDINGS_BIN} does not match its index (checksum): the embeddings will be rebuilt` };
  const count = Object.keys(index.entries).length;
  if (count * index.dimensions * 4 !== index.bytes) return { vectors: null, problem: `${EMBEDDINGS_INDEX} lists ${count} vectors for ${index.bytes} bytes: the embeddings will be rebuilt` };
  const ids = new Array<string>(count);
  const hashes = new Array<string>(count);
  for (const [id, [row, hash]] of Object.entries(index.entries)) {
    ids[row] = id;
    hashes[row] = hash;
  }
  return { vectors: { model: index.model, dimensions: index.dimensions, ids, hashes, vectors }, problem: null };
}

export async function saveVectors(vault: Vault, stored: StoredVectors): Promise<void> {
  const { files } = vault.ports;
  const entries: EmbeddingIndexFile['entries'] = {};
  stored.ids.forEach((id, row) => (entries[id] = [row, stored.hashes[row]!]));
  const index: EmbeddingIndexFile = {
    format: FORMAT,
    model: stored.model,
    dimensions: stored.dimensions,
    bytes: stored.vectors.byteLength,
    checksum: checksum(stored.vectors),
    entries,
  };
  await files.write(EMBEDDINGS_BIN, new Uint8Array(stored.vectors.buffer, stored.vectors.byteOffset, stored.vectors.byteLength));
  await files.write(EMBEDDINGS_INDEX, `${JSON.stringify(index)}\n`);
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
export async function updateVectorsFrom(vault: Vault, from: LoadResult | null, sources: EmbedSource[], embedder: Embedder): Promise<{ report: EmbedReport; stored: LoadResult }> {
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

/** The update; `stored`: the vectors on disk after it, as loadVectors reads them (`loaded` when nothing was written). */
async function applyVectors(vault: Vault, loaded: LoadResult, sources: Array<EmbedSource | KnownSource>, embedder: Embedder, options: EmbedOptions): Promise<{ report: EmbedReport; stored: LoadResult }> {
  const previous = current(loaded, embedder, options);
  const rowOf = new Map<string, number>();
  previous?.ids.forEach((id, row) => rowOf.set(id, row));
  const hashes = sources.map((s) => (s.text === undefined ? s.hash : contentHash(s.text)));
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
  if (unchanged || dimensions === 0) return { report, stored: loaded };
  const vectors = new Float32Array(sources.length * dimensions);
  sources.forEach((source, i) => {
    const vector = freshOf.get(i) ?? previous!.vectors.subarray(rowOf.get(source.id)! * dimensions, (rowOf.get(source.id)! + 1) * dimensions);
    vectors.set(vector, i * dimensions);
  });
  const stored: StoredVectors = { model: embedder.model, dimensions, ids: sources.map((s) => s.id), hashes, vectors };
  await saveVectors(vault, stored);
  // read back, the index keys the rows by id: an id given twice is read back as a damaged bin
  return { report, stored: new Set(stored.ids).size === stored.ids.length ? { vectors: stored, problem: null } : await loadVectors(vault) };
}
