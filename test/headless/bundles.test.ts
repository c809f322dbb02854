import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { baselineTier, BASELINE_FLAG, BASELINE_MAX_SNAPSHOT, bundleFor, CHANGES_FILE, changesSince, changesText, CONSOLIDATE_MAX_INDEX, consolidateTier, importTier, launchFlag, MAX_NOTED_CHANGES, MEMORY_CACHE_FILE, REBUILD_FLAG, rebuildTier, REMEMBER_MAX_INDEX, rememberTier, WRITE_INDEX_FILE, CLI_BUNDLE, COMMAND_BUNDLES, SNAPSHOT_FILE, snapshotFresh, TIER_FOLDERS } from '../../headless/bundles';
import { MEMORY_CACHE_PATH } from '../../src/core/memory-cache';
import { changesBefore, noteChange } from '../../headless/recall-changes';
import { MEMORY_ROOTS } from '../../src/core/memory-files';
import { SNAPSHOT_PATH } from '../../src/core/recall/snapshot';
import { WRITE_INDEX_PATH } from '../../src/core/write-index';
import { COMMANDS } from '../../headless/commands';
import { touchCommand } from '../../headless/use-commands';
import { contextCommand, recallCommand } from '../../headless/read-commands';
import { engram, initVault } from '../helpers/cli';

/**
 * The bundles the launcher chooses between (headless/bundles.ts): `engram touch` runs from a
 * bundle of its own (dist/engram-touch.js), `recall` and `context` from theirs (dist/engram-read.js),
 * with the CLI's parser, help and commands, so they print, write and exit as the CLI does; the YAML libraries are a bundle of their own
 * (dist/engram-yaml.js) that neither command bundle holds, loaded for frontmatter written by hand.
 */
const root = path.join(__dirname, '..', '..');
const DIST = path.join(root, 'dist');
const ENGRAM = path.join(DIST, 'engram.js');
const NOW = '2026-11-10T10:00:00Z';

