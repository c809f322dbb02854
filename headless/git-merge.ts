import { execFileSync } from './child-process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import type { TextMerger } from '../src/core/merge/memory-merge';

/**
 * Git's own three-way line merge (`git merge-file`, the xdiff merge git uses for every text
 * file), for the body of a memory and the layout of its frontmatter. Needs no repository.
 * Conflict blocks are marked with the usual `<<<<<<<` / `=======` / `>>>>>>>` lines.
 */
export function gitTextMerger(labels: { ours: string; base: string; theirs: string } = { ours: 'ours', base: 'base', theirs: 'theirs' }): TextMerger {
  return (base, ours, theirs) => {
    if (ours === theirs || base === theirs) return { text: ours, conflicts: 0 };
    if (base === ours) return { text: theirs, conflicts: 0 };
    const dir = mkdtempSync(nodePath.join(tmpdir(), 'engram-merge-'));
    try {
      const [b, o, t] = ['base', 'ours', 'theirs'].map((name) => nodePath.join(dir, name));
      writeFileSync(b!, base);
      writeFileSync(o!, ours);
      writeFileSync(t!, theirs);
      const args = ['merge-file', '-L', labels.ours, '-L', labels.base, '-L', labels.theirs, o!, b!, t!];
      let conflicts = 0;
      try {
        execFileSync('git', args, { stdio: ['ignore', 'ignore', 'pipe'] });
      } catch (error) {
        const status = (error as { status?: number | null }).status;
        // git merge-file exits with the number of conflicts (capped at 127), negative on error
        if (typeof status !== 'number' || status <= 0 || status > 127) throw new Error(`git merge-file failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
        conflicts = status;
      }
      return { text: readFileSync(o!, 'utf8'), conflicts };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
