import { mergeFields, same, type Fields } from '../../../src/core/merge/fields';
import { resolveSettings } from '../../../src/core/settings';

/**
 * The field rules of merge/fields.ts, each stated on the fields themselves with exact values
 * (memory-merge.test states them through whole files). Written from the mutants Stryker found
 * surviving (issue 25): each test names the rule a surviving mutant broke.
 */
const settings = resolveSettings(undefined);
const merge = (base: Fields | null, ours: Fields, theirs: Fields, folder?: string) => mergeFields(base, ours, theirs, { settings, folder });

describe('which rule a field follows', () => {
  it('every counter adds both sides\' increments: access_count, amplitude, remembered_again', () => {
    const base = { access_count: 3, amplitude: 1, remembered_again: 1 };
    const r = merge(base, { access_count: 4, amplitude: 1.5, remembered_again: 2 }, { access_count: 6, amplitude: 1.25, remembered_again: 4 });
    expect(r).toEqual({ fields: { access_count: 7, amplitude: 1.75, remembered_again: 5 }, clashes: [], rehash: false });
  });

  it('the same change on both sides of a counter is two increments, not one', () => {
    const r = merge({ access_count: 3, amplitude: 1, remembered_again: 0 }, { access_count: 4, amplitude: 1.5, remembered_again: 1 }, { access_count: 4, amplitude: 1.5, remembered_again: 1 });
    expect(r.fields).toEqual({ access_count: 5, amplitude: 2, remembered_again: 2 });
  });

  it('a counter with no base value counts from 0; a counter below 0 is 0', () => {
    expect(merge({}, { remembered_again: 1 }, { remembered_again: 2 }).fields).toEqual({ remembered_again: 3 });
    expect(merge({ access_count: 5 }, { access_count: 1 }, { access_count: 2 }).fields).toEqual({ access_count: 0 });
  });

  it('half_life_days, reinforcement_count, cluster_size and a device\'s use count take the larger, not the sum', () => {
    const base = { half_life_days: 7, reinforcement_count: 1, cluster_size: 2, 'uses_m-aaaaaaaaaaaa': 1 };
    const r = merge(base, { half_life_days: 9, reinforcement_count: 3, cluster_size: 4, 'uses_m-aaaaaaaaaaaa': 3 }, { half_life_days: 11, reinforcement_count: 2, cluster_size: 5, 'uses_m-aaaaaaaaaaaa': 2 });
    expect(r).toEqual({ fields: { half_life_days: 11, reinforcement_count: 3, cluster_size: 5, 'uses_m-aaaaaaaaaaaa': 3 }, clashes: [], rehash: false });
  });

  it('"the larger" of a value that is not a number: the smaller in text order, on both sides, without a clash', () => {
    expect(merge({ half_life_days: 7 }, { half_life_days: 'nine' }, { half_life_days: 8 })).toEqual({ fields: { half_life_days: 'nine' }, clashes: [], rehash: false });
    expect(merge({ half_life_days: 7 }, { half_life_days: 8 }, { half_life_days: 'nine' }).fields).toEqual({ half_life_days: 'nine' });
    expect(merge({ half_life_days: 7 }, { half_life_days: 9 }, { half_life_days: 10 }).fields).toEqual({ half_life_days: 10 });
  });

  it('created_at takes the earlier; last_accessed_at and any other *_at timestamp the later', () => {
    const base = { created_at: '2026-04-28T10:00:00Z', last_accessed_at: '2026-04-30T00:00:00Z', strengthened_at: '2026-04-30T00:00:00Z' };
    const ours = { created_at: '2026-04-27T10:00:00Z', last_accessed_at: '2026-05-02T00:00:00Z', strengthened_at: '2026-05-03T00:00:00Z' };
    const theirs = { created_at: '2026-04-29T10:00:00Z', last_accessed_at: '2026-05-01T00:00:00Z', strengthened_at: '2026-05-01T00:00:00Z' };
    expect(merge(base, ours, theirs)).toEqual({ fields: ours, clashes: [], rehash: false });
    expect(merge(base, theirs, ours).fields).toEqual(ours);
  });

  it('an *_at field that is not a timestamp on one side is a person\'s field: a clash', () => {
    const r = merge({ resolved_at: '2026-04-30T00:00:00Z' }, { resolved_at: 'soon' }, { resolved_at: '2026-05-01T00:00:00Z' });
    expect(r.clashes).toEqual(['resolved_at: 2026-05-01T00:00:00Z or soon (kept 2026-05-01T00:00:00Z)']);
    expect(r.fields).toEqual({ resolved_at: '2026-05-01T00:00:00Z', merge_clash: r.clashes });
  });

  it('a time one side cannot read loses to the one it can; two equal instants written apart keep the same one', () => {
    expect(merge({}, { last_accessed_at: 'yesterday' }, { last_accessed_at: '2026-05-01T00:00:00Z' }).fields).toEqual({ last_accessed_at: '2026-05-01T00:00:00Z' });
    expect(merge({}, { last_accessed_at: '2026-05-01T00:00:00Z' }, { last_accessed_at: 'yesterday' }).fields).toEqual({ last_accessed_at: '2026-05-01T00:00:00Z' });
    expect(merge({}, { last_accessed_at: 'yesterday' }, { last_accessed_at: 'today' }).fields).toEqual({ last_accessed_at: 'yesterday' });
    expect(merge({}, { created_at: '2026-05-01T00:00:00.000Z' }, { created_at: '2026-05-01T00:00:00Z' }).fields).toEqual({ created_at: '2026-05-01T00:00:00.000Z' });
    expect(merge({}, { created_at: '2026-05-01T00:00:00Z' }, { created_at: '2026-05-01T00:00:00.000Z' }).fields).toEqual({ created_at: '2026-05-01T00:00:00.000Z' });
  });

  it('decays_from and counted_by (written by Engram): either, the same on every machine, no clash', () => {
    const r = merge({ counted_by: 'm-cccccccccccc', decays_from: 'a' }, { counted_by: 'm-bbbbbbbbbbbb', decays_from: 'c' }, { counted_by: 'm-aaaaaaaaaaaa', decays_from: 'b' });
    expect(r).toEqual({ fields: { counted_by: 'm-aaaaaaaaaaaa', decays_from: 'b' }, clashes: [], rehash: false });
  });

  it('content_hash changed on both sides: ours kept, the caller told to recompute it', () => {
    expect(merge({ content_hash: 'a' }, { content_hash: 'b' }, { content_hash: 'c' })).toEqual({ fields: { content_hash: 'b' }, clashes: [], rehash: true });
    expect(merge({ content_hash: 'a' }, { content_hash: 'b' }, { content_hash: 'a' })).toEqual({ fields: { content_hash: 'b' }, clashes: [], rehash: false });
  });
});

