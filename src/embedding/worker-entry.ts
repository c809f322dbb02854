import { serveEmbeddings } from './embedding-worker';
import { ModelFileCache } from './model-files';
import { TransformersEmbedder } from './transformers-embedder';
import type { MessageEndpoint, WasmPaths, WorkerRequest, WorkerResponse } from './worker-protocol';

/**
 * The embedding worker's script (bundled to dist/plugin/embedding-worker.js with
 * transformers.js and onnxruntime-web; nothing is fetched from a CDN). `wasmPaths` says where
 * onnxruntime-web's WASM is (in Obsidian: blob URLs of the files the plugin keeps in
 * `.engram/runtime/`); with `modelFiles`, the model's files come from the plugin (ModelFileCache).
 */
interface OnnxEnv {
  backends: { onnx: { wasm: { wasmPaths: WasmPaths; numThreads: number; proxy: boolean } } };
}

interface CacheEnv {
  useBrowserCache: boolean;
  useCustomCache: boolean;
  customCache: unknown;
}

const scope = self as unknown as MessageEndpoint<WorkerRequest, WorkerResponse>;

serveEmbeddings(scope, (options, wasmPaths, modelFiles) =>
  new TransformersEmbedder(options, async () => {
    const lib = await import('@xenova/transformers');
    const env = lib.env as unknown as OnnxEnv;
    if (modelFiles) {
      const cache = lib.env as unknown as CacheEnv;
      cache.useBrowserCache = false;
      cache.useCustomCache = true;
      cache.customCache = new ModelFileCache(scope, options.localModelPath.endsWith('/') ? options.localModelPath : `${options.localModelPath}/`);
    }
    if (wasmPaths) env.backends.onnx.wasm.wasmPaths = wasmPaths;
    env.backends.onnx.wasm.numThreads = 1;
    env.backends.onnx.wasm.proxy = false;
    return lib;
  }),
);
