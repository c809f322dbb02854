import { copyRows, EMBEDDINGS_BIN, EMBEDDINGS_INDEX, loadVectors, refreshVectors, rowIndex, updateVectors, updateVectorsFrom } from '../../src/core/embeddings/store';
import { loadCatalog } from '../../src/core/recall/catalog';
import { naiveSearch, searchVectors } from '../../src/core/embeddings/vector-search';
import type { Embedder } from '../../src/core/ports';
import { contentHash } from '../../src/core/ids';
import { normalise } from '../../src/embedding/vectors';
import { memoryVault } from '../helpers/memory-ports';

/** A counting fake: the vector of a text is derived from its characters. */
function fakeEmbedder(model = 'fake:v1', dims = 4): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    model,
    calls,
    async embed(texts) {
      calls.push(texts);
      return texts.map((t) => normalise(Array.from({ length: dims }, (_, j) => (t.charCodeAt(j % t.length) % 7) + j + 1)));
    },
  };
}

const sources = (texts: Record<string, string>) => Object.entries(texts).map(([id, text]) => ({ id, text }));

describe('embedding store', () => {
  it('round-trips vectors and embeds only what changed', async () => {
    const { vault } = memoryVault('2026-01-01T00:00:00Z');
    const embedder = fakeEmbedder();
    const first = await updateVectors(vault, sources({ a: 'alpha', b: 'beta', c: 'gamma' }), embedder);
    expect(first).toEqual({ model: 'fake:v1', dimensions: 4, total: 3, embedded: 3, kept: 0, removed: 0, rebuilt: null });
    const second = await updateVectors(vault, sources({ a: 'alpha', b: 'beta changed', c: 'gamma', d: 'delta' }), embedder);
    expect([second.embedded, second.kept]).toEqual([2, 2]);
    expect(embedder.calls).toEqual([['alpha', 'beta', 'gamma'], ['beta changed', 'delta']]);
    const { vectors } = await loadVectors(vault);
    expect(vectors!.ids).toEqual(['a', 'b', 'c', 'd']);
    expect(Array.from(vectors!.vectors.subarray(4, 8))).toEqual(Array.from((await embedder.embed(['beta changed']))[0]!));
  });

  it('compacts deleted memories away and writes nothing when nothing changed', async () => {
    const { vault, files } = memoryVault('2026-01-01T00:00:00Z');
    const embedder = fakeEmbedder();
    await updateVectors(vault, sources({ a: 'alpha', b: 'beta', c: 'gamma' }), embedder);
    const removed = await updateVectors(vault, sources({ a: 'alpha', c: 'gamma' }), embedder);
    expect([removed.embedded, removed.removed]).toEqual([0, 1]);
    expect((await loadVectors(vault)).vectors!.ids).toEqual(['a', 'c']);
    expect(files.binary.get(EMBEDDINGS_BIN)!.length).toBe(2 * 4 * 4);
    const writes = files.writes;
    await updateVectors(vault, sources({ a: 'alpha', c: 'gamma' }), embedder);
    expect(files.writes).toBe(writes);
  });

  it('detects a truncated or foreign bin and rebuilds it, saying so', async () => {
    const { vault, files } = memoryVault('2026-01-01T00:00:00Z');
    const embedder = fakeEmbedder();
    await updateVectors(vault, sources({ a: 'alpha', b: 'beta' }), embedder);
    files.binary.set(EMBEDDINGS_BIN, files.binary.get(EMBEDDINGS_BIN)!.subarray(0, 20));
    expect((await loadVectors(vault)).problem).toBe(`${EMBEDDINGS_BIN} has 20 bytes where its index says 32: the embeddings will be rebuilt`);
    const report = await updateVectors(vault, sources({ a: 'alpha', b: 'beta' }), embedder);
    expect([report.embedded, report.rebuilt]).toEqual([2, `${EMBEDDINGS_BIN} has 20 bytes where its index says 32: the embeddings will be rebuilt`]);
    const bytes = files.binary.get(EMBEDDINGS_BIN)!.slice();
    bytes[0] = bytes[0]! ^ 0xff;
    files.binary.set(EMBEDDINGS_BIN, bytes);
    expect((await loadVectors(vault)).problem).toBe(`${EMBEDDINGS_BIN} does not match its index (checksum): the embeddings will be rebuilt`);
    files.files.set(EMBEDDINGS_INDEX, '{not json');
    expect((await loadVectors(vault)).problem).toMatch(/^\.engram\/embeddings\.index\.json is unreadable \(/);
  });

  it('migrates to another model by embedding everything again, without touching memory files', async () => {
    const { vault, files } = memoryVault('2026-01-01T00:00:00Z');
    files.files.set('episodic/mem-000000000001.md', 'kept as is');
    await updateVectors(vault, sources({ a: 'alpha', b: 'beta' }), fakeEmbedder('fake:v1', 4));
    const other = fakeEmbedder('fake:v2', 6);
    const report = await updateVectors(vault, sources({ a: 'alpha', b: 'beta' }), other);
    expect([report.model, report.dimensions, report.embedded]).toEqual(['fake:v2', 6, 2]);
    expect((await loadVectors(vault)).vectors!.model).toBe('fake:v2');
    expect(files.files.get('episodic/mem-000000000001.md')).toBe('kept as is');
  });
});

describe('vector search', () => {
  it('finds the same top k as the naive loop', () => {
    let seed = 3;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const dims = 37;
    const rows = 500;
    const vectors = new Float32Array(rows * dims);
    for (let r = 0; r < rows; r++) vectors.set(normalise(Array.from({ length: dims }, rand)), r * dims);
    const stored = { model: 'x', dimensions: dims, ids: Array.from({ length: rows }, (_, i) => `m${i}`), hashes: [], vectors };
    for (let q = 0; q < 10; q++) {
      const query = normalise(Array.from({ length: dims }, rand));
      const fast = [...searchVectors(stored, query, 12).keys()];
      expect(fast).toEqual([...naiveSearch(stored, query, 12).keys()]);
      const odd = searchVectors(stored, query, 5, (id) => Number(id.slice(1)) % 2 === 1);
      expect([...odd.keys()].every((id) => Number(id.slice(1)) % 2 === 1)).toBe(true);
    }
  });
});

describe('re-embedding from the catalog (issue 21: only what changed is read)', () => {
  const note = (id: string, text: string) => `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-01-01T00:00:00Z"\n---\n${text}\n`;

  it('reads no memory file when every text is unchanged, and only the changed or new ones otherwise', async () => {
    const { vault, files } = memoryVault('2026-01-02T00:00:00Z');
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 'Alpha ships on Mondays.'));
    files.files.set('episodic/ops/Beta.md', note('mem-bbbbbbbbbbbb', 'Beta runs in eu-west-1.\n\n[[mem-aaaaaaaaaaaa|related]]'));
    files.files.set('semantic/mem-cccccccccccc.md', note('mem-cccccccccccc', 'Gamma is the cache.'));
    const reads: string[] = [];
    const read = files.read.bind(files);
    files.read = async (path) => {
      if (path.endsWith('.md')) reads.push(path);
      return read(path);
    };
    const embedder = fakeEmbedder();
    const docs = async () => {
      const catalog = await loadCatalog(vault);
      reads.length = 0; // what the catalog parsed is its own (cached after the first load)
      return catalog.docs;
    };
    const first = await refreshVectors(vault, await docs(), embedder);
    expect([first.embedded, first.kept, first.read]).toEqual([3, 0, 3]);
    // the same texts the plain update embeds: vectors of memoryText (typed link markup left out)
    expect(embedder.calls).toEqual([['Alpha ships on Mondays.', 'Beta runs in eu-west-1.', 'Gamma is the cache.']]);

    // nothing changed: not one memory file read, nothing embedded, nothing written
    const writes = files.writes;
    const idle = await refreshVectors(vault, await docs(), embedder);
    expect([idle.embedded, idle.kept, idle.read, reads]).toEqual([0, 3, 0, []]);
    expect(files.writes).toBe(writes);

    // one text changed (a fields-only touch of another changes nothing), one memory new, one gone
    files.files.set('episodic/ops/Beta.md', note('mem-bbbbbbbbbbbb', 'Beta moved to eu-central-1 in June.'));
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 'Alpha ships on Mondays.').replace('category: episodic', 'category: episodic\naccess_count: 4'));
    files.files.set('decisions/mem-dddddddddddd.md', note('mem-dddddddddddd', 'Delta is decided.').replace('category: episodic', 'category: decision'));
    files.files.delete('semantic/mem-cccccccccccc.md');
    const next = await refreshVectors(vault, await docs(), embedder);
    expect([next.embedded, next.kept, next.removed, next.read]).toEqual([2, 1, 1, 2]);
    expect(reads.sort()).toEqual(['decisions/mem-dddddddddddd.md', 'episodic/ops/Beta.md']);
    expect(embedder.calls[1]).toEqual(['Beta moved to eu-central-1 in June.', 'Delta is decided.']);
    expect((await loadVectors(vault)).vectors!.ids).toEqual(['mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb', 'mem-dddddddddddd']);

    // another model: everything is read and embedded again
    const other = await refreshVectors(vault, await docs(), fakeEmbedder('fake:v2'));
    expect([other.embedded, other.read]).toEqual([3, 3]);
  });
});