describe('a field removed on one side', () => {
  it('changed on the other: the change is kept; a person\'s field also lists the clash', () => {
    const r = merge({ reviewer: 'Ann', access_count: 3 }, { access_count: 5 }, { reviewer: 'Bob', access_count: 4 });
    expect(r.fields).toEqual({ access_count: 6, reviewer: 'Bob', merge_clash: ['reviewer: removed on one side, Bob on the other (kept Bob)'] });
    const s = merge({ reviewer: 'Ann', access_count: 3 }, { reviewer: 'Bob' }, { reviewer: 'Ann', access_count: 4 });
    expect(s).toEqual({ fields: { reviewer: 'Bob', access_count: 4 }, clashes: [], rehash: false });
  });

  it('a removal and a change of a field Engram computes keep the change without a clash; a list value is shown as JSON', () => {
    const r = merge({ access_count: 3, owners: ['a'] }, { owners: ['a', 'b'] }, { access_count: 4 });
    expect(r.fields).toEqual({ access_count: 4, owners: ['a', 'b'], merge_clash: ['owners: removed on one side, ["a","b"] on the other (kept ["a","b"])'] });
  });

  it('without a base, a field only one copy has is kept, no clash', () => {
    expect(merge(null, { reviewer: 'Ann' }, {})).toEqual({ fields: { reviewer: 'Ann' }, clashes: [], rehash: false });
  });
});

