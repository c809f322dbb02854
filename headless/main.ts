import { readFileSync } from 'node:fs';
import { runCli } from './cli';

/** The `engram` executable: the CLI bound to the process's streams. */
void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readFileSync(0, 'utf8'),
  stdinIsTTY: Boolean(process.stdin.isTTY),
  cwd: process.cwd(),
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
