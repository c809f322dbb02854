import { parseMemory } from '../../../src/core/memory';
import { compareMemoryPaths } from '../../../src/core/memory-files';
import { toRecallDoc, type RecallDoc } from '../../../src/core/recall/catalog';
import { roomLeft } from '../../../src/core/recall/doc-table';
import { LiveIndex } from '../../../src/core/recall/live-index';
import { prominent, RecallEngine } from '../../../src/core/recall/recall';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at } from '../../helpers/memory-ports';

/**
 * The live index against a build from scratch: after every change of a random sequence of
 * edits, additions, deletions and moves, each query's ranked results (ids, scores, every
 * explanation figure, the documents as results show them) and the prominent list equal, to
 * the last bit, those of `new RecallEngine(liveDocs())`.
 */

const NOW = at('2026-05-20T00:00:00Z');
const WORDS = ['payments', 'retry', 'backoff', 'grafana', 'deploy', 'friday', 'pizza', 'cache', 'latency', 'queue', 'kafka', 'berlin', 'alice', 'review', 'schema', 'index'];
const ROLES = [null, 'sre', 'code-reviewer'];
const CONFIDENCE = ['verified', 'observed', 'inferred', 'stale'];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const idOf = (n: number) => `mem-${String(n).padStart(12, '0')}`;

function world(seed: number) {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const known: number[] = [];
  const note = (n: number, path: string): RecallDoc => {
    const words = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => pick(WORDS));
    if (rand() < 0.2) words.push('on 2026-05-0' + (1 + Math.floor(rand() * 9)));
    if (rand() < 0.2) words.push('with Alice Berlin');
    const links = known.length > 0 && rand() < 0.3 ? ` [[${idOf(pick(known))}|${pick(['related', 'related', 'decays_from', 'contradicts'])}]]` : '';
    const co = known.length > 0 && rand() < 0.25 ? `co_access: {"${idOf(pick(known))}": ${1 + Math.floor(rand() * 4)}}\n` : '';
    const successor = known.length > 0 && rand() < 0.1 ? `superseded_by: ${idOf(pick(known))}\n` : '';
    const session = rand() < 0.6 ? `session: s${Math.floor(rand() * 5)}\n` : '';
    const role = pick(ROLES);
    const day = 1 + Math.floor(rand() * 18);
    const text = `---\nid: ${idOf(n)}\ncategory: ${rand() < 0.15 ? 'semantic' : 'episodic'}\ncreated_at: "2026-05-${String(day).padStart(2, '0')}T00:00:00Z"\n` +
      `access_count: ${Math.floor(rand() * 4)}\nconfidence: ${pick(CONFIDENCE)}\n${session}${co}${successor}${role ? `agent_role: ${role}\n` : ''}---\n${words.join(' ')}.${links}\n`;
    return toRecallDoc(parseMemory(path, text, S), path.startsWith('archive/'));
  };
  return { rand, pick, note, known };
}

const QUERIES = ['payments', 'kafka', 'berlin', 'index', 'payments retry', 'deploy on friday', 'what did alice do in berlin', 'when was the schema review', 'cache latency queue', 'sre payments', 'code reviewer schema', 'what happened on 2026-05-03'];

/** Everything a result shows, in a form where numbers compare exactly (JSON keeps every bit of a double). */
function answers(engine: RecallEngine): string {
  const hits = (h: ReturnType<RecallEngine['recall']>) => h.map((x) => ({ ...x, doc: { ...x.doc, text: x.doc.text } }));
  const out: unknown[] = [];
  for (const q of QUERIES) {
    const plain = engine.search(q, { limit: 40 }, NOW);
    out.push(hits(plain.hits), plain.widening, hits(engine.recall(q, { limit: 40, radius: 'default' }, NOW)));
  }
  out.push(hits(prominent(engine, 40, 'all', NOW)), engine.size, engine.ids());
  return JSON.stringify(out);
}

