import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { prominent, RecallEngine } from '../../../src/core/recall/recall';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at } from '../../helpers/memory-ports';

const NOW = at('2026-05-08T00:00:00Z');
const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;

function memory(n: number, body: string, fields: Record<string, string | number> = {}, folder = 'episodic') {
  const lines = Object.entries({ category: 'episodic', created_at: `2026-05-01T00:0${n}:00Z`, last_accessed_at: '2026-05-01T00:00:00Z', ...fields }).map(
    ([k, v]) => `${k}: ${typeof v === 'string' && /^\d{4}-/.test(v) ? JSON.stringify(v) : v}`,
  );
  const text = `---\nid: ${id(n)}\n${lines.join('\n')}\n---\n${body}\n`;
  return toRecallDoc(parseMemory(`${folder}/${id(n)}.md`, text, S), folder === 'archive');
}

describe('recall engine (SPEC §7)', () => {
  const docs = [
    memory(0, 'The payments service retries three times with backoff.', { session: 's1', agent_role: 'code-reviewer' }),
    memory(1, `Backoff starts at 200 milliseconds. [[${id(0)}|related]]`, { session: 's1' }),
    memory(2, 'Lunch was pizza on Friday.', { session: 's2' }),
    memory(3, 'An old note: payments retries were five, before the rewrite.', {}, 'archive'),
    memory(4, 'Payments dashboards are in Grafana.', { agent_role: 'sre', confidence: 'verified' }),
  ];
  const engine = new RecallEngine(docs, S);
  const strength = Math.pow(0.5, 7 / 7); // 7 days since access, episodic half-life 7
  const decay = 0.5 + 0.5 * strength; // the default radius halves at most

  it('scores lexical seeds, lifts their episode, spreads along links, ranks by strength and confidence', () => {
    const hits = engine.recall('payments retries', { limit: 10, radius: 'default' }, NOW);
    expect(hits.map((h) => h.doc.id)).toEqual([id(0), id(4), id(1)]);
    const [a, grafana, b] = hits;
    // A: lexical 1 (the best match) + episode s1 lift 0.3 (the only episode with a match)
    expect(a!.explain.relevance).toBeCloseTo(1.3, 12);
    expect(a!.explain.episode).toEqual({ session: 's1', boost: 0.3 });
    expect(a!.score).toBeCloseTo(1.3 * decay * 0.7, 12);
    // B: no lexical match; reached from A along `related`, towards the later memory (0.75)
    expect(b!.explain.lexical).toBe(0);
    expect(b!.explain.spread).toEqual({ amount: 1.3 * 0.6 * 0.75, from: id(0), kinds: ['related'], path: [id(0), id(1)], capped: false });
    expect(b!.score).toBeCloseTo(1.3 * 0.6 * 0.75 * decay * 0.7, 12);
    // Grafana: verified (1.0), a weaker lexical match
    expect(grafana!.explain.confidence_weight).toBe(1);
    expect(grafana!.explain.lexical_rank).toBe(2);
  });

  it('keeps to the radius: archive only in all, where decay is a mild factor', () => {
    expect(engine.recall('payments retries', { limit: 10, radius: 'deep' }, NOW).map((h) => h.doc.id)).not.toContain(id(3));
    const all = engine.recall('payments retries', { limit: 10, radius: 'all' }, NOW);
    const old = all.find((h) => h.doc.id === id(3))!;
    expect(old.tier).toBe('archive');
    expect(old.explain.decay_factor).toBeCloseTo(0.8 + 0.2 * strength, 12);
  });

  it('lifts the memories of an agent role the query names', () => {
    const hits = engine.recall('what did the code reviewer say about payments', { limit: 3, radius: 'default' }, NOW);
    expect(hits[0]!.doc.id).toBe(id(0));
    expect(hits[0]!.explain.role_boost).toBe(1.5);
    expect(hits.find((h) => h.doc.id === id(4))!.explain.role_boost).toBe(1);
  });

  it('lifts no role when the query names two: which one was meant is not known', () => {
    const hits = engine.recall('what did the code reviewer and the sre say about payments', { limit: 3, radius: 'default' }, NOW);
    expect(hits.map((h) => [h.doc.id, h.explain.role_boost])).toEqual([[id(4), 1], [id(0), 1], [id(1), 1]]);
  });

  it('fuses vector seeds by reciprocal rank', () => {
    const hits = engine.recall('payments retries', { limit: 10, radius: 'default', vectorSeeds: new Map([[id(2), 0.9], [id(0), 0.8]]) }, NOW);
    const lunch = hits.find((h) => h.doc.id === id(2))!;
    // A is lexical #1 and vector #2: 1/61 + 1/62 is the best fused score; lunch is vector #1 only
    expect(lunch.explain.vector).toBe(0.9);
    expect(lunch.explain.relevance).toBeCloseTo(1 / 61 / (1 / 61 + 1 / 62), 12);
    expect(lunch.explain.episode).toBeNull();
  });

  it('answers nothing for a query without content words, and writes nothing', () => {
    expect(engine.recall('the of and', { limit: 5, radius: 'all' }, NOW)).toEqual([]);
  });

  it('without a query, ranks what the agent knows best', () => {
    const best = prominent(engine, 2, 'default', NOW);
    expect(best.map((h) => h.doc.id)).toEqual([id(4), id(0)]);
  });
});

