import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { engram, tempDir } from '../helpers/cli';
import { git, tryGit } from '../helpers/git';

/**
 * The merge driver in real git: `engram init --git` installs it, and two branches that each
 * used the same memory merge (and rebase) without a conflict and without losing a use.
 */
describe('engram init --git and the merge driver', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  let id: string;
  let file: string;
  const fields = (rel: string) => readFrontmatter(splitFrontmatter(readFileSync(path.join(vault, rel), 'utf8'))!.yaml) as Record<string, unknown>;

  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    const init = await engram(vault, ['--json', 'init', '--git']);
    expect(init.code).toBe(0);
    expect(init.json().git).toMatchObject({ initialised: true, added_rules: expect.arrayContaining(['episodic/**/*.md merge=engram', 'daily/*.md merge=union']) });
    // the first branch is main whatever git's default (init.defaultBranch, git's version)
    git(vault, 'symbolic-ref', 'HEAD', 'refs/heads/main');
    ({ id, path: file } = (await engram(vault, ['--json', '--now', '2026-05-01T10:00:00Z', 'remember', 'The auth suite times out on CI.'])).json());
    git(vault, 'add', '-A');
    git(vault, 'commit', '-q', '-m', 'first memory');
    git(vault, 'branch', 'laptop');
  });
  afterEach(() => cleanup());

  it('installs the driver in the repository config, the rules in .gitattributes, machine data out of git', async () => {
    expect(git(vault, 'config', 'merge.engram.driver')).toMatch(/merge-file %O %A %B %P\n$/);
    expect(readFileSync(path.join(vault, '.gitattributes'), 'utf8')).toContain('episodic/**/*.md merge=engram\nsemantic/**/*.md merge=engram\ndecisions/**/*.md merge=engram\narchive/**/*.md merge=engram\nconflicts/*.md merge=engram\ndaily/*.md merge=union\n');
    expect(git(vault, 'check-attr', 'merge', file)).toBe(`${file}: merge: engram\n`);
    // a memory a person filed in a sub-folder merges through the driver too
    expect(git(vault, 'check-attr', 'merge', 'episodic/ops/Staging DB reset.md')).toBe('episodic/ops/Staging DB reset.md: merge: engram\n');
    const tracked = git(vault, 'ls-files').trim().split('\n');
    expect(tracked.filter((f) => f.startsWith('.engram/')).sort()).toEqual(['.engram/.gitignore', '.engram/meta.json', '.engram/version']);
    expect(tracked).toEqual(expect.arrayContaining(['archive/.gitkeep', 'conflicts/.gitkeep', 'daily/.gitkeep', 'decisions/.gitkeep', 'semantic/.gitkeep']));
    // idempotent: run again, nothing added twice
    const again = (await engram(vault, ['--json', 'git-setup'])).json();
    expect(again.added_rules).toEqual([]);
    expect(readFileSync(path.join(vault, '.gitattributes'), 'utf8').match(/merge=engram/g)).toHaveLength(5);
  });

  async function usesOnTwoBranches() {
    const main = git(vault, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
    await engram(vault, ['--now', '2026-05-02T09:00:00Z', 'touch', id]);
    await engram(vault, ['--now', '2026-05-02T09:30:00Z', 'cite', id]);
    git(vault, 'commit', '-q', '-am', 'desk: touch and cite');
    git(vault, 'checkout', '-q', 'laptop');
    await engram(vault, ['--now', '2026-05-03T08:00:00Z', 'touch', id]);
    await engram(vault, ['--now', '2026-05-03T08:05:00Z', 'touch', id]);
    git(vault, 'commit', '-q', '-am', 'laptop: two touches');
    return main;
  }

  it('merges two branches that each touched a memory: no conflict, every touch counted once', async () => {
    const main = await usesOnTwoBranches();
    git(vault, 'checkout', '-q', main);
    const merged = tryGit(vault, 'merge', '--no-edit', 'laptop');
    expect(merged.status).toBe(0);
    const f = fields(file);
    expect(f).toMatchObject({ access_count: 3, last_accessed_at: '2026-05-03T08:05:00Z', activation_at: '2026-05-03T08:05:00Z', tier: 'active' });
    expect(readFileSync(path.join(vault, file), 'utf8')).not.toMatch(/<<<<<<<|>>>>>>>/);
    expect((await engram(vault, ['--json', 'show', id])).code).toBe(0);
  });

  it('rebases the same way', async () => {
    await usesOnTwoBranches();
    expect(git(vault, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('laptop');
    const rebased = tryGit(vault, 'rebase', 'main');
    expect(rebased.status).toBe(0);
    expect(fields(file)).toMatchObject({ access_count: 3, last_accessed_at: '2026-05-03T08:05:00Z' });
  });

  it('a text both branches changed on the same line: markers in the body only, the frontmatter merged and readable', async () => {
    const full = path.join(vault, file);
    const main = git(vault, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
    await engram(vault, ['--now', '2026-05-02T09:00:00Z', 'touch', id]);
    writeFileSync(full, readFileSync(full, 'utf8').replace('times out on CI.', 'times out on CI since the runner upgrade.'));
    git(vault, 'commit', '-q', '-am', 'desk');
    git(vault, 'checkout', '-q', 'laptop');
    await engram(vault, ['--now', '2026-05-03T08:00:00Z', 'touch', id]);
    writeFileSync(full, readFileSync(full, 'utf8').replace('times out on CI.', 'times out on CI: raise the timeout to 30 s.'));
    git(vault, 'commit', '-q', '-am', 'laptop');
    git(vault, 'checkout', '-q', main);
    const merged = tryGit(vault, 'merge', '--no-edit', 'laptop');
    expect(merged.status).toBe(1);
    const text = readFileSync(full, 'utf8');
    const split = splitFrontmatter(text)!;
    expect(split.yaml).not.toMatch(/<<<<<<<|=======|>>>>>>>/);
    expect(readFrontmatter(split.yaml)).toMatchObject({ access_count: 2, last_accessed_at: '2026-05-03T08:00:00Z' });
    expect(split.body).toBe('<<<<<<< ours\nThe auth suite times out on CI since the runner upgrade.\n=======\nThe auth suite times out on CI: raise the timeout to 30 s.\n>>>>>>> theirs\n');
    expect(git(vault, 'diff', '--name-only', '--diff-filter=U')).toBe(`${file}\n`);
  });

  it('daily files keep both machines\' lines', async () => {
    const main = git(vault, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
    await engram(vault, ['--now', '2026-05-02T09:00:00Z', 'log', 'desk: deployed']);
    git(vault, 'add', '-A');
    git(vault, 'commit', '-q', '-m', 'desk log');
    git(vault, 'checkout', '-q', 'laptop');
    await engram(vault, ['--now', '2026-05-02T10:00:00Z', 'log', 'laptop: reviewed']);
    git(vault, 'add', '-A');
    git(vault, 'commit', '-q', '-m', 'laptop log');
    git(vault, 'checkout', '-q', main);
    expect(tryGit(vault, 'merge', '--no-edit', 'laptop').status).toBe(0);
    const daily = readFileSync(path.join(vault, 'daily', '2026-05-02.md'), 'utf8');
    expect(daily).toContain('desk: deployed');
    expect(daily).toContain('laptop: reviewed');
  });

  it('merge-file merges other text files as git would, and says how to call it', async () => {
    const [b, o, t] = ['b', 'o', 't'].map((n) => path.join(dir, n));
    writeFileSync(b!, 'one\ntwo\nthree\n');
    writeFileSync(o!, 'one!\ntwo\nthree\n');
    writeFileSync(t!, 'one\ntwo\nthree!\n');
    expect((await engram(vault, ['merge-file', b!, o!, t!, 'STATE.md'])).code).toBe(0);
    expect(readFileSync(o!, 'utf8')).toBe('one!\ntwo\nthree!\n');
    writeFileSync(t!, 'one?\ntwo\nthree\n');
    expect((await engram(vault, ['merge-file', b!, o!, t!, 'STATE.md'])).code).toBe(1);
    expect(readFileSync(o!, 'utf8')).toContain('<<<<<<< ours\none!\n=======\none?\n>>>>>>> theirs\n');
    const usage = await engram(vault, ['merge-file', b!, o!]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('merge-file: give BASE OURS THEIRS and optionally PATH');
  });
});
