import { readFrontmatter, setFrontmatterFields, splitFrontmatter, type FieldValue } from '../../../src/core/frontmatter';
import { contentHash } from '../../../src/core/ids';
import { mergeMemoryText, type MemoryMerge } from '../../../src/core/merge/memory-merge';
import { parseMemory } from '../../../src/core/memory';
import { resolveSettings } from '../../../src/core/settings';
import { gitTextMerger } from '../../../headless/git-merge';

const settings = resolveSettings(undefined);
const PATH = 'episodic/mem-abc123def456.md';

const BASE = `---
id: mem-abc123def456
category: episodic            # episodic | semantic | decision
created_at: "2026-04-28T10:23:00Z"
last_accessed_at: "2026-04-30T09:10:00Z"
agent_role: code-reviewer
confidence: observed
tags: ["typescript", "testing"]
half_life_days: 7
access_count: 3
is_error: false
tier: warm
co_access: {"mem-xyz789pqr012": 2, "mem-aaaaaaaaaaaa": 1}
related_paths: ["src/auth/session.ts"]
amplitude: 1.0
activation: 2.4
activation_at: "2026-04-30T09:10:00Z"
reviewer: 'Ann'   # a field Engram does not know
---
Found a flaky test in the auth suite.
The timeout is too short for CI.

[[mem-xyz789pqr012|related]]
`;

const edit = (text: string, fields: Record<string, FieldValue>) => setFrontmatterFields(text, fields);
const merge = (base: string | null, ours: string, theirs: string): MemoryMerge => mergeMemoryText(base, ours, theirs, { settings, mergeText: gitTextMerger(), path: PATH })!;
const fields = (text: string) => readFrontmatter(splitFrontmatter(text)!.yaml) as Record<string, unknown>;
const decay = (value: number, days: number) => value * Math.pow(0.5, days / 30);
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

