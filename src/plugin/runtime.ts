import type { PinnedFile } from './downloads';

/** The embedding runtime's files, pinned by esbuild.config.mjs (this version's release assets and their SHA-256). */
export interface EmbeddingRuntime {
  wasmSimd: PinnedFile;
  wasm: PinnedFile;
}

declare const ENGRAM_RUNTIME: EmbeddingRuntime | undefined;
/** The embedding worker's bundled code, built into main.js (esbuild.config.mjs). */
declare const ENGRAM_WORKER_SOURCE: string | undefined;

/** The embedding worker's code, part of the reviewed release files (null outside the built main.js). */
export function workerSource(): string | null {
  return typeof ENGRAM_WORKER_SOURCE === 'undefined' ? null : ENGRAM_WORKER_SOURCE;
}

/** The pinned runtime (null in code run outside the built main.js, e.g. unit tests of src/). */
export function embeddingRuntime(): EmbeddingRuntime | null {
  return typeof ENGRAM_RUNTIME === 'undefined' ? null : ENGRAM_RUNTIME;
}

/** Whether this WebAssembly engine runs SIMD (every current desktop and mobile engine does). */
export function wasmSimd(): boolean {
  // the smallest module using a v128 instruction (i32x4.splat)
  const probe = Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);
  try {
    return WebAssembly.validate(probe);
  } catch {
    return false;
  }
}
