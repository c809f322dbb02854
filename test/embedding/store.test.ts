import { EMBEDDINGS_BIN, EMBEDDINGS_INDEX, loadVectors, refreshVectors, updateVectors } from '../../src/core/embeddings/store';
import { loadCatalog } from '../../src/core/recall/catalog';
import { naiveSearch, searchVectors } from '../../src/core/embeddings/vector-search';
import type { Embedder } from '../../src/core/ports';
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
