import * as path from 'node:path';
import { runMcpFuzz, runMergeFuzz, runReviewFuzz } from '../helpers/surface-fuzz';
import { initVault, tempDir } from '../helpers/cli';

/**
 * Short runs of the fuzzers of the surfaces the second attack hit (issue 22): a few hundred
 * cases with fixed seeds. `npm run fuzz:surfaces` runs them long with fresh seeds.
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

describe('fuzzing the surfaces of issue 22', () => {
  it('review apply writes exactly the proposed text or refuses with a reason, whatever a hostile model wrote', async () => {
    const report = await runReviewFuzz('suite-review', 120);
    expect(report.failures).toEqual([]);
    expect(report.tried).toBe(120);
    expect(report.outcomes.applied).toBeGreaterThan(60);
  });

  it('the merge driver: an unreadable side exits 1 and leaves ours; a clean merge adds both sides\' touches', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const report = await runMergeFuzz('suite-merge', 150, dir);
      expect(report.failures).toEqual([]);
      expect(Object.keys(report.outcomes).sort()).toEqual(['a side unreadable: exit 1', 'both readable: exit 0', 'both readable: exit 1', 'plain text']);
    } finally {
      cleanup();
    }
  }, 120_000);

  it('engram mcp answers every request it can read once, for its id, through junk, wrong types and lines over the limit', async () => {
    const { vault, cleanup } = await initVault();
    try {
      const report = await runMcpFuzz('suite-mcp', 150, { engram: ENGRAM, vault, big: 5 * 1024 * 1024 });
      expect(report.failures).toEqual([]);
      expect(report.outcomes['error -32600']).toBeGreaterThan(0);
      expect(report.outcomes['error -32700']).toBeGreaterThan(0);
    } finally {
      cleanup();
    }
  }, 120_000);
});
