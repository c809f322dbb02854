import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { engram, tempDir } from '../helpers/cli';
import { GIT_ENV, git } from '../helpers/git';

/**
 * The merge driver runs wherever git runs it: `init --git` writes this Node and this engram by
 * absolute path, so a pull from a shell, GUI or cron whose PATH lacks `engram` still merges. A
 * driver that cannot run is no longer silent: doctor reports the unmerged files and --fix merges
 * them with the driver's rules.
 */
const BARE_PATH = '/usr/bin:/bin';

function pull(clone: string): { status: number; output: string } {
  try {
    const output = execFileSync('git', ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main'], { cwd: clone, env: { ...GIT_ENV, PATH: BARE_PATH }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, output };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { status: e.status ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('a merge driver that cannot fail silently', () => {
  let dir: string;
  let cleanup: () => void;
  let laptop: string;
  let desk: string;
  let id: string;
  let file: string;
  const accessCount = (clone: string) => (readFrontmatter(splitFrontmatter(readFileSync(path.join(clone, file), 'utf8'))!.yaml) as { access_count: number }).access_count;

  beforeEach(async () => {
    ({ dir, cleanup } = tempDir('engram-driver-'));
    const origin = path.join(dir, 'origin.git');
    git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
    const seed = path.join(dir, 'seed');
    mkdirSync(seed);
    git(seed, 'init', '-q', '-b', 'main');
    expect((await engram(seed, ['init', '--git'])).code).toBe(0);
    ({ id, path: file } = (await engram(seed, ['--json', '--now', '2026-05-01T10:00:00Z', 'remember', 'The auth suite times out on CI.'])).json());
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', 'first memory');
    git(seed, 'remote', 'add', 'origin', origin);
    git(seed, 'push', '-q', 'origin', 'main');
    laptop = path.join(dir, 'laptop');
    desk = path.join(dir, 'desk');
    git(dir, 'clone', '-q', origin, laptop);
    git(dir, 'clone', '-q', origin, desk);
    for (const clone of [laptop, desk]) expect((await engram(clone, ['init', '--git'])).code).toBe(0);
    await engram(laptop, ['--now', '2026-05-02T09:00:00Z', 'touch', id]);
    git(laptop, 'commit', '-q', '-am', 'laptop: one touch');
    git(laptop, 'push', '-q', 'origin', 'main');
    await engram(desk, ['--now', '2026-05-03T08:00:00Z', 'touch', id]);
    await engram(desk, ['--now', '2026-05-03T08:05:00Z', 'touch', id]);
    git(desk, 'commit', '-q', '-am', 'desk: two touches');
  });
  afterEach(() => cleanup());

  test('init --git names this Node and this engram by absolute path', () => {
    const driver = git(desk, 'config', 'merge.engram.driver').trim();
    expect(driver).toBe(`${process.execPath} ${path.resolve(__dirname, '..', '..', 'dist', 'engram.js')} merge-file %O %A %B %P`);
  });

  test('git pull with a PATH that lacks engram merges through the driver', () => {
    expect(() => execFileSync('sh', ['-c', 'command -v engram'], { env: { PATH: BARE_PATH }, stdio: 'ignore' })).toThrow();
    const pulled = pull(desk);
    expect(pulled).toEqual({ status: 0, output: `Auto-merging ${file}\n` });
    expect(accessCount(desk)).toBe(3);
    expect(git(desk, 'ls-files', '-u')).toBe('');
  });

  test('a driver git cannot start leaves the file unmerged: doctor says so (exit 1) and --fix merges it with the driver rules', async () => {
    git(desk, 'config', 'merge.engram.driver', 'engram merge-file %O %A %B %P');
    const pulled = pull(desk);
    expect(pulled.status).toBe(1);
    expect(accessCount(desk)).toBe(2); // "ours", no markers: what used to pass for healthy
    expect(git(desk, 'ls-files', '-u', '--', 'episodic').trim().split('\n')).toHaveLength(3);

    const doctor = await engram(desk, ['--json', 'doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.json().findings.map((f: { check: string; path: string }) => [f.check, f.path])).toEqual([
      ['git-setup', '.git/config'],
      ['unmerged', file],
    ]);
    expect(doctor.json().findings[0].problem).toBe('the merge driver runs `engram` from PATH, which git started by a GUI, an IDE or cron may not have (the memory files are then left unmerged): merge.engram.driver = engram merge-file %O %A %B %P');

    const fixed = await engram(desk, ['doctor', '--fix']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain(`\nunmerged   ${file}: fixed: git left it unmerged (the merge driver did not run or failed)`);
    expect(fixed.stdout).toMatch(/fixed 2 of 2; nothing left\n$/);
    expect(accessCount(desk)).toBe(3);
    expect(git(desk, 'ls-files', '-u')).toBe('');
    expect(git(desk, 'config', 'merge.engram.driver')).toMatch(/^\/\S+ \S+engram\.js merge-file %O %A %B %P\n$/);
    git(desk, 'commit', '-q', '--no-edit');
    expect((await engram(desk, ['doctor'])).stdout).toBe('no problems found\n');
  });

  test('a driver whose Node or script moved away is reported', async () => {
    git(desk, 'config', 'merge.engram.driver', `${process.execPath} /nowhere/engram.js merge-file %O %A %B %P`);
    const doctor = await engram(desk, ['--json', 'doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.json().findings[0].problem).toBe(`the merge driver names /nowhere/engram.js, which is not there any more (engram or Node moved): merge.engram.driver = ${process.execPath} /nowhere/engram.js merge-file %O %A %B %P`);
  });

  test('init --git says when it created a repository', async () => {
    const fresh = path.join(dir, 'fresh');
    const init = await engram(fresh, ['init', '--git']);
    expect(init.stdout).toContain(`git: created a git repository in ${fresh} (git init): the memory folder was in none\n`);
    const again = await engram(fresh, ['init', '--git']);
    expect(again.stdout).not.toContain('created a git repository');
  });
});
