import { EmbedderError } from '../core/errors';
import type { Embedder } from '../core/ports';
import { normalise } from './vectors';

/**
 * An embedding server: Ollama (`POST /api/embeddings` {model, prompt} → {embedding}) or an
 * OpenAI-compatible one (`POST /v1/embeddings` {model, input: [...]} → {data: [{index,
 * embedding}]}). Every failure (unreachable, timeout, HTTP status, a body of the wrong shape,
 * dimensions that change) is one EmbedderError naming the server and the model.
 */
export interface HttpEmbedderOptions {
  url: string;
  api: 'ollama' | 'openai';
  model: string;
  timeoutMs: number;
  batchSize: number;
  headers?: Record<string, string>;
}

export class HttpEmbedder implements Embedder {
  readonly model: string;
  private dimensions: number | null = null;

  /**
   * `fetchImpl` is the shell's HTTP client: Node's fetch in the runner, a requestUrl-based one
   * inside Obsidian.
   */
  constructor(
    private readonly options: HttpEmbedderOptions,
    private readonly fetchImpl: typeof fetch,
  ) {
    this.model = `${options.api}:${options.model}@${options.url}`;
  }

  async embed(texts: string[], onProgress?: (done: number, total: number) => void): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    if (this.options.api === 'ollama') {
      for (const text of texts) {
        const body = await this.post('/api/embeddings', { model: this.options.model, prompt: text });
        out.push(this.vector((body as { embedding?: unknown }).embedding, 'embedding'));
        onProgress?.(out.length, texts.length);
      }
      return out;
    }
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      const batch = texts.slice(start, start + this.options.batchSize);
      const body = (await this.post('/v1/embeddings', { model: this.options.model, input: batch })) as { data?: unknown };
      if (!Array.isArray(body.data) || body.data.length !== batch.length) this.fail(`expected "data" with ${batch.length} embeddings`);
      const rows = [...(body.data as Array<{ index?: number; embedding?: unknown }>)].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      for (const row of rows) out.push(this.vector(row.embedding, 'data[].embedding'));
      onProgress?.(out.length, texts.length);
    }
    return out;
  }

  private fail(problem: string): never {
    throw new EmbedderError(`embedding server ${this.options.url} (model ${this.options.model}): ${problem}`);
  }

  private vector(value: unknown, field: string): Float32Array {
    if (!Array.isArray(value) || value.length === 0 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      this.fail(`expected "${field}" to be a list of numbers`);
    }
    const dims = (value as number[]).length;
    if (this.dimensions !== null && dims !== this.dimensions) this.fail(`dimensions changed from ${this.dimensions} to ${dims}`);
    this.dimensions = dims;
    return normalise(value as number[]);
  }

  private async post(path: string, payload: unknown): Promise<unknown> {
    // The deadline covers the whole exchange, body included.
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const request = () =>
      this.fetchImpl(this.options.url.replace(/\/+$/, '') + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.options.headers },
        body: JSON.stringify(payload),
        signal,
      });
    let response: Response;
    try {
      try {
        response = await request();
      } catch (error) {
        // A connection dropped before any answer (a kept-alive socket the server closed while
        // idle: "other side closed") is tried once more, on a new one. Embedding a text is
        // idempotent; a server that is not there fails the second time too.
        if (signal.aborted) throw error;
        response = await request();
      }
    } catch (error) {
      if (signal.aborted) this.fail(`no answer within ${this.options.timeoutMs} ms`);
      this.fail(`unreachable (${error instanceof Error ? (error.cause as Error | undefined)?.message ?? error.message : String(error)})`);
    }
    if (!response.ok) this.fail(`HTTP ${response.status} ${response.statusText}`.trim());
    let text: string;
    try {
      text = await response.text();
    } catch {
      if (signal.aborted) this.fail(`no answer within ${this.options.timeoutMs} ms`);
      this.fail('the answer was cut off');
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      this.fail('the answer is not JSON');
    }
  }
}
