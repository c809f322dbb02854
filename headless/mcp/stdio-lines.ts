import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP server's stdio transport: one JSON-RPC message a line, as the SDK's own, with three
 * differences that keep one client's bad line from ending the session.
 *
 * - A line longer than `maxBytes` is skipped as it arrives (never held whole in memory) and
 *   answered with an Invalid Request error naming the limit; the next line is served. (The SDK
 *   clears its buffer past 10 MB and closes the transport: the server went deaf.)
 * - A line that is JSON but not a JSON-RPC message is answered for its own id when it has one
 *   (a `tools/call` whose params are not an object), else with id null.
 * - At the end of standard input the requests already read are answered before the transport
 *   closes (a piped client used to get the first answer and lose the rest).
 */

/** The longest request line: 4 MiB, room for the longest memory text (248 KB) escaped six times over. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

type Id = string | number;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export class StdioLines implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of the line being skipped (over the limit), or -1 when reading normally. */
  private skipped = -1;
  /** Requests read and not yet answered, by id (a count: a client may reuse an id). */
  private readonly pending = new Map<Id, number>();
  private ended = false;
  private closed = false;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxBytes = MAX_REQUEST_BYTES,
  ) {}

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        if ('id' in message && message.id !== null && !('method' in message)) this.settle(message.id as Id);
        resolve();
      };
      if (this.output.write(`${JSON.stringify(message)}\n`)) done();
      else this.output.once('drain', done);
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
    this.output.off('error', this.onOutputError);
    this.input.pause();
    this.parts = [];
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      this.take(data.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    if (start < data.length) this.take(data.subarray(start));
  };

  private readonly onEnd = (): void => {
    if (this.size > 0 || this.skipped >= 0) this.endLine(); // a last line without its newline
    this.ended = true;
    this.closeWhenAnswered();
  };

  private readonly onInputError = (error: Error): void => this.onerror?.(error);

  /** The client is gone (EPIPE): nothing can be answered any more. */
  private readonly onOutputError = (): void => void this.close();

  private take(part: Buffer): void {
    if (this.skipped >= 0) {
      this.skipped += part.length;
      return;
    }
    if (this.size + part.length > this.maxBytes) {
      this.skipped = this.size + part.length;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    if (this.skipped >= 0) {
      const bytes = this.skipped;
      this.skipped = -1;
      this.reply(null, INVALID_REQUEST, `Invalid Request: a line of ${bytes} bytes, over the ${this.maxBytes}-byte limit for one request; it was skipped`);
      return;
    }
    const line = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (line.trim() === '') return;
    this.receive(line);
  }

  private receive(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.reply(null, PARSE_ERROR, `Parse error: ${firstLine(error)}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.reply(idOf(value), INVALID_REQUEST, `Invalid Request: ${whatIsWrong(value)}`);
      return;
    }
    const message = parsed.data;
    if ('method' in message && 'id' in message) this.pending.set(message.id, (this.pending.get(message.id) ?? 0) + 1);
    if ('method' in message && message.method === 'notifications/cancelled') {
      // a cancelled request is never answered: do not wait for it at the end
      const id = idOf((message.params as { requestId?: unknown } | undefined) ?? {}, 'requestId');
      if (id !== null) this.settle(id);
    }
    this.onmessage?.(message);
  }

  private reply(id: Id | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    if (id !== null) this.pending.set(id, (this.pending.get(id) ?? 0) + 1);
    this.send({ jsonrpc: '2.0', id: id as Id, error: { code, message } }).catch(() => undefined);
  }

  private settle(id: Id): void {
    const n = this.pending.get(id) ?? 0;
    if (n <= 1) this.pending.delete(id);
    else this.pending.set(id, n - 1);
    this.closeWhenAnswered();
  }

  private closeWhenAnswered(): void {
    if (this.ended && this.pending.size === 0) void this.close();
  }
}

/** Why a JSON value is not a JSON-RPC 2.0 message, in the words of the protocol. */
function whatIsWrong(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `expected a JSON-RPC 2.0 object, got ${Array.isArray(value) ? 'an array' : shown(value)}`;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'jsonrpc: expected "2.0"';
  if ('method' in m && typeof m.method !== 'string') return `method: expected a string, got ${shown(m.method)}`;
  if ('params' in m && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) {
    return `params: expected an object, got ${Array.isArray(m.params) ? 'an array' : shown(m.params)}`;
  }
  if ('id' in m && idOf(m) === null) return `id: expected a string or a number, got ${shown(m.id)}`;
  return 'not a request, a notification or a response';
}

/** A message's id when it has a usable one (a string or a number), else null. */
function idOf(value: unknown, key = 'id'): Id | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>)[key];
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** A value as JSON, cut to 60 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
