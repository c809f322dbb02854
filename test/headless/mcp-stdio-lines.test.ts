import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_REQUEST_BYTES, StdioLines } from '../../headless/mcp/stdio-lines';

/**
 * `engram mcp`'s stdio transport in process: its input and output are streams given to it, so
 * every rule (a line a message, the size limit, the error for a line that is not JSON-RPC, the
 * answers owed at the end of input) is stated here with exact values; mcp.test drives the built
 * process with the same lines.
 */

function harness(maxBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioLines(input, output, maxBytes);
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = 0;
  transport.onmessage = (m) => void messages.push(m);
  transport.onerror = (e) => void errors.push(e.message);
  transport.onclose = () => void closed++;
  /** The lines written so far, parsed. */
  const written = () =>
    String(output.read() ?? '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
  /** Let the stream deliver what was written (stream events come on the next ticks). */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { input, output, transport, messages, errors, closed: () => closed, written, settle };
}

const request = (id: string | number, method = 'ping') => ({ jsonrpc: '2.0', id, method });

describe('StdioLines: one JSON-RPC message a line, bad lines answered, nothing lost at the end', () => {
  it('has a 4 MiB limit for one request line by default', () => {
    expect(MAX_REQUEST_BYTES).toBe(4 * 1024 * 1024);
  });

  it('passes each line on as a message: lines split across chunks, several in one chunk, \\r\\n, blank lines skipped, a last line without a newline', async () => {
    const h = harness();
    await h.transport.start();
    const a = JSON.stringify(request(1));
    h.input.write(a.slice(0, 10));
    h.input.write(`${a.slice(10)}\n\n   \n${JSON.stringify(request('two'))}\r\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    h.input.write(JSON.stringify(request(3)));
    await h.settle();
    expect(h.messages).toEqual([request(1), request('two'), { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    h.input.end();
    await h.settle();
    expect(h.messages).toEqual([request(1), request('two'), { jsonrpc: '2.0', method: 'notifications/initialized' }, request(3)]);
    expect([h.errors, h.written()]).toEqual([[], []]);
  });

  it('answers a line that is not JSON with a parse error for id null, and one that is not JSON-RPC with an Invalid Request saying why, for its id when it has one', async () => {
    const h = harness();
    await h.transport.start();
    const lines: string[] = [
      'this is not json',
      '42',
      '[1, 2]',
      'null',
      '{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
      '{"jsonrpc": "2.0", "id": 2, "method": 42}',
      '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "stats"}',
      '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": [1]}',
      '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": null}',
      '{"jsonrpc": "2.0", "id": true, "method": "ping"}',
      '{"jsonrpc": "2.0", "id": 1e999, "method": 7}',
      '{"jsonrpc": "2.0"}',
      `{"jsonrpc": "2.0", "id": "x", "method": ${JSON.stringify(['a'.repeat(70)])}}`,
      `{"jsonrpc": "2.0", "id": "y", "method": ${JSON.stringify(['b'.repeat(56)])}}`,
      '"a string"',
    ];
    for (const line of lines) h.input.write(`${line}\n`);
    await h.settle();
    let parseError = '';
    try {
      JSON.parse('this is not json');
    } catch (error) {
      parseError = (error as Error).message.split('\n')[0]!;
    }
    const invalid = (id: string | number | null, message: string) => ({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${message}` } });
    const expected = [
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${parseError}` } },
      invalid(null, 'expected a JSON-RPC 2.0 object, got 42'),
      invalid(null, 'expected a JSON-RPC 2.0 object, got an array'),
      invalid(null, 'expected a JSON-RPC 2.0 object, got null'),
      invalid(1, 'jsonrpc: expected "2.0"'),
      invalid(2, 'method: expected a string, got 42'),
      invalid(3, 'params: expected an object, got "stats"'),
      invalid(4, 'params: expected an object, got an array'),
      invalid(5, 'params: expected an object, got null'),
      invalid(null, 'id: expected a string or a number, got true'),
      invalid(null, 'method: expected a string, got 7'),
      invalid(null, 'not a request, a notification or a response'),
      invalid('x', `method: expected a string, got ["${'a'.repeat(55)}...`), // cut to 60 characters
      invalid('y', `method: expected a string, got ["${'b'.repeat(56)}"]`), // 60: whole
      invalid(null, 'expected a JSON-RPC 2.0 object, got "a string"'),
    ];
    expect(h.written()).toEqual(expected);
    expect(h.errors).toEqual(expected.map((e) => e.error.message));
    expect(h.messages).toEqual([]);
  });

  it('strips a carriage return only at the end of a line: one inside a string is the client\'s error', async () => {
    const h = harness();
    await h.transport.start();
    const line = '{"jsonrpc": "2.0", "id": 1, "method": "pi\rng"}';
    h.input.write(`${line}\r\n`);
    await h.settle();
    let parseError = '';
    try {
      JSON.parse(line);
    } catch (error) {
      parseError = (error as Error).message.split('\n')[0]!;
    }
    expect(h.written()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${parseError}` } }]);
    expect(h.messages).toEqual([]);
  });

  it('skips a line over the limit as it arrives, answers it with its size and the limit, and serves the next line', async () => {
    const h = harness(40);
    await h.transport.start();
    const ping = JSON.stringify(request(8)); // exactly the limit: read
    expect(Buffer.byteLength(ping)).toBe(40);
    h.input.write('x'.repeat(30));
    h.input.write('y'.repeat(15)); // 45 bytes: over
    h.input.write(`${'z'.repeat(5)}\n${ping}\n`); // the long line ends at 50 bytes
    h.input.write(`${JSON.stringify(request(12345678))}\n`); // 47 bytes: over
    h.input.write(`${'w'.repeat(41)}\n`); // one byte over
    h.input.write(`${'w'.repeat(40)}\n`); // the limit: read (and not JSON)
    await h.settle();
    const over = (bytes: number) => ({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: a line of ${bytes} bytes, over the 40-byte limit for one request; it was skipped` } });
    let parseError = '';
    try {
      JSON.parse('w'.repeat(40));
    } catch (error) {
      parseError = (error as Error).message.split('\n')[0]!;
    }
    expect(h.written()).toEqual([over(50), over(47), over(41), { jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${parseError}` } }]);
    expect(h.messages).toEqual([request(8)]);
  });

  it('a line over the limit that ends with the input is answered too', async () => {
    const h = harness(10);
    await h.transport.start();
    h.input.end('a'.repeat(11));
    await h.settle();
    expect(h.written()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a line of 11 bytes, over the 10-byte limit for one request; it was skipped' } }]);
    expect(h.closed()).toBe(1);
  });

  it('at the end of input, closes once every request read is answered (an id used twice is owed twice; a cancelled one is not owed)', async () => {
    const h = harness();
    await h.transport.start();
    for (const m of [request(1), request(1), request('a'), request(2), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }, { jsonrpc: '2.0', method: 'notifications/initialized' }]) h.input.write(`${JSON.stringify(m)}\n`);
    h.input.end();
    await h.settle();
    expect(h.messages).toHaveLength(6);
    expect(h.closed()).toBe(0);
    await h.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await h.transport.send({ jsonrpc: '2.0', id: 'a', result: {} });
    await h.transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    expect(h.closed()).toBe(0); // the second request 1 is still owed
    await h.transport.send({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    expect(h.closed()).toBe(1);
    expect(h.written().map((m) => m.id ?? m.method)).toEqual([1, 'a', 'notifications/message', 1]);
    // once closed: nothing more is written, and closing again does nothing
    await h.transport.send({ jsonrpc: '2.0', id: 9, result: {} });
    await h.transport.close();
    expect([h.written(), h.closed()]).toEqual([[], 1]);
  });

  it('closes at once at the end of input when nothing is owed; an error answered for an id is counted as owed and settled', async () => {
    const h = harness();
    await h.transport.start();
    h.input.write('{"jsonrpc": "2.0", "id": 3, "method": 42}\n');
    h.input.end();
    await h.settle();
    expect([h.written().map((m) => m.id), h.closed()]).toEqual([[3], 1]);
  });

  it('a cancellation without a usable request id settles nothing', async () => {
    const h = harness();
    await h.transport.start();
    h.input.write(`${JSON.stringify(request(5))}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: true } })}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled' })}\n`);
    h.input.end();
    await h.settle();
    expect([h.messages.length, h.closed()]).toEqual([3, 0]);
    await h.transport.send({ jsonrpc: '2.0', id: 5, result: {} });
    expect(h.closed()).toBe(1);
  });

  it('an input error is reported; an output error (the client gone) closes the transport and stops reading', async () => {
    const h = harness();
    await h.transport.start();
    h.input.emit('error', new Error('EIO: read failed'));
    expect([h.errors, h.closed()]).toEqual([['EIO: read failed'], 0]);
    h.output.emit('error', new Error('EPIPE'));
    expect(h.closed()).toBe(1);
    h.input.write(`${JSON.stringify(request(1))}\n`);
    await h.settle();
    expect(h.messages).toEqual([]);
    expect(h.input.listenerCount('data') + h.input.listenerCount('end') + h.input.listenerCount('error') + h.output.listenerCount('error')).toBe(0);
    expect(h.input.isPaused()).toBe(true);
  });

  it('send waits for the output to drain when it is full', async () => {
    const chunks: string[] = [];
    let release: (() => void) | null = null;
    const output = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        release = callback;
      },
    });
    const transport = new StdioLines(new PassThrough(), output);
    await transport.start();
    let sent = false;
    const sending = transport.send({ jsonrpc: '2.0', id: 1, result: {} }).then(() => (sent = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect([chunks, sent]).toEqual([['{"jsonrpc":"2.0","id":1,"result":{}}\n'], false]);
    release!();
    await sending;
    expect(sent).toBe(true);
    await transport.close();
  });
});
