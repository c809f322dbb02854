import type { Embedder } from '../core/ports';
import type { TransformersOptions } from './transformers-embedder';
import type { MessageEndpoint, WasmPaths, WorkerRequest, WorkerResponse } from './worker-protocol';

/**
 * The worker side of the protocol: embeds batch by batch, reports progress after each, and
 * stops at the next batch boundary when cancelled. `makeEmbedder` is called once per distinct
 * options (the model stays loaded between requests).
 */
export function serveEmbeddings(scope: MessageEndpoint<WorkerRequest, WorkerResponse>, makeEmbedder: (options: TransformersOptions, wasmPaths?: WasmPaths, modelFiles?: boolean) => Embedder): () => void {
  const cancelled = new Set<number>();
  let current: { key: string; embedder: Embedder } | null = null;
  const listener = (event: { data: WorkerRequest }) => {
    const request = event.data;
    if (request.type === 'cancel') {
      cancelled.add(request.id);
      return;
    }
    if (request.type !== 'embed') return; // file answers go to the model file cache
    void (async () => {
      const key = JSON.stringify([request.options, request.wasmPaths, request.modelFiles]);
      if (current?.key !== key) current = { key, embedder: makeEmbedder(request.options, request.wasmPaths, request.modelFiles) };
      const { embedder } = current;
      const vectors: Float32Array[] = [];
      const size = Math.max(1, request.options.batchSize);
      try {
        for (let start = 0; start < request.texts.length; start += size) {
          if (cancelled.delete(request.id)) {
            scope.postMessage({ type: 'cancelled', id: request.id });
            return;
          }
          vectors.push(...(await embedder.embed(request.texts.slice(start, start + size))));
          scope.postMessage({ type: 'progress', id: request.id, done: vectors.length, total: request.texts.length });
        }
        cancelled.delete(request.id);
        scope.postMessage({ type: 'result', id: request.id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer));
      } catch (error) {
        const e = error instanceof Error ? error : new Error(String(error));
        scope.postMessage({ type: 'error', id: request.id, name: e.name, message: e.message });
      }
    })();
  };
  scope.addEventListener('message', listener);
  return () => scope.removeEventListener('message', listener);
}