describe('merging a memory touched on two machines (three-way)', () => {
  // ours: a touch on 2026-05-02 10:00 with a partner; theirs: a touch on 2026-05-03 09:10 with another
  const oursActivation = round4(decay(2.4, 2 + 50 / 1440) + 0.25);
  const theirsActivation = round4(decay(2.4, 3) + 0.25);
  const ours = edit(BASE, {
    access_count: 4,
    last_accessed_at: '2026-05-02T10:00:00Z',
    tier: 'active',
    activation: oursActivation,
    activation_at: '2026-05-02T10:00:00Z',
    co_access: { 'mem-xyz789pqr012': 3, 'mem-aaaaaaaaaaaa': 1, 'mem-bbbbbbbbbbbb': 1 },
  });
  const theirs = edit(BASE, {
    access_count: 5,
    last_accessed_at: '2026-05-03T09:10:00Z',
    tier: 'active',
    activation: theirsActivation,
    activation_at: '2026-05-03T09:10:00Z',
    co_access: { 'mem-xyz789pqr012': 4, 'mem-aaaaaaaaaaaa': 1, 'mem-cccccccccccc': 2 },
  });

  it('adds both sides\' increments, takes the later time, combines activation boosts, promotes twice', () => {
    const result = merge(BASE, ours, theirs);
    expect(result.bodyConflicts).toBe(0);
    expect(result.clashes).toEqual([]);
    // at the later time (05-03 09:10): base decayed + ours' boost + theirs' boost
    const expected = round4(decay(oursActivation, 1 - 50 / 1440) + theirsActivation - decay(2.4, 3));
    expect(result.text).toBe(
      BASE.replace('access_count: 3', 'access_count: 6')
        .replace('last_accessed_at: "2026-04-30T09:10:00Z"', 'last_accessed_at: "2026-05-03T09:10:00Z"')
        .replace('tier: warm', 'tier: active')
        .replace('activation: 2.4', `activation: ${expected}`)
        .replace('activation_at: "2026-04-30T09:10:00Z"', 'activation_at: "2026-05-03T09:10:00Z"')
        .replace('co_access: {"mem-xyz789pqr012": 2, "mem-aaaaaaaaaaaa": 1}', 'co_access: {"mem-xyz789pqr012": 5, "mem-aaaaaaaaaaaa": 1, "mem-bbbbbbbbbbbb": 1, "mem-cccccccccccc": 2}'),
    );
    // the same as two touches in one vault: 2.4 decayed 3 days, ours' boost decayed 23 h 10 min, theirs' boost
    expect(expected).toBe(round4(decay(decay(2.4, 2 + 50 / 1440) + 0.25, 1 - 50 / 1440) + 0.25));
    expect(expected).toBe(2.7338);
    expect(parseMemory(PATH, result.text, settings).access_count).toBe(6);
  });

  it('gives the same fields whichever side is ours (merge and rebase agree)', () => {
    expect(fields(merge(BASE, theirs, ours).text)).toEqual(fields(merge(BASE, ours, theirs).text));
  });

  it('the same touch made on both machines (equal files apart from the body) counts twice', () => {
    const touched = { access_count: 4, last_accessed_at: '2026-05-02T10:00:00Z', tier: 'active', activation: oursActivation, activation_at: '2026-05-02T10:00:00Z', co_access: { 'mem-xyz789pqr012': 3, 'mem-aaaaaaaaaaaa': 1 } };
    const r = merge(BASE, edit(BASE, touched), edit(BASE.replace('Found a flaky test', 'Found a flaky unit test'), touched));
    expect(fields(r.text)).toMatchObject({ access_count: 5, tier: 'active', co_access: { 'mem-xyz789pqr012': 4, 'mem-aaaaaaaaaaaa': 1 }, activation: round4(2 * oursActivation - decay(2.4, 2 + 50 / 1440)) });
  });

  it('a side that changed nothing leaves the other side\'s file byte for byte', () => {
    expect(merge(BASE, BASE, theirs).text).toBe(theirs);
    expect(merge(BASE, ours, BASE).text).toBe(ours);
  });
});

