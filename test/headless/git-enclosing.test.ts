import { spawnSync, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../helpers/cli';

/**
 * A consolidation asks git for the repository around the vault (GitCli.enclosing) only where
 * git could find one: a `.git` (folder or file) in the vault or a folder above it, or GIT_DIR /
 * GIT_WORK_TREE set; elsewhere no git process is started. A `git` first on PATH logs each call.
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

describe('GitCli.enclosing: git is run only where it could find a repository', () => {
  let dir: string;
  let cleanup: () => void;
  let log: string;
  let bin: string;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    bin = path.join(dir, 'bin');
    mkdirSync(bin);
    log = path.join(dir, 'git.log');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`);
    chmodSync(path.join(bin, 'git'), 0o755);
  });
  afterEach(() => cleanup());

  const gitCalls = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
  const consolidate = (vault: string, env: Record<string, string> = {}): string => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))) as Record<string, string>;
    const run = spawnSync(process.execPath, [ENGRAM, '--vault', vault, '--now', '2026-11-29T12:00:00Z', 'consolidate'], { encoding: 'utf8', env: { ...clean, ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}` } });
    expect(run.status).toBe(0);
    return run.stdout.split('\n').find((l) => l.includes('downgraded'))!;
  };
  const init = (vault: string): void => void execFileSync(process.execPath, [ENGRAM, '--vault', vault, 'init']);
  /** Whether a folder above the temp folder holds a `.git` (then "no repository" cannot be made here). */
  const repoAbove = (): boolean => {
    for (let at = path.dirname(dir); ; at = path.dirname(at)) {
      if (existsSync(path.join(at, '.git'))) return true;
      if (path.dirname(at) === at) return false;
    }
  };

  it('no .git in the vault or above it, no GIT_DIR: no git process; GIT_DIR or GIT_WORK_TREE set: git is asked', () => {
    if (repoAbove()) return; // the temp folder is inside a repository on this machine
    const vault = path.join(dir, 'notes', 'vault');
    init(vault);
    expect(consolidate(vault)).toContain('the memory folder is in no git repository');
    expect(gitCalls()).toEqual([]);
    expect(consolidate(vault, { GIT_DIR: path.join(dir, 'nowhere') })).toContain('the memory folder is in no git repository');
    expect(gitCalls()).toEqual([`-C ${vault} rev-parse --show-toplevel`]);
    consolidate(vault, { GIT_WORK_TREE: vault });
    expect(gitCalls()).toHaveLength(2);
  });

  it('a .git file above the vault (a worktree, a submodule): git is asked', () => {
    const vault = path.join(dir, 'outer', 'vault');
    init(vault);
    writeFileSync(path.join(dir, 'outer', '.git'), `gitdir: ${path.join(dir, 'nowhere')}\n`);
    expect(consolidate(vault)).toContain('the memory folder is in no git repository');
    expect(gitCalls()).toEqual([`-C ${vault} rev-parse --show-toplevel`]);
  });

  it('a repository above the vault: found by git', () => {
    const repo = path.join(dir, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    const vault = path.join(repo, 'memory', 'vault');
    init(vault);
    expect(consolidate(vault)).toContain('the repository has no commit yet');
    expect(gitCalls()[0]).toBe(`-C ${vault} rev-parse --show-toplevel`);
  });
});