describe('vectors held by the process that wrote them (updateVectorsFrom)', () => {
  /** An embedder whose vectors hold values a float32 round trip must keep bit for bit: -0, NaN, subnormals, large. */
  const oddEmbedder = (model = 'odd:v1'): Embedder => ({
    model,
    async embed(texts) {
      return texts.map((t, k) => Float32Array.from([-0, Number.NaN, 1e-40 * (k + 1), 3.4e38, t.length, -t.charCodeAt(0)]));
    },
  });
  const same = async (vault: import('../../src/core/vault').Vault, stored: Awaited<ReturnType<typeof loadVectors>>) => {
    const loaded = await loadVectors(vault);
    const view = (r: typeof loaded) => (r.vectors ? { ...r.vectors, vectors: Buffer.from(r.vectors.vectors.buffer, r.vectors.vectors.byteOffset, r.vectors.vectors.byteLength).toString('hex') } : null);
    expect([view(stored), stored.problem]).toEqual([view(loaded), loaded.problem]);
  };

  it('gives back exactly what a load reads: written, unchanged, compacted, another model, an id twice', async () => {
    const { vault, files } = memoryVault('2026-01-01T00:00:00Z');
    const reads: string[] = [];
    const read = files.read.bind(files);
    files.read = async (path: string) => (reads.push(path), read(path));
    let { report, stored } = await updateVectorsFrom(vault, null, sources({ a: 'alpha', b: 'beta', c: 'gamma' }), oddEmbedder());
    expect([report.embedded, stored.vectors!.ids]).toEqual([3, ['a', 'b', 'c']]);
    await same(vault, stored);
    // from what it holds: the bin is not read again, nothing written when nothing changed
    reads.length = 0;
    const writes = files.writes;
    ({ report, stored } = await updateVectorsFrom(vault, stored, sources({ a: 'alpha', b: 'beta', c: 'gamma' }), oddEmbedder()));
    expect([reads, files.writes, report.kept]).toEqual([[], writes, 3]);
    await same(vault, stored);
    reads.length = 0;
    ({ stored } = await updateVectorsFrom(vault, stored, sources({ c: 'gamma', a: 'alpha changed' }), oddEmbedder()));
    expect(reads).toEqual([]);
    await same(vault, stored);
    ({ stored } = await updateVectorsFrom(vault, stored, sources({ a: 'alpha' }), oddEmbedder('odd:v2')));
    await same(vault, stored);
    // an id given twice: the index keeps one row of it, and a load finds the bin damaged: so does this
    ({ stored } = await updateVectorsFrom(vault, stored, [...sources({ a: 'alpha', b: 'beta' }), { id: 'a', text: 'again' }], oddEmbedder('odd:v2')));
    expect(stored.problem).toBe(`${EMBEDDINGS_INDEX} lists 3 vectors, not one row each of the 3 in 72 bytes: the embeddings will be rebuilt`);
    await same(vault, stored);
  });

  it("takes a source's hash as given: its text is made only to be embedded; the hashes come back in the sources' order", async () => {
    const { vault } = memoryVault('2026-01-01T00:00:00Z');
    const first = await updateVectorsFrom(vault, null, sources({ a: 'alpha', b: 'beta' }), oddEmbedder());
    expect(first.hashes).toEqual([contentHash('alpha'), contentHash('beta')]);
    const made: string[] = [];
    const lazy = (id: string, text: string, hash?: string) => ({
      id,
      ...(hash === undefined ? {} : { hash }),
      get text() {
        made.push(id);
        return text;
      },
    });
    // b's text changed but its hash is given as the stored one: kept, its text never made; c is new: made to be embedded
    const next = await updateVectorsFrom(vault, first.stored, [lazy('c', 'gamma', 'c-hash'), lazy('a', 'alpha', first.hashes[0]), lazy('b', 'beta changed', first.hashes[1])], oddEmbedder());
    expect([made, next.report.embedded, next.report.kept, next.hashes]).toEqual([['c'], 1, 2, ['c-hash', contentHash('alpha'), contentHash('beta')]]);
    expect((await loadVectors(vault)).vectors!.hashes).toEqual(['c-hash', contentHash('alpha'), contentHash('beta')]);
    // without a hash: the text is made and hashed (kept when it is the stored one)
    made.length = 0;
    const last = await updateVectorsFrom(vault, next.stored, [lazy('a', 'alpha'), lazy('c', 'gamma')], oddEmbedder());
    expect([made, last.report.embedded, last.hashes]).toEqual([['a', 'c', 'c'], 1, [contentHash('alpha'), contentHash('gamma')]]);
  });
});

