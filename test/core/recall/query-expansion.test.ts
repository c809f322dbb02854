import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { RecallEngine, type QueryExpansion } from '../../../src/core/recall/recall';
import { DEFAULT_SETTINGS } from '../../../src/core/settings';

describe('query expansion hook', () => {
  const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
  const memory = (n: number, body: string) =>
    toRecallDoc(parseMemory(`episodic/${id(n)}.md`, `---\nid: ${id(n)}\ncategory: episodic\ncreated_at: "2022-06-0${n + 1}T09:00:00Z"\n---\n${body}\n`, DEFAULT_SETTINGS), false);
  const docs = [memory(0, 'We went camping with my fam last weekend.'), memory(1, 'The car broke down on the highway.')];
  const now = Date.parse('2022-06-10T00:00:00Z');
  const ask = (expansion: QueryExpansion | null) => new RecallEngine(docs, DEFAULT_SETTINGS, expansion).recall('family trips', { limit: 5, radius: 'all' }, now);

  it('is off by default: no memory shares a word with the question', () => {
    expect(ask(null)).toEqual([]);
  });

  it('adds the terms it is given, only where some memory has them', () => {
    const seen: Array<[string, boolean]> = [];
    const hits = ask((query, terms, known) => {
      expect(query).toBe('family trips');
      expect([...terms]).toEqual([['famili', 1], ['trip', 1]]);
      for (const term of ['fam', 'car', 'relatives']) seen.push([term, known(term)]);
      terms.set('fam', 0.5);
    });
    expect(seen).toEqual([['fam', true], ['car', true], ['relatives', false]]);
    expect(hits.map((h) => h.doc.id)).toEqual([id(0)]);
  });
});
