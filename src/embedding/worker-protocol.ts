import type { TransformersOptions } from './transformers-embedder';

/**
 * Messages between the plugin and its embedding worker (a Web Worker running transformers.js
 * on onnxruntime-web's WASM). One request id per `embed`; the worker answers with progress
 * after each batch, then exactly one of result, error or cancelled. Vectors travel as
 * transferred Float32Array buffers.
 *
 * With `modelFiles`, the worker reads the model's files through the plugin instead of fetching
 * them: it asks for a vault path (`file-request`), the plugin answers with the bytes or null
 * (`file`), and a file downloaded from the model hub (when the user allowed it) is handed to the
 * plugin to keep (`file-store`), so models live in the memory folder's `.engram/models/`, where
 * the runner finds them too.
 */
export type WorkerRequest =
  | { type: 'embed'; id: number; texts: string[]; options: TransformersOptions; wasmPaths?: WasmPaths; modelFiles?: boolean }
  | { type: 'cancel'; id: number }
  | { type: 'file'; rid: number; bytes: ArrayBuffer | null };

export type WorkerResponse =
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'result'; id: number; vectors: Float32Array[] }
  | { type: 'error'; id: number; name: string; message: string }
  | { type: 'cancelled'; id: number }
  | { type: 'file-request'; rid: number; path: string }
  | { type: 'file-store'; path: string; bytes: ArrayBuffer };

/** Where onnxruntime-web finds its WASM: a folder URL, or a URL per file (blob URLs in Obsidian). */
export type WasmPaths = string | Record<string, string>;

/** The part of a worker (or a MessagePort) both sides use. */
export interface MessageEndpoint<In, Out> {
  postMessage(message: Out, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: { data: In }) => void): void;
  removeEventListener(type: 'message', listener: (event: { data: In }) => void): void;
}