describe('field rules', () => {
  it('counters: amplitude adds both reinforcements; half_life_days takes the larger', () => {
    const r = merge(BASE, edit(BASE, { amplitude: 1.5, half_life_days: 9 }), edit(BASE, { amplitude: 1.8, half_life_days: 9 }));
    expect(fields(r.text)).toMatchObject({ amplitude: 2.3, half_life_days: 9 });
    const s = merge(BASE, edit(BASE, { half_life_days: 11 }), edit(BASE, { half_life_days: 9 }));
    expect(fields(s.text).half_life_days).toBe(11);
  });

  it('co_access: a partner removed on one side and untouched on the other stays removed; one removed but incremented elsewhere stays', () => {
    const r = merge(BASE, edit(BASE, { co_access: { 'mem-xyz789pqr012': 2 } }), edit(BASE, { co_access: { 'mem-xyz789pqr012': 3, 'mem-aaaaaaaaaaaa': 1 } }));
    expect(fields(r.text).co_access).toEqual({ 'mem-xyz789pqr012': 3 });
    const s = merge(BASE, edit(BASE, { co_access: { 'mem-xyz789pqr012': 2 } }), edit(BASE, { co_access: { 'mem-xyz789pqr012': 2, 'mem-aaaaaaaaaaaa': 4 } }));
    expect(fields(s.text).co_access).toEqual({ 'mem-xyz789pqr012': 2, 'mem-aaaaaaaaaaaa': 4 });
  });

  it('tags and related paths merge as sets, honouring a removal', () => {
    const r = merge(BASE, edit(BASE, { tags: ['typescript', 'testing', 'ci'], related_paths: [] }), edit(BASE, { tags: ['testing', 'auth'] }));
    expect(fields(r.text)).toMatchObject({ tags: ['testing', 'auth', 'ci'], related_paths: [] });
  });

  it('tier: a demotion by one consolidation and a touch on the other end one step up from the demotion', () => {
    const r = merge(BASE, edit(BASE, { tier: 'cold' }), edit(BASE, { tier: 'active', access_count: 4, last_accessed_at: '2026-05-20T00:00:00Z' }));
    expect(fields(r.text).tier).toBe('warm');
    // two decay passes that saw the same days demote once, to the lower of the two
    expect(fields(merge(BASE, edit(BASE, { tier: 'cold' }), edit(BASE, { tier: 'archive' })).text).tier).toBe('archive');
    // archived on one side, touched on the other: back among the living
    expect(fields(merge(edit(BASE, { tier: 'cold' }), edit(BASE, { tier: 'archive' }), edit(BASE, { tier: 'warm' })).text).tier).toBe('cold');
  });

  it('tier: a touch on each machine is two promotions, cold to active, not one', () => {
    const cold = edit(BASE, { tier: 'cold' });
    const ours = edit(cold, { tier: 'warm', access_count: 4, last_accessed_at: '2026-04-30T10:00:00Z' });
    const theirs = edit(cold, { tier: 'warm', access_count: 4, last_accessed_at: '2026-04-30T11:00:00Z' });
    expect(fields(merge(cold, ours, theirs).text)).toMatchObject({ tier: 'active', access_count: 5, last_accessed_at: '2026-04-30T11:00:00Z' });
    // one touch here (archive to cold), two there (archive to warm): three promotions
    const archived = edit(BASE, { tier: 'archive' });
    expect(fields(merge(archived, edit(archived, { tier: 'cold', last_accessed_at: '2026-04-30T10:00:00Z' }), edit(archived, { tier: 'warm', last_accessed_at: '2026-04-30T11:00:00Z' })).text).tier).toBe('active');
    // and from warm, two promotions stop at active
    const warm = edit(BASE, { tier: 'warm' });
    expect(fields(merge(warm, edit(warm, { tier: 'active', last_accessed_at: '2026-04-30T10:00:00Z' }), edit(warm, { tier: 'active', last_accessed_at: '2026-04-30T11:00:00Z' })).text).tier).toBe('active');
  });

  it('tier: core set by hand on one side wins over the other side\'s automatic change; clearing it by hand wins too', () => {
    expect(fields(merge(BASE, edit(BASE, { tier: 'core' }), edit(BASE, { tier: 'active' })).text).tier).toBe('core');
    const core = edit(BASE, { tier: 'core' });
    expect(fields(merge(core, edit(core, { tier: 'active' }), edit(core, { access_count: 4 })).text)).toMatchObject({ tier: 'active', access_count: 4 });
  });

  it('counters with fractions (amplitude) are rounded to four decimals: 1.0 + 0.1 + 0.3 is 1.4, not 1.4000000000000001', () => {
    expect(fields(merge(BASE, edit(BASE, { amplitude: 1.1 }), edit(BASE, { amplitude: 1.3 })).text).amplitude).toBe(1.4);
    expect(fields(merge(BASE, edit(BASE, { amplitude: 1.2 }), edit(BASE, { amplitude: 1.4 })).text).amplitude).toBe(1.6);
  });

  it('tier: core set by hand on either side wins; a tier Engram does not know (a person\'s) against a known one keeps the same one on every machine', () => {
    const touched = edit(BASE, { tier: 'active', access_count: 4 });
    expect(fields(merge(BASE, touched, edit(BASE, { tier: 'core' })).text).tier).toBe('core');
    expect(fields(merge(BASE, edit(BASE, { tier: 'core' }), touched).text).tier).toBe('core');
    // "hot" is no tier: the smaller of the two written values, whichever side holds it
    expect(fields(merge(BASE, edit(BASE, { tier: 'hot' }), edit(BASE, { tier: 'cold' })).text).tier).toBe('cold');
    expect(fields(merge(BASE, edit(BASE, { tier: 'cold' }), edit(BASE, { tier: 'hot' })).text).tier).toBe('cold');
    expect(fields(merge(BASE, edit(BASE, { tier: 'archive' }), edit(BASE, { tier: 'hot' })).text).tier).toBe('archive');
  });

  it('tier without a usable base (none, or one Engram does not know): the more present of the two', () => {
    expect(fields(merge(null, edit(BASE, { tier: 'cold' }), edit(BASE, { tier: 'warm' })).text).tier).toBe('warm');
    expect(fields(merge(null, edit(BASE, { tier: 'warm' }), edit(BASE, { tier: 'archive' })).text).tier).toBe('warm');
    const unknown = edit(BASE, { tier: 'hot' });
    expect(fields(merge(unknown, edit(unknown, { tier: 'cold' }), edit(unknown, { tier: 'warm' })).text).tier).toBe('warm');
  });

  it('confidence: a person\'s mark wins over git invalidation\'s stale on the other side', () => {
    const r = merge(BASE, edit(BASE, { confidence: 'stale' }), edit(BASE, { confidence: 'verified' }));
    expect(fields(r.text).confidence).toBe('verified');
    expect(r.clashes).toEqual([]);
    expect(fields(merge(BASE, edit(BASE, { confidence: 'verified' }), edit(BASE, { confidence: 'stale' })).text).confidence).toBe('verified');
  });

  it('a clash of two people\'s edits keeps one value, the same on every machine, and lists both in merge_clash', () => {
    const ours = edit(BASE, { confidence: 'verified', reviewer: 'Bob' });
    const theirs = edit(BASE, { confidence: 'inferred', reviewer: 'Cy' });
    const r = merge(BASE, ours, theirs);
    expect(r.clashes).toEqual(['confidence: inferred or verified (kept inferred)', 'reviewer: Bob or Cy (kept Bob)']);
    expect(fields(r.text)).toMatchObject({ confidence: 'inferred', reviewer: 'Bob', merge_clash: r.clashes });
    expect(r.text).toContain("reviewer: 'Bob'   # a field Engram does not know\n");
    expect(r.text).toContain('merge_clash: ["confidence: inferred or verified (kept inferred)", "reviewer: Bob or Cy (kept Bob)"]\n---\n');
    expect(fields(merge(BASE, theirs, ours).text)).toEqual(fields(r.text));
    // an earlier clash stays listed when the file is merged again
    const again = merge(r.text, edit(r.text, { access_count: 4 }), edit(r.text, { access_count: 5 }));
    expect(fields(again.text)).toMatchObject({ access_count: 6, merge_clash: r.clashes });
  });

  it('a category clash keeps the category of the folder the file is in', () => {
    const r = mergeMemoryText(BASE, edit(BASE, { category: 'decision' }), edit(BASE, { category: 'semantic' }), { settings, mergeText: gitTextMerger(), path: 'semantic/mem-abc123def456.md' })!;
    expect(fields(r.text).category).toBe('semantic');
    expect(r.clashes).toEqual(['category: decision or semantic (kept semantic)']);
    const s = mergeMemoryText(BASE, edit(BASE, { category: 'decision' }), edit(BASE, { category: 'semantic' }), { settings, mergeText: gitTextMerger(), path: 'decisions/mem-abc123def456.md' })!;
    expect(fields(s.text).category).toBe('decision');
  });

  it('a field a person removed on one side is removed; one a person added on the other is added', () => {
    const ours = BASE.replace("reviewer: 'Ann'   # a field Engram does not know\n", '');
    const theirs = edit(BASE, { access_count: 4, source: 'slack' });
    const r = merge(BASE, ours, theirs);
    expect(r.text).toBe(ours.replace('access_count: 3', 'access_count: 4').replace('---\nFound', 'source: slack\n---\nFound'));
  });
});

