import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible chat server on 127.0.0.1 for tests (no network): each request is
 * answered by the next scripted reply. A reply is a verdict object (sent as the message content),
 * raw content, an HTTP error status, a refusal, or `hang` (never answers: the client's timeout).
 */
export type Reply =
  | { verdict: Record<string, unknown> }
  | { content: string }
  | { status: number; body: string }
  | { refusal: string }
  | { hang: true };

export interface FakeChat {
  url: string;
  /** Replies still to give, in order. */
  replies: Reply[];
  /** Every request body received. */
  requests: Array<{ path: string; body: any; authorization: string | undefined }>;
  close(): Promise<void>;
}

export async function startFakeChat(): Promise<FakeChat> {
  const fake: Omit<FakeChat, 'url' | 'close'> = { replies: [], requests: [] };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // one connection per request: a kept-alive socket that the server closes after its idle
    // timeout (5 s) while the client's event loop is blocked (a test's git or engram call runs
    // synchronously) is written to before the client sees the close, and the next request fails
    // with a network error. Under load the gap between two requests passed 5 s: validation.test
    // failed that way at load 20.
    res.setHeader('connection', 'close');
    let data = '';
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => {
      fake.requests.push({ path: req.url ?? '', body: JSON.parse(data || '{}'), authorization: req.headers.authorization });
      const reply = fake.replies.shift() ?? { status: 500, body: 'no scripted reply' };
      if ('hang' in reply) return; // the client gives up
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.body);
        return;
      }
      const message = 'refusal' in reply ? { role: 'assistant', content: null, refusal: reply.refusal } : { role: 'assistant', content: 'content' in reply ? reply.content : JSON.stringify(reply.verdict) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    replies: fake.replies,
    requests: fake.requests,
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
