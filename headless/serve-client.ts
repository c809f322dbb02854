import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import * as nodePath from 'node:path';
import { buildStamp, PROTOCOL, servedCommand, SOCKET_PATH_MAX, socketPath, type Reply, type Request } from './serve-protocol';
import { vaultRoot } from './vault-root';

/**
 * The launcher's side of `engram serve` (headless/serve.ts): before it loads the CLI bundle, the
 * launcher asks here whether the vault's server runs the command. It does when the command is one
 * a server runs (serve-protocol.ts), the vault resolves as the CLI would resolve it, its socket
 * exists and a server answers it with anything but a fallback. Everything else (no server, a
 * stale socket of a killed server, another build, ENGRAM_NO_SERVE set) returns null before any
 * output, and the launcher runs the command itself, as it always did. What this adds to a command
 * without a server: a look at its argument list, and one existsSync.
 */
export interface ClientProcess {
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  platform: string;
  /** The CLI bundle the launcher would run (its stamp must be the server's). */
  bundle: string;
  readStdin: () => string;
  isatty: (fd: number) => boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The process's folder, and a way to change it (a socket path too long for connect(2) is reached from its folder). */
  chdir: (dir: string) => void;
  processCwd: () => string;
}

/** What the server's command exited with; null when no server ran it. `stdin`: what was read of standard input, for the launcher's own run. */
export async function viaServer(client: ClientProcess): Promise<{ status: number | null; stdin: string | null }> {
  const none = { status: null, stdin: null };
  if (client.env.ENGRAM_NO_SERVE) return none;
  const served = servedCommand(client.argv);
  if (!served) return none;
  let root: string;
  try {
    root = vaultRoot({ vault: served.vault, cwd: client.cwd, env: client.env });
  } catch {
    return none; // the CLI says what is wrong
  }
  const path = socketPath(root, client.platform);
  if (client.platform !== 'win32' && !existsSync(path)) return none;
  const net = require('node:net') as typeof import('node:net');
  const socket = connect(net, path, client);
  if (!socket) return none;
  let stdin: string | null = null;
  return new Promise((resolve) => {
    let text = '';
    let answered = false;
    let exit: number | null = null;
    let done = false;
    const finish = (status: number | null) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ status, stdin });
    };
    socket.once('connect', () => {
      if (served.readsStdin) stdin = client.readStdin();
      const request: Request = {
        protocol: PROTOCOL,
        build: buildStamp(client.bundle),
        root,
        argv: client.argv,
        cwd: client.cwd,
        env: client.env,
        stdin,
        stdinIsTTY: !served.readsStdin && client.isatty(0),
        stdoutIsTTY: client.isatty(1),
      };
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      let end: number;
      while (!done && (end = text.indexOf('\n')) !== -1) {
        const line = text.slice(0, end);
        text = text.slice(end + 1);
        let reply: Reply;
        try {
          reply = JSON.parse(line) as Reply;
        } catch {
          reply = { fallback: 'garbled reply' };
        }
        if ('fallback' in reply) {
          if (!answered) return finish(null);
        } else if ('out' in reply) client.stdout(reply.out);
        else if ('err' in reply) client.stderr(reply.err);
        else if ('exit' in reply) exit = reply.exit;
        answered = true;
      }
    });
    socket.on('error', () => undefined); // 'close' follows
    socket.on('close', () => {
      if (exit !== null) return finish(exit);
      if (!answered) return finish(null); // refused (a stale socket), or closed before answering: nothing was done
      client.stderr('engram: the server (engram serve) stopped before the command finished\n');
      finish(1);
    });
  });
}

/** A connection under way to the socket; null when it cannot even start. */
function connect(net: typeof import('node:net'), path: string, client: ClientProcess): Socket | null {
  if (client.platform === 'win32' || path.length <= SOCKET_PATH_MAX) return net.connect(path);
  // too long for sun_path: connect(2) takes the name relative to the folder, and runs now
  const here = client.processCwd();
  try {
    client.chdir(nodePath.dirname(path));
    return net.connect(nodePath.basename(path));
  } catch {
    return null;
  } finally {
    try {
      client.chdir(here);
    } catch {
      // the folder we were in is gone: the command runs where it can
    }
  }
}
