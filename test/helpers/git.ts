import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

/** Git with a fixed identity and none of this machine's global or system configuration. */
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: path.join(__dirname, '..', 'fixtures', 'gitconfig'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Engram Test',
  GIT_AUTHOR_EMAIL: 'test@engram.invalid',
  GIT_COMMITTER_NAME: 'Engram Test',
  GIT_COMMITTER_EMAIL: 'test@engram.invalid',
  GIT_TERMINAL_PROMPT: '0',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Git that may fail: its exit status and output. */
export function tryGit(cwd: string, ...args: string[]): { status: number; stdout: string; stderr: string } {
  try {
    return { status: 0, stdout: git(cwd, ...args), stderr: '' };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { status: e.status ?? 1, stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? '') };
  }
}
