import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../helpers/cli';
import { runSoak, type SoakReport } from '../helpers/git-soak';

/**
 * Three machines, one memory, through git (issue 14): a bare repository and three clones run a
 * seeded random mix of remember, touch, cite, edit, mark and consolidate for several rounds,
 * then commit, pull (merge; rebase in the second run) and push in varying orders. Afterwards
 * every clone is identical, no frontmatter holds a conflict marker, every file parses, and the
 * access_count increments of all machines' operations are all there, none counted twice.
 *
 * CI runs a few rounds; `npm run soak:git` runs the long variant (ENGRAM_SOAK_ROUNDS,
 * ENGRAM_SOAK_SEEDS, ENGRAM_SOAK_OPS; the reports go to .work/git-soak/).
 */
const ROUNDS = Number(process.env.ENGRAM_SOAK_ROUNDS ?? 4);
const OPS = Number(process.env.ENGRAM_SOAK_OPS ?? 4);
const SEEDS = (process.env.ENGRAM_SOAK_SEEDS ?? 'ci').split(',');
const REPORTS = process.env.ENGRAM_SOAK_REPORTS;

const cases = SEEDS.flatMap((seed) => (['merge', 'rebase'] as const).map((pull) => [seed, pull] as const));

describe('three clones of one vault through git', () => {
  it.each(cases)('seed %s, pull --%s: identical clones, readable files, every use counted once', async (seed, pull) => {
    const { dir, cleanup } = tempDir('engram-soak-');
    let report: SoakReport;
    try {
      report = await runSoak({ dir, seed, rounds: ROUNDS, clones: 3, pull, opsPerRound: OPS });
    } finally {
      cleanup();
    }
    if (REPORTS) {
      mkdirSync(REPORTS, { recursive: true });
      writeFileSync(path.join(REPORTS, `${seed}-${pull}.json`), `${JSON.stringify(report, null, 2)}\n`);
    }
    expect(report.op_mismatches).toEqual([]);
    expect(report).toMatchObject({ identical: true, frontmatter_markers: 0, body_markers: 0, invalid_files: 0, duplicate_ids: 0 });
    expect(report.access_count_sum).toBe(report.access_count_expected);
    expect(report.touches_and_uses).toBeGreaterThan(0);
    expect(report.driver_runs).toBeGreaterThan(0);
  // a ceiling, not a target: 3 clones, git and about 50 engram processes a case; at load 20 on the
  // shared 2-core machine a case took 165 s
  }, 300_000);
});
