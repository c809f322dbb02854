import type { SketchCache } from './cluster';
import type { Vault } from '../vault';

/**
 * The clustering sketches of the last run (cluster.ts SketchCache), `.engram/cache/sketches.bin`:
 * a nightly run at 100k episodes computed the 64-bit SimHash of every vector again (2 s) to
 * compare its 1,000 new ones with them. A cache: missing, cut short, damaged (checksum), or made
 * for other dimensions or another sketch, it is ignored and every sketch is computed again.
 * Each sketch is found by its vector's fingerprints, so a stale file can only cost time.
 *
 * 32-bit words in the machine's order (as embeddings.bin's floats): MAGIC, SKETCH_FORMAT, dimensions, rows, checksum (FNV-1a of the
 * words after the header), then per row: fingerprint 1, fingerprint 2, sketch low, sketch high.
 */
export const SKETCH_CACHE_PATH = '.engram/cache/sketches.bin';
const MAGIC = 0x314b5345; // "ESK1"
/** Names the sketch itself (64 planes of seed 0x5eed, cluster.ts): another sketch, another format. */
const SKETCH_FORMAT = 1;
const HEADER = 5;

function fnv(words: Uint32Array, from: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < words.length; i++) hash = Math.imul(hash ^ words[i]!, 0x01000193) >>> 0;
  return hash;
}

export function encodeSketches(cache: SketchCache): Uint8Array {
  const n = cache.fingerprints.length / 2;
  const words = new Uint32Array(HEADER + n * 4);
  const sketches = new Uint32Array(cache.sketches.buffer, cache.sketches.byteOffset, cache.sketches.length);
  for (let r = 0; r < n; r++) {
    const at = HEADER + r * 4;
    words[at] = cache.fingerprints[r * 2]!;
    words[at + 1] = cache.fingerprints[r * 2 + 1]!;
    words[at + 2] = sketches[r * 2]!;
    words[at + 3] = sketches[r * 2 + 1]!;
  }
  words.set([MAGIC, SKETCH_FORMAT, cache.dimensions, n, fnv(words, HEADER)]);
  return new Uint8Array(words.buffer);
}

/** The cache in these bytes, or null when they are not a whole, undamaged one. */
export function decodeSketches(bytes: Uint8Array): SketchCache | null {
  if (bytes.length < HEADER * 4 || bytes.length % 4 !== 0) return null;
  const copy = bytes.slice();
  const words = new Uint32Array(copy.buffer, copy.byteOffset, copy.length / 4);
  const n = words[3]!;
  if (words[0] !== MAGIC || words[1] !== SKETCH_FORMAT || words.length !== HEADER + n * 4 || words[4] !== fnv(words, HEADER)) return null;
  const fingerprints = new Uint32Array(n * 2);
  const sketches = new Int32Array(n * 2);
  for (let r = 0; r < n; r++) {
    const at = HEADER + r * 4;
    fingerprints[r * 2] = words[at]!;
    fingerprints[r * 2 + 1] = words[at + 1]!;
    sketches[r * 2] = words[at + 2]! | 0;
    sketches[r * 2 + 1] = words[at + 3]! | 0;
  }
  return { dimensions: words[2]!, fingerprints, sketches };
}

export async function loadSketches(vault: Vault): Promise<SketchCache | null> {
  const bytes = await vault.ports.files.read(SKETCH_CACHE_PATH).catch(() => null);
  return bytes ? decodeSketches(bytes) : null;
}

export async function saveSketches(vault: Vault, cache: SketchCache): Promise<void> {
  await vault.ports.files.mkdir('.engram/cache');
  await vault.ports.files.write(SKETCH_CACHE_PATH, encodeSketches(cache));
}
