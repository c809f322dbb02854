import { execFileSync } from './child-process';
import { EngramError } from '../src/core/errors';
import type { Git } from '../src/core/ports';

/** The git port over the real git CLI in a repository folder. */
export class GitCli implements Git {
  constructor(readonly root: string) {}

  /** The repository enclosing `dir`, or null when there is none. */
  static enclosing(dir: string): GitCli | null {
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
