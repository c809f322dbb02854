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

  it('scores lexical seeds, lifts their episode, spreads along links, ranks by strength and confidence', () => {
    const hits = engine.recall('payments retries', { limit: 10, radius: 'default' }, NOW);
    expect(hits.map((h) => h.doc.id)).toEqual([id(0), id(4), id(1)]);
    const [a, grafana, b] = hits;
    // A: lexical 1 (the best match) + episode s1 lift 0.3 (the only episode with a match)
    expect(a!.explain.relevance).toBeCloseTo(1.3, 12);
    expect(a!.explain.episode).toEqual({ session: 's1', boost: 0.3 });
    expect(a!.score).toBeCloseTo(1.3 * strength * 0.7, 12);
    // B: no lexical match; reached from A along `related`, towards the later memory (0.75)
    expect(b!.explain.lexical).toBe(0);
    expect(b!.explain.spread).toEqual({ amount: 1.3 * 0.6 * 0.75, from: id(0), kinds: ['related'], path: [id(0), id(1)] });
    expect(b!.score).toBeCloseTo(1.3 * 0.6 * 0.75 * strength * 0.7, 12);
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
