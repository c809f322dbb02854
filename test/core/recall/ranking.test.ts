import { activationBonus, decayFactor } from '../../../src/core/recall/ranking';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';

describe('ranking factors (SPEC §7)', () => {
  it('halves at most in the default radius (and plain recall), a milder factor in deep and all', () => {
    expect(decayFactor(0.25, 'default', S)).toBe(0.625);
    expect(decayFactor(0, 'default', S)).toBe(0.5);
    expect(decayFactor(0.25, 'deep', S)).toBe(0.7);
    expect(decayFactor(0.25, 'all', S)).toBeCloseTo(0.85, 12);
    expect(decayFactor(1, 'all', S)).toBe(1);
  });

  it('gives a logarithmic activation bonus capped at 0.2', () => {
    expect(activationBonus(0, S)).toBe(0);
    expect(activationBonus(Math.E - 1, S)).toBeCloseTo(0.1, 12);
    expect(activationBonus(100, S)).toBe(0.2);
  });
});