describe('the body and the bytes around the merged fields', () => {
  it('merges edits to different lines of the body, and recomputes content_hash when both sides changed it', () => {
    const base = edit(BASE, { content_hash: contentHash(splitFrontmatter(BASE)!.body) });
    const oursBody = splitFrontmatter(base)!.body.replace('Found a flaky test', 'Found a flaky integration test');
    const theirsBody = splitFrontmatter(base)!.body.replace('|related]]', '|related]] [[mem-cccccccccccc|related]]');
    const withBody = (text: string, body: string) => {
      const s = splitFrontmatter(text)!;
      return s.head + s.yaml + s.fence + body;
    };
    const ours = edit(withBody(base, oursBody), { content_hash: contentHash(oursBody), access_count: 4 });
    const theirs = edit(withBody(base, theirsBody), { content_hash: contentHash(theirsBody) });
    const r = merge(base, ours, theirs);
    expect(r.bodyConflicts).toBe(0);
    const body = 'Found a flaky integration test in the auth suite.\nThe timeout is too short for CI.\n\n[[mem-xyz789pqr012|related]] [[mem-cccccccccccc|related]]\n';
    expect(splitFrontmatter(r.text)!.body).toBe(body);
    expect(fields(r.text)).toMatchObject({ content_hash: contentHash(body), access_count: 4 });
  });

  it('puts conflict markers only in the body, only where both sides changed the same lines', () => {
    const ours = edit(BASE.replace('Found a flaky test', 'Found a slow test'), { access_count: 4 });
    const theirs = edit(BASE.replace('Found a flaky test', 'Found a broken test'), { access_count: 5 });
    const r = merge(BASE, ours, theirs);
    expect(r.bodyConflicts).toBe(1);
    const split = splitFrontmatter(r.text)!;
    expect(split.yaml).not.toMatch(/<<<<<<<|>>>>>>>/);
    expect(split.body).toBe(
      '<<<<<<< ours\nFound a slow test in the auth suite.\n=======\nFound a broken test in the auth suite.\n>>>>>>> theirs\nThe timeout is too short for CI.\n\n[[mem-xyz789pqr012|related]]\n',
    );
    expect(parseMemory(PATH, r.text, settings).access_count).toBe(6);
  });

  it('keeps a comment theirs added to the frontmatter, ours\' quoting and every other byte', () => {
    const theirs = edit(BASE, { access_count: 5 }).replace('is_error: false\n', 'is_error: false\n# checked by Ann on Friday\n');
    const ours = edit(BASE, { access_count: 4 });
    const r = merge(BASE, ours, theirs);
    expect(r.text).toBe(BASE.replace('access_count: 3', 'access_count: 6').replace('is_error: false\n', 'is_error: false\n# checked by Ann on Friday\n'));
  });

  it('keeps CRLF line endings', () => {
    const crlf = BASE.replace(/\n/g, '\r\n');
    const r = merge(crlf, edit(crlf, { access_count: 4 }), edit(crlf, { access_count: 5 }));
    expect(r.text).toBe(crlf.replace('access_count: 3', 'access_count: 6'));
  });

  it('returns null for a side that is not a note with frontmatter (git merges it as text)', () => {
    expect(mergeMemoryText(BASE, '<<<<<<< ours\nid: x\n', BASE, { settings, mergeText: gitTextMerger() })).toBeNull();
    expect(mergeMemoryText(BASE, BASE, 'just text\n', { settings, mergeText: gitTextMerger() })).toBeNull();
  });
});

