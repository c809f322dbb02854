import * as nodePath from 'node:path';
import { EmbedderError } from '../src/core/errors';
import type { Embedder } from '../src/core/ports';
import type { EmbedderSettings } from '../src/core/settings';
import { HttpEmbedder } from '../src/embedding/http-embedder';
import { nodePost } from './http-post';
import { TransformersEmbedder } from '../src/embedding/transformers-embedder';

/**
 * The embedder the settings ask for, or null for `none`. transformers.js models are read
 * from (and, when allowed, downloaded into) `.engram/models/` unless `localModelPath` says
 * otherwise.
 */
/**
 * transformers.js is not installed with engram (its native image library and ONNX runtime are
 * large, and the lexical engine needs neither): it is loaded only when the transformers
 * embedder is configured, from wherever Node finds it beside engram (a global install next to
 * a global engram, a clone's node_modules). @huggingface/transformers first, the older
 * @xenova/transformers (which the plugin's worker bundles) otherwise.
 */
export const TRANSFORMERS_PACKAGES = ['@huggingface/transformers', '@xenova/transformers'] as const;

export const TRANSFORMERS_INSTALL =
  'the transformers embedder needs transformers.js, which engram does not install with itself: ' +
  'run  ONNXRUNTIME_NODE_INSTALL=skip npm install -g @huggingface/transformers  (the variable skips a download of CUDA files ' +
  'from outside the npm registry; the CPU runtime comes with the package), or use an HTTP embedder ("kind": "http") instead';

/** import() of a package: the launcher's (dist/engram.js runs the bundle in a vm.Script, where import() has no loader), or the plain one. */
function importPackage(name: string): Promise<unknown> {
  const launcherImport = (globalThis as Record<symbol, unknown>)[Symbol.for('engram.import')];
  return typeof launcherImport === 'function' ? (launcherImport as (n: string) => Promise<unknown>)(name) : import(name);
}

export async function loadTransformers(importer: (name: string) => Promise<unknown> = importPackage): Promise<unknown> {
  for (const name of TRANSFORMERS_PACKAGES) {
    try {
      return await importer(name);
    } catch (error) {
      const code = (error as { code?: string }).code;
      const missing = (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(`'${name}'`);
      if (!missing) throw error;
    }
  }
  throw new EmbedderError(TRANSFORMERS_INSTALL);
}

export function createEmbedder(settings: EmbedderSettings, vaultRoot: string): Embedder | null {
  if (settings.kind === 'none') return null;
  if (settings.kind === 'http') {
    return new HttpEmbedder({ url: settings.url, api: settings.api, model: settings.model, timeoutMs: settings.timeoutMs, batchSize: settings.batchSize }, nodePost);
  }
  const models = settings.localModelPath ? nodePath.resolve(vaultRoot, settings.localModelPath) : nodePath.join(vaultRoot, '.engram', 'models');
  return new TransformersEmbedder({
    model: settings.model,
    allowRemoteModels: settings.allowRemoteModels,
    localModelPath: models,
    cacheDir: models,
    quantized: settings.quantized,
    batchSize: settings.batchSize,
  }, () => loadTransformers());
}

export function requireEmbedder(settings: EmbedderSettings, vaultRoot: string): Embedder {
  const embedder = createEmbedder(settings, vaultRoot);
  if (!embedder) {
    throw new EmbedderError('no embedder configured: set "embedder": {"kind": "transformers" | "http", "model": ...} in .engram/config.json');
  }
  return embedder;
}
