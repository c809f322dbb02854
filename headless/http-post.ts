import type { HttpAnswer, HttpPost } from '../src/embedding/http-embedder';

/**
 * The runner's HTTP client for embedding servers: a POST over node:http (node:https), kept-alive
 * sockets, the answer read whole. Node's fetch (undici) cost about 2 ms of CPU a request here:
 * the next night's 1,020 Ollama requests at 100k were 2.5 s of CPU in the client (0.7 s with
 * node:http, measured in one process each against the same local server).
 *
 * What fetch does that matters here is kept: a deadline (the signal) over the whole exchange,
 * body included; the body decoded as UTF-8 with a leading BOM dropped (Response.text()); a
 * compressed answer inflated. What an embedding server does not do (a redirect, a scheme other
 * than http/https) is handed to fetch itself.
 */
type Http = typeof import('node:http');
let modules: { http: Http; https: typeof import('node:https') } | undefined;
const agents = new Map<string, import('node:http').Agent>();

/** node:http and node:https, loaded at the first request (a command that embeds nothing does not pay for them). */
function load(): NonNullable<typeof modules> {
  modules ??= { http: require('node:http') as Http, https: require('node:https') as typeof import('node:https') };
  return modules;
}

function agent(protocol: 'http:' | 'https:'): import('node:http').Agent {
  let found = agents.get(protocol);
  if (!found) {
    const { http, https } = load();
    // kept-alive sockets are unref'd while idle (Node's Agent): they do not hold the process open
    found = protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    agents.set(protocol, found);
  }
  return found;
}

/** The body's bytes as fetch's Response.text() gives them: UTF-8, a leading BOM dropped, a bad sequence replaced. */
export function decodeBody(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

export const nodePost: HttpPost = (url, init) => {
  const target = new URL(url);
  const protocol = target.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') return fetch(url, init);
  const { signal } = init;
  return new Promise<HttpAnswer>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const body = Buffer.from(init.body, 'utf8');
    const { http, https } = load();
    const request = (protocol === 'https:' ? https : http).request(target, {
      method: init.method,
      agent: agent(protocol),
      headers: { accept: '*/*', ...init.headers, 'content-length': String(body.length) },
    });
    const abort = (): void => {
      request.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal.addEventListener('abort', abort, { once: true });
    const settled = (): void => signal.removeEventListener('abort', abort);
    request.on('error', (error) => {
      settled();
      reject(error);
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location !== undefined) {
        // a redirect: fetch follows it as fetch does (the method a 301/302/303 turns into, the limit)
        response.resume();
        settled();
        resolve(fetch(url, init));
        return;
      }
      const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
      const zlib = encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate' || encoding === 'br' ? (require('node:zlib') as typeof import('node:zlib')) : null;
      const stream = zlib ? response.pipe(encoding === 'br' ? zlib.createBrotliDecompress() : encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip()) : response;
      const text = new Promise<string>((done, fail) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          settled();
          done(decodeBody(Buffer.concat(chunks)));
        });
        const failed = (error: Error): void => {
          settled();
          fail(error);
        };
        stream.on('error', failed);
        if (stream !== response) response.on('error', failed);
        response.on('aborted', () => failed(new Error('the answer was cut off')));
      });
      // read whether or not it is asked for (the socket goes back to the agent); a failure is the reader's
      text.catch(() => undefined);
      resolve({ ok: status >= 200 && status < 300, status, statusText: response.statusMessage ?? '', text: () => text });
    });
    request.end(body);
  });
};
