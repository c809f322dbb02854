import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CachedBundle, cacheFileFor, cacheFolder, commandOf, readSource, type CacheSettings } from '../../headless/compile-cache';
import { tempDir } from '../helpers/cli';

/**
 * The launcher's V8 code cache (headless/compile-cache.ts), in process on a small bundle: written
 * after a first run, used by the next, a corrupt or foreign file ignored and replaced, a folder
 * that cannot be written or read changing nothing a command returns; its folder and name.
 */
const root = path.join(__dirname, '..', '..');
const BUNDLE = [
  "'use strict';",
  'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }',
  'const quote = /[\u2018\u2019]/g;',
  "module.exports = { fib: fib(20), file: __filename, dir: __dirname, quote: 'it\u2019s'.replace(quote, \"'\") };",
].join('\n');
const EXPORTS = (file: string) => ({ fib: 6765, file, dir: path.dirname(file), quote: "it's" });

function settings(env: Record<string, string | undefined>, over: Partial<CacheSettings> = {}): CacheSettings {
  return { env, platform: 'linux', home: '/home/u', tmpdir: '/tmp', uid: 1000, nodeVersion: 'v20.0.0', arch: 'x64', execArgv: [], ...over };
}

describe('the compile cache', () => {
  let dir: string;
  let cleanup: () => void;
  let bundle: string;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    bundle = path.join(dir, 'dist', 'engram-cli.js');
    fs.mkdirSync(path.dirname(bundle));
    fs.writeFileSync(bundle, BUNDLE);
  });
  afterEach(() => cleanup());

  let copies = 0;
  /**
   * The bundle as a new process loads it. Each load names another copy of it: V8 keeps what this
   * process compiled by source and name, and a second compile of the same script would take that
   * without reading the cache given.
   */
  const load = (cacheDir: string, args = ['--vault', 'v', 'touch', 'mem-1']) => {
    const file = cacheFileFor(bundle, args, settings({ ENGRAM_COMPILE_CACHE: cacheDir }));
    const copy = path.join(dir, `copy-${++copies}`, 'engram-cli.js');
    fs.mkdirSync(path.dirname(copy));
    fs.copyFileSync(bundle, copy);
    return new CachedBundle(copy, readSource(copy), file);
  };
  const exportsOf = (b: CachedBundle) => EXPORTS(b.bundle);

  it('is written after a first run and used by the second', () => {
    const cacheDir = path.join(dir, 'cache');
    const first = load(cacheDir);
    const st = fs.statSync(bundle);
    const name = `engram-cli-v20.0.0-x64-${st.size}-${Math.round(st.mtimeMs)}-${st.ino}-touch.v8cache`;
    expect([first.cacheFile, first.cacheRead, first.rejected, first.needsSave]).toEqual([path.join(cacheDir, name), false, false, true]);
    expect(first.run()).toEqual(exportsOf(first));
    expect(first.save()).toBe(true);
    expect(fs.readdirSync(cacheDir)).toEqual([name]);
    expect(fs.statSync(path.join(cacheDir, name)).mode & 0o777).toBe(0o600);
    const second = load(cacheDir);
    expect([second.cacheRead, second.rejected, second.needsSave]).toEqual([true, false, false]);
    expect(second.run()).toEqual(exportsOf(second));
    // another command has its own cache
    expect(load(cacheDir, ['recall', 'x']).cacheRead).toBe(false);
  });

  it('ignores a corrupt or foreign file, and a save replaces it', () => {
    const cacheDir = path.join(dir, 'cache');
    const file = load(cacheDir).cacheFile!;
    fs.mkdirSync(cacheDir);
    const other = path.join(dir, 'other.js');
    fs.writeFileSync(other, `${BUNDLE}\nmodule.exports.more = 1;`);
    const foreign = new CachedBundle(other, readSource(other), path.join(dir, 'foreign.v8cache'));
    foreign.run();
    foreign.save();
    const good = load(cacheDir);
    good.run();
    good.save();
    const whole = fs.readFileSync(file);
    // garbage, another script's cache, a cut one (V8 checks its magic number, source length and
    // payload length; an empty file is no cache)
    for (const bytes of [Buffer.from('not a code cache, not even close'), fs.readFileSync(path.join(dir, 'foreign.v8cache')), whole.subarray(0, whole.length >> 1), Buffer.alloc(0)]) {
      fs.writeFileSync(file, bytes);
      const b = load(cacheDir);
      expect([b.cacheRead, b.rejected, b.needsSave]).toEqual(bytes.length === 0 ? [false, false, true] : [true, true, true]);
      expect(b.run()).toEqual(exportsOf(b));
      expect(b.save()).toBe(true);
      const again = load(cacheDir);
      expect([again.cacheRead, again.rejected]).toEqual([true, false]);
    }
  });

  it('changes nothing a command returns when its folder cannot be read or written', () => {
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, 'x');
    // a folder under a file: neither mkdir nor read can succeed, as root too
    const b = load(path.join(blocker, 'cache'));
    expect([b.cacheRead, b.needsSave]).toEqual([false, true]);
    expect(b.run()).toEqual(exportsOf(b));
    expect(b.save()).toBe(false);
    // the cache's name taken by a folder: read fails, write fails, the run does not
    const cacheDir = path.join(dir, 'cache');
    fs.mkdirSync(load(cacheDir).cacheFile!, { recursive: true });
    const c = load(cacheDir);
    expect([c.cacheRead, c.run(), c.save()]).toEqual([false, exportsOf(c), false]);
    expect(fs.readdirSync(cacheDir)).toHaveLength(1);
  });

  it('turns off with ENGRAM_NO_COMPILE_CACHE or ENGRAM_COMPILE_CACHE=off', () => {
    for (const env of [{ ENGRAM_NO_COMPILE_CACHE: '1' }, { ENGRAM_NO_COMPILE_CACHE: 'yes', ENGRAM_COMPILE_CACHE: '/c' }, { ENGRAM_COMPILE_CACHE: 'off' }, { ENGRAM_COMPILE_CACHE: '0' }]) {
      expect(cacheFolder(settings(env))).toBeNull();
      expect(cacheFileFor(bundle, [], settings(env))).toBeNull();
    }
    const off = new CachedBundle(bundle, readSource(bundle), null);
    expect([off.cacheRead, off.needsSave, off.run(), off.save()]).toEqual([false, false, EXPORTS(bundle), false]);
    expect(cacheFolder(settings({ ENGRAM_NO_COMPILE_CACHE: '0', ENGRAM_COMPILE_CACHE: '/c' }))).toEqual({ dir: '/c', shared: false });
    expect(cacheFolder(settings({ ENGRAM_NO_COMPILE_CACHE: '' }))).toEqual({ dir: '/home/u/.cache/engram', shared: false });
  });

  it('lives in the platform per-user cache folder, else a private folder of the temporary one', () => {
    const folders = [
      settings({ XDG_CACHE_HOME: '/x' }),
      settings({}),
      settings({ XDG_CACHE_HOME: '/x' }, { platform: 'darwin' }),
      settings({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local', XDG_CACHE_HOME: '/x' }, { platform: 'win32' }),
      settings({}, { home: '' }),
      settings({}, { home: '', uid: null, platform: 'win32' }),
    ].map(cacheFolder);
    expect(folders).toEqual([
      { dir: '/x/engram', shared: false },
      { dir: '/home/u/.cache/engram', shared: false },
      { dir: '/home/u/Library/Caches/engram', shared: false },
      { dir: path.join('C:\\Users\\u\\AppData\\Local', 'engram', 'cache'), shared: false },
      { dir: '/tmp/engram-cache-1000', shared: true },
      null,
    ]);
    // in the temporary folder: made private, and refused when open to others or someone else's
    const uid = process.getuid!();
    const shared = (tmp: string) => cacheFileFor(bundle, [], settings({}, { home: '', tmpdir: tmp, uid }));
    expect(path.dirname(shared(dir)!)).toBe(path.join(dir, `engram-cache-${uid}`));
    expect(fs.statSync(path.join(dir, `engram-cache-${uid}`)).mode & 0o777).toBe(0o700);
    fs.chmodSync(path.join(dir, `engram-cache-${uid}`), 0o777);
    expect(shared(dir)).toBeNull();
    expect(cacheFileFor(bundle, [], settings({}, { home: '', tmpdir: dir, uid: uid + 1 }))).toBeNull();
  });

  it('names the command, and node options when there are some', () => {
    expect([
      commandOf(['--vault', 'touch', 'recall', 'q']),
      commandOf(['--now', '2026-01-01T00:00:00Z', '--json', 'context', 'q']),
      commandOf(['--version']),
      commandOf([]),
      commandOf(['Recall']),
      commandOf(['--vault']),
      commandOf(['../x']),
    ]).toEqual(['recall', 'context', 'cli', 'cli', 'cli', 'cli', 'cli']);
    const name = (over: Partial<CacheSettings>, env = {}) => path.basename(cacheFileFor(bundle, ['show'], settings({ ENGRAM_COMPILE_CACHE: dir, ...env }, over))!).replace(/-\d+-\d+-\d+/, '');
    expect([name({}), name({ execArgv: ['--max-old-space-size=100'] }), name({}, { NODE_OPTIONS: '--max-old-space-size=100' })]).toEqual([
      'engram-cli-v20.0.0-x64-show.v8cache',
      'engram-cli-v20.0.0-x64-o5f9e8b8c-show.v8cache',
      'engram-cli-v20.0.0-x64-o075fadc4-show.v8cache',
    ]);
  });

  it('reads the built bundle as ASCII, and the runner writes its cache at a successful exit only', () => {
    const built = path.join(root, 'dist', 'engram-cli.js');
    expect(fs.readFileSync(built).every((b) => b < 0x80)).toBe(true);
    const cacheDir = path.join(dir, 'cache');
    const env = { ...process.env, ENGRAM_COMPILE_CACHE: cacheDir, ENGRAM_NO_COMPILE_CACHE: '' };
    const engram = path.join(root, 'dist', 'engram.js');
    expect(() => execFileSync(process.execPath, [engram, 'no-such-command'], { env, stdio: 'pipe' })).toThrow();
    expect(fs.existsSync(cacheDir)).toBe(false);
    expect(execFileSync(process.execPath, [engram, '--version'], { env, encoding: 'utf8' })).toBe(`${(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    expect(fs.readdirSync(cacheDir).map((f) => f.replace(/-\d+-\d+-\d+-/, '-'))).toEqual([`engram-cli-${process.version}-${process.arch}-cli.v8cache`]);
  });
});
