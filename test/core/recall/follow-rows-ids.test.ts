import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { LiveIndex } from '../../../src/core/recall/live-index';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at } from '../../helpers/memory-ports';

/**
 * A live index that follows a change in place (RecallEngine.followRows) keeps its map of ids
 * with the rows: a memory deleted is no longer found by id (hitFor, as a conflict's other side
 * joining a context is), a memory moved is found at its new path.
 *
 * followRows' `indexOf.get(id) === i` as `true` (StrykerJS) is equivalent: the live index
 * follows in place only when no two live rows share an id (canFollow), so a removed row's id
 * always maps to that row. Two more of recall.ts's, equivalent: the constructor's deriveRow loop
 * run to `i <= table.n` (the row one past the end: its half-life written past the end of a typed
 * array is dropped, its role reads undefined, so null, never read), and doc()'s
 * `if (this.uniqueIds) this.docRows.set(doc, i)` as `true` (docRows is read by rowOf only while
 * uniqueIds holds, and uniqueIds never turns true again once false).
 */

const NOW = at('2026-05-20T00:00:00Z');
const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
const doc = (n: number, path = `episodic/${id(n)}.md`) =>
  toRecallDoc(parseMemory(path, `---\nid: ${id(n)}\ncategory: episodic\ncreated_at: "2026-05-0${n + 1}T00:00:00Z"\n---\nNote ${n} about kites.\n`, S), false);
const found = (index: LiveIndex, n: number) => index.engine.hitFor(id(n), 1, NOW)?.doc.path ?? null;

describe('a live index following a change keeps its ids with its rows', () => {
  it('a deleted memory is found by id no more; the others still are', () => {
    const index = new LiveIndex([0, 1, 2].map((n) => doc(n)), S);
    expect([0, 1, 2].map((n) => found(index, n))).toEqual([0, 1, 2].map((n) => `episodic/${id(n)}.md`));
    expect(index.apply([], [`episodic/${id(1)}.md`])).toBe(true);
    expect([0, 1, 2].map((n) => found(index, n))).toEqual([`episodic/${id(0)}.md`, null, `episodic/${id(2)}.md`]);
    expect(index.engine.recall('kites', { limit: 10, radius: 'all' }, NOW).map((h) => h.doc.id).sort()).toEqual([id(0), id(2)]);
  });

  it('a memory moved (its path gone, the same id at another) is found at its new path', () => {
    const index = new LiveIndex([0, 1].map((n) => doc(n)), S);
    expect(found(index, 0)).toBe(`episodic/${id(0)}.md`);
    expect(index.apply([doc(0, `semantic/${id(0)}.md`)], [`episodic/${id(0)}.md`])).toBe(true);
    expect([found(index, 0), found(index, 1)]).toEqual([`semantic/${id(0)}.md`, `episodic/${id(1)}.md`]);
  });
});
