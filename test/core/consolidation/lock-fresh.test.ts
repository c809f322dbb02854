import { consolidate, LONG_RUN_FILES } from '../../../src/core/consolidation/consolidate';
import type { Embedder, HeldLock } from '../../../src/core/ports';
import { memoryNote, memoryVault } from '../../helpers/memory-ports';

/**
 * The consolidation lock is kept fresh by the run (HeldLock.still between its pieces of work),
 * and handed to a keeper that needs no help from it (HeldLock.long: in headless, a worker thread
 * that costs ~150 ms of CPU to start) only when pieces may run longer than the stale time: more
 * memory files than LONG_RUN_FILES, an embedder (vector clusters), a plan left by a killed run.
 */
describe('consolidation keeps its lock fresh', () => {
  const NOW = '2026-11-29T12:00:00Z';

  /** A vault of `n` memories (half of them old enough to be archived), its lock counting still() and long(). */
  function setup(n: number) {
    const { vault, files } = memoryVault(NOW);
    for (let i = 0; i < n; i++) {
      const id = `mem-${String(i).padStart(12, '0')}`;
      const when = i % 2 === 0 ? '2026-01-01T00:00:00Z' : '2026-11-28T00:00:00Z';
      files.files.set(`episodic/${id}.md`, memoryNote({ id, category: 'episodic', created_at: when, last_accessed_at: when }, `Memory number ${i} about topic ${i}.\n`));
    }
    const calls = { still: 0, long: 0, longAfterStill: -1 };
    const locks = vault.ports.locks;
    const tryLock = locks.tryLock.bind(locks);
    locks.tryLock = async (key, holder) => {
      const lock = await tryLock(key, holder);
      if ('heldBy' in lock) return lock;
      const held: HeldLock = {
        release: lock.release,
        still: () => void calls.still++,
        long: () => {
          if (calls.long++ === 0) calls.longAfterStill = calls.still;
        },
      };
      return held;
    };
    return { vault, files, calls, restore: () => (locks.tryLock = tryLock) };
  }

  const run = (vault: ReturnType<typeof setup>['vault'], extra: { longRunFiles?: number; embedder?: Embedder } = {}) =>
    consolidate(vault, { dryRun: false, holder: 'test', elapsed: () => 0, ...extra });

  it('a vault of at most LONG_RUN_FILES files: still() between pieces (each file batch, each move, each field write), never long()', async () => {
    expect(LONG_RUN_FILES).toBe(20_000);
    const { vault, calls, restore } = setup(8);
    try {
      const report = await run(vault, { longRunFiles: 8 });
      expect(Object.fromEntries(report.steps.map((s) => [s.step, s.count]))).toMatchObject({ prune: 4 });
      expect(calls.long).toBe(0);
      // the load's batch, before the links, before and after the plan and the clusters, 4 moves, the tier writes
      expect(calls.still).toBeGreaterThanOrEqual(10);
    } finally {
      restore();
    }
  });

  it('more files than LONG_RUN_FILES: long() once, right after the load', async () => {
    const { vault, calls, restore } = setup(9);
    try {
      await run(vault, { longRunFiles: 8 });
      expect([calls.long, calls.longAfterStill]).toEqual([1, 1]);
    } finally {
      restore();
    }
  });

  it('files that cannot be read as memories count among the files: 7 memories and 2 broken notes are more than 8', async () => {
    const { vault, files, calls, restore } = setup(7);
    files.files.set('episodic/broken-1.md', '---\nid: [unclosed\n---\nA note whose YAML does not parse.\n');
    files.files.set('episodic/broken-2.md', '---\ntags: {a: \n---\nAnother.\n');
    try {
      await run(vault, { longRunFiles: 8 });
      expect([calls.long, calls.longAfterStill]).toEqual([1, 1]);
    } finally {
      restore();
    }
  });

  it('with an embedder (vector clusters compute without a still()): long() once, right after the load', async () => {
    const { vault, calls, restore } = setup(4);
    const embedder: Embedder = { model: 'test', embed: async (texts) => texts.map(() => new Float32Array([1, 0])) };
    try {
      await run(vault, { longRunFiles: 8, embedder });
      expect([calls.long, calls.longAfterStill]).toEqual([1, 1]);
    } finally {
      restore();
    }
  });

  it('a plan left by a killed run is completed under long()', async () => {
    const { vault, files, calls, restore } = setup(2);
    files.files.set('.engram/consolidation-plan.json', JSON.stringify({ format: 1, started_at: '2026-11-28T12:00:00.000Z', prune: [], strengthen: [], tiers: [], clusters: [], stale: [], conflicts: [] }));
    try {
      const report = await run(vault, { longRunFiles: 8 });
      expect(report.resumed).toBe(true);
      expect([calls.long, calls.longAfterStill]).toEqual([1, 0]);
    } finally {
      restore();
    }
  });
});