function run(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [ENGRAM, ...args], { env: { ...process.env, ENGRAM_NO_COMPILE_CACHE: '1', ENGRAM_NO_SERVE: '1', ...env } });
  return { code: res.status, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

describe('bundleFor', () => {
  it('names the bundle of the command the CLI would run, the CLI bundle for everything else', () => {
    const cases: Array<[string[], string]> = [
      [['touch', 'mem-aaaaaaaaaaaa'], 'engram-touch.js'],
      [['--vault', 'v', '--json', 'touch', 'a', 'b'], 'engram-touch.js'],
      [['--now', '2026-01-01T00:00:00Z', 'touch', '--help'], 'engram-touch.js'],
      [['--vault', 'touch', 'recall', 'q'], 'engram-read.js'],
      [['recall', 'touch'], 'engram-read.js'],
      [['--json', 'context', '--hook'], 'engram-read.js'],
      [['context'], 'engram-read.js'],
      [['--vault', 'context', 'stats'], CLI_BUNDLE],
      [['help', 'touch'], CLI_BUNDLE],
      [['help', 'recall'], CLI_BUNDLE],
      [['--', 'touch'], CLI_BUNDLE],
      [['recalls'], CLI_BUNDLE],
      [['Touch'], CLI_BUNDLE],
      [['touchy'], CLI_BUNDLE],
      [['toString'], CLI_BUNDLE],
      [['--version'], CLI_BUNDLE],
      [[], CLI_BUNDLE],
    ];
    expect(cases.map(([argv]) => bundleFor(argv))).toEqual(cases.map(([, bundle]) => bundle));
  });

  it("runs a command alone only where the CLI's table has the very same command, and the build writes each bundle", () => {
    expect(COMMAND_BUNDLES).toEqual({ touch: 'engram-touch.js', recall: 'engram-read.js', context: 'engram-read.js' });
    expect(COMMANDS.touch).toBe(touchCommand);
    expect(COMMANDS.recall).toBe(recallCommand);
    expect(COMMANDS.context).toBe(contextCommand);
    const config = readFileSync(path.join(root, 'esbuild.config.mjs'), 'utf8');
    for (const file of [CLI_BUNDLE, ...Object.values(COMMAND_BUNDLES), 'engram-yaml.js']) expect(config).toContain(`outfile: 'dist/${file}'`);
  });
});

describe('rememberTier', () => {
  const sizeOf = (bytes: Record<string, number>) => (p: string) => (Object.hasOwn(bytes, p) ? bytes[p]! : null);
  // a 10k vault's write index (3.4 MB)
  const index = { '/v/.engram/cache/write-index.json': 3_359_016 };

  it('runs a remember without the optimising compiler where the write index is there and at most 8 MB, nothing else', () => {
    expect([WRITE_INDEX_FILE, REMEMBER_MAX_INDEX]).toEqual([WRITE_INDEX_PATH, 8 * 1024 * 1024]);
    const cases: Array<[string[], string | null, Record<string, number>, boolean]> = [
      [['remember', 'The deploy moved to Tuesdays.'], '/v', index, true],
      [['--now', NOW, '--json', 'remember', 'text'], '/v', index, true],
      [['remember', 'text'], '/v', { '/v/.engram/cache/write-index.json': REMEMBER_MAX_INDEX }, true],
      // a 100k vault's index, none (a fresh clone), no vault found
      [['remember', 'text'], '/v', { '/v/.engram/cache/write-index.json': REMEMBER_MAX_INDEX + 1 }, false],
      [['remember', 'text'], '/v', {}, false],
      [['remember', 'text'], null, index, false],
      [['import', 'x.jsonl'], '/v', index, false],
      [['recall', 'remember'], '/v', index, false],
      [['--', 'remember', 'x'], '/v', index, false],
    ];
    expect(cases.map(([argv, root, bytes]) => rememberTier(argv, () => root, sizeOf(bytes)))).toEqual(cases.map((c) => c[3]));
    // the flag it gives, from the launcher's choice, and none where no snapshot or index asks for one
    expect([launchFlag(['remember', 'text'], () => '/v', () => null, sizeOf(index)), launchFlag(['remember', 'text'], () => '/v', () => null, sizeOf({}))]).toEqual([BASELINE_FLAG, null]);
    // no vault found: no flag, whatever a file of that name in the working folder would say
    expect(rememberTier(['remember', 'text'], () => null, () => 1_000)).toBe(false);
  });

  it('gives a remember run from outside its vault (--vault DIR) the flag, and one the vault has no write index for none: its code cache says which', async () => {
    const { dir, vault, cleanup } = await initVault();
    try {
      const lines = path.join(dir, 'lines.jsonl');
      writeFileSync(lines, Array.from({ length: 20 }, (_, i) => JSON.stringify({ text: `Imported note ${i} on the deploy train.` })).join('\n'));
      expect((await engram(vault, ['--now', NOW, 'import', lines])).code).toBe(0);
      expect(existsSync(path.join(vault, WRITE_INDEX_FILE))).toBe(true);
      const cache = path.join(dir, 'code-cache');
      const env = { ENGRAM_NO_COMPILE_CACHE: '', ENGRAM_COMPILE_CACHE: cache, ENGRAM_VAULT: '' };
      const caches = () => readdirSync(cache).map((f) => f.replace(/^engram-cli-.*?-\d+-\d+-\d+-/, ''));
      // the test's working folder is the repository, no vault: the vault is known from --vault only
      expect(run(['--now', NOW, '--vault', vault, 'remember', 'The deploy train leaves on Tuesdays.'], env).code).toBe(0);
      expect(caches()).toEqual(['o857054d7-remember.v8cache']);
      rmSync(path.join(vault, WRITE_INDEX_FILE));
      rmSync(cache, { recursive: true });
      expect(run([`--vault=${vault}`, '--now', NOW, 'remember', 'The deploy train leaves on Wednesdays.'], env).code).toBe(0);
      expect(caches()).toEqual(['remember.v8cache']);
    } finally {
      cleanup();
    }
  });
});

describe('importTier', () => {
  it('gives an import (of a file or of standard input, a dry run too) the smaller inlining budget, with or without a vault found; no other command', () => {
    const cases: Array<[string[], boolean]> = [
      [['import', 'x.jsonl'], true],
      [['--now', NOW, '--vault', '/v', 'import', '-', '--json'], true],
      [['import', '--dry-run', 'x.jsonl'], true],
      [['remember', 'import'], false],
      [['recall', 'import'], false],
      [['--vault', 'import', 'recall', 'q'], false],
      [['--', 'import', 'x.jsonl'], false],
      [[], false],
    ];
    expect(cases.map(([argv]) => importTier(argv))).toEqual(cases.map((c) => c[1]));
    expect(cases.map(([argv]) => launchFlag(argv, () => null, () => null, () => null))).toEqual(cases.map((c) => (c[1] ? REBUILD_FLAG : null)));
  });
});

describe('consolidateTier', () => {
  const sizeOf = (bytes: Record<string, number>) => (p: string) => (Object.hasOwn(bytes, p) ? bytes[p]! : null);
  // a 10k vault's write index (3.4 MB), and its memory cache once a consolidation made it
  const index = { '/v/.engram/cache/write-index.json': 3_359_016 };
  const cached = { ...index, '/v/.engram/cache/memories.jsonl': 9_120_000 };

  it('gives a consolidation that parses every memory file (no memory cache) in a vault whose write index is at most 8 MB the smaller inlining budget, nothing else', () => {
    expect([MEMORY_CACHE_FILE, CONSOLIDATE_MAX_INDEX]).toEqual([MEMORY_CACHE_PATH, 8 * 1024 * 1024]);
    const cases: Array<[string[], string | null, Record<string, number>, boolean]> = [
      [['consolidate'], '/v', index, true],
      [['--now', NOW, '--vault', '/v', 'consolidate', '--json'], '/v', index, true],
      [['consolidate', '--dry-run'], '/v', index, true],
      [['consolidate'], '/v', { '/v/.engram/cache/write-index.json': CONSOLIDATE_MAX_INDEX }, true],
      // the next nights (rows, few parses), a 100k vault's index, no index to tell the size, no vault found
      [['consolidate'], '/v', cached, false],
      [['consolidate'], '/v', { '/v/.engram/cache/write-index.json': CONSOLIDATE_MAX_INDEX + 1 }, false],
      [['consolidate'], '/v', {}, false],
      [['consolidate'], null, index, false],
      [['recall', 'consolidate'], '/v', index, false],
      [['import', 'x.jsonl'], '/v', index, false],
      [['--', 'consolidate'], '/v', index, false],
    ];
    expect(cases.map(([argv, root, bytes]) => consolidateTier(argv, () => root, sizeOf(bytes)))).toEqual(cases.map((c) => c[3]));
    // the flag the launcher gives: REBUILD_FLAG, or none
    expect([launchFlag(['consolidate'], () => '/v', () => null, sizeOf(index)), launchFlag(['consolidate'], () => '/v', () => null, sizeOf(cached))]).toEqual([REBUILD_FLAG, null]);
  });

  it('runs the first consolidation under the flag and the next without it: the same report, a code cache each', async () => {
    const { dir, vault, cleanup } = await initVault();
    try {
      const lines = path.join(dir, 'lines.jsonl');
      writeFileSync(lines, Array.from({ length: 20 }, (_, i) => JSON.stringify({ text: `Imported note ${i} on the deploy train.`, created_at: '2026-01-05T10:00:00Z' })).join('\n'));
      expect((await engram(vault, ['--now', '2026-01-06T10:00:00Z', 'import', lines])).code).toBe(0);
      expect(existsSync(path.join(vault, WRITE_INDEX_FILE))).toBe(true);
      const cache = path.join(dir, 'code-cache');
      const env = { ENGRAM_NO_COMPILE_CACHE: '', ENGRAM_COMPILE_CACHE: cache, ENGRAM_VAULT: '' };
      const caches = () => readdirSync(cache).map((f) => f.replace(/^engram-cli-.*?-\d+-\d+-\d+-/, '')).sort();
      const first = run(['--now', NOW, '--vault', vault, '--json', 'consolidate'], env);
      expect(first.code).toBe(0);
      const steps = (out: string) => (JSON.parse(out) as { steps: Array<{ step: string; count: number }> }).steps.map((s) => `${s.step} ${s.count}`);
      expect(steps(first.stdout)).toEqual(['prune 20', 'git 0', 'embed 0', 'cluster 0', 'strengthen 0', 'conflicts 0', 'tiers 20', 'log 1']);
      expect(existsSync(path.join(vault, MEMORY_CACHE_FILE))).toBe(true);
      // the cache named by the flag (o and FNV-1a of REBUILD_FLAG, as a rebuilding recall's)
      expect(caches()).toEqual(['oa4093eae-consolidate.v8cache']);
      expect(run(['--now', NOW, '--vault', vault, 'consolidate'], env).code).toBe(0);
      expect(caches()).toEqual(['consolidate.v8cache', 'oa4093eae-consolidate.v8cache']);
    } finally {
      cleanup();
    }
  });
});

describe('baselineTier', () => {
  // mtimes in ms of a vault at /v: the snapshot at 100, each memory folder at or before it
  const fresh: Record<string, number> = { '/v/.engram/cache/recall.snapshot': 100, '/v/episodic': 100, '/v/semantic': 50, '/v/decisions': 99, '/v/archive': 1 };
  const stampOf = (files: Record<string, number>) => (p: string) => (Object.hasOwn(files, p) ? files[p]! : null);
  // the snapshot's size: a 10k vault's (4.8 MB)
  const sizes: Record<string, number> = { '/v/.engram/cache/recall.snapshot': 4_847_040 };
  const tier = (argv: string[], files = fresh, root: string | null = '/v', bytes = sizes) => baselineTier(argv, () => root, stampOf(files), stampOf(bytes));

  it('is the flag that keeps V8 to its interpreter and baseline compiler, for the snapshot and folders recall reads', () => {
    expect(BASELINE_FLAG).toBe('--max-opt=1');
    expect(SNAPSHOT_FILE).toBe(SNAPSHOT_PATH);
    expect(TIER_FOLDERS).toEqual(MEMORY_ROOTS);
  });

  it('is given to one recall or a context, not to a batch or another command', () => {
    const cases: Array<[string[], boolean]> = [
      [['recall', 'auth token'], true],
      [['--vault', '/v', '--json', 'recall', '--explain', 'q'], true],
      [['context'], true],
      [['context', '--hook'], true],
      [['--now', '2026-01-01T00:00:00Z', 'context', 'q'], true],
      [['recall', '--batch', 'q.jsonl'], false],
      [['recall', '--batch=q.jsonl'], false],
      [['recall', '--batched'], true],
      [['touch', 'mem-aaaaaaaaaaaa'], false],
      [['remember', 'recall'], false],
      [['--vault', 'recall', 'stats'], false],
      [['--', 'recall', 'q'], false],
      [['import', 'x.jsonl'], false],
      [['--version'], false],
      [[], false],
    ];
    expect(cases.map(([argv]) => tier(argv))).toEqual(cases.map(([, expected]) => expected));
  });

  it('is given only where the snapshot exists and no memory folder changed after it was written', () => {
    expect(tier(['recall', 'q'], fresh, null)).toBe(false);
    const without = (p: string) => Object.fromEntries(Object.entries(fresh).filter(([k]) => k !== p));
    expect(tier(['recall', 'q'], without('/v/.engram/cache/recall.snapshot'))).toBe(false);
    // a folder that does not exist changed nothing
    expect(tier(['recall', 'q'], without('/v/archive'))).toBe(true);
    for (const folder of TIER_FOLDERS) expect([folder, tier(['recall', 'q'], { ...fresh, [`/v/${folder}`]: 100.5 })]).toEqual([folder, false]);
    expect(snapshotFresh('/v', stampOf(fresh))).toBe(true);
    expect(snapshotFresh('/w', stampOf(fresh))).toBe(false);
    // the root asked for only when the command is one of them
    let asked = 0;
    baselineTier(['stats'], () => (asked++, '/v'), stampOf(fresh), stampOf(sizes));
    expect(asked).toBe(0);
    baselineTier(['recall', 'q'], () => (asked++, '/v'), stampOf(fresh), stampOf(sizes));
    expect(asked).toBe(1);
  });

  it('is given only up to a snapshot of 8 MB: in a larger vault the search runs long enough to pay for the optimising compiler', () => {
    expect(BASELINE_MAX_SNAPSHOT).toBe(8_388_608);
    const at = (bytes: number) => tier(['recall', 'q'], fresh, '/v', { '/v/.engram/cache/recall.snapshot': bytes });
    expect([at(0), at(8_388_608), at(8_388_609), at(47_817_192)]).toEqual([true, true, false, false]);
    // a size that cannot be read: not given
    expect(tier(['context'], fresh, '/v', {})).toBe(false);
  });

  it('gives a recall or context that rebuilds (no snapshot, or a folder changed after it) the smaller inlining budget, nothing else', () => {
    expect(REBUILD_FLAG).toBe('--max-inlined-bytecode-size-cumulative=150');
    const stale = { ...fresh, '/v/episodic': 100.5 };
    const without = Object.fromEntries(Object.entries(fresh).filter(([k]) => k !== '/v/.engram/cache/recall.snapshot'));
    const flag = (argv: string[], files = fresh, root: string | null = '/v', bytes = sizes) => launchFlag(argv, () => root, stampOf(files), stampOf(bytes));
    const cases: Array<[string[], Record<string, number>, string | null, Record<string, number>, string | null]> = [
      [['recall', 'q'], fresh, '/v', sizes, BASELINE_FLAG],
      [['recall', 'q'], stale, '/v', sizes, REBUILD_FLAG],
      [['recall', 'q'], without, '/v', sizes, REBUILD_FLAG],
      [['--json', 'context', '--hook'], stale, '/v', sizes, REBUILD_FLAG],
      // a fresh snapshot above 8 MB: neither (the search pays for the optimising compiler)
      [['recall', 'q'], fresh, '/v', { '/v/.engram/cache/recall.snapshot': 47_817_192 }, null],
      [['recall', '--batch', 'q.jsonl'], stale, '/v', sizes, null],
      [['recall', '--batch=q.jsonl'], without, '/v', sizes, null],
      [['recall', 'q'], without, null, sizes, null],
      [['consolidate'], stale, '/v', sizes, null],
      // an import: the same budget (importTier)
      [['import', 'x.jsonl'], without, '/v', sizes, REBUILD_FLAG],
      [['remember', 'recall'], stale, '/v', sizes, null],
      [['--', 'recall', 'q'], stale, '/v', sizes, null],
      [[], stale, '/v', sizes, null],
    ];
    expect(cases.map(([argv, files, root, bytes]) => flag(argv, files, root, bytes))).toEqual(cases.map((c) => c[4]));
    expect([rebuildTier(['recall', 'q'], () => '/v', stampOf(stale)), rebuildTier(['recall', 'q'], () => '/v', stampOf(fresh)), rebuildTier(['context'], () => '/v', stampOf(without))]).toEqual([true, false, true]);
  });

  it('runs recall and context under the flag from a fresh snapshot: the answers of the CLI in process, one code cache each, read back', async () => {
    const { dir, vault, cleanup } = await initVault();
    try {
      for (const text of ['The payments service retries three times.', 'Deploys happen on Tuesdays.', 'Retries back off from 200 ms.'])
        expect((await engram(vault, ['--now', NOW, 'remember', text])).code).toBe(0);
      expect((await engram(vault, ['--now', NOW, 'recall', 'deploys'])).code).toBe(0); // writes the snapshot
      expect(snapshotFresh(vault, (p) => (existsSync(p) ? statSync(p).mtimeMs : null))).toBe(true);
      const cache = path.join(dir, 'code-cache');
      const env = { ENGRAM_NO_COMPILE_CACHE: '', ENGRAM_COMPILE_CACHE: cache };
      const recall = ['--now', NOW, '--json', 'recall', 'retries'];
      const context = ['--now', NOW, 'context', 'retries'];
      const built = [run(['--vault', vault, ...recall], env), run(['--vault', vault, ...context], env)];
      expect(built).toEqual([{ code: 0, stdout: (await engram(vault, recall)).stdout, stderr: '' }, { code: 0, stdout: (await engram(vault, context)).stdout, stderr: '' }]);
      expect(JSON.parse(built[0]!.stdout).map((r: { text: string }) => r.text)).toEqual(['Retries back off from 200 ms.', 'The payments service retries three times.']);
      const caches = () => readdirSync(cache).sort().map((f) => [f.replace(/^engram-cli-.*-(\w+)\.v8cache$/, '$1'), statSync(path.join(cache, f)).mtimeMs]);
      const written = caches();
      expect(written.map(([command]) => command)).toEqual(['context', 'recall']);
      // the read bundle's caches (its size names them), not the CLI bundle's
      const size = statSync(path.join(DIST, 'engram-read.js')).size;
      // and the flag's (o + FNV-1a of '--max-opt=1'): a rebuilding recall, under REBUILD_FLAG, has a cache of its own
      expect(readdirSync(cache).map((f) => f.replace(/-\d+-\d+-(o\w+-\w+)\.v8cache$/, '-$1.v8cache'))).toEqual(['context', 'recall'].map((c) => `engram-cli-${process.version}-${process.arch}-${size}-o857054d7-${c}.v8cache`));
      // made under the flag and read under it: accepted, not written again
      expect([run(['--vault', vault, ...recall], env), run(['--vault', vault, ...context], env)]).toEqual(built);
      expect(caches()).toEqual(written);
    } finally {
      cleanup();
    }
  });
});

describe('changesSince: a recall after a few remembers or touches takes the light path', () => {
  // the snapshot at 100; a remember wrote into episodic/ at 150 and noted it at 151
  const snap = '/v/.engram/cache/recall.snapshot';
  const noted = '/v/.engram/cache/recall.changes';
  const files: Record<string, number> = { [snap]: 100, '/v/episodic': 150, '/v/semantic': 50, '/v/decisions': 99, '/v/archive': 1, [noted]: 151 };
  const stampOf = (f: Record<string, number>) => (p: string) => (Object.hasOwn(f, p) ? f[p]! : null);
  const readOf = (texts: Record<string, string>) => (p: string) => (Object.hasOwn(texts, p) ? texts[p]! : null);
  const one = { [noted]: '100 1\n' };
  const since = (f = files, texts: Record<string, string> = one) => changesSince('/v', stampOf(f), readOf(texts));

  it('counts the noted commands since the snapshot the first of them found, and only while no folder changed after the note', () => {
    expect(CHANGES_FILE).toBe('.engram/cache/recall.changes');
    expect(MAX_NOTED_CHANGES).toBe(4);
    expect(changesText(100, 3)).toBe('100 3\n');
    expect(changesText(1796305177138.999, 1)).toBe('1796305177138.999 1\n');
    expect(since()).toBe(1);
    expect(since(files, { [noted]: '100 4\n' })).toBe(4);
    expect(since(files, { [noted]: '1796305177138.999 2\n' })).toBeNull(); // another snapshot's
    const late = { [snap]: 1796305177138.999, '/v/episodic': 1796305177140.5, [noted]: 1796305177141 };
    expect(since(late, { [noted]: '1796305177138.999 2\n' })).toBe(2);
    expect(since(late, { [noted]: '1796305177138.99 2\n' })).toBeNull();
    // fresh: 0, whatever the note says
    expect(since({ ...files, '/v/episodic': 100 }, {})).toBe(0);
    // a folder changed after the note (an import, Obsidian), or at its very time, or no note, or no snapshot
    for (const folder of TIER_FOLDERS) expect([folder, since({ ...files, [`/v/${folder}`]: 151.5 })]).toEqual([folder, null]);
    expect(since({ ...files, '/v/archive': 151 })).toBe(1);
    expect(since(Object.fromEntries(Object.entries(files).filter(([k]) => k !== noted)))).toBeNull();
    expect(since(Object.fromEntries(Object.entries(files).filter(([k]) => k !== snap)))).toBeNull();
    // what the note holds: exactly "MTIME COUNT\n", a count from 1
    for (const text of ['100 0\n', '100 1', '100 01\n', ' 100 1\n', '100  1\n', '100 1\n\n', '100 -1\n', '100 1234567\n', '']) expect([text, since(files, { [noted]: text })]).toEqual([text, null]);
    expect(since(files, { [noted]: '100 123456\n' })).toBe(123456);
    expect(since(files, {})).toBeNull();
  });

  it('gives a recall or context after at most four noted commands the baseline flag, a rebuild the smaller inlining budget', () => {
    const sizes = { [snap]: 4_847_040 };
    const flag = (argv: string[], texts: Record<string, string>, f = files, bytes: Record<string, number> = sizes) => launchFlag(argv, () => '/v', stampOf(f), stampOf(bytes), readOf(texts));
    expect(flag(['recall', 'q'], one)).toBe(BASELINE_FLAG);
    expect(flag(['context'], { [noted]: '100 4\n' })).toBe(BASELINE_FLAG);
    expect(flag(['recall', 'q'], { [noted]: '100 5\n' })).toBe(REBUILD_FLAG);
    expect(flag(['recall', 'q'], {})).toBe(REBUILD_FLAG);
    expect(flag(['recall', 'q'], one, { ...files, '/v/semantic': 152 })).toBe(REBUILD_FLAG);
    // above 8 MB: the defaults, as for a fresh snapshot
    expect(flag(['recall', 'q'], one, files, { [snap]: 47_817_192 })).toBeNull();
    expect(flag(['recall', '--batch', 'q.jsonl'], one)).toBeNull();
    expect(flag(['remember', 'x'], one)).toBeNull();
    expect(baselineTier(['recall', 'q'], () => '/v', stampOf(files), stampOf(sizes))).toBe(false); // nothing read: not known
    expect(rebuildTier(['recall', 'q'], () => '/v', stampOf(files), readOf(one))).toBe(false);
    expect(rebuildTier(['recall', 'q'], () => '/v', stampOf(files), readOf({ [noted]: '100 5\n' }))).toBe(true);
  });

  it('is noted by remember and touch (a touch of several memories counts each), after their writes, and no more than four', async () => {
    const { vault, cleanup } = await initVault();
    try {
      const cli = async (args: string[]) => {
        const res = await engram(vault, ['--now', NOW, ...args]);
        expect(res.code).toBe(0);
        return res.stdout;
      };
      const note = () => (existsSync(path.join(vault, CHANGES_FILE)) ? readFileSync(path.join(vault, CHANGES_FILE), 'utf8') : null);
      const stamp = (p: string) => (existsSync(p) ? statSync(p).mtimeMs : null);
      const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : null);
      const a = JSON.parse(await cli(['--json', 'remember', 'The payments service retries three times.'])).id as string;
      // no snapshot yet: nothing known, nothing noted
      expect(note()).toBeNull();
      await cli(['recall', 'retries']);
      const snapshot = statSync(path.join(vault, SNAPSHOT_FILE)).mtimeMs;
      expect(changesSince(vault, stamp, read)).toBe(0);
      const b = JSON.parse(await cli(['--json', 'remember', 'Deploys happen on Tuesdays.'])).id as string;
      expect(note()).toBe(`${snapshot} 1\n`);
      expect(changesSince(vault, stamp, read)).toBe(1);
      await cli(['touch', a, b]);
      expect(note()).toBe(`${snapshot} 3\n`);
      expect(changesSince(vault, stamp, read)).toBe(3);
      await cli(['touch', a]);
      expect(changesSince(vault, stamp, read)).toBe(4);
      // a fifth: not noted, and the note left behind no longer speaks (the folder changed after it)
      await cli(['remember', 'Retries back off from 200 ms.']);
      expect(note()).toBe(`${snapshot} 4\n`);
      expect(changesSince(vault, stamp, read)).toBeNull();
      // the recall splices or rebuilds and writes a new snapshot: fresh again, the old note another snapshot's
      expect(JSON.parse(await cli(['--json', 'recall', 'retries'])).map((r: { text: string }) => r.text)).toEqual(['The payments service retries three times.', 'Retries back off from 200 ms.', 'Deploys happen on Tuesdays.']);
      expect(changesSince(vault, stamp, read)).toBe(0);
      await cli(['remember', 'Tuesdays are for deploys only.']);
      expect(note()).toBe(`${statSync(path.join(vault, SNAPSHOT_FILE)).mtimeMs} 1\n`);
      // changesBefore / noteChange: nothing known, nothing written; a write that fails leaves no temp file
      expect(changesBefore(path.join(vault, 'missing'))).toBeNull();
      noteChange(path.join(vault, 'missing'), { snapshot: 1, commands: 0 });
      expect(existsSync(path.join(vault, 'missing'))).toBe(false);
      noteChange(vault, null);
      noteChange(vault, { snapshot: 7, commands: 2 }, 3);
      expect(note()).toBe(`${statSync(path.join(vault, SNAPSHOT_FILE)).mtimeMs} 1\n`);
      noteChange(vault, { snapshot: 7, commands: 2 }, 2);
      expect(note()).toBe('7 4\n');
      expect(readdirSync(path.join(vault, '.engram', 'cache')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      // four already: changesBefore still says so, and noteChange adds none
      const real = statSync(path.join(vault, SNAPSHOT_FILE)).mtimeMs;
      noteChange(vault, { snapshot: real, commands: 0 }, 4);
      const four = changesBefore(vault);
      expect(four).toEqual({ snapshot: real, commands: 4 });
      noteChange(vault, four);
      expect(note()).toBe(`${real} 4\n`);
      // a note that cannot take the name (a folder there): the temp file written for it removed
      rmSync(path.join(vault, CHANGES_FILE));
      mkdirSync(path.join(vault, CHANGES_FILE));
      noteChange(vault, { snapshot: 7, commands: 1 });
      expect(readdirSync(path.join(vault, '.engram', 'cache')).filter((f) => f.includes('recall.changes')).sort()).toEqual(['recall.changes']);
      expect(statSync(path.join(vault, CHANGES_FILE)).isDirectory()).toBe(true);
    } finally {
      cleanup();
    }
  });
});

describe('the built touch bundle', () => {
  let dir: string;
  let vault: string;
  let cleanup: () => void;
  const ids: string[] = [];
  beforeAll(async () => {
    ({ dir, vault, cleanup } = await initVault('engram-bundles-'));
    for (const [i, text] of ['Retries use exponential backoff from 200 ms.', 'Webhook signatures are checked with HMAC over the raw body.'].entries()) {
      ids.push((await engram(vault, ['--now', `2026-11-0${i + 1}T10:00:00Z`, '--json', 'remember', text])).json().id);
    }
  });
  afterAll(() => cleanup());

  it('prints help, the version and usage errors as the CLI does', async () => {
    const help = run(['touch', '--help']);
    expect(help).toEqual({ ...run(['help', 'touch']), code: 0 });
    expect(run(['touch', '--version'])).toEqual({ code: 0, stdout: `${JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version}\n`, stderr: '' });
    for (const args of [['touch'], ['touch', '--limit', '3', 'mem-aaaaaaaaaaaa'], ['touch', '-5 degrees'], ['--vault', vault, 'touch', 'mem-zzzzzzzzzzzz']]) {
      const inProcess = await engram(vault, args.slice(args[0] === '--vault' ? 2 : 0));
      expect([args, run(args[0] === '--vault' ? args : ['--vault', vault, ...args])]).toEqual([args, { code: inProcess.code, stdout: inProcess.stdout, stderr: inProcess.stderr }]);
    }
  });

  it('touches as the CLI does: the same output and the same files, from its own bundle and code cache', async () => {
    const copy = path.join(dir, 'copy');
    cpSync(vault, copy, { recursive: true });
    const cache = path.join(dir, 'code-cache');
    const built = run(['--vault', vault, '--now', NOW, '--json', 'touch', ...ids], { ENGRAM_NO_COMPILE_CACHE: '', ENGRAM_COMPILE_CACHE: cache });
    const inProcess = await engram(copy, ['--now', NOW, '--json', 'touch', ...ids]);
    expect(built).toEqual({ code: 0, stdout: inProcess.stdout, stderr: '' });
    expect(JSON.parse(built.stdout)).toHaveLength(2);
    // the same bytes but for the device's id, which names the vault's place (machine.ts): the copy is another place
    const machine = (v: string) => readFileSync(path.join(v, '.engram', 'machine-id'), 'utf8').split(' ')[0]!;
    expect(machine(vault)).not.toBe(machine(copy));
    const notes = (v: string) => ['episodic', 'semantic'].flatMap((folder) => readdirSync(path.join(v, folder)).map((f): [string, string] => [`${folder}/${f}`, readFileSync(path.join(v, folder, f), 'utf8').replaceAll(machine(v), 'm-DEVICE')]));
    expect(notes(vault)).toEqual(notes(copy));
    expect(notes(vault).filter(([, text]) => text.includes('access_count: 1'))).toHaveLength(2);
    // the code cache written is the touch bundle's (its size names it), not the CLI bundle's
    const size = statSync(path.join(DIST, 'engram-touch.js')).size;
    expect(readdirSync(cache).map((f) => f.replace(/-\d+-\d+-touch/, '-touch'))).toEqual([`engram-cli-${process.version}-${process.arch}-${size}-touch.v8cache`]);
  });

  it('reads frontmatter written by hand in full YAML through the YAML bundle, which neither command bundle holds', () => {
    writeFileSync(path.join(vault, 'semantic', 'by hand.md'), '---\nid: mem-aaaaaaaaaaaa\ncategory: semantic\ncreated_at: 2026-01-01T00:00:00Z\ntags:\n  - alpha\n  - beta\n---\nWritten by hand.\n');
    const touched = run(['--vault', vault, '--now', NOW, '--json', 'touch', 'mem-aaaaaaaaaaaa']);
    expect([touched.code, touched.stderr, JSON.parse(touched.stdout)[0].tier]).toEqual([0, '', 'cold']);
    expect(readFileSync(path.join(vault, 'semantic', 'by hand.md'), 'utf8')).toContain('tags:\n  - alpha\n  - beta\n');
    expect(JSON.parse(run(['--vault', vault, '--json', 'show', 'mem-aaaaaaaaaaaa']).stdout).tags).toEqual(['alpha', 'beta']);
    // a string of each YAML library's source: in its own bundle only
    for (const [file, holds] of [['engram-yaml.js', true], [CLI_BUNDLE, false], ['engram-touch.js', false], ['engram-read.js', false], ['lib.js', false]] as const) {
      const text = readFileSync(path.join(DIST, file), 'utf8');
      expect([file, text.includes('tag:yaml.org,2002:'), text.includes('Implicit map keys need to be followed by map values')]).toEqual([file, holds, holds]);
    }
    expect(existsSync(path.join(DIST, 'engram-yaml.js'))).toBe(true);
  });
});

describe('the built read bundle', () => {
  let vault: string;
  let cleanup: () => void;
  beforeAll(async () => {
    ({ vault, cleanup } = await initVault('engram-read-bundle-'));
    for (const text of ['Retries use exponential backoff from 200 ms.', 'Webhook signatures are checked with HMAC over the raw body.'])
      expect((await engram(vault, ['--now', NOW, 'remember', text])).code).toBe(0);
  });
  afterAll(() => cleanup());

  it('prints help, the version and usage errors as the CLI does', async () => {
    for (const command of ['recall', 'context']) {
      expect(run([command, '--help'])).toEqual({ ...run(['help', command]), code: 0 });
      expect(run([command, '--version'])).toEqual({ code: 0, stdout: `${JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version}\n`, stderr: '' });
    }
    for (const args of [['recall'], ['recall', '--limit', '0', 'q'], ['recall', '--radius', 'far', 'q'], ['recall', '--nope', 'q'], ['context', '--budget', 'x'], ['context', '--hook', 'q']]) {
      const inProcess = await engram(vault, args);
      expect([args, run(['--vault', vault, ...args])]).toEqual([args, { code: inProcess.code, stdout: inProcess.stdout, stderr: inProcess.stderr }]);
    }
  });

  it('recalls, explains and builds a context as the CLI does (a first recall writing the snapshot, then from it)', async () => {
    const lines = [
      ['--json', 'recall', 'retries backoff'],
      ['recall', '--explain', 'webhook'],
      ['--json', 'recall', '--radius', 'all', 'hmac'],
      ['context', 'retries'],
      ['--json', 'context'],
    ];
    for (const args of lines) {
      const inProcess = await engram(vault, ['--now', NOW, ...args]);
      expect([args, run(['--vault', vault, '--now', NOW, ...args])]).toEqual([args, { code: 0, stdout: inProcess.stdout, stderr: '' }]);
    }
  });
});
