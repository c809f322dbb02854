import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathMatches } from '../../src/core/consolidation/git-invalidation';
import { engram, fileOf, tempDir } from '../helpers/cli';

const NOW = '2026-11-29T12:00:00Z';

describe('git invalidation (SPEC §8, real git repositories)', () => {
  it('matches files and folders', () => {
    expect([pathMatches('src/a.ts', 'src/a.ts'), pathMatches('src/', 'src/a.ts'), pathMatches('./src', 'src/x/y.ts'), pathMatches('src/a', 'src/ab.ts'), pathMatches('', 'x')]).toEqual([true, true, true, false, false]);
  });

  it('marks stale the memories whose related paths changed since the last run: commits, renames, deletions, uncommitted work', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const repo = path.join(dir, 'project');
      const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { encoding: 'utf8' });
      for (const [file, text] of [['src/a.ts', 'a'], ['src/b.ts', 'b'], ['docs/x.md', 'x'], ['lib/old.ts', 'old']] as const) {
        mkdirSync(path.join(repo, path.dirname(file)), { recursive: true });
        writeFileSync(path.join(repo, file), text);
      }
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'first');
      const vault = path.join(repo, 'memory');
      await engram(vault, ['init']);
      const ids: Record<string, string> = {} as Record<string, string>;
      // distinct texts: these memories must not cluster into a pattern (which would share their paths)
      const memories = [
        ['a', 'src/a.ts', 'The parser retries twice before giving up.'],
        ['b', 'src/b.ts', 'Billing rounds amounts to whole cents.'],
        ['docs', 'docs/', 'Documentation pages are written in British English.'],
        ['c', 'src/c.ts', 'A cache module is planned for the spring.'],
        ['old', 'lib/old.ts', 'The legacy exporter still writes XML.'],
      ] as const;
      for (const [key, related, text] of memories) {
        ids[key] = (await engram(vault, ['--json', '--now', NOW, 'remember', text, '--path', related])).json().id;
      }
      const first = (await engram(vault, ['--json', '--now', NOW, 'consolidate'], undefined, repo)).json();
      const head = git('rev-parse', 'HEAD').trim();
      expect(first.steps.find((s: { step: string }) => s.step === 'git')).toMatchObject({ count: 0, note: `first run with this repository: recorded ${head.slice(0, 12)}` });

      writeFileSync(path.join(repo, 'src/a.ts'), 'a changed');
      git('commit', '-q', '-am', 'change a');
      renameSync(path.join(repo, 'lib/old.ts'), path.join(repo, 'lib/new.ts'));
      git('add', '-A', 'lib');
      git('commit', '-q', '-m', 'rename');
      rmSync(path.join(repo, 'docs/x.md'));
      writeFileSync(path.join(repo, 'src/c.ts'), 'new, untracked');

      const second = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
      expect(second.steps.find((s: { step: string }) => s.step === 'git').count).toBe(4);
      const confidence = (id: string) => /confidence: (\w+)/.exec(readFileSync(path.join(vault, fileOf(vault, id)), 'utf8'))![1];
      expect(Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, confidence(id)]))).toEqual({ a: 'stale', b: 'observed', docs: 'stale', c: 'stale', old: 'stale' });
      const runs = readFileSync(path.join(vault, '.engram', 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(runs.map((r) => [r.git_head, r.git])).toEqual([[head, 0], [git('rev-parse', 'HEAD').trim(), 4]]);
      // stale memories are found by recall but never put into an agent's context
      const context = (await engram(vault, ['--json', '--now', NOW, 'context', 'parser billing documentation cache exporter', '--peek'])).json();
      expect(context.included).toContain(ids.b);
      for (const key of ['a', 'docs', 'c', 'old']) expect(context.included).not.toContain(ids[key]);
    } finally {
      cleanup();
    }
  });

  it('refuses a --repo that is not a repository', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const vault = path.join(dir, 'vault');
      await engram(vault, ['init']);
      const run = await engram(vault, ['consolidate', '--repo', dir]);
      expect([run.code, run.stderr.split('\n')[0]]).toEqual([2, `engram: --repo: ${dir} is not inside a git repository`]);
    } finally {
      cleanup();
    }
  });
});