/** `reserve`: after these steps, room is made ahead (LiveIndex.reserve) and its rows left are recorded in `room`. */
async function run(seed: number, ordered: boolean, steps: number, reserve: { at: number[]; room: number[]; addShare?: number } = { at: [], room: [] }) {
  const { rand, pick, note, known } = world(seed);
  const paths = new Map<number, string>();
  let next = 0;
  const pathFor = (n: number) => `episodic/${idOf(n)}.md`;
  const initial: RecallDoc[] = [];
  for (; next < 30; next++) {
    paths.set(next, pathFor(next));
    initial.push(note(next, pathFor(next)));
    known.push(next);
  }
  const live = new LiveIndex(initial, S, ordered ? compareMemoryPaths : null);
  for (let step = 0; step < steps; step++) {
    const upserts: RecallDoc[] = [];
    const removed: string[] = [];
    const ops = 1 + Math.floor(rand() * 3);
    for (let k = 0; k < ops; k++) {
      const r = rand();
      const alive = [...paths.keys()].filter((n) => !removed.includes(paths.get(n)!) && !upserts.some((d) => d.path === paths.get(n)));
      if (r < 0.45 && alive.length > 0) {
        const n = pick(alive);
        upserts.push(note(n, paths.get(n)!)); // an edit (words, fields, links, session)
      } else if (r < (reserve.addShare ?? 0.75) || alive.length < 5) {
        const n = next++;
        // ordered: mostly a path sorting last (as new ids do), now and then one in the middle
        const path = ordered && rand() < 0.15 ? `episodic/mem-0000${n}.md` : pathFor(n);
        paths.set(n, path);
        known.push(n);
        upserts.push(note(n, path));
      } else if (r < 0.92) {
        const n = pick(alive);
        removed.push(paths.get(n)!);
        paths.delete(n);
      } else {
        const n = pick(alive); // a move to archive/: the same memory at another path
        removed.push(paths.get(n)!);
        const path = `archive/${idOf(n)}.md`;
        paths.set(n, path);
        upserts.push(note(n, path));
      }
    }
    live.apply(upserts, removed);
    expect(answers(live.engine)).toBe(answers(new RecallEngine(live.liveDocs(), S)));
    if (reserve.at.includes(step)) {
      await live.reserve(() => Promise.resolve());
      reserve.room.push(live.parts.table.n, roomLeft(live.parts.table), live.parts.episodeOf.length);
    }
  }
  reserve.room.push(live.parts.table.n, roomLeft(live.parts.table));
  if (ordered) expect(live.liveDocs().map((d) => d.path)).toEqual(live.liveDocs().map((d) => d.path).sort(compareMemoryPaths));
  return live.stats;
}

