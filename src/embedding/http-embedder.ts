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

/** An answer as the embedder reads it: what fetch's Response has. */
export interface HttpAnswer {
  ok: boolean;
  status: number;
  statusText: string;
  text(): Promise<string>;
}

/** The one request the embedder makes: what fetch does with these arguments (fetch is one). */
export type HttpPost = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<HttpAnswer>;

export class HttpEmbedder implements Embedder {
  readonly model: string;
  private dimensions: number | null = null;

  /**
   * `fetchImpl` is the shell's HTTP client: node:http in the runner (headless/http-post.ts), a
   * requestUrl-based fetch inside Obsidian, fetch itself anywhere.
   */
  constructor(
    private readonly options: HttpEmbedderOptions,
    private readonly fetchImpl: HttpPost,
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
    let response: HttpAnswer;
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
      this.fail(`unreachable (${reasonOf(error)})`);
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

/** Why a request failed: fetch's cause ("connect ECONNREFUSED ..." under "fetch failed") or the error's own message (an error of another realm too). */
function reasonOf(error: unknown): string {
  if (typeof error !== 'object' || error === null || typeof (error as Error).message !== 'string') return String(error);
  const cause = (error as Error).cause;
  return typeof cause === 'object' && cause !== null && typeof (cause as Error).message === 'string' ? (cause as Error).message : (error as Error).message;
}
