import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

describe('the write index on disk (Node file store)', () => {
  it('is saved where .engram/cache does not exist yet (a new vault, a clone without its cache): the folder is made first', async () => {
    const { dir, vault, cleanup } = await initVault();
    try {
      expect(existsSync(path.join(vault, '.engram', 'cache'))).toBe(false);
      // 20 new memories: past SAVE_AFTER (16) writes, so the import saves the index
      const lines = path.join(dir, 'day.jsonl');
      writeFileSync(lines, Array.from({ length: 20 }, (_, i) => `${JSON.stringify({ text: `Deploy note ${i}: the staging cluster ${i} needs a VPN`, created_at: '2026-11-28T10:00:00Z' })}\n`).join(''));
      const run = await engram(vault, ['--now', '2026-11-29T12:00:00Z', 'import', lines]);
      expect([run.code, run.stdout.trim()]).toEqual([0, 'imported 20 lines: 20 created, 0 reinforced, 0 conflicts, 0 superseded, 0 already imported']);
      const file = path.join(vault, '.engram', 'cache', 'write-index.json');
      expect(existsSync(file)).toBe(true);
      const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!);
      expect([header.format, header.rows]).toEqual([2, 20]);
    } finally {
      cleanup();
    }
  });
});
