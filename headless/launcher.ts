import { homedir, tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { readFileSync, statSync } from 'node:fs';
import { bundleFor, CLI_BUNDLE, launchFlag } from './bundles';
import { CachedBundle, cacheFileFor, processSettings, readSource } from './compile-cache';
import { viaServer } from './serve-client';
import { servedCommand, vaultOption } from './serve-protocol';
import { readStdinSync } from './stdin';
import { vaultRoot } from './vault-root';
import { writeAllSync } from './stdout';

/**
 * The `engram` executable (dist/engram.js): runs the CLI bundle (dist/engram-cli.js), or the
 * bundle of the one command the line names when that command is built alone (headless/bundles.ts),
 * through V8's code cache (headless/compile-cache.ts: one cache a command, per user, written at
 * the exit of a command that succeeded; ENGRAM_NO_COMPILE_CACHE=1 or ENGRAM_COMPILE_CACHE=off:
 * none). A cold command otherwise compiles the bundle (and every function it calls) again in each
 * process.
 */

const argv = process.argv.slice(2);
/** The CLI bundle: its build is the one `engram serve` must be (serve-client.ts). */
const cliBundle = nodePath.join(__dirname, CLI_BUNDLE);
const bundle = nodePath.join(__dirname, bundleFor(argv));
/**
 * import() inside a vm.Script has no loader on Node 20 ('A dynamic import callback was not
 * specified'; the main-context loader is experimental and warns there). The bundle loads its
 * optional runtimes (transformers.js) through this importer instead: the launcher is an ordinary
 * module, beside the bundle, so names resolve from the same place.
 */
(globalThis as Record<symbol, unknown>)[Symbol.for('engram.import')] = (name: string): Promise<unknown> => import(name);
/** The command run here: the bundle through the code cache. `stdin`: standard input the client already read (main.ts takes it). */
function runHere(stdin: string | null): void {
  if (stdin !== null) (globalThis as Record<symbol, unknown>)[Symbol.for('engram.stdin')] = stdin;
  // before the bundle is compiled or read from its cache: V8 rejects a cache made under other
  // flags, so the flag names the cache too (one a command and flag)
  const flag = launchFlag(argv, () => rootOf(argv), mtimeOf, sizeOf, textOf);
  // node:v8 only where a flag is set: loading it loads heap_utils and node:stream with it, ~35 M
  // instructions (callgrind, --single-threaded: a cold touch at 10k 612-676 -> 578-642 M, node -e 0
  // 510 M) that a touch and every command `engram serve` answers paid for nothing
  if (flag !== null) (require('node:v8') as typeof import('node:v8')).setFlagsFromString(flag);
  const source = readSource(bundle);
  if (source.length === 0) {
    // a bundle being rewritten in place (an install, a build) reads empty for a moment: running
    // it would run nothing and exit 0, a `remember` that said it succeeded without remembering
    process.stderr.write(`engram: ${bundle} is empty (being installed or built right now?): run the command again\n`);
    process.exit(1);
  }
  const settings = processSettings(homedir, tmpdir);
  const cli = new CachedBundle(bundle, source, cacheFileFor(bundle, argv, flag === null ? settings : { ...settings, execArgv: [...settings.execArgv, flag] }));
  if (cli.needsSave)
    process.once('exit', (code) => {
      if (code === 0) cli.save();
    });
  cli.run();
}

/** The vault the command line names, or null (none found: the command says so itself). */
function rootOf(args: readonly string[]): string | null {
  try {
    return vaultRoot({ vault: vaultOption(args), cwd: process.cwd(), env: process.env });
  } catch {
    return null;
  }
}

function sizeOf(path: string): number | null {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size ?? null;
  } catch {
    return null;
  }
}

function textOf(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function mtimeOf(path: string): number | null {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
  } catch {
    return null;
  }
}

// recall, context and touch go to the vault's `engram serve` when one runs (headless/serve-client.ts)
if (servedCommand(argv) && !process.env.ENGRAM_NO_SERVE) {
  void viaServer({
    argv,
    cwd: process.cwd(),
    env: process.env,
    platform: process.platform,
    bundle: cliBundle,
    readStdin: () => readStdinSync(0),
    isatty: (fd) => (require('node:tty') as typeof import('node:tty')).isatty(fd),
    stdout: (text) => writeAllSync(1, text),
    stderr: (text) => writeAllSync(2, text),
    chdir: (dir) => process.chdir(dir),
    processCwd: () => process.cwd(),
  }).then(({ status, stdin }) => {
    if (status === null) runHere(stdin);
    else process.exitCode = status;
  });
} else runHere(null);
