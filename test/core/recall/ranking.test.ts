import { activationBonus, decayFactor, protectRelevance } from '../../../src/core/recall/ranking';
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

  it('protects relevance from the priors together: a match more than 1.5x as relevant is never below', () => {
    // the case: relevance 1.0 at decay x0.57 and observed x0.7 (0.399) against relevance 0.59
    // at activation x1.19 (0.7021): a 1.69x margin, lifted just above
    const best = { relevance: 1, score: 1 * 0.57 * 0.7, liftable: true };
    const primed = { relevance: 0.59, score: 0.59 * 1.19, liftable: true };
    protectRelevance([best, primed]);
    expect(best).toEqual({ relevance: 1, score: 0.59 * 1.19 * (1 + 1e-6), liftable: true, lifted: 0.57 * 0.7 });
    expect(primed).toEqual({ relevance: 0.59, score: 0.59 * 1.19, liftable: true });
    // within the margin (1.4x) the priors decide
    const near = { relevance: 1, score: 0.399, liftable: true };
    const other = { relevance: 1 / 1.4, score: 0.7, liftable: true };
    protectRelevance([near, other]);
    expect([near.score, 'lifted' in near]).toEqual([0.399, false]);
    // a superseded or stale match is never lifted; a lift counts for the matches above it
    const replaced = { relevance: 1, score: 0.1, liftable: false };
    const low = { relevance: 0.2, score: 0.5, liftable: true };
    const mid = { relevance: 0.5, score: 0.3, liftable: true };
    const top = { relevance: 1, score: 0.4, liftable: true };
    protectRelevance([replaced, low, mid, top]);
    expect([replaced.score, low.score, mid.score, top.score]).toEqual([0.1, 0.5, 0.5 * (1 + 1e-6), 0.5 * (1 + 1e-6) * (1 + 1e-6)]);
  });
});
