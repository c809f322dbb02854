import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, fileOf, tempDir } from '../helpers/cli';

/** Volatility: an exponentially weighted rate of change of a memory's related paths, measured at consolidation. */
describe('volatility (validation is due sooner for memories about fast-moving code)', () => {
  it('moves by 0.3 x changed + 0.7 x before at each consolidation, and lowers the validation threshold', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const repo = path.join(dir, 'project');
      const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { encoding: 'utf8' });
      mkdirSync(path.join(repo, 'src'), { recursive: true });
      writeFileSync(path.join(repo, 'src/hot.ts'), '1');
      writeFileSync(path.join(repo, 'src/calm.ts'), '1');
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'first');
      const vault = path.join(repo, 'memory');
      await engram(vault, ['init']);
      const say = async (text: string, related: string) => (await engram(vault, ['--json', '--now', '2026-11-01T10:00:00Z', 'remember', text, '--path', related, '--category', 'decision', '--confidence', 'verified'])).json().id as string;
      const hot = await say('The hot module batches writes by 50.', 'src/hot.ts');
      const calm = await say('The calm module is frozen until the audit.', 'src/calm.ts');
      const file = (id: string) => path.join(vault, fileOf(vault, id));
      const volatility = (id: string) => /^volatility: (.*)$/m.exec(readFileSync(file(id), 'utf8'))?.[1];
      const consolidate = (day: number) => engram(vault, ['--json', '--now', `2026-11-${String(day).padStart(2, '0')}T03:00:00Z`, 'consolidate']);
      await consolidate(2); // first run with the repository: nothing measured yet
      expect([volatility(hot), volatility(calm)]).toEqual([undefined, undefined]);
      const expected = [];
      let v = 0;
      for (const [day, changed] of [[3, true], [4, true], [5, false]] as const) {
        if (changed) {
          writeFileSync(path.join(repo, 'src/hot.ts'), String(day));
          git('commit', '-q', '-am', `hot ${day}`);
          // the memory is confirmed again by a person each time (git invalidation made it stale)
          writeFileSync(file(hot), readFileSync(file(hot), 'utf8').replace('confidence: stale', 'confidence: verified'));
        }
        await consolidate(day);
        v = Math.round((0.3 * (changed ? 1 : 0) + 0.7 * v) * 1000) / 1000;
        expected.push(v);
        expect(volatility(hot)).toBe(String(v));
        expect(volatility(calm)).toBeUndefined();
      }
      expect(expected).toEqual([0.3, 0.51, 0.357]);
      // activation 7: below the threshold of 8, above the hot memory's 8 x (1 - 0.5 x 0.357) = 6.572
      for (const id of [hot, calm]) writeFileSync(file(id), readFileSync(file(id), 'utf8').replace(/^activation: .*$/m, 'activation: 7').replace(/^activation_at: .*$/m, 'activation_at: "2026-11-05T03:00:00Z"').replace('confidence: stale', 'confidence: verified'));
      const due = (await engram(vault, ['--json', '--now', '2026-11-05T03:00:00Z', 'validate', '--due', '--list'])).json();
      expect(due).toEqual([{ id: hot, activation: 7, threshold: 6.572, volatility: 0.357 }]);
    } finally {
      cleanup();
    }
  });
});