describe('sets, co_access, clashes', () => {
  it('three-way sets: the base\'s survivors in the base\'s order, then additions sorted (the same on both sides)', () => {
    const r = merge({ tags: ['b', 'a', 'z'] }, { tags: ['z', 'b', 'a', 'y', 'c'] }, { tags: ['a', 'b', 'x', 'c'] });
    expect(r.fields).toEqual({ tags: ['b', 'a', 'c', 'x', 'y'] });
    expect(merge({ tags: ['b', 'a', 'z'] }, { tags: ['a', 'b', 'x', 'c'] }, { tags: ['z', 'b', 'a', 'y', 'c'] }).fields).toEqual({ tags: ['b', 'a', 'c', 'x', 'y'] });
  });

  it('a set written as one value or as nothing counts as a list', () => {
    expect(merge({ tags: 'a' }, { tags: ['a', 'b'] }, { tags: null }).fields).toEqual({ tags: ['b'] });
    expect(merge(null, { related_paths: 'x.ts' }, { related_paths: ['y.ts', 'x.ts'] }).fields).toEqual({ related_paths: ['x.ts', 'y.ts'] });
  });

  it('no base: ours\' order, then theirs\' others', () => {
    expect(merge(null, { tags: ['c', 'a'] }, { tags: ['b', 'a', 'd'] }).fields).toEqual({ tags: ['c', 'a', 'b', 'd'] });
  });

  it('co_access three-way: new partners sorted after the base\'s, each the base plus both increments', () => {
    const r = merge({ co_access: { m2: 2, m1: 1 } }, { co_access: { m2: 3, m1: 1, m9: 1 } }, { co_access: { m2: 5, m1: 2, m5: 2 } });
    expect(r.fields.co_access).toEqual({ m2: 6, m1: 2, m5: 2, m9: 1 });
    expect(Object.keys(r.fields.co_access as object)).toEqual(['m2', 'm1', 'm5', 'm9']);
  });

  it('co_access: a partner new on both sides adds both; equal on both sides and changed is two increments', () => {
    expect(merge({ co_access: { m1: 1 } }, { co_access: { m1: 2, m3: 1 } }, { co_access: { m1: 2, m3: 2 } }).fields.co_access).toEqual({ m1: 3, m3: 3 });
  });

  it('co_access without a base: per partner the larger, ours\' partners first', () => {
    const r = merge(null, { co_access: { m2: 1, m1: 4 } }, { co_access: { m3: 1, m1: 2, m2: 3 } });
    expect(r.fields.co_access).toEqual({ m2: 3, m1: 4, m3: 1 });
    expect(Object.keys(r.fields.co_access as object)).toEqual(['m2', 'm1', 'm3']);
  });

  it('co_access that is not a mapping counts as none', () => {
    expect(merge({ co_access: [1] }, { co_access: { m1: 1 } }, { co_access: 'x' }).fields.co_access).toEqual({ m1: 1 });
  });

  it('a clash line lists the two values in text order, whichever side is ours', () => {
    expect(merge({ owner: 'x' }, { owner: 'Zed' }, { owner: 'Al' }).clashes).toEqual(['owner: Al or Zed (kept Al)']);
    expect(merge({ owner: 'x' }, { owner: 'Al' }, { owner: 'Zed' }).clashes).toEqual(['owner: Al or Zed (kept Al)']);
    expect(merge({ owner: 1 }, { owner: { a: 1 } }, { owner: [2] }).clashes).toEqual(['owner: [2] or {"a":1} (kept [2])']);
  });

  it('an earlier clash already listed is not listed twice; merge_clash is kept through a merge', () => {
    const old = ['owner: Al or Zed (kept Al)'];
    const r = merge({ owner: 'x', merge_clash: old }, { owner: 'Zed', merge_clash: old }, { owner: 'Al', merge_clash: old });
    expect(r.fields).toEqual({ owner: 'Al', merge_clash: old });
    expect(r.clashes).toEqual(old);
  });
});

