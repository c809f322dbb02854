import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

/**
 * recall's and context's text and usage errors (headless/read-commands.ts), stated exactly: the
 * StrykerJS run of stop 41 found them unstated (read-commands.ts 21-111: 48.5 %).
 */
const NOW = '2026-11-10T10:00:00Z';

describe('recall and context: text and errors', () => {
  it('says when nothing matches, and cuts a long text at 197 characters', async () => {
    const { vault, cleanup } = await initVault();
    try {
      const long = `The deploy checklist ${'covers every service and its rollback plan '.repeat(6)}end.`;
      expect(long.length).toBeGreaterThan(200);
      expect((await engram(vault, ['--now', NOW, 'remember', long])).code).toBe(0);
      expect(await engram(vault, ['--now', NOW, 'recall', 'zebra'])).toMatchObject({ code: 0, stdout: 'no memories match\n' });
      const found = (await engram(vault, ['--now', NOW, 'recall', 'rollback'])).stdout.split('\n');
      expect(found[1]).toBe(`  ${long.slice(0, 197)}...`);
      // 200 characters are shown whole
      const exact = `Zebra crossings ${'x'.repeat(179)} end.`;
      expect(exact.length).toBe(200);
      expect((await engram(vault, ['--now', NOW, 'remember', exact])).code).toBe(0);
      expect((await engram(vault, ['--now', NOW, 'recall', 'zebra'])).stdout.split('\n')[1]).toBe(`  ${exact}`);
    } finally {
      cleanup();
    }
  });

  it('names the line of a batch that is not a query, and refuses a QUERY with context --hook', async () => {
    const { dir, vault, cleanup } = await initVault();
    try {
      const batch = (lines: string[]) => {
        const file = path.join(dir, 'q.jsonl');
        writeFileSync(file, lines.join('\n'));
        return engram(vault, ['--now', NOW, 'recall', '--batch', file]);
      };
      const errors = [];
      for (const bad of ['not json', 'null', '"a query"', '{"id": 1}', '{"id": 1, "query": "   "}']) {
        const run = await batch(['{"id": "a", "query": "deploy"}', '   ', bad]);
        errors.push([run.code, run.stdout, run.stderr.replace(dir, 'DIR')]);
      }
      expect(errors).toEqual([
        [1, '', 'engram: DIR/q.jsonl:3: not valid JSON\n'],
        ...Array.from({ length: 4 }, () => [1, '', 'engram: DIR/q.jsonl:3: expected {"id", "query"} with a non-empty query\n']),
      ]);
      // a blank line is skipped; a line's id defaults to its number
      expect((await batch(['', ' {"query": " deploy "}'])).stdout).toBe('{"id":2,"results":[]}\n');
      expect(await engram(vault, ['context', '--hook', 'a query'], '{"prompt": "x"}')).toMatchObject({ code: 2, stderr: "engram: context --hook: the query comes from the hook payload; give no QUERY\nrun 'engram --help' for usage\n" });
    } finally {
      cleanup();
    }
  });
});
