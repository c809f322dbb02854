import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import Module, { createRequire } from 'node:module';
import * as nodePath from 'node:path';
import { Script } from 'node:vm';

/**
 * V8's code cache for the CLI bundle (dist/engram-cli.js), used by the launcher (dist/engram.js).
 * Node 22's module.enableCompileCache() is not used even where it exists: it makes each module's
 * cache when the module is compiled, before it runs, so it holds only the functions V8 compiles
 * eagerly; this one is made at exit, after the command ran, and holds every function the command
 * compiled (V8 compiles each function at its first call: without it a cold command compiled its
 * own code again in each process). And it works on Node 20, which has no compile cache.
 *
 * One cache a command (`touch`, `recall`, ...; `cli` for `--version`, `--help` and no command): a
 * cache holds what the run that wrote it compiled, and V8 deserialises all of it at each start,
 * so a touch neither pays for recall's functions nor compiles its own because a `--version` wrote
 * the cache first. It is written only by a command that exits 0 (a usage error compiles next to
 * nothing) and only when there is none or V8 rejected it (another V8, other flags, a corrupt
 * file): reading, writing or using it never changes what a command prints or its exit status.
 */

/**
 * The bundle's text. The build writes it in ASCII (esbuild.config.mjs): read as one-byte text it
 * is a one-byte string, with no UTF-8 decoding (~9 ms of a cold start, two-byte otherwise); a
 * bundle that is not ASCII is decoded as UTF-8.
 */
export function readSource(bundle: string): string {
  const bytes = readFileSync(bundle);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/** Where the caches go, read from the process (injected by the tests). */
export interface CacheSettings {
  env: Readonly<Record<string, string | undefined>>;
  platform: string;
  /** the user's home folder, '' when unknown */
  home: string;
  tmpdir: string;
  /** process.getuid(), null where there is none (Windows) */
  uid: number | null;
  nodeVersion: string;
  arch: string;
  /** node's own options (process.execArgv): V8 rejects a cache made under other flags */
  execArgv: readonly string[];
}

export function processSettings(home: () => string, tmpdir: () => string): CacheSettings {
  let homeDir = '';
  try {
    homeDir = home();
  } catch {
    // no home folder (a service account without passwd entry): the temporary folder's
  }
  return {
    env: process.env,
    platform: process.platform,
    home: homeDir,
    tmpdir: tmpdir(),
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
    nodeVersion: process.version,
    arch: process.arch,
    execArgv: process.execArgv,
  };
}

/**
 * The folder of the caches: $ENGRAM_COMPILE_CACHE, else the platform's per-user cache folder
 * ($XDG_CACHE_HOME or ~/.cache, ~/Library/Caches, %LOCALAPPDATA%), else a folder of the
 * temporary one named for the user. null: no cache (ENGRAM_COMPILE_CACHE=off or 0,
 * ENGRAM_NO_COMPILE_CACHE set to anything but '' or 0, or nowhere to put it). `shared`: the folder
 * is in a place other users can write (the temporary folder), so it is used only when it is the
 * user's own and closed to others (a code cache is code: another user's file would run as ours).
 */
export function cacheFolder(s: CacheSettings): { dir: string; shared: boolean } | null {
  const off = s.env.ENGRAM_NO_COMPILE_CACHE;
  if (off !== undefined && off !== '' && off !== '0') return null;
  const setting = s.env.ENGRAM_COMPILE_CACHE;
  if (setting === 'off' || setting === '0') return null;
  if (setting) return { dir: setting, shared: false };
  if (s.platform === 'win32' && s.env.LOCALAPPDATA) return { dir: nodePath.join(s.env.LOCALAPPDATA, 'engram', 'cache'), shared: false };
  if (s.platform === 'darwin' && s.home) return { dir: nodePath.join(s.home, 'Library', 'Caches', 'engram'), shared: false };
  if (s.platform !== 'win32' && s.env.XDG_CACHE_HOME) return { dir: nodePath.join(s.env.XDG_CACHE_HOME, 'engram'), shared: false };
  if (s.home) return { dir: nodePath.join(s.home, '.cache', 'engram'), shared: false };
  if (s.uid === null) return null;
  return { dir: nodePath.join(s.tmpdir, `engram-cache-${s.uid}`), shared: true };
}

/** Global options that take a value: the token after them is not the command. */
const VALUED_OPTIONS = new Set(['--vault', '--now']);

/** The command a command line runs (its first word that is not an option), `cli` for none. */
export function commandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (VALUED_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-')) return /^[a-z][a-z0-9-]{0,31}$/.test(arg) ? arg : 'cli';
  }
  return 'cli';
}

