import { currentTier, demote, impliedTier, promote, tierAt, tierFor, tierForDays } from '../../src/core/tiers';
import { memoryStrength } from '../../src/core/decay';
import type { Memory } from '../../src/core/memory';
import { DEFAULT_SETTINGS as S, type Tier } from '../../src/core/settings';

describe('tiers (SPEC §4)', () => {
  it('maps whole days since access to tiers: active 0-7, warm 8-21, cold 22-60, archive after', () => {
    const cases: Array<[number, Tier]> = [
      [0, 'active'], [7, 'active'], [7.99, 'active'], [8, 'warm'], [21, 'warm'], [22, 'cold'], [60, 'cold'], [60.5, 'cold'], [61, 'archive'], [400, 'archive'],
    ];
    for (const [days, tier] of cases) expect([days, tierForDays(days, S)]).toEqual([days, tier]);
  });

  it('touch walks archive -> cold -> warm -> active, then stays', () => {
    const walk: Tier[] = ['archive'];
    for (let i = 0; i < 4; i++) walk.push(promote(walk[walk.length - 1]!));
    expect(walk).toEqual(['archive', 'cold', 'warm', 'active', 'active']);
  });

  it('never changes core', () => {
    expect(promote('core')).toBe('core');
    expect(demote('core', 'archive')).toBe('core');
  });

  it('the decay pass only demotes', () => {
    expect(demote('active', 'cold')).toBe('cold');
    expect(demote('cold', 'active')).toBe('cold');
    expect(demote('warm', 'warm')).toBe('warm');
    expect(demote('archive', 'warm')).toBe('archive');
  });

  it('reads the bounds from settings', () => {
    expect(tierForDays(3, { ...S, tierDays: { active: 2, warm: 5, cold: 9 } })).toBe('warm');
  });

  it('follows strength: days are measured in the memory\'s own half-lives (episodic baseline 7 days)', () => {
    // an episodic memory never accessed keeps the bounds as written
    expect([7, 8, 21, 22, 60, 61].map((d) => tierFor(d, 7, S))).toEqual(['active', 'warm', 'warm', 'cold', 'cold', 'archive']);
    // a decision (90 days): active while days × 7 / 90 < 8 (102.8 days), warm below 22 (282.8), cold below 61 (784.3)
    expect([36, 90, 102, 103, 282, 283, 784, 785].map((d) => tierFor(d, 90, S))).toEqual(['active', 'active', 'active', 'warm', 'warm', 'cold', 'cold', 'archive']);
    // an error (7 × 2 = 14 days) keeps each tier twice as long
    expect([15, 16, 43, 44].map((d) => tierFor(d, 14, S))).toEqual(['active', 'warm', 'warm', 'cold']);
  });

  it('computes the half-life from a memory\'s fields: errors × 2, + 2 days per access', () => {
    const day = 86_400_000;
    const decision = { tier: null, half_life_days: 90, access_count: 0, is_error: false };
    expect(impliedTier(decision, 0, 36 * day, S)).toBe('active');
    const error = { tier: null, half_life_days: 7, access_count: 0, is_error: true };
    expect(impliedTier(error, 0, 15 * day, S)).toBe('active');
    expect(impliedTier(error, 0, 16 * day, S)).toBe('warm');
    // three accesses: 7 + 6 = 13 days; 14 days are 14 × 7 / 13 = 7.5 baseline days: still active
    expect(impliedTier({ ...error, is_error: false, access_count: 3 }, 0, 14 * day, S)).toBe('active');
    expect(impliedTier({ ...error, is_error: false, access_count: 0 }, 0, 14 * day, S)).toBe('warm');
    // what is written is only ever demoted; core stays
    expect(tierAt({ ...decision, tier: 'cold' }, 0, 36 * day, S)).toBe('cold');
    expect(tierAt({ ...decision, tier: 'active' }, 0, 200 * day, S)).toBe('warm');
    expect(tierAt({ ...decision, tier: 'core' }, 0, 2000 * day, S)).toBe('core');
  });

  it('puts memories of about the same strength in the same tier', () => {
    const memory = (category: 'episodic' | 'decision', half: number, accessed: string): Memory =>
      ({ id: 'mem-aaaaaaaaaaaa', path: '', category, created_at: accessed, last_accessed_at: accessed, agent_role: null, confidence: 'observed', tags: [], half_life_days: half, access_count: 0, is_error: false, tier: null, co_access: {}, related_paths: [], amplitude: 1, activation: 0, activation_at: null, content_hash: null, source: null, session: null, body: '', links: [], extra: {} }) as Memory;
    const now = Date.parse('2026-03-10T00:00:00Z');
    const week = memory('episodic', 7, '2026-03-03T00:00:00Z');
    const decision = memory('decision', 90, '2025-12-10T00:00:00Z'); // 90 days
    expect([memoryStrength(week, now, S), memoryStrength(decision, now, S)]).toEqual([0.5, 0.5]);
    expect([currentTier(week, now, S), currentTier(decision, now, S)]).toEqual(['active', 'active']);
  });

  it('keeps the settings\' meaning for the episodic baseline when its half-life changes', () => {
    const settings = { ...S, halfLifeDays: { ...S.halfLifeDays, episodic: 10 } };
    expect([7, 8, 21, 22].map((d) => tierFor(d, 10, settings))).toEqual(['active', 'warm', 'warm', 'cold']);
    expect(tierFor(100, 90, settings)).toBe('warm'); // 100 × 10 / 90 = 11.1 baseline days
  });
});
