import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { decodeBody, nodePost } from '../../headless/http-post';
import { HttpEmbedder, type HttpPost } from '../../src/embedding/http-embedder';

/**
 * headless/http-post.ts (the runner's client: node:http) against fetch, the client it replaces:
 * the same servers, the same requests, and every answer, vector and message the same.
 */
type Handler = (body: any, req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; server: Server; requests: any[] }> {
  const requests: any[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      requests.push({ method: req.method, path: req.url, type: req.headers['content-type'], length: req.headers['content-length'], body });
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

/** Deterministic numbers in [-0.5, 0.5). */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
}

const clients: Array<[string, HttpPost]> = [
  ['fetch', fetch],
  ['node:http', nodePost],
];

describe('the runner HTTP client (node:http) against fetch', () => {
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
  /** What each client gets from the same server: vectors, or the error's message; and the requests the server saw. */
  const both = async (handler: Handler, run: (post: HttpPost, url: string) => Promise<unknown>) => {
    const out: Array<{ result: unknown; requests: any[] }> = [];
    for (const [, post] of clients) {
      const { url, requests } = await start(handler);
      const result = await run(post, url).then(
        (value) => ({ value }),
        (error: Error) => ({ error: error.message.replace(url, 'URL') }),
      );
      out.push({ result, requests });
    }
    return out;
  };

  it('gives the embedder the same vectors for random texts and answers (Ollama and OpenAI)', async () => {
    const next = rng(23);
    const alphabet = ['a', 'é', ' ', '\n', '"', '\\', '€', '😀', 'z', '\u0000', '\u2028', '0'];
    const texts = Array.from({ length: 40 }, () => Array.from({ length: Math.floor((next() + 0.5) * 30) }, () => alphabet[Math.floor((next() + 0.5) * alphabet.length)]!).join(''));
    // an answer per text: numbers of every magnitude, written as JSON does
    const vectorOf = (text: string) => {
      const r = rng(text.length * 7919 + text.charCodeAt(0) || 1);
      return Array.from({ length: 5 }, (_, i) => r() * 10 ** ((i % 5) * 3 - 6));
    };
    for (const api of ['ollama', 'openai'] as const) {
      const handler: Handler = (body, _req, res) =>
        api === 'ollama' ? json(res, { embedding: vectorOf(body.prompt) }) : json(res, { data: body.input.map((t: string, i: number) => ({ index: i, embedding: vectorOf(t) })).reverse() });
      const [a, b] = await both(handler, async (post, url) => (await new HttpEmbedder({ url, api, model: 'm', timeoutMs: 10_000, batchSize: 7 }, post).embed(texts)).map((v) => Array.from(v)));
      expect((a!.result as { value: number[][] }).value).toHaveLength(40);
      expect(b!.result).toEqual(a!.result);
      expect(b!.requests).toEqual(a!.requests);
    }
  });

  it('sends one POST of JSON with its length, and reads the same answers, crafted', async () => {
    const bodies: Array<[string, (res: ServerResponse) => void]> = [
      ['plain', (res) => json(res, { embedding: [3, 4] })],
      ['a BOM first', (res) => res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"embedding":[1,0]}')]))],
      ['in chunks', (res) => {
        res.write('{"embed');
        setImmediate(() => res.end('ding":[0,2]}'));
      }],
      ['gzip', (res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(gzipSync('{"embedding":[5,12]}'));
      }],
      ['deflate', (res) => {
        res.writeHead(200, { 'content-encoding': 'deflate' });
        res.end(deflateSync('{"embedding":[8,6]}'));
      }],
      ['br', (res) => {
        res.writeHead(200, { 'content-encoding': 'br' });
        res.end(brotliCompressSync('{"embedding":[2,0]}'));
      }],
      ['a 404', (res) => json(res, { error: 'model not found' }, 404)],
      ['a 500 with a reason', (res) => {
        res.statusMessage = 'Overloaded';
        res.writeHead(500);
        res.end();
      }],
      ['not JSON', (res) => res.end('not json')],
      ['a bad sequence', (res) => res.end(Buffer.from([0x7b, 0xff, 0x7d]))],
      ['no embedding', (res) => json(res, { vector: [1] })],
    ];
    const seen: Record<string, unknown> = {};
    for (const [name, answer] of bodies) {
      const [a, b] = await both((_body, _req, res) => answer(res), async (post, url) => Array.from((await new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 10_000, batchSize: 8 }, post).embed(['é😀']))[0]!));
      expect([name, b!.result]).toEqual([name, a!.result]);
      expect(b!.requests).toEqual(a!.requests);
      seen[name] = b!.result;
    }
    expect(seen).toEqual({
      plain: { value: [0.6000000238418579, 0.800000011920929] },
      'a BOM first': { value: [1, 0] },
      'in chunks': { value: [0, 1] },
      gzip: { value: [0.38461539149284363, 0.9230769276618958] },
      deflate: { value: [0.800000011920929, 0.6000000238418579] },
      br: { value: [1, 0] },
      'a 404': { error: 'embedding server URL (model m): HTTP 404 Not Found' },
      'a 500 with a reason': { error: 'embedding server URL (model m): HTTP 500 Overloaded' },
      'not JSON': { error: 'embedding server URL (model m): the answer is not JSON' },
      'a bad sequence': { error: 'embedding server URL (model m): the answer is not JSON' },
      'no embedding': { error: 'embedding server URL (model m): expected "embedding" to be a list of numbers' },
    });
    const [first] = await both((_b, _q, res) => json(res, { embedding: [1] }), (post, url) => new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 10_000, batchSize: 8 }, post).embed(['é😀']));
    expect(first!.requests).toEqual([{ method: 'POST', path: '/api/embeddings', type: 'application/json', length: String(Buffer.byteLength('{"model":"m","prompt":"é😀"}')), body: { model: 'm', prompt: 'é😀' } }]);
  });

  it('decodes bodies as Response.text() does', async () => {
    const next = rng(5);
    for (let k = 0; k < 300; k++) {
      const bytes = Uint8Array.from({ length: Math.floor((next() + 0.5) * 12) }, () => Math.floor((next() + 0.5) * 256));
      if (k % 3 === 0 && bytes.length >= 3) bytes.set([0xef, 0xbb, 0xbf]);
      expect(decodeBody(bytes)).toBe(await new Response(bytes).text());
    }
  });

  it('follows a redirect as fetch does', async () => {
    const [a, b] = await both(
      (body, req, res) => {
        if (req.url === '/api/embeddings') {
          res.writeHead(307, { location: '/moved/api/embeddings' });
          res.end();
        } else json(res, { embedding: [0, 3] });
      },
      async (post, url) => Array.from((await new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 10_000, batchSize: 8 }, post).embed(['a']))[0]!),
    );
    expect(a!.result).toEqual({ value: [0, 1] });
    expect(b!.result).toEqual(a!.result);
    // node:http hands the request to fetch at the redirect: fetch sends it again and follows
    expect(a!.requests.map((r) => r.path)).toEqual(['/api/embeddings', '/moved/api/embeddings']);
    expect(b!.requests.map((r) => r.path)).toEqual(['/api/embeddings', '/api/embeddings', '/moved/api/embeddings']);
  });

  it('gives up at the deadline, asks once more when a connection drops, says when nothing listens', async () => {
    const [a, b] = await both(() => undefined, (post, url) => new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 150, batchSize: 8 }, post).embed(['a']));
    expect(a!.result).toEqual({ error: 'embedding server URL (model m): no answer within 150 ms' });
    expect(b!.result).toEqual(a!.result);
    // a body that never ends: the deadline covers it too
    const [c, d] = await both((_b, _q, res) => res.write('{"embedding":'), (post, url) => new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 150, batchSize: 8 }, post).embed(['a']));
    expect(c!.result).toEqual({ error: 'embedding server URL (model m): no answer within 150 ms' });
    expect(d!.result).toEqual(c!.result);
    let dropped = 0;
    const [e, f] = await both(
      (_b, req, res) => (dropped++ % 2 === 0 ? req.socket.destroy() : json(res, { embedding: [3, 4] })),
      async (post, url) => Array.from((await new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 5000, batchSize: 8 }, post).embed(['a']))[0]!),
    );
    expect(e!.result).toEqual({ value: [0.6000000238418579, 0.800000011920929] });
    expect(f!.result).toEqual(e!.result);
    expect(f!.requests).toHaveLength(2);
    const [g, h] = await both((_b, req) => req.socket.destroy(), (post, url) => new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 5000, batchSize: 8 }, post).embed(['a']));
    expect((g!.result as { error: string }).error).toMatch(/^embedding server URL \(model m\): unreachable \(/);
    expect((h!.result as { error: string }).error).toMatch(/^embedding server URL \(model m\): unreachable \(/);
    expect(h!.requests).toHaveLength(2);
    const { url, server } = await start(() => undefined);
    servers.pop();
    await new Promise((r) => server.close(r));
    const nothing = await new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 2000, batchSize: 8 }, nodePost).embed(['a']).catch((error: Error) => error.message);
    expect(nothing).toBe(`embedding server ${url} (model m): unreachable (connect ECONNREFUSED ${url.slice('http://'.length)})`);
  });

  it('keeps one connection for a run of requests', async () => {
    const sockets = new Set<unknown>();
    const { url } = await start((body, req, res) => {
      sockets.add(req.socket);
      json(res, { embedding: [1, body.prompt.length] });
    });
    const vectors = await new HttpEmbedder({ url, api: 'ollama', model: 'm', timeoutMs: 5000, batchSize: 8 }, nodePost).embed(['a', 'bb', 'ccc', 'dddd']);
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [0.7071067690849304, 0.7071067690849304],
      [0.4472135901451111, 0.8944271802902222],
      [0.3162277638912201, 0.9486833214759827],
      [0.24253562092781067, 0.9701424837112427],
    ]);
    expect(sockets.size).toBe(1);
  });
});
