import type { CliIO } from './command';
import { readStdinSync } from './stdin';
import { writeAllSync } from './stdout';

/**
 * A command line run by the `engram` executable, bound to the process's streams, its exit status
 * the process's. `run`: the CLI (headless/cli.ts) or one command's bundle (headless/bundles.ts).
 * Standard input is never touched through `process.stdin` (creating that stream puts a pipe in
 * non-blocking mode, and a slow producer would then fail a read with EAGAIN); it is read from fd 0
 * directly. Results are written to fd 1 directly too (headless/stdout.ts), and whether fd 0 or 1
 * is a terminal is asked only by a command that reads it: process.stdout and node:tty load
 * node:net and node:stream, which most commands never use (`engram mcp`, which streams, creates
 * process.stdout itself).
 */
export function runInProcess(run: (argv: string[], io: CliIO) => Promise<number>): void {
  const isatty = (fd: number): boolean => (require('node:tty') as typeof import('node:tty')).isatty(fd);
  void run(process.argv.slice(2), {
    stdout: (text) => writeAllSync(1, text),
    stderr: (text) => process.stderr.write(text),
    // what the launcher read for `engram serve` before it fell back to running the command here
    readStdin: () => handedStdin() ?? readStdinSync(0),
    get stdinIsTTY() {
      return isatty(0);
    },
    get stdoutIsTTY() {
      return isatty(1);
    },
    cwd: process.cwd(),
    env: process.env,
  }).then((code) => {
    process.exitCode = code;
  });
}

/** Standard input the launcher already read (dist/engram.js, for a server that sent the command back), once. */
function handedStdin(): string | null {
  const key = Symbol.for('engram.stdin');
  const g = globalThis as Record<symbol, unknown>;
  const text = g[key];
  delete g[key];
  return typeof text === 'string' ? text : null;
}