describe('rowIndex', () => {
  it("maps each id to its row (an id twice: its last), made once for the same stored vectors", () => {
    const stored = { model: 'm', dimensions: 1, ids: ['a', 'b', 'a', 'c'], hashes: ['1', '2', '3', '4'], vectors: new Float32Array(4) };
    const index = rowIndex(stored);
    expect([...index]).toEqual([['a', 2], ['b', 1], ['c', 3]]);
    expect(rowIndex(stored)).toBe(index);
    expect([...rowIndex({ ...stored, ids: ['c'] })]).toEqual([['c', 0]]);
  });
});

describe('copyRows', () => {
  it('copies what a row-by-row copy copies, runs of consecutive rows at once, rows at -1 left alone', () => {
    let seed = 3;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    for (let trial = 0; trial < 300; trial++) {
      const d = 1 + Math.floor(rand() * 4);
      const n = Math.floor(rand() * 30);
      const from = Float32Array.from({ length: n * d }, () => rand());
      const count = Math.floor(rand() * 25);
      // runs of consecutive rows, jumps back and forth, repeats, and gaps
      let r = Math.floor(rand() * Math.max(1, n));
      const rows = Array.from({ length: count }, () => {
        const pick = rand();
        r = pick < 0.6 ? r + 1 : pick < 0.75 ? -1 : Math.floor(rand() * Math.max(1, n));
        return r >= n ? -1 : r;
      });
      const at = Math.floor(rand() * 3);
      const fast = Float32Array.from({ length: (count + at + 1) * d }, (_, i) => -i);
      const slow = fast.slice();
      copyRows(from, fast, d, count, (i) => rows[i]!, at);
      rows.forEach((row, i) => row >= 0 && slow.set(from.subarray(row * d, (row + 1) * d), (at + i) * d));
      expect([trial, Array.from(fast)]).toEqual([trial, Array.from(slow)]);
      r = Math.max(r, 0);
    }
  });
});

