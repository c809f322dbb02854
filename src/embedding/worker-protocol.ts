import type { TransformersOptions } from './transformers-embedder';

/**
 * Messages between the plugin and its embedding worker (a Web Worker running transformers.js
 * on onnxruntime-web's WASM). One request id per `embed`; the worker answers with progress
 * after each batch, then exactly one of result, error or cancelled. Vectors travel as
 * transferred Float32Array buffers.
 */
export type WorkerRequest =
  | { type: 'embed'; id: number; texts: string[]; options: TransformersOptions; wasmPaths?: string }
  | { type: 'cancel'; id: number };

export type WorkerResponse =
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'result'; id: number; vectors: Float32Array[] }
  | { type: 'error'; id: number; name: string; message: string }
  | { type: 'cancelled'; id: number };

/** The part of a worker (or a MessagePort) both sides use. */
export interface MessageEndpoint<In, Out> {
  postMessage(message: Out, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: { data: In }) => void): void;
  removeEventListener(type: 'message', listener: (event: { data: In }) => void): void;
}
