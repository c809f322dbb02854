import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { bm25Params, partsFromDocs, RecallEngine } from '../../../src/core/recall/recall';
import { decodeSnapshot, encodeSnapshot } from '../../../src/core/recall/snapshot';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at } from '../../helpers/memory-ports';

/**
 * Paraphrases consolidated into a pattern come back as the pattern (issue 20), also when the
 * pattern itself does not match the query: the best episode's place goes to the pattern, with
 * that episode's score, and the episodes matched are collapsed under it. The same from an engine
 * made from a snapshot of distinct ids (a hit's row from its document: rowOf).
 */

const NOW = at('2026-05-03T00:00:00Z');
const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
const notes: Array<[category: string, body: string]> = [
  ['semantic', 'A pattern about payments.'],
  ['episodic', `Retries backed off today. [[${id(0)}|decays_from]]`],
  ['episodic', `Retries backed off again, backed off twice. [[${id(0)}|decays_from]]`],
  ['episodic', 'Lunch was pizza on Friday.'],
];
const docs = () =>
  notes.map(([category, body], n) => toRecallDoc(parseMemory(`${category}/note ${n}.md`, `---\nid: ${id(n)}\ncategory: ${category}\ncreated_at: "2026-05-01T00:0${n}:00Z"\n---\n${body}\n`, S), false));

describe('a pattern whose episodes match, not itself', () => {
  it.each([
    ['made from documents', () => partsFromDocs(docs(), S)],
    ['made from a snapshot of distinct ids', () => {
      const parts = partsFromDocs(docs(), S);
      return decodeSnapshot(encodeSnapshot(parts, parts.table.paths.map((p, n): [string, number, number] => [p, n, 0]), 'fp'))!.parts(bm25Params(S));
    }],
  ])('comes back as the pattern, its episodes collapsed under it (%s)', (_, parts) => {
    const engine = new RecallEngine(parts(), S);
    const hits = engine.recall('backed off', { limit: 10, radius: 'all' }, NOW);
    expect(hits.map((h) => [h.doc.id, h.collapsed])).toEqual([[id(0), [id(2), id(1)]]]);
    // the best episode's score (note 2: "backed off" twice), not the pattern's own
    expect([hits[0]!.score, hits[0]!.doc.path]).toEqual([0.6748627457366632, 'semantic/note 0.md']);
  });
});
