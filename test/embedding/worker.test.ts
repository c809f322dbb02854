import { serveEmbeddings } from '../../src/embedding/embedding-worker';
import { EmbeddingCancelled, WorkerEmbedder } from '../../src/embedding/worker-embedder';
import type { Embedder } from '../../src/core/ports';
import type { TransformersOptions } from '../../src/embedding/transformers-embedder';
import type { MessageEndpoint, WorkerRequest, WorkerResponse } from '../../src/embedding/worker-protocol';

const OPTIONS: TransformersOptions = { model: 'engram/tiny-bert', allowRemoteModels: false, localModelPath: '/models', quantized: true, batchSize: 2 };

/** A structured-clone message channel between the plugin side and the worker side. */
function channel() {
  const { port1, port2 } = new MessageChannel();
  const endpoint = <In, Out>(port: MessagePort): MessageEndpoint<In, Out> => ({
    postMessage: (m, transfer) => port.postMessage(m, transfer ?? []),
    addEventListener: (_t, l) => port.addEventListener('message', l as unknown as EventListener),
    removeEventListener: (_t, l) => port.removeEventListener('message', l as unknown as EventListener),
  });
  port1.start();
  port2.start();
  return { plugin: endpoint<WorkerResponse, WorkerRequest>(port1), worker: endpoint<WorkerRequest, WorkerResponse>(port2), close: () => (port1.close(), port2.close()) };
}

/** A fake model whose batches finish when the test says so. */
function gatedEmbedder() {
  const gates: Array<() => void> = [];
  const calls: string[][] = [];
  const embedder: Embedder = {
    model: 'fake',
    embed: (texts) =>
      new Promise((resolve) => {
        calls.push(texts);
        gates.push(() => resolve(texts.map((t) => Float32Array.from([t.length, 1]))));
      }),
  };
  const next = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { embedder, calls, next };
}

describe('embedding worker protocol', () => {
  it('embeds batch by batch, reporting progress, and returns the vectors', async () => {
    const c = channel();
    const fake = gatedEmbedder();
    const made: TransformersOptions[] = [];
    serveEmbeddings(c.worker, (o) => (made.push(o), fake.embedder));
    const client = new WorkerEmbedder(c.plugin, OPTIONS, 'app://engram/');
    const progress: Array<[number, number]> = [];
    const done = client.embed(['a', 'bb', 'ccc'], (d, t) => progress.push([d, t]));
    await fake.next();
    await fake.next();
    const vectors = await done;
    expect(vectors.map((v) => Array.from(v))).toEqual([[1, 1], [2, 1], [3, 1]]);
    expect(progress).toEqual([[2, 3], [3, 3]]);
    expect(fake.calls).toEqual([['a', 'bb'], ['ccc']]);
    expect(made).toEqual([OPTIONS]);
    expect(client.model).toBe('transformers:engram/tiny-bert');
    c.close();
  });

  it('stops at the next batch when cancelled', async () => {
    const c = channel();
    const fake = gatedEmbedder();
    serveEmbeddings(c.worker, () => fake.embedder);
    const client = new WorkerEmbedder(c.plugin, OPTIONS);
    const done = client.embed(['a', 'b', 'c', 'd', 'e']);
    client.cancel();
    await fake.next();
    await expect(done).rejects.toThrow(EmbeddingCancelled);
    expect(fake.calls).toEqual([['a', 'b']]);
    c.close();
  });

  it('passes errors back with their message', async () => {
    const c = channel();
    serveEmbeddings(c.worker, () => ({ model: 'x', embed: async () => Promise.reject(new Error('model engram/tiny-bert is not available offline')) }));
    const client = new WorkerEmbedder(c.plugin, OPTIONS);
    await expect(client.embed(['a'])).rejects.toThrow('model engram/tiny-bert is not available offline');
    c.close();
  });

  it('rejects what is pending when disposed, and stops listening', async () => {
    const c = channel();
    const fake = gatedEmbedder();
    serveEmbeddings(c.worker, () => fake.embedder);
    const client = new WorkerEmbedder(c.plugin, OPTIONS);
    const done = client.embed(['a']);
    client.dispose();
    await expect(done).rejects.toThrow('the embedding worker was closed');
    c.close();
  });
});

describe('model files through the plugin (ModelFileCache)', () => {
  it('maps local paths and model hub URLs to .engram/models/, reads through the plugin and keeps downloads there', async () => {
    const { ModelFileCache } = await import('../../src/embedding/model-files');
    const c = channel();
    const stored = new Map<string, Uint8Array>([['.engram/models/Xenova/m/config.json', new TextEncoder().encode('{"a":1}')]]);
    const client = new WorkerEmbedder(c.plugin, OPTIONS, undefined, {
      read: async (p) => stored.get(p) ?? null,
      write: async (p, bytes) => void stored.set(p, bytes),
    });
    const cache = new ModelFileCache(c.worker, '.engram/models/');
    expect(cache.pathOf('.engram/models/Xenova/m/config.json')).toBe('.engram/models/Xenova/m/config.json');
    expect(cache.pathOf('https://huggingface.co/Xenova/m/resolve/main/onnx/model_quantized.onnx')).toBe('.engram/models/Xenova/m/onnx/model_quantized.onnx');
    expect(cache.pathOf('https://example.org/other')).toBeNull();
    expect(await (await cache.match('https://huggingface.co/Xenova/m/resolve/main/config.json'))!.text()).toBe('{"a":1}');
    expect(await cache.match('.engram/models/Xenova/m/tokenizer.json')).toBeUndefined();
    await cache.put('https://huggingface.co/Xenova/m/resolve/main/tokenizer.json', new Response('{"t":2}'));
    while (!stored.has('.engram/models/Xenova/m/tokenizer.json')) await new Promise((r) => setImmediate(r));
    expect(new TextDecoder().decode(stored.get('.engram/models/Xenova/m/tokenizer.json'))).toBe('{"t":2}');
    client.dispose();
    c.close();
  });
});