/** FNV-1a, 32 bits, as 8 hex digits: names node's options in the cache's name without node:crypto. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * The cache's file for this bundle, Node, node's options and command, or null (no cache, or the
 * bundle cannot be stat'ed). The bundle's size, mtime and inode name its build: a rebuilt or
 * reinstalled bundle gets a new file (V8 also rejects data made for another source).
 */
export function cacheFileFor(bundle: string, args: readonly string[], s: CacheSettings): string | null {
  const folder = cacheFolder(s);
  if (!folder) return null;
  try {
    const st = statSync(bundle);
    const flags = [...s.execArgv, s.env.NODE_OPTIONS ?? ''].join('\0');
    const flagPart = flags === '' ? '' : `-o${fnv1a(flags)}`;
    const name = `engram-cli-${s.nodeVersion}-${s.arch}-${st.size}-${Math.round(st.mtimeMs)}-${st.ino}${flagPart}-${commandOf(args)}.v8cache`;
    if (folder.shared && !ownPrivateFolder(folder.dir, s.uid)) {
      // made now if missing; one that exists must be ours and closed to others
      try {
        mkdirSync(folder.dir, { mode: 0o700 });
      } catch {
        // exists (checked below) or cannot be made
      }
      if (!ownPrivateFolder(folder.dir, s.uid)) return null;
    }
    return nodePath.join(folder.dir, name);
  } catch {
    return null;
  }
}

function ownPrivateFolder(dir: string, uid: number | null): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Another cache not read for this long is removed when a cache is written. */
const STALE_CACHE_MS = 2 * 86_400_000;
/** At most this many caches are kept (the least recently read go first). */
const MAX_CACHES = 64;
const CACHE_NAME = /^engram-cli-.*\.v8cache$/;

/** The bundle compiled with its code cache; `run` evaluates it as Node's loader runs a module. */
export class CachedBundle {
  /** the cache's data was read (a file was there) */
  readonly cacheRead: boolean;
  /** V8 refused the data read (another V8 or flags, another source, a corrupt file) */
  readonly rejected: boolean;
  private readonly script: Script;

  constructor(
    readonly bundle: string,
    source: string,
    readonly cacheFile: string | null,
  ) {
    let cached: Buffer | undefined;
    try {
      if (cacheFile) cached = readFileSync(cacheFile);
    } catch {
      cached = undefined;
    }
    // an empty file (a write cut short by a crash) is no cache: written again at exit
    if (cached?.length === 0) cached = undefined;
    this.script = new Script(Module.wrap(source), { filename: bundle, cachedData: cached });
    this.cacheRead = cached !== undefined;
    this.rejected = this.cacheRead && this.script.cachedDataRejected === true;
  }

  /** A cache should be written after the run: there is none, or V8 rejected it. */
  get needsSave(): boolean {
    return this.cacheFile !== null && (!this.cacheRead || this.rejected);
  }

  /** Runs the bundle with the module wrapper's five arguments; returns its module.exports. */
  run(): unknown {
    const wrapper = this.script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
    const module = { exports: {}, filename: this.bundle, id: this.bundle, loaded: false };
    wrapper.call(module.exports, module.exports, createRequire(this.bundle), module, this.bundle, nodePath.dirname(this.bundle));
    return module.exports;
  }

  /**
   * Writes the cache (temporary file, then renamed over the name: a reader sees a whole file or
   * none) with every function compiled so far, and removes caches unused for two days beyond the
   * 64 most recent. Never throws: false when it could not write.
   */
  save(now = Date.now()): boolean {
    const file = this.cacheFile;
    if (!file) return false;
    const temp = `${file}.${process.pid}.tmp`;
    try {
      const data = this.script.createCachedData();
      const dir = nodePath.dirname(file);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const fd = openSync(temp, 'wx', 0o600);
      try {
        writeSync(fd, data);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, file);
      pruneCaches(dir, nodePath.basename(file), now);
      return true;
    } catch {
      unlinkQuietly(temp);
      return false;
    }
  }
}

/**
 * Other caches (other builds, other Nodes, commands not run lately) go once unread for two days,
 * and beyond the 64 most recently read. Two builds used in turn (a global and a project's engram,
 * a benchmark comparing builds) keep theirs: removing every other build's cache at each write
 * had neither run from its cache.
 */
function pruneCaches(dir: string, keep: string, now: number): void {
  try {
    const others = readdirSync(dir)
      .filter((name) => CACHE_NAME.test(name) && name !== keep)
      .map((name) => {
        const path = nodePath.join(dir, name);
        try {
          return { path, read: statSync(path).atimeMs };
        } catch {
          return { path, read: -1 };
        }
      })
      .sort((a, b) => b.read - a.read);
    others.forEach((other, i) => {
      if (i >= MAX_CACHES - 1 || now - other.read > STALE_CACHE_MS) unlinkQuietly(other.path);
    });
  } catch {
    // a folder we cannot list: nothing removed
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or not ours to remove
  }
}
