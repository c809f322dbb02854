import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const WORKER = path.join(__dirname, '..', 'helpers', 'embed-worker.mjs');
const MODELS = path.join(__dirname, '..', '..', '.work', 'test-models');

function run(model: string, texts: string[]): any {
  return JSON.parse(execFileSync(process.execPath, [WORKER, MODELS, model, JSON.stringify(texts)], { encoding: 'utf8' }));
}

describe('transformers.js embedder on a locally generated BERT-shaped model', () => {
  const texts = ['Integration tests use postgres.', 'Lunch was pizza on Friday.', 'The payments service retries with backoff.', 'x'];
  let out: any;
  beforeAll(() => {
    out = run('engram/tiny-bert', texts);
  }, 60_000);

  it('loads offline and returns one unit vector of the model width per text', () => {
    expect(out.error).toBeUndefined();
    expect(out.model).toBe('transformers:engram/tiny-bert');
    expect(out.batched.map((v: number[]) => v.length)).toEqual([32, 32, 32, 32]);
    for (const v of out.batched) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });

  it('is deterministic, and batching gives the same vectors as one at a time', () => {
    expect(out.again).toEqual(out.batched);
    out.batched.forEach((v: number[], i: number) => v.forEach((x, j) => expect(x).toBeCloseTo(out.single[i][j], 5)));
  });

  it('gives different texts different vectors', () => {
    const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(dot(out.batched[0], out.batched[1])).toBeLessThan(0.999);
  });

  it('names the model and the fix when its files are missing', () => {
    const missing = run('engram/no-such-model', ['x']);
    expect(missing.name).toBe('EmbedderError');
    expect(missing.error).toMatch(/^embedding model engram\/no-such-model is not available offline \(.*\)\. Put its files \(config\.json, tokenizer\.json, onnx\/model_quantized\.onnx\) in .*\/engram\/no-such-model\/, or allow the download with embedder\.allowRemoteModels: true$/);
  });
});
