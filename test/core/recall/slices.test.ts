import { parseMemory } from '../../../src/core/memory';
import { CATALOG_PATH, loadCatalog, parseCatalogInSlices, toRecallDoc } from '../../../src/core/recall/catalog';
import { LiveIndex } from '../../../src/core/recall/live-index';
import { partsFromDocs, partsFromDocsInSlices, RecallEngine } from '../../../src/core/recall/recall';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { Slicer, sortInSlices } from '../../../src/core/slicer';
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
    // 60 ids, 9 columns of strings, 60 rows, 60 word entries, 60 documents and 4 episodes for
    // the episode index, then 60 episode numbers: 313
    expect(slicer.slices).toEqual([...Array<number>(12).fill(25), 13]);
    expect(turns.length).toBe(12);
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
    // the listing sorted (one block of 1,024) and made (255), the cache's 255 rows (one chunk of
    // bytes, a map of 255), and one per file
    expect(pauses).toBe(1 + 255 + 1 + 255 + 255);
    // files changed since the cache: it is written again, in slices of 256 rows, the same text
    files.files.set(`episodic/${idOf(3)}.md`, `${note(3)}Refunds too.\n`);
    files.files.set('episodic/odd],[name ünï.md', note(255));
    const whole = memoryVault('2026-05-20T00:00:00Z');
    for (const [path, text] of files.files) whole.files.files.set(path, text);
    pauses = 0;
    const rewritten = await loadCatalog(vault, { pause: async () => void pauses++ });
    await loadCatalog(whole.vault);
    expect(rewritten.parsed).toBe(2);
    expect(pauses).toBe(1 + 256 + 1 + 255 + 256 + 1);
    expect(files.files.get(CATALOG_PATH)).toBe(whole.files.files.get(CATALOG_PATH));
    expect((await loadCatalog(vault, { pause: async () => undefined })).docs).toEqual((await loadCatalog(whole.vault)).docs);
  });

  it('parseCatalogInSlices gives what JSON.parse gives, a chunk of bytes per slice, whatever the chunk cuts', async () => {
    const rows = [
      ['episodic/a.md', 1, 2, 'episodic', 'observed', null, 3, 4, 5, 0, 0, 30, 1, 1, null, null, 's1', 'harbour crane', '', '', '', idOf(1), '', 'h1'],
      ['episodic/odd],[name ünï.md', 9, 9, 'bad frontmatter'],
      ['episodic/b.md', 1, 2, 'episodic', 'observed', null, 3, 4, 5, 0, 0, 30, 1, 1, null, null, null, 'café ☕ lamp', 'related|mem-000000000001', '', '', idOf(2), '', 'h2'],
    ];
    const cache = { format: 6, fingerprint: '{"maxFileBytes":1}', rows };
    const bytes = new TextEncoder().encode(JSON.stringify(cache));
    for (const size of [1, 2, 3, 7, 31, 64, 100, bytes.length - 1, bytes.length, 1 << 18]) {
      let pauses = 0;
      const parsed = await parseCatalogInSlices(bytes, async () => void pauses++, size);
      expect([size, parsed]).toEqual([size, cache]);
      // one pause per chunk, up to a cut inside a string, after which the rest is parsed at once
      expect(pauses).toBeLessThanOrEqual(Math.ceil(bytes.length / size));
    }
    // the cut at the 2nd row's `],[` falls inside its path: refused, then parsed whole
    const inside = new TextDecoder().decode(bytes).indexOf('],[name') + 1;
    let pauses = 0;
    expect(await parseCatalogInSlices(bytes, async () => void pauses++, inside + 2)).toEqual(cache);
    expect(pauses).toBe(0);
    // a chunk that ends before it: the next one's last `],[` is the real one after that path, so
    // every chunk is parsed (three pauses, no fallback)
    pauses = 0;
    expect(await parseCatalogInSlices(bytes, async () => void pauses++, inside - 20)).toEqual(cache);
    expect([bytes.length, inside, pauses]).toEqual([404, 205, 3]);
    // not the cache's shape: what JSON.parse says
    for (const text of ['{"format":6}', '[1,2]', '{"rows":[[1]],"format":6}', '{"format":6,"rows":[]}']) {
      expect(await parseCatalogInSlices(new TextEncoder().encode(text), async () => undefined, 4)).toEqual(JSON.parse(text));
    }
    await expect(parseCatalogInSlices(new TextEncoder().encode('{"format":6,"rows":[[1],[2'), async () => undefined, 4)).rejects.toThrow(SyntaxError);
  });

  it('sortInSlices sorts as Array.prototype.sort (stable), a tick per block of 1,024 placed', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const n of [0, 1, 5, 1023, 1024, 1025, 3000, 5000]) {
      const items = Array.from({ length: n }, (_, k) => ({ key: Math.floor(random() * 50), k }));
      const compare = (a: { key: number }, b: { key: number }) => a.key - b.key;
      let ticks = 0;
      const sorted = await sortInSlices(items, compare, async () => void ticks++);
      expect(sorted).toEqual([...items].sort(compare));
      expect(items.map((i) => i.k)).toEqual(Array.from({ length: n }, (_, k) => k)); // left as it was
      const blocks = Math.ceil(n / 1024);
      const passes = blocks > 1 ? Math.ceil(Math.log2(blocks)) : 0;
      expect([n, ticks]).toEqual([n, blocks + Math.floor(n / 1024) * passes]);
    }
    // in order already: the blocks only
    let ticks = 0;
    const names = Array.from({ length: 3000 }, (_, k) => `n${String(k).padStart(5, '0')}`);
    expect(await sortInSlices(names, (a, b) => (a < b ? -1 : a > b ? 1 : 0), async () => void ticks++)).toEqual(names);
    expect(ticks).toBe(3);
  });
});
