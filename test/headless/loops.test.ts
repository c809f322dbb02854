import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { deltaRule, REWARDS, type Decision } from '../../src/core/procedural-utility';
import { frontmatterId } from '../../src/core/memory-files';
import { engram, tempDir } from '../helpers/cli';

const NOW = '2026-11-29T12:00:00Z';

describe('engram loops: what people do with consolidation output teaches its loops', () => {
  it('cite, mark verified, edit and forget a semantic memory; mark verified a conflict winner; the utilities follow the delta rule', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const vault = path.join(dir, 'vault');
      await engram(vault, ['init']);
      const groups = [
        ['The session expiry test flaked on CI because its timeout is too short.', 'Session expiry test failed in the nightly pipeline; timeout too short.', 'The nightly CI run flaked: session expiry timeout is too short.'],
        ['The staging database disk filled up during the nightly backup.', 'Staging disk ran out of space in the nightly database backup run.', 'The nightly backup job filled the staging database volume; cleanup needed.'],
        ['Webhook retries sent customers duplicate invoice emails.', 'Customers got two invoice emails after a webhook retry.', 'Duplicate invoice emails again: the webhook retry resent them to customers.'],
      ];
      for (const [g, texts] of groups.entries()) for (const [i, text] of texts.entries()) await engram(vault, ['--now', `2026-11-2${i}T1${g}:00:00Z`, 'remember', text]);
      const strong = (await engram(vault, ['--json', '--now', NOW, 'remember', 'Deploys must run on Fridays after the weekly review.', '--category', 'decision', '--confidence', 'verified'])).json();
      await engram(vault, ['--now', NOW, 'remember', 'Deploys must run on Fridays after the weekly review.', '--category', 'decision']);
      const weak = (await engram(vault, ['--json', '--now', NOW, 'remember', 'Deploys must not run on Fridays after the weekly review.', '--category', 'decision'])).json();
      expect(weak.action).toBe('conflict');
      await engram(vault, ['--now', NOW, 'consolidate']);
      const names = readdirSync(path.join(vault, 'semantic')).sort();
      // each named after its most representative episode (ADR 0005)
      expect(names).toEqual(['Duplicate invoice emails again the webhook (pattern).md', 'The session expiry test flaked on CI because its (pattern).md', 'The staging database disk filled up during the (pattern).md']);
      const semantic = names.map((n) => frontmatterId(readFileSync(path.join(vault, 'semantic', n), 'utf8'))!).sort();
      expect(semantic).toHaveLength(3);
      const [s1, s2, s3] = semantic as [string, string, string];

      const log: Array<[Decision, string]> = [];
      expect((await engram(vault, ['--now', NOW, 'cite', s3])).code).toBe(0);
      log.push(['cited', s3]);
      await engram(vault, ['--now', NOW, 'cite', s3]); // the bonus is paid once
      expect((await engram(vault, ['--now', NOW, 'mark', s1, '--verified'])).code).toBe(0);
      expect((await engram(vault, ['--now', NOW, 'edit', s2, 'Nightly backups fill the staging disk: keep 20 GB free.'])).code).toBe(0);
      expect((await engram(vault, ['--now', NOW, 'forget', s3])).code).toBe(0);
      expect((await engram(vault, ['--now', NOW, 'mark', strong.id, '--verified'])).code).toBe(0);
      // read from the vault in file order: s1 verified, s2 edited, then the forgotten s3
      log.push(['approved', s1], ['approved_edited', s2], ['rejected', s3]);

      const loops = (await engram(vault, ['--json', '--now', NOW, 'loops'])).json();
      let u = 0;
      for (const [decision] of log) u = deltaRule(u, REWARDS[decision], 0.2);
      expect(u).toBe(0.0432); // 0.1, 0.28, 0.304, 0.0432
      expect(loops.loops.find((l: { loop: string }) => l.loop === 'clustering')).toMatchObject({ utility: 0.0432, decisions: 4, counts: { approved: 1, approved_edited: 1, rejected: 1, cited: 1 } });
      expect(loops.loops.find((l: { loop: string }) => l.loop === 'conflicts')).toMatchObject({ utility: 0.2, decisions: 1, counts: { approved: 1 } });
      expect(loops.learned).toBe(4);
      // nothing new the second time
      expect((await engram(vault, ['--json', '--now', NOW, 'loops'])).json().learned).toBe(0);
      const audit = readFileSync(path.join(vault, '.engram', 'loops.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(audit.map((a) => [a.loop, a.decision, a.subject, a.by])).toEqual([
        ['clustering', 'cited', s3, 'cite'],
        ['clustering', 'approved', s1, 'curation'],
        ['clustering', 'approved_edited', s2, 'curation'],
        ['clustering', 'rejected', s3, 'curation'],
        ['conflicts', 'approved', weak.conflict_path, 'curation'],
      ]);
      const human = (await engram(vault, ['--now', NOW, 'loops'])).stdout;
      expect(human.split('\n')[2]).toBe('clustering     0.043         4  1/1/1/1                         (after 5 decisions)');
    } finally {
      cleanup();
    }
  });
});
