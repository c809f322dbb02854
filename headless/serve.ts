import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import * as nodePath from 'node:path';
import { EngramError } from '../src/core/errors';
import type { CliIO, WarmRecall } from './command';
import { runCli } from './cli';
import { WarmVault } from './mcp/warm-vault';
import { openVault, vaultRoot, type RuntimeOptions } from './runtime';
import { PROTOCOL, SOCKET_NAME, SOCKET_PATH_MAX, socketPath, type Reply, type Request } from './serve-protocol';

/**
 * `engram serve`: one vault held warm for the command line. The launcher (dist/engram.js,
 * headless/serve-client.ts) of `engram recall`, `context` and `touch` finds the vault's socket
 * (`.engram/serve.sock`; a named pipe on Windows) and has the command run here instead of
 * starting the CLI and reading the vault again: a cold command at 10,000 memories lists and
 * stats every file (about 2x `node -e 0` for that alone) and loads the recall snapshot, where this
 * process follows the vault with a watch on each memory folder (WarmVault, as `engram mcp` does)
 * and answers from memory.
 *
 * The answer is the one the command gives in its own process: the same command code runs here
 * (runCli, with the client's arguments, folder, environment and terminals), only the recall
 * engine comes from WarmVault, which turns the event loop once before each request so a save
 * made before the request was sent has been seen (the watch's events are queued by then). A
 * request this process cannot answer as the client would is sent back (`fallback`) before
 * anything is done, and the client runs the command itself: another vault, another build of
 * engram (the server then exits: it is out of date), or a command that wants standard input the
 * client did not send. Requests run one at a time, in the order they come.
 */
export interface ServeOptions {
  runtime: RuntimeOptions;
  /** The CLI bundle's stamp (serve-protocol.ts buildStamp): requests of another build fall back. */
  build: string;
  /** Exit after this long without a request; null: serve until stopped. */
  idleMs: number | null;
  /** Messages for the person who started the server (stderr). */
  log: (message: string) => void;
  platform?: string;
  /** A warm vault to share (engram mcp's): not loaded at start nor closed here, its warnings its owner's. */
  warm?: WarmVault;
  /** The idle timer (tests inject one); setTimeout's by default. */
  timer?: (run: () => void, ms: number) => { cancel(): void };
}

const realTimer = (run: () => void, ms: number) => {
  const handle = setTimeout(run, ms);
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
};

export class CliServer {
  readonly root: string;
  readonly socket: string;
  private readonly warm: WarmVault;
  private server: Server | null = null;
  private queue: Promise<void> = Promise.resolve();
  private idle: { cancel(): void } | null = null;
  private closed: Promise<void> | null = null;
  private resolveClosed: (() => void) | null = null;
  /** The request being run: where the warm vault's warnings go meanwhile. */
  private current: CliIO | null = null;
  /** Requests answered here, and sent back to the client. */
  readonly counts = { served: 0, fallback: 0 };

  constructor(private readonly options: ServeOptions) {
    this.root = vaultRoot(options.runtime);
    this.socket = socketPath(this.root, options.platform);
    this.warm =
      options.warm ??
      new WarmVault({ ...options.runtime, vault: this.root }, (message) => {
        if (this.current) this.current.stderr(`engram: ${message}\n`);
        else options.log(message);
      });
  }

