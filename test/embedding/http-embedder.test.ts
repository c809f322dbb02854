import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpEmbedder } from '../../src/embedding/http-embedder';

type Handler = (body: any, req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 answering with fixed vectors (or failures). */
async function serve(handler: Handler): Promise<{ url: string; server: Server; requests: any[] }> {
  const requests: any[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      requests.push({ path: req.url, body });
      handler(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

const json = (res: ServerResponse, value: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

describe('HTTP embedder', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
  const start = async (handler: Handler) => {
    const s = await serve(handler);
    servers.push(s.server);
    return s;
  };

  it('speaks Ollama: one request per text, vectors normalised', async () => {
    const { url, requests } = await start((body, _req, res) => json(res, { embedding: body.prompt === 'a' ? [3, 4] : [0, 2] }));
    const embedder = new HttpEmbedder({ url, api: 'ollama', model: 'nomic-embed-text', timeoutMs: 2000, batchSize: 8 }, fetch);
    const vectors = await embedder.embed(['a', 'b']);
    expect(vectors.map((v) => Array.from(v))).toEqual([[0.6000000238418579, 0.800000011920929], [0, 1]]);
    expect(requests).toEqual([
      { path: '/api/embeddings', body: { model: 'nomic-embed-text', prompt: 'a' } },
      { path: '/api/embeddings', body: { model: 'nomic-embed-text', prompt: 'b' } },
    ]);
    expect(embedder.model).toBe(`ollama:nomic-embed-text@${url}`);
  });

  it('speaks the OpenAI API: batched inputs, rows put back in index order', async () => {
    const { url, requests } = await start((body, _req, res) =>
      json(res, { data: body.input.map((_: string, i: number) => ({ index: i, embedding: [i + 1, 0] })).reverse() }),
    );
    const embedder = new HttpEmbedder({ url, api: 'openai', model: 'm', timeoutMs: 2000, batchSize: 2 }, fetch);
    const vectors = await embedder.embed(['a', 'b', 'c']);
    expect(vectors.map((v) => Array.from(v))).toEqual([[1, 0], [1, 0], [1, 0]]);
    expect(requests.map((r) => r.body.input)).toEqual([['a', 'b'], ['c']]);
  });

  it('turns every failure into one message naming the server and the model', async () => {
    const cases: Array<[Handler, string]> = [
      [(_b, _q, res) => json(res, { error: 'model not found' }, 404), 'HTTP 404 Not Found'],
      [(_b, _q, res) => res.end('not json'), 'the answer is not JSON'],
      [(_b, _q, res) => json(res, { embedding: ['x'] }), 'expected "embedding" to be a list of numbers'],
      [(_b, _q, res) => json(res, { vector: [1] }), 'expected "embedding" to be a list of numbers'],
    ];
    for (const [handler, problem] of cases) {
      const { url } = await start(handler);
      const embedder = new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 2000, batchSize: 8 }, fetch);
      await expect(embedder.embed(['a'])).rejects.toThrow(`embedding server ${url} (model m): ${problem}`);
    }
  });

  it('refuses dimensions that change between answers', async () => {
    let n = 0;
    const { url } = await start((_b, _q, res) => json(res, { embedding: n++ === 0 ? [1, 0] : [1, 0, 0] }));
    const embedder = new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 2000, batchSize: 8 }, fetch);
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow('dimensions changed from 2 to 3');
  });

  it('gives up after the timeout when the server does not answer', async () => {
    const { url } = await start(() => undefined);
    const embedder = new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 150, batchSize: 8 }, fetch);
    await expect(embedder.embed(['a'])).rejects.toThrow(`embedding server ${url} (model m): no answer within 150 ms`);
  });

  it('asks again once when a connection drops before any answer (a kept-alive socket the server closed), not twice', async () => {
    let dropped = 0;
    const { url, requests } = await start((body, req, res) => {
      if (dropped < 1) {
        dropped++;
        req.socket.destroy(); // no answer at all: fetch fails with "other side closed"
        return;
      }
      json(res, { embedding: [3, 4] });
    });
    const embedder = new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 5000, batchSize: 8 }, fetch);
    const [v] = await embedder.embed(['a']);
    expect(Array.from(v!)).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(requests.map((r) => r.body)).toEqual([{ model: 'm', prompt: 'a' }, { model: 'm', prompt: 'a' }]);

    // a server that drops every connection: two requests, then the error naming why
    const always = await start((body, req) => req.socket.destroy());
    const failing = new HttpEmbedder({ url: always.url, api: 'ollama', model: 'm', timeoutMs: 5000, batchSize: 8 }, fetch);
    await expect(failing.embed(['b'])).rejects.toThrow(`embedding server ${always.url} (model m): unreachable (`);
    expect(always.requests).toHaveLength(2);
  });

  it('says when nothing listens', async () => {
    const { url, server } = await start(() => undefined);
    server.close();
    servers.length = 0;
    const embedder = new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 2000, batchSize: 8 }, fetch);
    await expect(embedder.embed(['a'])).rejects.toThrow(/^embedding server http:\/\/127\.0\.0\.1:\d+ \(model m\): unreachable \(/);
  });
});
