import { EmbedderError } from '../core/errors';
import type { Embedder } from '../core/ports';
import type { TransformersOptions } from './transformers-embedder';
import type { MessageEndpoint, WasmPaths, WorkerRequest, WorkerResponse } from './worker-protocol';

/** Where the plugin keeps model files for the worker (the memory folder's `.engram/models/`). */
export interface ModelFileStore {
  read(path: string): Promise<Uint8Array | null>;
  write(path: string, bytes: Uint8Array): Promise<void>;
}

/** Raised when a request was cancelled before it finished. */
export class EmbeddingCancelled extends EmbedderError {
  override name = 'EmbeddingCancelled';
}

/**
 * The plugin side: an Embedder whose work happens in the embedding worker, so the model never
 * blocks typing. Progress comes back per batch; `cancel()` stops every request in flight.
 */
export class WorkerEmbedder implements Embedder {
  readonly model: string;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void; progress?: (done: number, total: number) => void }>();
  private readonly listener = (event: { data: WorkerResponse }) => this.receive(event.data);

  constructor(
    private readonly worker: MessageEndpoint<WorkerResponse, WorkerRequest>,
    private readonly options: TransformersOptions,
    private readonly wasmPaths?: WasmPaths,
    /** With a store, the worker reads and saves model files through it (see ModelFileCache). */
    private readonly files?: ModelFileStore,
  ) {
    this.model = `transformers:${options.model}`;
    worker.addEventListener('message', this.listener);
  }

  embed(texts: string[], onProgress?: (done: number, total: number) => void): Promise<Float32Array[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress: onProgress });
      this.worker.postMessage({ type: 'embed', id, texts, options: this.options, wasmPaths: this.wasmPaths, modelFiles: this.files !== undefined });
    });
  }

  cancel(): void {
    for (const id of this.pending.keys()) this.worker.postMessage({ type: 'cancel', id });
  }

  private async answerFile(rid: number, path: string): Promise<void> {
    const bytes = this.files && !path.split('/').includes('..') ? await this.files.read(path).catch(() => null) : null;
    const buffer = bytes ? bytes.slice().buffer : null;
    this.worker.postMessage({ type: 'file', rid, bytes: buffer }, buffer ? [buffer] : undefined);
  }

  /** Stop listening; requests still pending are rejected. */
  dispose(): void {
    this.worker.removeEventListener('message', this.listener);
    for (const { reject } of this.pending.values()) reject(new EmbeddingCancelled('the embedding worker was closed'));
    this.pending.clear();
  }

  private receive(message: WorkerResponse): void {
    if (message.type === 'file-request') {
      void this.answerFile(message.rid, message.path);
      return;
    }
    if (message.type === 'file-store') {
      void this.files?.write(message.path, new Uint8Array(message.bytes)).catch(() => undefined);
      return;
    }
    const request = this.pending.get(message.id);
    if (!request) return;
    if (message.type === 'progress') {
      request.progress?.(message.done, message.total);
      return;
    }
    this.pending.delete(message.id);
    if (message.type === 'result') request.resolve(message.vectors);
    else if (message.type === 'cancelled') request.reject(new EmbeddingCancelled(`embedding with ${this.options.model} was cancelled`));
    else request.reject(new EmbedderError(message.message));
  }
}
