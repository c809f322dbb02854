import { demote, promote, tierForDays } from '../../src/core/tiers';
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
});
