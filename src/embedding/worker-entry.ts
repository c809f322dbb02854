import { serveEmbeddings } from './embedding-worker';
import { TransformersEmbedder } from './transformers-embedder';
import type { MessageEndpoint, WorkerRequest, WorkerResponse } from './worker-protocol';

/**
 * The embedding worker's script (bundled to dist/plugin/embedding-worker.js with
 * transformers.js and onnxruntime-web; the WASM files sit beside it, nothing is fetched
 * from a CDN). `wasmPaths` is the folder URL the plugin serves them from.
 */
interface OnnxEnv {
  backends: { onnx: { wasm: { wasmPaths: string; numThreads: number; proxy: boolean } } };
}

serveEmbeddings(self as unknown as MessageEndpoint<WorkerRequest, WorkerResponse>, (options, wasmPaths) =>
  new TransformersEmbedder(options, async () => {
    const lib = await import('@xenova/transformers');
    const env = lib.env as unknown as OnnxEnv;
    if (wasmPaths) env.backends.onnx.wasm.wasmPaths = wasmPaths;
    env.backends.onnx.wasm.numThreads = 1;
    env.backends.onnx.wasm.proxy = false;
    return lib;
  }),
);
