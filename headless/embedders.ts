import * as nodePath from 'node:path';
import { EmbedderError } from '../src/core/errors';
import type { Embedder } from '../src/core/ports';
import type { EmbedderSettings } from '../src/core/settings';
import { HttpEmbedder } from '../src/embedding/http-embedder';
import { TransformersEmbedder } from '../src/embedding/transformers-embedder';

/**
 * The embedder the settings ask for, or null for `none`. transformers.js models are read
 * from (and, when allowed, downloaded into) `.engram/models/` unless `localModelPath` says
 * otherwise.
 */
export function createEmbedder(settings: EmbedderSettings, vaultRoot: string): Embedder | null {
  if (settings.kind === 'none') return null;
  if (settings.kind === 'http') {
    return new HttpEmbedder({ url: settings.url, api: settings.api, model: settings.model, timeoutMs: settings.timeoutMs, batchSize: settings.batchSize }, fetch);
  }
  const models = settings.localModelPath ? nodePath.resolve(vaultRoot, settings.localModelPath) : nodePath.join(vaultRoot, '.engram', 'models');
  return new TransformersEmbedder({
    model: settings.model,
    allowRemoteModels: settings.allowRemoteModels,
    localModelPath: models,
    cacheDir: models,
    quantized: settings.quantized,
    batchSize: settings.batchSize,
  });
}

export function requireEmbedder(settings: EmbedderSettings, vaultRoot: string): Embedder {
  const embedder = createEmbedder(settings, vaultRoot);
  if (!embedder) {
    throw new EmbedderError('no embedder configured: set "embedder": {"kind": "transformers" | "http", "model": ...} in .engram/config.json');
  }
  return embedder;
}