describe('confidence', () => {
  it('consolidation\'s inferred -> observed is automatic: a person\'s change on the other side wins', () => {
    expect(merge({ confidence: 'inferred' }, { confidence: 'observed' }, { confidence: 'verified' })).toEqual({ fields: { confidence: 'verified' }, clashes: [], rehash: false });
    expect(merge({ confidence: 'inferred' }, { confidence: 'verified' }, { confidence: 'observed' })).toEqual({ fields: { confidence: 'verified' }, clashes: [], rehash: false });
  });

  it('two automatic changes: the more cautious, no clash; two persons\' changes: the more cautious and a clash', () => {
    expect(merge({ confidence: 'inferred' }, { confidence: 'observed' }, { confidence: 'stale' })).toEqual({ fields: { confidence: 'stale' }, clashes: [], rehash: false });
    expect(merge({ confidence: 'inferred' }, { confidence: 'stale' }, { confidence: 'observed' }).fields).toEqual({ confidence: 'stale' });
    const r = merge({ confidence: 'stale' }, { confidence: 'observed' }, { confidence: 'verified' });
    expect(r.clashes).toEqual(['confidence: observed or verified (kept observed)']);
    expect(merge({ confidence: 'stale' }, { confidence: 'verified' }, { confidence: 'observed' }).fields.confidence).toBe('observed');
  });

  it('observed -> stale is automatic too, but not inferred -> verified or observed -> inferred', () => {
    expect(merge({ confidence: 'observed' }, { confidence: 'stale' }, { confidence: 'inferred' }).fields).toEqual({ confidence: 'inferred' });
    expect(merge({ confidence: 'observed' }, { confidence: 'inferred' }, { confidence: 'verified' }).clashes).toEqual(['confidence: inferred or verified (kept inferred)']);
  });

  it('a value that is no confidence: the same one on both sides, with a clash; without a base, a clash too', () => {
    expect(merge({ confidence: 'observed' }, { confidence: 'sure' }, { confidence: 'verified' }).clashes).toEqual(['confidence: sure or verified (kept sure)']);
    expect(merge({ confidence: 'observed' }, { confidence: 'verified' }, { confidence: 'sure' }).fields.confidence).toBe('sure');
    expect(merge(null, { confidence: 'stale' }, { confidence: 'observed' }).clashes).toEqual(['confidence: observed or stale (kept stale)']);
  });
});

describe('category', () => {
  it('a clash outside the three folders, or with neither side the folder\'s, keeps the same one everywhere', () => {
    expect(merge({ category: 'episodic' }, { category: 'semantic' }, { category: 'decision' }, 'notes').fields.category).toBe('decision');
    expect(merge({ category: 'semantic' }, { category: 'episodic' }, { category: 'decision' }, 'semantic').fields.category).toBe('decision');
    expect(merge({ category: 'decision' }, { category: 'semantic' }, { category: 'episodic' }, 'episodic').fields.category).toBe('episodic');
    expect(merge({ category: 'episodic' }, { category: 'semantic' }, { category: 'decision' }).fields.category).toBe('decision');
  });
});

describe('activation', () => {
  const half = settings.activation.halfLifeDays;
  it('one side changed: that side\'s pair, untouched', () => {
    const base = { activation: 2, activation_at: '2026-05-01T00:00:00Z' };
    const other = { activation: 2.5, activation_at: '2026-05-02T00:00:00Z' };
    expect(merge(base, base, other).fields).toEqual(other);
    expect(merge(base, other, base).fields).toEqual(other);
    expect(merge(null, other, other).fields).toEqual(other);
  });

  it('both changed: at the later time, the base decayed plus both boosts, rounded, never below 0', () => {
    const base = { activation: 2, activation_at: '2026-05-01T00:00:00Z' };
    const ours = { activation: 3, activation_at: '2026-05-01T00:00:00Z' };
    const theirs = { activation: 1.5, activation_at: `2026-05-${String(1 + half).padStart(2, '0')}T00:00:00Z` };
    // at the later time (one half-life on): ours 1.5, base 1, theirs 1.5
    expect(merge(base, ours, theirs).fields).toEqual({ activation: 2, activation_at: theirs.activation_at });
    expect(merge(base, theirs, ours).fields).toEqual({ activation: 2, activation_at: theirs.activation_at });
    expect(merge(base, { activation: 0.5, activation_at: base.activation_at }, { activation: 0.25, activation_at: base.activation_at }).fields).toEqual({ activation: 0, activation_at: base.activation_at });
  });

  it('no activation_at: the time of the last access; no activation: 0; a time not readable: the epoch', () => {
    const r = merge(null, { activation: 2, last_accessed_at: '2026-05-01T00:00:00Z' }, { activation: 1, last_accessed_at: `2026-05-${String(1 + half).padStart(2, '0')}T00:00:00Z` });
    expect(r.fields).toEqual({ activation: 1, last_accessed_at: `2026-05-${String(1 + half).padStart(2, '0')}T00:00:00Z` });
    expect(merge(null, { activation_at: '2026-05-01T00:00:00Z' }, { activation: 0.5, activation_at: '2026-05-01T00:00:00Z' }).fields).toEqual({ activation_at: '2026-05-01T00:00:00Z', activation: 0.5 });
    expect(merge(null, { activation: 1, activation_at: 'never' }, { activation: 0.75, activation_at: '1970-01-01T00:00:00Z' }).fields).toEqual({ activation: 1, activation_at: 'never' });
  });
});