describe('live index', () => {
  it('answers exactly as an engine built from its live documents, after each of 80 random changes (path order kept)', async () => {
    // most changes are followed in place; moves, middle paths and compaction build again
    expect(await run(1, true, 80)).toEqual({ built: 35, updated: 46 });
  });

  it('the same, without an order (the plugin appends new memories)', async () => {
    expect(await run(2, false, 80)).toEqual({ built: 1, updated: 80 });
  });

  it('the same for other sequences', async () => {
    expect(await Promise.all([3, 4, 5].map((seed) => run(seed, seed % 2 === 0, 30)))).toEqual([{ built: 1, updated: 30 }, { built: 19, updated: 12 }, { built: 1, updated: 30 }]);
  });

  it('the same with room made ahead (reserve), and additions that use it up and cross its end', async () => {
    // mostly additions: room for 64 more rows after step 0 (31 rows), used up by step 90 and
    // grown past by the additions themselves (by half); made again at step 90 (112 rows: 176)
    const reserve = { at: [0, 90], room: [] as number[], addShare: 0.85 };
    expect(await run(6, false, 100, reserve)).toEqual({ built: 1, updated: 100 });
    // [rows, room left, episode numbers' length] after each reserve, then [rows, room left] at the end
    expect(reserve.room).toEqual([31, 64, 95, 112, 64, 176, 119, 57]);
  });

  it('is built with room for half as many rows again: additions at once after a build, and during a reserve, reallocate no per-row array', async () => {
    const { note } = world(11);
    // no links, co-access or successor: their sparse columns are spliced anew by design (setSparseRows)
    const plain = (n: number) => {
      const doc = note(n, `episodic/${idOf(n)}.md`);
      return { ...doc, links: [], co_access: {}, superseded_by: null };
    };
    const docs = Array.from({ length: 200 }, (_, n) => plain(n));
    const builds: Array<[string, () => Promise<LiveIndex>]> = [
      ['built at once', async () => new LiveIndex(docs, S)],
      ['built in slices', () => LiveIndex.inSlices(docs, S, null, () => Promise.resolve())],
    ];
    for (const [how, make] of builds) {
      const live = await make();
      // every per-row array: the table's row columns, the episode numbers, the word index's
      // lengths and scratch, the engine's derived values (by identity: a reallocation replaces it)
      const arrays = () => {
        const table = live.parts.table as unknown as Record<string, unknown>;
        const lexical = live.parts.lexical as unknown as Record<string, unknown>;
        const engine = live.engine as unknown as Record<string, unknown>;
        return [
          ...Object.keys(table).filter((k) => !['n', 'linkTargets', 'linkKinds', 'coTargets', 'coCounts'].includes(k)).map((k) => table[k]),
          live.parts.episodeOf, lexical['lengths'], lexical['acc'], lexical['seen'], lexical['touched'], engine['halfLives'], engine['roleOf'],
        ];
      };
      expect([how, live.parts.table.n, roomLeft(live.parts.table), live.parts.episodeOf.length, live.wantsRoom]).toEqual([how, 200, 100, 300, false]);
      const first = arrays();
      let next = 200;
      const add = () => {
        const doc = plain(next++);
        expect(live.apply([doc], [])).toBe(true);
        return doc;
      };
      for (let k = 0; k < 41; k++) add();
      arrays().forEach((array, k) => expect([how, k, array === first[k]]).toEqual([how, k, true]));
      expect(answers(live.engine)).toBe(answers(new RecallEngine(live.liveDocs(), S)));
      // 59 rows of room left for 241 (under a quarter): a reserve, an addition at each of its steps (as a request between two slices)
      expect([roomLeft(live.parts.table), live.wantsRoom]).toEqual([59, true]);
      let steps = 0;
      await live.reserve(async () => {
        const before = arrays();
        add();
        steps++;
        arrays().forEach((array, k) => expect([how, steps, k, array === before[k]]).toEqual([how, steps, k, true]));
        expect(answers(live.engine)).toBe(answers(new RecallEngine(live.liveDocs(), S)));
      });
      // the reserve's steps: the table's 21 row columns, the episode numbers, the word index's 4 arrays, the engine's 2, the rows
      expect([how, steps, live.parts.table.n, roomLeft(live.parts.table), live.wantsRoom]).toEqual([how, 29, 270, 91, false]);
      expect(answers(live.engine)).toBe(answers(new RecallEngine(live.liveDocs(), S)));
    }
  });

  it('splices links and co-access in place, and builds the reverse links again only when links change, in the arrays it had', () => {
    const doc = (n: number, extra = '', body = 'payments retry') =>
      toRecallDoc(parseMemory(`episodic/${idOf(n)}.md`, `---\nid: ${idOf(n)}\ncategory: episodic\ncreated_at: "2026-05-0${1 + (n % 9)}T00:00:00Z"\n${extra}---\n${body}\n`, S), false);
    const live = new LiveIndex(Array.from({ length: 40 }, (_, n) => doc(n, n % 7 === 3 ? `co_access: {"${idOf(n + 1)}": 2}\n` : '', n % 5 === 0 ? `payments [[${idOf(n + 2)}|related]]` : 'payments retry')), S);
    const engine = live.engine as unknown as Record<string, Record<string, unknown>>;
    const state = () => ({ links: live.parts.table.linkOffsets, co: live.parts.table.coOffsets, associations: engine['associations'], inOffsets: engine['associations']!['inOffsets'], counts: engine['associations']!['counts'] });
    const check = (upserts: RecallDoc[], same: Record<string, boolean>) => {
      const before = state();
      expect(live.apply(upserts, [])).toBe(true);
      const after = state();
      expect(Object.fromEntries(Object.keys(same).map((k) => [k, after[k as keyof typeof after] === before[k as keyof typeof before]]))).toEqual(same);
      expect(answers(live.engine)).toBe(answers(new RecallEngine(live.liveDocs(), S)));
    };
    // a touch's co-access: the same reverse links
    check([doc(3, `co_access: {"${idOf(4)}": 3, "${idOf(9)}": 1}\n`)], { links: true, co: true, associations: true });
    // an edit that links, an addition that links (the last row), one that links back to it: built again in the same arrays
    check([doc(7, '', `payments [[${idOf(1)}|related]] [[${idOf(2)}|decays_from]]`)], { links: true, co: true, associations: false, inOffsets: true, counts: true });
    check([doc(40, `co_access: {"${idOf(7)}": 2}\n`, `retry [[${idOf(7)}|related]]`)], { links: true, co: true, associations: false, inOffsets: true, counts: true });
    check([doc(41, '', `payments [[${idOf(40)}|related]]`), doc(5, '', 'payments')], { links: true, co: true, associations: false, inOffsets: true, counts: true });
    expect(live.stats).toEqual({ built: 1, updated: 4 });
  });

  it('an edit re-indexes the row in place: the new words are found, the old ones are not', () => {
    const { note } = world(9);
    const docs = [0, 1, 2].map((n) => note(n, `episodic/${idOf(n)}.md`));
    const live = new LiveIndex(docs, S, compareMemoryPaths);
    const engine = live.engine;
    const edited = toRecallDoc(parseMemory(docs[1]!.path, `---\nid: ${idOf(1)}\ncategory: episodic\ncreated_at: "2026-05-01T00:00:00Z"\n---\nZanzibar ferries.\n`, S), false);
    expect(live.apply([edited], [])).toBe(true);
    expect(live.engine).toBe(engine);
    expect(engine.recall('zanzibar', { limit: 5, radius: 'all' }, NOW).map((h) => h.doc.id)).toEqual([idOf(1)]);
    expect(live.apply([], [docs[0]!.path])).toBe(true);
    expect(engine.size).toBe(2);
    expect(engine.ids()).toEqual([idOf(1), idOf(2)]);
    expect(live.stats).toEqual({ built: 1, updated: 2 });
  });
});