describe('a consolidation with an embedder', () => {
  it('reads the vectors once: the clusters and the update after them use what its own update wrote', async () => {
    const { consolidate } = await import('../../src/core/consolidation/consolidate');
    const { memoryNote } = await import('../helpers/memory-ports');
    const { vault, files } = memoryVault('2026-11-30T00:00:00Z');
    const texts = ['The nightly deploy failed on the migration step.', 'The nightly deploy failed on the migration step again.', 'The nightly deploy failed at the migration step.', 'Redis was restarted at noon.'];
    texts.forEach((text, k) => files.files.set(`episodic/m${k}.md`, memoryNote({ id: `mem-00000000000${k}`, category: 'episodic', created_at: `2026-11-2${k}T10:00:00Z` }, `${text}\n`)));
    // one direction for the deploy texts, another for the rest: a pattern of three is made, and embedded after
    const embedder: Embedder = { model: 'fake:v1', embed: async (ts) => ts.map((t) => normalise(t.includes('deploy') ? [1, 0.01 * t.length, 0] : [0, 0, 1])) };
    const reads: string[] = [];
    const read = files.read.bind(files);
    files.read = async (path: string) => (reads.push(path), read(path));
    const report = await consolidate(vault, { dryRun: false, holder: 'test', elapsed: () => 0, embedder });
    expect(report.steps.filter((s) => s.step === 'embed' || s.step === 'cluster').map((s) => [s.step, s.count, s.total ?? null])).toEqual([['embed', 5, 5], ['cluster', 1, null]]);
    expect(reads.filter((p) => p === EMBEDDINGS_BIN)).toEqual([]); // none stored yet: the first load finds no index
    expect(reads.filter((p) => p === EMBEDDINGS_INDEX)).toEqual([EMBEDDINGS_INDEX]);
    // the next run reads them once (it had: once to update, once to cluster, once to update after)
    reads.length = 0;
    await consolidate(vault, { dryRun: false, holder: 'test', elapsed: () => 0, embedder });
    expect(reads.filter((p) => p === EMBEDDINGS_BIN)).toEqual([EMBEDDINGS_BIN]);
    expect((await loadVectors(vault)).vectors!.ids).toHaveLength(5);
  });
});
