import { execFileSync } from './child-process';
import { closeSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import * as nodePath from 'node:path';
import type { Commit, ProjectHistory } from '../src/core/validation/evidence';

/**
 * Validation's read-only view of the project repository, over the git CLI: the commits that
 * touched some paths (newest first, bounded) and a file's current content (bounded). Paths
 * that would leave the repository (`..`, absolute, a symlink pointing out) read as missing.
 */
export class GitProjectHistory implements ProjectHistory {
  constructor(readonly root: string) {}

  async commits(paths: string[], limit: number): Promise<Commit[]> {
    if (paths.length === 0 || limit <= 0) return [];
    let out: string;
    try {
      out = execFileSync('git', ['-C', this.root, 'log', `-n${limit}`, '--no-merges', '--format=%x1e%H%x1f%cI%x1f%s', '--name-only', '--', ...paths], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 1 << 24,
      });
    } catch {
      return []; // no commit yet, or not a repository any more: no history is evidence of nothing
    }
    return out
      .split('\x1e')
      .filter((block) => block.trim() !== '')
      .map((block) => {
        const [head, ...files] = block.split('\n');
        const [hash, date, subject] = head!.split('\x1f') as [string, string, string];
        return { hash, date, subject, files: files.map((f) => f.trim()).filter(Boolean) };
      });
  }

  async read(path: string, maxBytes: number): Promise<string | null> {
    const absolute = nodePath.resolve(this.root, path);
    try {
      const real = realpathSync(absolute);
      const relative = nodePath.relative(realpathSync(this.root), real);
      if (relative.startsWith('..') || nodePath.isAbsolute(relative) || !statSync(real).isFile()) return null;
      const fd = openSync(real, 'r');
      try {
        const buffer = Buffer.alloc(maxBytes + 1);
        const n = readSync(fd, buffer, 0, maxBytes + 1, 0);
        const text = buffer.subarray(0, Math.min(n, maxBytes)).toString('utf8');
        return n > maxBytes ? `${text}\n… [cut at ${maxBytes} bytes]` : text;
      } finally {
        closeSync(fd);
      }
    } catch {
      return null;
    }
  }
}
