import { readFileSync } from 'node:fs';
import { runCli } from './cli';

// A reader that went away (`engram stats | head -1`) is not an error: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/** The `engram` executable: the CLI bound to the process's streams. */
void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readFileSync(0, 'utf8'),
  stdinIsTTY: Boolean(process.stdin.isTTY),
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  cwd: process.cwd(),
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