  /** Loads the vault (every document, indexed), then listens. Throws when the vault is served already. */
  async start(): Promise<void> {
    openVault({ ...this.options.runtime, vault: this.root }); // not a vault: an error now, not a dead server
    // its own vault loaded before it listens: the first command is answered as fast as the next
    if (!this.options.warm) await this.warm.loadNow();
    const net = require('node:net') as typeof import('node:net');
    // a path longer than sun_path is reached by its name from its folder (the client does the same):
    // this process stays in that folder, where the socket file is removed when it stops
    const long = this.socket.length > SOCKET_PATH_MAX && this.options.platform !== 'win32';
    if (long) process.chdir(nodePath.dirname(this.socket));
    const address = long ? SOCKET_NAME : this.socket;
    if (this.options.platform !== 'win32' && existsSync(this.socket)) {
      if (await answers(net, address)) throw new EngramError(`${this.root} is served already (${this.socket})`);
      unlinkSync(this.socket); // left by a server that was killed
    }
    const server = net.createServer((connection) => this.accept(connection));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        // a named pipe (Windows) in use, or a socket made by another server since the check above
        reject(error.code === 'EADDRINUSE' ? new EngramError(`${this.root} is served already (${this.socket})`) : error),
      );
      server.listen(address, () => {
        server.removeAllListeners('error');
        // the owner's only: a command run here writes to the vault (touch) with this process's rights
        if (this.options.platform !== 'win32') chmodSync(this.socket, 0o600);
        resolve();
      });
    });
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.touchIdle();
  }

  /** Resolves when the server has stopped (close, idle, or an out-of-date build). */
  stopped(): Promise<void> {
    return this.closed ?? Promise.resolve();
  }

  /** Stops listening (the socket file is removed), after the request under way. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    this.idle?.cancel();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await this.queue;
    if (!this.options.warm) this.warm.close();
    this.resolveClosed?.();
  }

  private touchIdle(): void {
    this.idle?.cancel();
    const ms = this.options.idleMs;
    if (ms === null || !this.server) return;
    this.idle = (this.options.timer ?? realTimer)(() => {
      this.options.log(`no request for ${ms / 60_000} min: stopping`);
      void this.close();
    }, ms);
  }

  private accept(connection: Socket): void {
    let text = '';
    connection.setEncoding('utf8');
    connection.on('error', () => undefined); // a client that went away
    connection.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end === -1) return;
      connection.removeAllListeners('data');
      const line = text.slice(0, end);
      this.queue = this.queue.then(() => this.answer(line, connection));
    });
  }

  private async answer(line: string, connection: Socket): Promise<void> {
    this.touchIdle();
    const replies = await this.handle(line);
    if (connection.writable) connection.end(replies.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  /** The replies to one request line. */
  async handle(line: string): Promise<Reply[]> {
    let request: Request;
    try {
      request = JSON.parse(line) as Request;
    } catch {
      return this.fallback('not a request');
    }
    if (request.protocol !== PROTOCOL) return this.fallback('another protocol');
    if (request.build !== this.options.build) {
      // engram was rebuilt or upgraded under this process: its code is not the client's any more
      this.options.log('engram was rebuilt or upgraded since this server started: stopping (start it again)');
      setImmediate(() => void this.close());
      return this.fallback('another build');
    }
    if (request.root !== this.root) return this.fallback('another vault');
    if (!Array.isArray(request.argv) || !request.argv.every((a) => typeof a === 'string')) return this.fallback('not a request');
    const out: Reply[] = [];
    let wantsStdin = false;
    const io: CliIO = {
      stdout: (text) => out.push({ out: text }),
      stderr: (text) => out.push({ err: text }),
      readStdin: () => {
        if (request.stdin === null) {
          wantsStdin = true;
          throw new EngramError('standard input is read by the calling process');
        }
        return request.stdin;
      },
      stdinIsTTY: request.stdinIsTTY,
      stdoutIsTTY: request.stdoutIsTTY,
      cwd: request.cwd,
      env: request.env,
      warm: this.recall,
    };
    this.current = io;
    let status: number;
    try {
      // one request of the warm vault: a background preload (engram mcp's) runs no slice meanwhile
      status = await this.warm.serve(() => runCli(request.argv, io));
    } finally {
      this.current = null;
    }
    if (wantsStdin) return this.fallback('reads standard input');
    this.counts.served++;
    return [...merged(out), { exit: status }];
  }

  private fallback(reason: string): Reply[] {
    this.counts.fallback++;
    return [{ fallback: reason }];
  }

  /** The recall engine the served commands use (command.ts WarmRecall). */
  private readonly recall: WarmRecall = {
    engine: async (root) => {
      if (root !== this.root) return null;
      await this.warm.loadNow(); // the documents, for the count of unreadable files (at once after start)
      const engine = await this.warm.engine();
      return { engine, unreadable: this.warm.unreadable() };
    },
    vectorSeeds: (queries) => this.warm.vectorSeeds(queries),
  };
}

/** Consecutive replies to the same stream as one. */
function merged(replies: Reply[]): Reply[] {
  const out: Reply[] = [];
  for (const reply of replies) {
    const last = out[out.length - 1];
    if (last && 'out' in last && 'out' in reply) last.out += reply.out;
    else if (last && 'err' in last && 'err' in reply) last.err += reply.err;
    else out.push({ ...reply });
  }
  return out;
}

/** Whether a server answers on the socket (a connection accepted). */
function answers(net: typeof import('node:net'), path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}


/** How often a process that found its vault served by another tries to serve it again (that one may have stopped). */
export const RETRY_MS = 30_000;

/** The command line's socket as a warm process serves it alongside its own work: the server while it holds it, and a stop. */
export interface Alongside {
  readonly current: CliServer | null;
  close(): Promise<void>;
}

/**
 * The command line's socket served by a process that holds the vault warm anyway (engram mcp).
 * When another process serves the vault, this one tries again every RETRY_MS and takes over once
 * that one has stopped (several agents' MCP servers on one vault: the command line stays served
 * while any of them runs). ENGRAM_NO_SERVE set: nothing is served. A failure to listen other
 * than "served already" is said once and the process goes on without it.
 */
export async function serveAlongside(options: Omit<ServeOptions, 'idleMs'> & { warm: WarmVault }): Promise<Alongside> {
  let current: CliServer | null = null;
  let retry: { cancel(): void } | null = null;
  let closed = false;
  const attempt = async (first: boolean): Promise<void> => {
    retry = null;
    const server = new CliServer({ ...options, idleMs: null });
    try {
      await server.start();
      if (closed) return void (await server.close());
      current = server;
      options.log(`recall, context and touch at the command line are answered here too (${server.socket})`);
    } catch (error) {
      const served = error instanceof EngramError && error.message.includes('is served already');
      if (!served) {
        if (first) options.log(`not serving the command line: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      if (!closed) retry = (options.timer ?? realTimer)(() => void attempt(false), RETRY_MS);
    }
  };
  if (!options.runtime.env.ENGRAM_NO_SERVE) await attempt(true);
  return {
    get current() {
      return current;
    },
    async close() {
      closed = true;
      retry?.cancel();
      await current?.close();
    },
  };
}
