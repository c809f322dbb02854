import { isatty } from 'node:tty';
import { runCli } from './cli';
import { readStdinSync } from './stdin';

// A reader that went away (`engram stats | head -1`) is not an error: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/**
 * The `engram` executable: the CLI bound to the process's streams. Standard input is never
 * touched through `process.stdin` (creating that stream puts a pipe in non-blocking mode,
 * and a slow producer would then fail a read with EAGAIN); it is read from fd 0 directly.
 */
void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readStdinSync(0),
  stdinIsTTY: isatty(0),
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  cwd: process.cwd(),
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
