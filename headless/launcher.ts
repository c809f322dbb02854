import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import * as nodePath from 'node:path';
import { Script } from 'node:vm';

/**
 * The `engram` executable (dist/engram.js): runs the CLI bundle (dist/engram-cli.js) through
 * V8's code cache, as Node 22's module.enableCompileCache() does for every module. A cold
 * command otherwise compiles the ~470 KB bundle (and every function it calls) again in each
 * process. The cache is per user, in $ENGRAM_COMPILE_CACHE or $XDG_CACHE_HOME/engram or
 * ~/.cache/engram (ENGRAM_COMPILE_CACHE=off: none); its name carries the bundle's size, mtime
 * and inode and the Node version, and V8 itself rejects data made for another source or
 * engine, so a stale or foreign file only costs one compile. It is written once, at exit
 * (so it holds the functions the command compiled), atomically, removing the caches of other
 * builds not read for a week; any failure is ignored.
 */

const bundle = nodePath.join(__dirname, 'engram-cli.js');
/**
 * import() inside a vm.Script has no loader on Node 20 ('A dynamic import callback was not
 * specified'; the main-context loader is experimental and warns there). The bundle loads its
 * optional runtimes (transformers.js) through this importer instead: the launcher is an ordinary
 * module, beside the bundle, so names resolve from the same place.
 */
(globalThis as Record<symbol, unknown>)[Symbol.for('engram.import')] = (name: string): Promise<unknown> => import(name);
const source = readFileSync(bundle, 'utf8');
if (source.length === 0) {
  // a bundle being rewritten in place (an install, a build) reads empty for a moment: running
  // it would run nothing and exit 0, a `remember` that said it succeeded without remembering
  process.stderr.write(`engram: ${bundle} is empty (being installed or built right now?): run the command again\n`);
  process.exit(1);
}
const cacheFile = cachePath();
let cached: Buffer | undefined;
try {
  if (cacheFile) cached = readFileSync(cacheFile);
} catch {
  cached = undefined;
}
const script = new Script(Module.wrap(source), { filename: bundle, cachedData: cached });
if (cacheFile && (!cached || script.cachedDataRejected)) process.once('exit', () => saveCache(cacheFile));
const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
const cliModule = { exports: {}, filename: bundle, id: bundle, loaded: false };
run.call(cliModule.exports, cliModule.exports, createRequire(bundle), cliModule, bundle, __dirname);

/** Another build's cache not read for this long is removed when a cache is written. */
const STALE_CACHE_MS = 7 * 86_400_000;

function cachePath(): string | null {
  const setting = process.env.ENGRAM_COMPILE_CACHE;
  if (setting === 'off' || setting === '0') return null;
  try {
    const dir = setting || nodePath.join(process.env.XDG_CACHE_HOME || nodePath.join(homedir(), '.cache'), 'engram');
    const s = statSync(bundle);
    return nodePath.join(dir, `engram-cli-${process.version}-${process.arch}-${s.size}-${Math.round(s.mtimeMs)}-${s.ino}.v8cache`);
  } catch {
    return null;
  }
}

function saveCache(file: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    mkdirSync(nodePath.dirname(file), { recursive: true, mode: 0o700 });
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    const dir = nodePath.dirname(file);
    // Other builds' caches go once unused for a week: two builds used in turn (a global and a
    // project's engram, or a benchmark comparing builds) removed each other's at every write,
    // so neither ran from its cache.
    for (const name of readdirSync(dir)) {
      if (!/^engram-cli-.*\.v8cache$/.test(name) || name === nodePath.basename(file)) continue;
      const other = nodePath.join(dir, name);
      if (Date.now() - statSync(other).atimeMs > STALE_CACHE_MS) unlinkQuietly(other);
    }
  } catch {
    unlinkQuietly(temp);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or not ours to remove
  }
}
