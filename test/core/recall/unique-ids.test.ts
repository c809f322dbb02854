import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { LiveIndex } from '../../../src/core/recall/live-index';
import { tableFromDocs, tableFromDocsInSlices } from '../../../src/core/recall/doc-table';
import { bm25Params, frozenPartsFromDocs, partsFromDocs, RecallEngine, type EngineParts } from '../../../src/core/recall/recall';
import { decodeSnapshot, encodeSnapshot } from '../../../src/core/recall/snapshot';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at } from '../../helpers/memory-ports';

/**
 * A snapshot of documents whose ids are all distinct says so (EngineParts.uniqueIds): an engine
 * made from it finds a hit's row from the hit's document, and makes its map of every id only
 * when it is asked for an id. It answers as the engine that made the map at once.
 */

const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
const NOW = at('2026-05-03T00:00:00Z');
/** A pattern (0) with three episodes (1-3) consolidated into it, a memory superseded by another (4 by 5), and two others. */
const notes: Array<[category: string, body: string, extra?: string]> = [
  ['semantic', 'Payments retries use backoff, a pattern.'],
  ['episodic', `Payments retries backed off today. [[${id(0)}|decays_from]]`],
  ['episodic', `Payments retries backed off again. [[${id(0)}|decays_from]]`],
  ['episodic', `Retries of payments: backoff once more. [[${id(0)}|decays_from]]`],
  ['episodic', 'Payments retries happen five times.', `superseded_by: ${id(5)}\n`],
  ['episodic', 'Payments retries happen three times now.'],
  ['episodic', 'Lunch was pizza on Friday.'],
  ['episodic', `Deploys of payments on Tuesdays. [[${id(5)}|related]]`],
];

function docsWith(ids: (n: number) => string) {
  return notes.map(([category, body, extra = ''], n) =>
    toRecallDoc(parseMemory(`${category === 'semantic' ? 'semantic' : 'episodic'}/note ${n}.md`, `---\nid: ${ids(n)}\ncategory: ${category}\ncreated_at: "2026-05-01T00:0${n}:00Z"\nsession: s${n % 2}\n${extra}---\n${body}\n`, S), false),
  );
}