describe('plain recall: relevance first, widening beyond the default radius (SPEC §4, §7)', () => {
  const day = 86_400_000;
  const now = at('2026-07-01T00:00:00Z');
  const ago = (days: number) => new Date(now - days * day).toISOString().replace('.000Z', 'Z');
  const note = (n: number, body: string, days: number, fields: Record<string, string | number> = {}, folder = 'episodic') =>
    memory(n, body, { created_at: ago(days), last_accessed_at: ago(days), ...fields }, folder);

  it('reaches into cold and archive for a clearly better match, and says so', () => {
    const engine = new RecallEngine(
      [
        note(0, 'Chose pg-boss for background jobs over BullMQ, which needs Redis.', 50, {}, 'archive'),
        note(1, 'Background jobs dashboard was slow today.', 2),
        note(2, 'Lunch was pizza on Friday.', 1),
      ],
      S,
    );
    const { hits, widening } = engine.search('why pg-boss over BullMQ for background jobs', { limit: 5 }, now);
    expect(hits.map((h) => [h.doc.id, h.tier, h.widened])).toEqual([[id(0), 'archive', true], [id(1), 'active', false]]);
    expect(widening).toMatchObject({ widened: true, tiers: ['archive'], results: 1, near_best: hits[1]!.explain.relevance });
    expect(hits[0]!.explain.widened).toMatch(new RegExp(`^archive: relevance 1\\.000 at strength 0\\.00\\d scores above ${id(1)} in active`));
    // an explicit radius stays strict
    expect(engine.recall('why pg-boss over BullMQ for background jobs', { limit: 5, radius: 'default' }, now).map((h) => h.doc.id)).toEqual([id(1)]);
  });

  it('orders comparable matches by recency: the newer of two similar memories first', () => {
    const engine = new RecallEngine([note(0, 'The standup is at 9:30 in the small room.', 40, {}, 'archive'), note(1, 'The standup moved to 10:15 in the big room.', 12)], S);
    const hits = engine.recall('when is the standup', { limit: 5 }, now);
    expect(hits.map((h) => h.doc.id)).toEqual([id(1), id(0)]);
    expect(hits[0]!.explain.relevance).toBeCloseTo(hits[1]!.explain.relevance, 1);
  });

  it('does not bury a clearly better match under decay and association', () => {
    // a verified decision 36 days old matches twice as well as a recent conversation whose
    // turns lift one another (episode context, related links); it stays first.
    const talk = [2, 3, 4, 5, 6].map((n, k) => note(n, k % 2 === 0 ? 'We talked about the database and the tests.' : 'Then lunch.', 1, { session: 'talk', created_at: ago(1 - k / 100) }));
    talk.forEach((d, k) => k > 0 && d.links.push({ target: talk[k - 1]!.id, kind: 'related' }));
    const engine = new RecallEngine([note(0, 'Integration tests must never mock the database.', 36, { category: 'decision', half_life_days: 90, confidence: 'verified' }), ...talk], S);
    const hits = engine.recall('mock the database in integration tests', { limit: 10 }, now);
    expect(hits[0]!.doc.id).toBe(id(0));
    for (const hit of hits.slice(1)) expect(hit.explain.relevance).toBeLessThanOrEqual(1);
  });

  it('caps what spreading adds at the relevance of the strongest seed it came from', () => {
    const docs = [
      note(0, 'Redis timeouts in CI.', 1, { session: 's', created_at: ago(1.01) }),
      note(1, `Redis timeouts again in CI: raised the healthcheck. [[${id(0)}|related]]`, 1, { session: 's' }),
    ];
    const run = (capAssociation: boolean) => {
      const hits = new RecallEngine(docs, { ...S, recall: { ...S.recall, capAssociation } }).recall('redis timeouts', { limit: 5, radius: 'all' }, now);
      return Object.fromEntries(hits.map((h) => [h.doc.id, h.explain]));
    };
    const capped = run(true);
    const free = run(false);
    const seed0 = 1 + 0.3; // lexical best + episode lift
    const seed1 = free[id(1)]!.lexical / free[id(0)]!.lexical + 0.3;
    // uncapped: 1 receives 1.3 × 0.6 × 0.75 from 0 (towards the later memory) and rises above it
    expect(free[id(1)]!.relevance).toBeCloseTo(seed1 + seed0 * 0.6 * 0.75, 12);
    expect(free[id(1)]!.relevance).toBeGreaterThan(free[id(0)]!.relevance);
    // capped: 1 rises to the relevance of its seed 0, not above; 0 gains nothing from the weaker 1
    expect(capped[id(1)]!.relevance).toBeCloseTo(seed0, 12);
    expect(capped[id(1)]!.spread).toMatchObject({ from: id(0), capped: true });
    expect(capped[id(1)]!.spread!.amount).toBeCloseTo(seed0 - seed1, 12);
    expect(capped[id(0)]!.relevance).toBeCloseTo(seed0, 12);
  });
});