describe('two copies without a base (a sync tool\'s conflict copy)', () => {
  it('takes the larger counters, the union of sets, the later times, and keeps both bodies visible when they differ', () => {
    const a = edit(BASE, { access_count: 7, tags: ['typescript', 'testing', 'flaky'], last_accessed_at: '2026-05-04T00:00:00Z', co_access: { 'mem-xyz789pqr012': 5 } });
    const b = edit(BASE, { access_count: 5, tags: ['typescript', 'auth'], last_accessed_at: '2026-05-06T00:00:00Z', co_access: { 'mem-xyz789pqr012': 3, 'mem-cccccccccccc': 1 } });
    const r = merge(null, a, b);
    expect(fields(r.text)).toMatchObject({
      access_count: 7,
      tags: ['typescript', 'testing', 'flaky', 'auth'],
      last_accessed_at: '2026-05-06T00:00:00Z',
      co_access: { 'mem-xyz789pqr012': 5, 'mem-cccccccccccc': 1 },
    });
    expect(r.bodyConflicts).toBe(0);
    const c = BASE.replace('The timeout is too short for CI.', 'The timeout is fine.');
    const s = merge(null, BASE, c);
    expect(s.bodyConflicts).toBe(1);
    expect(splitFrontmatter(s.text)!.body).toBe('Found a flaky test in the auth suite.\n<<<<<<< ours\nThe timeout is too short for CI.\n=======\nThe timeout is fine.\n>>>>>>> theirs\n\n[[mem-xyz789pqr012|related]]\n');
  });

  it('adds the uses each device counted since the copies diverged (per-device counts), and promotes the tier for both', () => {
    // common state: 3 uses, 1 of them on the laptop; then the laptop 1 use, the phone 2 (its first)
    const common = edit(BASE, { 'uses_m-aaaaaaaaaaaa': 1 });
    const laptop = edit(common, { access_count: 4, 'uses_m-aaaaaaaaaaaa': 2, tier: 'active', last_accessed_at: '2026-05-02T00:00:00Z' });
    const phone = edit(common, { access_count: 5, 'uses_m-bbbbbbbbbbbb': 2, tier: 'active', last_accessed_at: '2026-05-01T00:00:00Z' });
    for (const [ours, theirs] of [[laptop, phone], [phone, laptop]] as const) {
      expect(fields(merge(null, ours, theirs).text)).toMatchObject({ access_count: 6, 'uses_m-aaaaaaaaaaaa': 2, 'uses_m-bbbbbbbbbbbb': 2, tier: 'active', last_accessed_at: '2026-05-02T00:00:00Z' });
    }
    // one touch on each device from a cold memory: each copy says warm, together they are active
    const cold = edit(BASE, { tier: 'cold' });
    const one = edit(cold, { access_count: 4, tier: 'warm', 'uses_m-aaaaaaaaaaaa': 1 });
    const other = edit(cold, { access_count: 4, tier: 'warm', 'uses_m-bbbbbbbbbbbb': 1 });
    expect(fields(merge(null, one, other).text)).toMatchObject({ access_count: 5, tier: 'active', 'uses_m-aaaaaaaaaaaa': 1, 'uses_m-bbbbbbbbbbbb': 1 });
    // merging the result again with either copy changes nothing (a run stopped half-way, repeated)
    const merged = merge(null, one, other).text;
    expect(fields(merge(null, merged, one).text)).toMatchObject({ access_count: 5, 'uses_m-aaaaaaaaaaaa': 1, 'uses_m-bbbbbbbbbbbb': 1 });
    expect(fields(merge(null, merged, other).text).access_count).toBe(5);
    // a copy touched by an older Engram (no per-device count) is counted once, as before
    const old = edit(BASE, { access_count: 4 });
    expect(fields(merge(null, one, old).text).access_count).toBe(5);
  });

  it('activation: the larger once both are decayed to the later time', () => {
    const a = edit(BASE, { activation: 3, activation_at: '2026-05-01T00:00:00Z' });
    const b = edit(BASE, { activation: 2.9, activation_at: '2026-05-31T00:00:00Z' });
    expect(fields(merge(null, a, b).text)).toMatchObject({ activation: 2.9, activation_at: '2026-05-31T00:00:00Z' });
  });
});
