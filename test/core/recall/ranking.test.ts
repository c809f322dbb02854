import { RELEVANCE_MARGIN, SUPERSEDED_WEIGHT, activationBonus, decayFactor, protectRelevance } from '../../../src/core/recall/ranking';
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
  it('gives no bonus and no malus for a negative activation, and follows a configured scale and cap', () => {
    expect(activationBonus(-0.5, S)).toBe(0);
    expect(activationBonus(Math.E - 1, { ...S, recall: { ...S.recall, activationScale: 0.05, activationCap: 1 } })).toBeCloseTo(0.05, 12);
    expect(activationBonus(100, { ...S, recall: { ...S.recall, activationCap: 0.1 } })).toBe(0.1);
  });

  it('protects from exactly 1.5x: a match 1.5 times as relevant is not lifted, a score equal to the one to stay above is', () => {
    expect([RELEVANCE_MARGIN, SUPERSEDED_WEIGHT]).toEqual([1.5, 0.5]);
    const atMargin = { relevance: 1.5, score: 0.1, liftable: true };
    const base = { relevance: 1, score: 0.4, liftable: true };
    protectRelevance([atMargin, base]);
    expect(atMargin).toEqual({ relevance: 1.5, score: 0.1, liftable: true });
    const tie = { relevance: 2, score: 0.4, liftable: true };
    const under = { relevance: 1, score: 0.4, liftable: true };
    protectRelevance([tie, under]);
    expect(tie).toEqual({ relevance: 2, score: 0.4 * (1 + 1e-6), liftable: true, lifted: 0.4 });
    // a margin given by the caller
    const wide = { relevance: 2, score: 0.1, liftable: true };
    protectRelevance([wide, { relevance: 1, score: 0.4, liftable: true }], 3);
    expect(wide.score).toBe(0.1);
  });

  it('lifts nothing above scores of zero, and keeps the items in the order given', () => {
    const zero = { relevance: 1, score: 0, liftable: true };
    const far = { relevance: 0.1, score: 0, liftable: true };
    const items = protectRelevance([zero, far]);
    expect(items).toEqual([{ relevance: 1, score: 0, liftable: true }, { relevance: 0.1, score: 0, liftable: true }]);
    // items given in descending relevance: the lift takes the best score among all the far less relevant ones
    const top = { relevance: 9, score: 0.1, liftable: true };
    const a = { relevance: 2, score: 0.3, liftable: false };
    const b = { relevance: 1, score: 0.6, liftable: false };
    expect(protectRelevance([top, a, b]).map((x) => x.score)).toEqual([0.6 * (1 + 1e-6), 0.3, 0.6]);
  });
});
