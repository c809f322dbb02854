import { automaticRunSuppressed, deltaRule, loopReports, readDecisions, recordDecision, type Decision } from '../../src/core/procedural-utility';
import { resolveSettings } from '../../src/core/settings';
import { memoryVault } from '../helpers/memory-ports';

describe('procedural utility: U <- U + a(R - U)', () => {
  it('the delta rule with a = 0.2', () => {
    expect(deltaRule(0, 1, 0.2)).toBe(0.2);
    expect(deltaRule(0.2, -1, 0.2)).toBe(-0.04);
    expect(deltaRule(0.5, 0.5, 0.2)).toBe(0.5);
  });

  it('a sequence of decisions gives the expected utilities, each line audited', async () => {
    const { vault } = memoryVault('2026-11-29T12:00:00Z');
    const sequence: Array<[Decision, number]> = [
      ['approved', 0.2], // 0 + 0.2 (1 - 0)
      ['approved', 0.36], // 0.2 + 0.2 (1 - 0.2)
      ['approved_edited', 0.368], // 0.36 + 0.2 (0.4 - 0.36)
      ['rejected', 0.0944], // 0.368 + 0.2 (-1 - 0.368)
      ['cited', 0.17552], // 0.0944 + 0.2 (0.5 - 0.0944)
      ['approved', 0.340416], // 0.17552 + 0.2 (1 - 0.17552)
    ];
    for (const [i, [decision, expected]] of sequence.entries()) {
      const line = await recordDecision(vault, { loop: 'validation', decision, subject: `review-${i}`, by: 'test' });
      expect(line!.utility_after).toBe(expected);
    }
    const [validation, clustering] = await loopReports(vault);
    expect(validation).toMatchObject({ loop: 'validation', utility: 0.340416, decisions: 6, counts: { approved: 3, approved_edited: 1, rejected: 1, cited: 1 }, recommendation: null, suppressed: false });
    expect(clustering).toMatchObject({ loop: 'clustering', utility: 0, decisions: 0, recommendation: null });
    const log = await readDecisions(vault);
    expect(log.map((l) => [l.decision, l.reward, l.utility_before, l.utility_after])).toEqual([
      ['approved', 1, 0, 0.2],
      ['approved', 1, 0.2, 0.36],
      ['approved_edited', 0.4, 0.36, 0.368],
      ['rejected', -1, 0.368, 0.0944],
      ['cited', 0.5, 0.0944, 0.17552],
      ['approved', 1, 0.17552, 0.340416],
    ]);
  });

  it('recommends after enough decisions; the opt-in floor skips automatic runs only when switched on', async () => {
    const { vault } = memoryVault('2026-11-29T12:00:00Z');
    const expected = [-0.2, -0.36, -0.488, -0.5904, -0.67232];
    for (const [i, u] of expected.entries()) expect((await recordDecision(vault, { loop: 'conflicts', decision: 'rejected', subject: `c${i}`, by: 'test' }))!.utility_after).toBe(u);
    const conflicts = (await loopReports(vault)).find((r) => r.loop === 'conflicts')!;
    expect([conflicts.recommendation, conflicts.suppressed]).toEqual(['consistently rejected; consider snoozing', false]);
    expect(await automaticRunSuppressed(vault, 'conflicts')).toBe(false);
    const floored = memoryVault('2026-11-29T12:00:00Z', { procedural: { ...resolveSettings(undefined).procedural, utilityFloorEnabled: true } });
    floored.files.files.set('.engram/loops.jsonl', (await vault.readText('.engram/loops.jsonl'))!);
    expect(await automaticRunSuppressed(floored.vault, 'conflicts')).toBe(true);
    expect(await automaticRunSuppressed(floored.vault, 'validation')).toBe(false);
    for (let i = 0; i < 5; i++) await recordDecision(vault, { loop: 'clustering', decision: 'approved', subject: `s${i}`, by: 'test' });
    expect((await loopReports(vault)).find((r) => r.loop === 'clustering')).toMatchObject({ utility: 0.67232, recommendation: 'high-value loop' });
  });

  it('a citation bonus is paid once per memory', async () => {
    const { vault } = memoryVault('2026-11-29T12:00:00Z');
    expect(await recordDecision(vault, { loop: 'clustering', decision: 'cited', subject: 'mem-aaaaaaaaaaaa', by: 'cite', once: true })).not.toBeNull();
    expect(await recordDecision(vault, { loop: 'clustering', decision: 'cited', subject: 'mem-aaaaaaaaaaaa', by: 'cite', once: true })).toBeNull();
    expect((await loopReports(vault)).find((r) => r.loop === 'clustering')).toMatchObject({ utility: 0.1, decisions: 1 });
  });
});
