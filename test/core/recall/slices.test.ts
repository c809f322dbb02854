import { parseMemory } from '../../../src/core/memory';
import { loadCatalog, toRecallDoc } from '../../../src/core/recall/catalog';
import { LiveIndex } from '../../../src/core/recall/live-index';
import { partsFromDocs, partsFromDocsInSlices, RecallEngine } from '../../../src/core/recall/recall';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { Slicer } from '../../../src/core/slicer';
import { at, memoryVault } from '../../helpers/memory-ports';

/**
 * Work in slices (a long-lived process's preload): the slicer's budget counted in units, no
 * clock; and each sliced build gives exactly what the build at once gives.
 */

const NOW = at('2026-05-20T00:00:00Z');
const idOf = (n: number) => `mem-${String(n).padStart(12, '0')}`;
const WORDS = ['payments', 'retry', 'backoff', 'grafana', 'deploy', 'friday', 'cache', 'latency'];
const note = (n: number) =>
  `---\nid: ${idOf(n)}\ncategory: episodic\ncreated_at: "2026-05-0${1 + (n % 9)}T00:00:00Z"\n${n % 3 === 0 ? '' : `session: s${n % 4}\n`}` +
  `${n > 2 && n % 5 === 0 ? `co_access: {"${idOf(n - 3)}": 2}\n` : ''}---\n${WORDS[n % 8]} ${WORDS[(n * 3) % 8]} on 2026-05-0${1 + (n % 9)}.${n % 7 === 0 && n > 0 ? ` [[${idOf(n - 1)}|related]]` : ''}\n`;
const docsOf = (count: number) => Array.from({ length: count }, (_, n) => toRecallDoc(parseMemory(`episodic/${idOf(n)}.md`, note(n), S), false));

function counting(units: number) {
  const turns: number[] = [];
  const slicer = new Slicer(units, () => 0, async () => void turns.push(1));
  return { slicer, turns };
}

describe('slicer', () => {
  it('pauses once a slice holds its units, and not at all once hurried', async () => {
    const { slicer, turns } = counting(3);
    for (let k = 0; k < 7; k++) await slicer.tick();
    expect(slicer.slices).toEqual([3, 3, 1]);
    expect(turns.length).toBe(2);
    await slicer.pause(); // between two phases
    expect(slicer.slices).toEqual([3, 3, 1, 0]);
    slicer.hurry();
    for (let k = 0; k < 7; k++) await slicer.tick();
    expect(slicer.slices).toEqual([3, 3, 1, 7]);
    expect(turns.length).toBe(3);
  });

  it('with a clock: pauses when the slice has taken its milliseconds', async () => {
    let ms = 0;
    const slicer = new Slicer(null, () => ms, async () => undefined, 20);
    for (const step of [5, 5, 5, 6, 1, 30, 2]) {
      ms += step;
      await slicer.tick();
    }
    expect(slicer.slices).toEqual([4, 2, 1]);
  });
});

describe('sliced builds', () => {
  const docs = docsOf(60);

  it('partsFromDocsInSlices: the same parts as partsFromDocs, in slices of at most the budget', async () => {
    const { slicer, turns } = counting(25);
    const sliced = await partsFromDocsInSlices(docs, S, slicer.tick);
    const whole = partsFromDocs(docs, S);
    expect(sliced.table).toEqual(whole.table);
    expect(sliced.lexical.toArrays()).toEqual(whole.lexical.toArrays());
    expect(sliced.episodes.toArrays()).toEqual(whole.episodes.toArrays());
    expect([sliced.episodeOf, sliced.episodeNames]).toEqual([whole.episodeOf, whole.episodeNames]);
    // 60 ids, 60 rows, 60 word entries, 60 documents and 4 episodes for the episode index
    expect(slicer.slices).toEqual([25, 25, 25, 25, 25, 25, 25, 25, 25, 19]);
    expect(turns.length).toBe(9);
  });

  it('LiveIndex.inSlices answers as one built at once, and follows changes the same way', async () => {
    const { slicer } = counting(40);
    const sliced = await LiveIndex.inSlices(docs, S, null, slicer.tick);
    const whole = new LiveIndex(docs, S, null);
    const answers = (engine: RecallEngine) => JSON.stringify(['payments retry', 'cache on friday', 'deploy latency'].map((q) => engine.search(q, { limit: 20 }, NOW)));
    expect(answers(sliced.engine)).toBe(answers(whole.engine));
    const edited = toRecallDoc(parseMemory(docs[7]!.path, note(7).replace('[[', 'cache cache [['), S), false);
    for (const live of [sliced, whole]) live.apply([edited, docsOf(61)[60]!], [docs[3]!.path]);
    expect(answers(sliced.engine)).toBe(answers(whole.engine));
    expect(answers(sliced.engine)).toBe(answers(new RecallEngine(whole.liveDocs(), S)));
    expect(sliced.stats).toEqual({ built: 1, updated: 1 });
  });

  it('loadCatalog with pauses reads the cache in slices: the same documents as at once', async () => {
    const { vault, files } = memoryVault('2026-05-20T00:00:00Z');
    for (let n = 0; n < 255; n++) files.files.set(`episodic/${idOf(n)}.md`, note(n));
    await loadCatalog(vault); // writes the cache
    const plain = await loadCatalog(vault);
    let pauses = 0;
    const sliced = await loadCatalog(vault, { pause: async () => void pauses++ });
    expect([sliced.parsed, plain.parsed, sliced.docs.length]).toEqual([0, 0, 255]);
    expect(sliced.docs).toEqual(plain.docs);
    expect(pauses).toBe(255 + 1 + 1); // one per file, one per decoded chunk, one per chunk of 256 rows
    // a file name holding the rows' separator, where the 256th separator falls: the chunk is cut
    // inside a string, JSON.parse refuses it, and the whole text is parsed at once
    files.files.set('episodic/odd],[name.md', note(255));
    await loadCatalog(vault);
    pauses = 0;
    const odd = await loadCatalog(vault, { pause: async () => void pauses++ });
    expect(odd.docs).toEqual((await loadCatalog(vault)).docs);
    expect([odd.docs.length, odd.parsed]).toEqual([256, 0]);
    expect(pauses).toBe(256 + 1); // no chunk of rows parsed
  });
});