describe('same (deep equality)', () => {
  it('mappings equal in any key order; lists in order; a list is not a mapping', () => {
    expect(same({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(same([1, 2], [2, 1])).toBe(false);
    expect(same([1], [1, 2])).toBe(false);
    expect(same({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(same({ a: undefined }, { b: undefined })).toBe(false);
    expect(same({ 0: 1 }, [1])).toBe(false);
    expect(same(null, {})).toBe(false);
    expect(same({}, null)).toBe(false);
    expect(same(1, '1')).toBe(false);
    expect(same(null, null)).toBe(true);
  });
});

describe('key order', () => {
  it('ours\' keys in ours\' order, then theirs\' new ones, then a key only the base has, merge_clash last', () => {
    const r = merge({ z: 1, gone: 1, owner: 'x' }, { b: 1, owner: 'A', a: 1 }, { c: 2, a: 1, owner: 'B', gone: 1 });
    expect(Object.keys(r.fields)).toEqual(['b', 'owner', 'a', 'c', 'merge_clash']);
    expect(r.fields.gone).toBeUndefined();
  });
});

describe('tier (mergeTier) at its edges', () => {
  it('active is a tier like the others: a touch to active here and a demotion to cold there end at warm', () => {
    expect(merge({ tier: 'warm' }, { tier: 'active' }, { tier: 'cold' }).fields).toEqual({ tier: 'warm' });
    expect(merge({ tier: 'warm' }, { tier: 'cold' }, { tier: 'active' }).fields).toEqual({ tier: 'warm' });
  });

  it('a base at active is a usable base: two demotions, to warm and to cold, end at cold', () => {
    expect(merge({ tier: 'active' }, { tier: 'warm' }, { tier: 'cold' }).fields).toEqual({ tier: 'cold' });
  });

  it('no base, per-device counts: promoted once for each use both copies added beyond each other (the fewer of the two sides\' new uses)', () => {
    const ours = { tier: 'cold', 'uses_m-aaaaaaaaaaaa': 3, 'uses_m-bbbbbbbbbbbb': 1 };
    const theirs = { tier: 'cold', 'uses_m-aaaaaaaaaaaa': 1, 'uses_m-bbbbbbbbbbbb': 2 };
    expect(merge(null, ours, theirs).fields).toEqual({ tier: 'warm', 'uses_m-aaaaaaaaaaaa': 3, 'uses_m-bbbbbbbbbbbb': 2 });
    expect(merge(null, theirs, ours).fields).toEqual({ tier: 'warm', 'uses_m-aaaaaaaaaaaa': 3, 'uses_m-bbbbbbbbbbbb': 2 });
  });
});

describe('fields.ts survivors of the seed-1 sample (issue 25)', () => {
  it('co_access: a partner only one copy has (no base) is kept; one removed on one side and raised on the other keeps the raise', () => {
    expect(merge(null, { co_access: { m1: 2, m4: 3 } }, { co_access: { m1: 1 } }).fields.co_access).toEqual({ m1: 2, m4: 3 });
    expect(merge(null, { co_access: { m1: 1 } }, { co_access: { m1: 2, m4: 3 } }).fields.co_access).toEqual({ m1: 2, m4: 3 });
    expect(merge({ co_access: { m1: 1, m2: 1 } }, { co_access: { m1: 2, m2: 2 } }, { co_access: { m1: 3 } }).fields.co_access).toEqual({ m1: 4, m2: 2 });
    expect(merge({ co_access: { m1: 1, m2: 1 } }, { co_access: { m1: 3 } }, { co_access: { m1: 2, m2: 2 } }).fields.co_access).toEqual({ m1: 4, m2: 2 });
  });

  it('a category clash in episodic/ or decisions/ keeps that folder\'s category even where the text order would pick the other', () => {
    expect(merge({ category: 'semantic' }, { category: 'decision' }, { category: 'episodic' }, 'episodic').fields.category).toBe('episodic');
    expect(merge({ category: 'semantic' }, { category: 'decision' }, { category: 'abc' }, 'decisions').fields.category).toBe('decision');
    // the folder's category on ours' side, the other side smaller in text order
    expect(merge({ category: 'episodic' }, { category: 'semantic' }, { category: 'decision' }, 'semantic').fields.category).toBe('semantic');
  });
});
