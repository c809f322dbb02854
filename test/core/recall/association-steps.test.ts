import { AssociationIndex } from '../../../src/core/recall/associations';
import type { RecallDoc } from '../../../src/core/recall/catalog';
import { tableFromDocs } from '../../../src/core/recall/doc-table';

/**
 * The association index's reverse links made in slices (a preload that answers meanwhile): a
 * step a 1,024 links counted, one for the sums, one a 1,024 links filled. Filling yielded after
 * every document, 10,000 resumptions of the generator in a cold recall of 10,000 memories.
 */
const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
const doc = (key: string, createdMs: number, links: Array<[string, 'related']>): RecallDoc => ({
  id: key, path: `episodic/${key}.md`, category: 'episodic', confidence: 'observed', tier: null, archived: false,
  createdMs, accessMs: createdMs, activationMs: createdMs, access_count: 0, is_error: false, half_life_days: 7,
  activation: 0, amplitude: 1, agent_role: null, source: null, session: null, terms: [],
  links: links.map(([target, kind]) => ({ target, kind })), co_access: {}, text: '',
});

describe('the reverse links, in slices', () => {
  it('takes a step a 1,024 links counted and filled, and gives the edges the index made at once gives', async () => {
    // 3,000 links: each of the documents 1-3,000 links the one before it; 4,000 documents
    const docs = Array.from({ length: 4000 }, (_, n) => doc(id(n), n, n >= 1 && n <= 3000 ? [[id(n - 1), 'related']] : []));
    const table = tableFromDocs(docs);
    let ticks = 0;
    const sliced = await AssociationIndex.inSlices(table, async () => void ticks++);
    // counted: 2 steps (after links 1,024 and 2,048); the sums: 2; filled: 2 (after 1,024 and 2,048 links)
    expect(ticks).toBe(6);
    const whole = new AssociationIndex(table);
    for (const node of [0, 1, 1023, 1024, 1025, 2999, 3000, 3001, 3999]) expect([node, sliced.edges(node)]).toEqual([node, whole.edges(node)]);
    expect(sliced.edges(1024)).toEqual([
      { target: 1023, weight: 0.25, kinds: ['related'] },
      { target: 1025, weight: 0.75, kinds: ['related'] },
    ]);
  });

  it('takes a step for a document with more links than a step alone', async () => {
    const many = Array.from({ length: 2100 }, (_, n) => [id(n + 1), 'related'] as [string, 'related']);
    const docs = [doc(id(0), 0, many), ...Array.from({ length: 2100 }, (_, n) => doc(id(n + 1), n + 1, []))];
    let ticks = 0;
    const sliced = await AssociationIndex.inSlices(tableFromDocs(docs), async () => void ticks++);
    // counted: 2; the sums: 2; filled: 1 (after the one document)
    expect(ticks).toBe(5);
    expect(sliced.edges(2100)).toEqual([{ target: 0, weight: 0.25, kinds: ['related'] }]);
  });
});

describe('the reverse links, filled', () => {
  it('puts every link into a target in its own slot, a step taken at exactly 1,024 links filled', async () => {
    // documents 1-3 each link document 0 (three links into one target); document 4 links the
    // 1,021 documents 5-1,025: 1,024 links in all, the step's size reached at document 4's end
    const into = (n: number) => (n >= 1 && n <= 3 ? [[id(0), 'related']] : n === 4 ? Array.from({ length: 1021 }, (_, k) => [id(k + 5), 'related']) : []) as Array<[string, 'related']>;
    const docs = Array.from({ length: 1026 }, (_, n) => doc(id(n), n, into(n)));
    let ticks = 0;
    const sliced = await AssociationIndex.inSlices(tableFromDocs(docs), async () => void ticks++);
    // counted: 1 (after link 1,024) and the one after counting; the sums: 1; filled: 1 (after document 4: 1,024 links)
    expect(ticks).toBe(4);
    const third = { weight: 1 / 3, kinds: ['related'] };
    expect(sliced.edges(0)).toEqual([{ target: 1, ...third }, { target: 2, ...third }, { target: 3, ...third }]);
    expect(new AssociationIndex(tableFromDocs(docs)).edges(0)).toEqual(sliced.edges(0));
    expect(sliced.edges(5)).toEqual([{ target: 4, weight: 0.25, kinds: ['related'] }]);
  });
});
