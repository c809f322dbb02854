import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { execFileSync } from './child-process';
import { EngramError } from '../src/core/errors';
import type { Git } from '../src/core/ports';

/** The git port over the real git CLI in a repository folder. */
export class GitCli implements Git {
  constructor(readonly root: string) {}

  /**
   * The repository enclosing `dir`, or null when there is none. Git finds one from a `.git` (a
   * folder, or a file naming one) in `dir` or a folder above it, or from GIT_DIR: with neither,
   * git is not asked (a process, and node:child_process loaded: ~35 ms of CPU of a consolidate
   * of a vault in no repository, the bench's).
   */
  static enclosing(dir: string, env: NodeJS.ProcessEnv = process.env): GitCli | null {
    if (env.GIT_DIR === undefined && env.GIT_WORK_TREE === undefined && !dotGitAbove(dir)) return null;
    try {
      const root = execFileSync('git', ['-C', dir, 'rev-parse', '--show-toplevel'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      return root ? new GitCli(root) : null;
    } catch {
      return null;
    }
  }

  private git(args: string[]): string {
    try {
      return execFileSync('git', ['-C', this.root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new EngramError(`git in ${this.root}: ${stderr || (error as Error).message}`);
    }
  }

  async head(): Promise<string | null> {
    try {
      return this.git(['rev-parse', '--verify', '-q', 'HEAD']).trim() || null;
    } catch {
      return null;
    }
  }

  async changedSince(commit: string): Promise<string[]> {
    const changed = new Set<string>();
    // committed since `commit`, renames reported with both names
    for (const line of this.git(['diff', '--name-status', '-M', '-z', commit, 'HEAD']).split('\0').filter(Boolean)) {
      if (!/^[ACDMRTUXB]\d*$/.test(line)) changed.add(line);
    }
    // staged, unstaged and untracked changes in the working tree
    for (const entry of this.git(['status', '--porcelain=v1', '-z', '--untracked-files=all']).split('\0').filter(Boolean)) {
      const path = entry.length > 3 && entry[2] === ' ' ? entry.slice(3) : entry;
      changed.add(path);
    }
    return [...changed].sort();
  }
}

/** Whether `dir` or a folder above it holds a `.git` of any kind (or cannot be looked at: git is asked then). */
function dotGitAbove(dir: string): boolean {
  for (let at = nodePath.resolve(dir); ; ) {
    try {
      if (fs.lstatSync(nodePath.join(at, '.git'), { throwIfNoEntry: false }) !== undefined) return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') return true;
    }
    const up = nodePath.dirname(at);
    if (up === at) return false;
    at = up;
  }
}
