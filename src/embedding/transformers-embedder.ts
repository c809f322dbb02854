import { EmbedderError } from '../core/errors';
import type { Embedder } from '../core/ports';
import { normalise } from './vectors';

/**
 * transformers.js (@xenova/transformers): a sentence model run locally, in Node for the
 * runner and in a Web Worker inside Obsidian. Mean pooling and normalisation, as the
 * sentence-transformers model cards say; batched. Downloads happen only when the user allowed
 * them (`allowRemoteModels`); otherwise the model's files must be in `localModelPath/<model>/`.
 */
export interface TransformersOptions {
  model: string;
  allowRemoteModels: boolean;
  localModelPath: string;
  /** Where downloaded models are cached (Node). */
  cacheDir?: string;
  quantized: boolean;
  batchSize: number;
}

type Extractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; cacheDir: string };
  /** `quantized` for @xenova/transformers 2; `dtype` for @huggingface/transformers 3 and 4 (q8 reads model_quantized.onnx). */
  pipeline: (task: 'feature-extraction', model: string, options: { quantized: boolean; dtype: 'q8' | 'fp32' }) => Promise<Extractor>;
}

export class TransformersEmbedder implements Embedder {
  readonly model: string;
  private extractor: Promise<Extractor> | null = null;

  constructor(
    private readonly options: TransformersOptions,
    private readonly load: () => Promise<unknown> = () => import('@xenova/transformers'),
  ) {
    this.model = `transformers:${options.model}`;
  }

  private pipeline(): Promise<Extractor> {
    if (!this.extractor) {
      this.extractor = (async () => {
        let lib: TransformersModule;
        try {
          lib = (await this.load()) as TransformersModule;
        } catch (error) {
          if (error instanceof EmbedderError) throw error;
          throw new EmbedderError(`transformers.js could not be loaded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        }
        lib.env.allowRemoteModels = this.options.allowRemoteModels;
        lib.env.allowLocalModels = true;
        if (this.options.localModelPath) lib.env.localModelPath = this.options.localModelPath.endsWith('/') ? this.options.localModelPath : `${this.options.localModelPath}/`;
        if (this.options.cacheDir) lib.env.cacheDir = this.options.cacheDir;
        try {
          return await lib.pipeline('feature-extraction', this.options.model, { quantized: this.options.quantized, dtype: this.options.quantized ? 'q8' : 'fp32' });
        } catch (error) {
          throw this.explain(error);
        }
      })();
      this.extractor.catch(() => (this.extractor = null));
    }
    return this.extractor;
  }

  private explain(error: unknown): EmbedderError {
    const message = error instanceof Error ? error.message : String(error);
    if (/local_files_only|allowRemoteModels|not found locally/i.test(message)) {
      return new EmbedderError(
        `embedding model ${this.options.model} is not available offline (${message.split('\n')[0]}). ` +
          `Put its files (config.json, tokenizer.json, onnx/model${this.options.quantized ? '_quantized' : ''}.onnx) in ` +
          `${this.options.localModelPath || 'the local model folder'}/${this.options.model}/, or allow the download with embedder.allowRemoteModels: true`,
      );
    }
    return new EmbedderError(`embedding model ${this.options.model} could not be loaded: ${message.split('\n')[0]}`);
  }

  async embed(texts: string[], onProgress?: (done: number, total: number) => void): Promise<Float32Array[]> {
    const extractor = await this.pipeline();
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      const batch = texts.slice(start, start + this.options.batchSize);
      let result;
      try {
        result = await extractor(batch, { pooling: 'mean', normalize: true });
      } catch (error) {
        throw new EmbedderError(`embedding with ${this.options.model} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      const dims = result.dims[result.dims.length - 1]!;
      for (let i = 0; i < batch.length; i++) out.push(normalise(result.data.subarray(i * dims, (i + 1) * dims)));
      onProgress?.(out.length, texts.length);
    }
    return out;
  }
}