/** The parts of a snapshot of `parts`, with a count of the reads of each row's id. */
function fromSnapshot(parts: EngineParts, bytes = encodeSnapshot(parts, files(parts), 'fp')): { parts: EngineParts; reads: number[] } {
  const restored = decodeSnapshot(bytes)!.parts(bm25Params(S));
  const reads: number[] = [];
  const ids = restored.table.ids;
  const counted = new Proxy(ids, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads.push(Number(key));
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { parts: { ...restored, table: { ...restored.table, ids: counted } }, reads };
}

const files = (parts: EngineParts) => parts.table.paths.map((path, n): [string, number, number] => [path, n, 0]);
const answer = (engine: RecallEngine, query: string) =>
  engine.search(query, { limit: 10, radius: 'all' }, NOW).hits.map((h) => [h.doc.id, h.doc.path, h.score, h.collapsed, h.explain.superseded_by]);
const QUERIES = ['payments retries backoff', 'retries three times', 'pizza', 'deploys tuesdays'];

describe('an engine from a snapshot of distinct ids', () => {
  it('writes what parts that say their ids are distinct say, without checking them again; checks parts that do not say so', () => {
    // (parts that say so checked it when they were made: frozenPartsFromDocs, a snapshot's parts)
    const repeated = partsFromDocs(docsWith((n) => id(n === 6 ? 2 : n)), S);
    const said = (parts: EngineParts) => decodeSnapshot(encodeSnapshot(parts, files(parts), 'fp'))!.parts(bm25Params(S)).uniqueIds;
    expect(said({ ...repeated, uniqueIds: true })).toBe(true);
    expect(said({ ...repeated, uniqueIds: false })).toBe(false);
    const distinct = partsFromDocs(docsWith(id), S);
    expect(said({ ...distinct, uniqueIds: false })).toBe(true);
    expect(said({ ...distinct, uniqueIds: undefined })).toBe(true);
  });

  it('says in the snapshot whether ids are distinct: true for distinct ids, false for a repeated one, absent in an older file', () => {
    const distinct = partsFromDocs(docsWith(id), S);
    const repeated = partsFromDocs(docsWith((n) => id(n === 6 ? 2 : n)), S);
    expect(decodeSnapshot(encodeSnapshot(distinct, files(distinct), 'fp'))!.parts(bm25Params(S)).uniqueIds).toBe(true);
    expect(decodeSnapshot(encodeSnapshot(repeated, files(repeated), 'fp'))!.parts(bm25Params(S)).uniqueIds).toBe(false);
    // a file written before the field was kept: the same header with the field blanked out
    const bytes = encodeSnapshot(distinct, files(distinct), 'fp');
    const text = new TextDecoder('latin1').decode(bytes);
    const at = text.indexOf('"uniqueIds":true,');
    expect(at).toBeGreaterThan(12);
    const older = bytes.slice();
    older.set(new TextEncoder().encode(' '.repeat('"uniqueIds":true,'.length)), at);
    const decoded = decodeSnapshot(older)!.parts(bm25Params(S));
    expect(decoded.uniqueIds).toBe(false);
    expect([...decoded.table.ids]).toEqual(distinct.table.ids);
  });

  it('reads no id to make itself, and only the ids of its results to search; it answers as an engine that made the map of ids at once', () => {
    const parts = partsFromDocs(docsWith(id), S);
    const eager = new RecallEngine(parts, S);
    const { parts: lazyParts, reads } = fromSnapshot(parts);
    const lazy = new RecallEngine(lazyParts, S);
    expect(reads).toEqual([]);
    // one result: its id alone read
    expect(answer(lazy, 'pizza').map(([doc]) => doc)).toEqual([id(6)]);
    expect(reads).toEqual([6]);
    // the pattern took its episodes' place (collapsed under it); the superseded memory is held below its successor
    const payments = answer(lazy, 'payments retries backoff');
    expect(payments.map(([doc, , , collapsed, by]) => [doc, collapsed, by])).toEqual([
      [id(0), [id(3), id(2), id(1)], null],
      [id(5), [], null],
      [id(7), [], null],
      [id(4), [], id(5)],
    ]);
    expect(QUERIES.map((q) => answer(lazy, q))).toEqual(QUERIES.map((q) => answer(eager, q)));
    // asked for an id, it makes the map: every row's id read once more
    const before = reads.length;
    expect(lazy.hitFor(id(6), 1, NOW)?.doc.path).toBe('episodic/note 6.md');
    expect(reads.slice(before).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(lazy.hitFor(id(9), 1, NOW)).toBeNull();
    expect(reads.length).toBe(before + 8);
  });

  it('makes the map at once from a snapshot that does not say its ids are distinct, and ranks a repeated id by its last row', () => {
    const parts = partsFromDocs(docsWith((n) => id(n === 3 ? 1 : n)), S);
    const { parts: restored, reads } = fromSnapshot(parts);
    expect(restored.uniqueIds).toBe(false);
    const engine = new RecallEngine(restored, S);
    expect(reads).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(QUERIES.map((q) => answer(engine, q))).toEqual(QUERIES.map((q) => answer(new RecallEngine(parts, S), q)));
    expect(engine.hitFor(id(1), 1, NOW)?.doc.path).toBe('episodic/note 3.md');
  });

  it('stops trusting the snapshot once its rows change: a hit is then ranked by the row its id names', () => {
    const parts = partsFromDocs(docsWith(id), S);
    const { parts: restored } = fromSnapshot(parts);
    const engine = new RecallEngine(restored, S);
    const eagerParts = { ...parts, table: { ...parts.table, ids: parts.table.ids.slice() } };
    const eager = new RecallEngine(eagerParts, S);
    // row 1 (an episode of the pattern) takes row 7's id; each engine follows it
    for (const [p, e] of [[restored, engine], [eagerParts, eager]] as const) {
      p.table.ids[1] = id(7);
      e.followRows(p, [1], [], false);
    }
    expect(engine.hitFor(id(7), 1, NOW)?.doc.path).toBe('episodic/note 1.md');
    // a hit on row 7 is ranked as its id's row (1, an episode of the pattern), as by the engine that made the map at once
    const answers = QUERIES.map((q) => answer(engine, q));
    expect(answers).toEqual(QUERIES.map((q) => answer(eager, q)));
    expect(answers[0]!.map(([doc, , , collapsed]) => [doc, collapsed])).toEqual([
      [id(0), [id(3), id(2), id(7), id(7)]],
      [id(5), []],
      [id(4), []],
    ]);
  });

  it('is not given to the engine of a live index, whose rows change in place before the engine follows them', () => {
    const docs = docsWith(id);
    const { parts: restored } = fromSnapshot(partsFromDocs(docs, S));
    expect(restored.uniqueIds).toBe(true);
    const live = new LiveIndex(docs, S, null, restored);
    expect(live.parts.uniqueIds).toBeUndefined();
    expect(answer(live.engine, 'payments retries backoff')).toEqual(answer(new RecallEngine(partsFromDocs(docs, S), S), 'payments retries backoff'));
  });
});

describe('the frozen parts of a first recall', () => {
  it('say whether their ids are distinct, as their snapshot does, and answer as partsFromDocs\' parts (which do not say it)', () => {
    // the row of id(5): its own, or the last of two rows that hold it
    for (const [ids, unique, fifth] of [[id, true, 'episodic/note 5.md'], [(n: number) => id(n === 3 ? 1 : n), false, 'episodic/note 5.md'], [(n: number) => id(n === 7 ? 5 : n), false, 'episodic/note 7.md']] as const) {
      const docs = docsWith(ids);
      const frozen = frozenPartsFromDocs(docs, S);
      const built = partsFromDocs(docs, S);
      expect([frozen.uniqueIds, built.uniqueIds]).toEqual([unique, undefined]);
      expect(decodeSnapshot(encodeSnapshot(frozen, files(frozen), 'fp'))!.parts(bm25Params(S)).uniqueIds).toBe(unique);
      const engine = new RecallEngine(frozen, S);
      const eager = new RecallEngine(built, S);
      expect(QUERIES.map((q) => answer(engine, q))).toEqual(QUERIES.map((q) => answer(eager, q)));
      expect([engine.hitFor(id(5), 1, NOW)?.doc.path, eager.hitFor(id(5), 1, NOW)?.doc.path]).toEqual([fifth, fifth]);
    }
    expect(answer(new RecallEngine(frozenPartsFromDocs(docsWith(id), S), S), 'payments retries backoff').map(([doc, , , collapsed, by]) => [doc, collapsed, by])).toEqual([
      [id(0), [id(3), id(2), id(1)], null],
      [id(5), [], null],
      [id(7), [], null],
      [id(4), [], id(5)],
    ]);
  });

  it('have the table the sliced build makes: links, co-access and successors resolved to the same rows, a repeated id to its last row', async () => {
    for (const ids of [id, (n: number) => id(n === 6 ? 0 : n), (n: number) => id(n === 7 ? 5 : n)]) {
      const docs = docsWith(ids);
      docs[6]!.co_access = { [id(0)]: 2, [id(5)]: 1, [id(6)]: 3, 'mem-999999999999': 1 };
      const ticks: number[] = [];
      const sliced = await tableFromDocsInSlices(docs, async () => void ticks.push(ticks.length), 12);
      const table = tableFromDocs(docs, 12);
      expect(table).toEqual(sliced);
      // a step after each document (ids, then rows) and each of the nine columns of strings
      expect(ticks.length).toBe(2 * docs.length + 9);
    }
    const table = tableFromDocs(docsWith((n) => id(n === 6 ? 0 : n)));
    // the pattern's episodes link to id(0), held last by row 6; row 4 is superseded by row 5
    expect([...table.linkTargets]).toEqual([6, 6, 6, 5]);
    expect([...table.successor]).toEqual([-1, -1, -1, -1, 5, -1, -1, -1]);
  });
});
