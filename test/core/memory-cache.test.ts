import { encodePieces, MEMORY_CACHE_PATH, MemoryCache, SAVE_AFTER, writePieces } from '../../src/core/memory-cache';
import type { FileStore } from '../../src/core/ports';
import { parseMemory, type Memory } from '../../src/core/memory';
import type { FileVersion } from '../../src/core/ports';
import { resolveSettings, type EngramSettings } from '../../src/core/settings';
import type { Vault } from '../../src/core/vault';

/*
 * The memory cache's rules, in process on an in-memory store (test/headless/memory-cache.test.ts
 * runs them through a consolidation on disk): which rows a load trusts, which memories make a
 * row, when the file is written again, and how a move re-keys a row.
 */

const settings = resolveSettings(undefined);
const m0id = 'mem-aaaaaaaaaaaa';
const HEADER = `{"format":1,"parse":1,"halfLifeDays":{"episodic":7,"semantic":30,"decision":90},"maxFileBytes":${256 * 1024}}`;

interface Store {
  files: Map<string, string>;
  writes: string[];
  mkdirs: string[];
}
const newStore = (files: Record<string, string> = {}): Store => ({ files: new Map(Object.entries(files)), writes: [], mkdirs: [] });
/** A vault holding only what MemoryCache uses: settings and a file port (with readVersioned unless `versioned` is false). */
function vaultOf(store: Store, options: { versioned?: boolean; settings?: EngramSettings; failRead?: boolean; failWrite?: boolean; chunked?: boolean } = {}): Vault {
  const files: Record<string, unknown> = {
    read: async (p: string) => {
      if (options.failRead) throw new Error('EIO');
      return store.files.has(p) ? new TextEncoder().encode(store.files.get(p)) : null;
    },
    mkdir: async (p: string) => void store.mkdirs.push(p),
    write: async (p: string, data: string | Uint8Array) => {
      if (options.failWrite) throw new Error('ENOSPC');
      store.writes.push(p);
      store.files.set(p, typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(data));
    },
  };
  if (options.versioned !== false) files.readVersioned = async () => null;
  // FileStore.writeChunks: each piece is copied as it comes (the encoder reuses its buffer)
  if (options.chunked) {
    files.writeChunks = async (p: string, chunks: Iterable<Uint8Array>) => {
      if (options.failWrite) throw new Error('ENOSPC');
      const pieces: Uint8Array[] = [];
      for (const c of chunks) pieces.push(c.slice());
      store.writes.push(p);
      store.files.set(p, new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(pieces)));
    };
  }
  return { settings: options.settings ?? settings, ports: { files } } as unknown as Vault;
}

const text = (id: string, body = `Body of ${id}`) => `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-07-01T10:00:00Z"\n---\n${body}\n`;
const memoryAt = (path: string, id = 'mem-aaaaaaaaaaaa') => parseMemory(path, text(id), settings);
const version = (size: number, mtimeMs = 1000, tag = `tag${size}`): FileVersion => ({ size, mtimeMs, tag });
/** A row's line as the cache writes it: [path, size, mtimeMs, tag, id, the memory's fields but path]. */
const rowOf = (m: Memory, v: FileVersion, id: string | null) => {
  const { path, ...rest } = m;
  return JSON.stringify([path, v.size, v.mtimeMs, v.tag, id, ...Object.values(rest)]);
};
/** The paths of the rows in the saved file, in its order. */
const rowPaths = (store: Store) => store.files.get(MEMORY_CACHE_PATH)!.split('\n').slice(1, -1).map((l) => (JSON.parse(l) as unknown[])[0]);

/** A cache file holding `n` rows n0.md … (size 10 + i, mtime 1000). */
function cacheWith(n: number): { store: Store; memories: Memory[] } {
  const base = memoryAt('episodic/n0.md');
  const memories = Array.from({ length: n }, (_, i) => ({ ...base, path: `episodic/n${i}.md` }));
  const store = newStore({ [MEMORY_CACHE_PATH]: `${HEADER}\n${memories.map((m, i) => rowOf(m, version(10 + i), m.id)).join('\n')}\n` });
  return { store, memories };
}

describe('MemoryCache: the file and the rows a load trusts', () => {
  it('a saved file is the header (format, parse version, half-lives, size limit) and one row a kept memory, each ending in a newline', async () => {
    const store = newStore();
    const cache = await MemoryCache.load(vaultOf(store));
    expect(cache.empty).toBe(true);
    cache.begin();
    const a = memoryAt('episodic/a.md', 'mem-aaaaaaaaaaaa');
    const b = memoryAt('semantic/b.md', 'mem-bbbbbbbbbbbb');
    cache.keep(a, version(11, 1_700_000_000_123.456, '7:11:1700000000123456789'), 'mem-aaaaaaaaaaaa');
    cache.keep(b, version(12), null);
    await cache.save(vaultOf(store));
    expect(store.mkdirs).toEqual(['.engram/cache']);
    expect(store.writes).toEqual(['.engram/cache/memories.jsonl']);
    expect(store.files.get(MEMORY_CACHE_PATH)).toBe(`${HEADER}\n${rowOf(a, version(11, 1_700_000_000_123.456, '7:11:1700000000123456789'), 'mem-aaaaaaaaaaaa')}\n${rowOf(b, version(12), null)}\n`);
  });

  it('a row gives its memory, version and frontmatter id only for the size and mtime it was made at', async () => {
    const a = memoryAt('episodic/a.md');
    const store = newStore({ [MEMORY_CACHE_PATH]: `${HEADER}\n${rowOf(a, version(11, 1000, '1:11:1'), 'mem-from-front')}\n` });
    const cache = await MemoryCache.load(vaultOf(store));
    expect(cache.empty).toBe(false);
    cache.begin();
    expect(cache.get('episodic/a.md', 12, 1000)).toBeNull();
    expect(cache.get('episodic/a.md', 11, 1001)).toBeNull();
    expect(cache.get('episodic/other.md', 11, 1000)).toBeNull();
    expect(cache.hits).toBe(0);
    const got = cache.get('episodic/a.md', 11, 1000)!;
    expect(got).toStrictEqual({ memory: a, version: { size: 11, mtimeMs: 1000, tag: '1:11:1' }, id: 'mem-from-front' });
    expect(Object.keys(got.memory)).toEqual(Object.keys(a));
    expect(cache.hits).toBe(1);
    expect(cache.get('episodic/a.md', 11, 1000)!.id).toBe('mem-from-front');
    expect(cache.hits).toBe(2);
  });

  it('rows made under other half-lives, another size limit or another parse version are not used', async () => {
    const { store } = cacheWith(1);
    const other = [
      resolveSettings({ halfLifeDays: { episodic: 8, semantic: 30, decision: 90 } }),
      resolveSettings({ maxFileBytes: 1000 }),
    ];
    for (const s of other) {
      const cache = await MemoryCache.load(vaultOf(store, { settings: s }));
      expect(cache.empty).toBe(true);
    }
    const foreign = newStore({ [MEMORY_CACHE_PATH]: store.files.get(MEMORY_CACHE_PATH)!.replace('"parse":1', '"parse":2') });
    expect((await MemoryCache.load(vaultOf(foreign))).empty).toBe(true);
    // the same header without its line's end is not the header either
    const cut = newStore({ [MEMORY_CACHE_PATH]: HEADER });
    expect((await MemoryCache.load(vaultOf(cut))).empty).toBe(true);
    expect((await MemoryCache.load(vaultOf(store))).empty).toBe(false);
  });

  it('a store that tells no file versions (the plugin) takes no row and writes none', async () => {
    const { store } = cacheWith(2);
    const before = store.files.get(MEMORY_CACHE_PATH);
    const cache = await MemoryCache.load(vaultOf(store, { versioned: false }));
    expect(cache.empty).toBe(true);
    cache.begin();
    expect(cache.get('episodic/n0.md', 10, 1000)).toBeNull();
    for (let i = 0; i < SAVE_AFTER + 1; i++) cache.keep(memoryAt(`episodic/x${i}.md`), version(5), null);
    await cache.save(vaultOf(store, { versioned: false }));
    expect([store.writes, store.mkdirs, store.files.get(MEMORY_CACHE_PATH)]).toEqual([[], [], before]);
  });

  it('a cache that cannot be read is none: every file is read', async () => {
    const { store } = cacheWith(2);
    expect((await MemoryCache.load(vaultOf(store, { failRead: true }))).empty).toBe(true);
  });

  it('a damaged line costs only its own file; the last row needs no newline', async () => {
    const a = memoryAt('episodic/a.md');
    const b = memoryAt('episodic/b.md');
    const c = memoryAt('episodic/c.md');
    const d = memoryAt('episodic/d.md');
    const e = memoryAt('episodic/e.md');
    const lines = [
      rowOf(a, version(1), null),
      'not a row',
      '["bad \\x escape.md",1,2]', // its head is no JSON string
      `${rowOf(c, version(3), null).slice(0, 40)}`, // cut short: the head is whole, the row is not
      `x${rowOf(a, version(9), null)}`, // a row after a damaged start: not a's row
      rowOf(d, version(5), null).replace('"tag5"', 'null'), // a version tag that is not a string
      rowOf(e, version(4), null).replace(',null,', ','), // one field short (no id)
      rowOf(b, version(2), null),
    ];
    const store = newStore({ [MEMORY_CACHE_PATH]: `${HEADER}\n${lines.join('\n')}` });
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    expect(cache.get('episodic/a.md', 1, 1000)?.memory).toStrictEqual(a);
    expect(cache.get('episodic/b.md', 2, 1000)?.memory).toStrictEqual(b);
    expect(cache.get('episodic/c.md', 3, 1000)).toBeNull();
    expect(cache.get('episodic/d.md', 5, 1000)).toBeNull();
    expect(cache.get('episodic/e.md', 4, 1000)).toBeNull();
    expect(cache.get('bad \\x escape.md', 1, 2)).toBeNull();
    expect(cache.hits).toBe(2);
  });

  it('a path with quotes, backslashes and other scripts keys its row', async () => {
    const paths = ['episodic/say "hi" \\ there.md', 'episodic/été ✓.md', 'episodic/"'];
    const store = newStore();
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    const made = paths.map((p, i) => memoryAt(p, `mem-${String(i).repeat(12)}`));
    made.forEach((m, i) => cache.keep(m, version(20 + i), m.id));
    await cache.save(vaultOf(store));
    const again = await MemoryCache.load(vaultOf(store));
    again.begin();
    expect(made.map((m, i) => again.get(m.path, 20 + i, 1000)?.memory)).toStrictEqual(made);
  });
});

describe('MemoryCache: which memories make a row', () => {
  const keptPaths = async (memories: Memory[]) => {
    const store = newStore();
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    for (const m of memories) cache.keep(m, version(10), m.id);
    await cache.save(vaultOf(store));
    return store.files.has(MEMORY_CACHE_PATH) ? rowPaths(store) : [];
  };
  const withExtra = (name: string, value: unknown): Memory => {
    const m = memoryAt(`episodic/${name}.md`);
    m.extra = { v: value };
    return m;
  };
  /** `depth` arrays around a number: its innermost value sits at depth + 2 in the row (row, then extra, then v). */
  const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);

  it('only values JSON gives back exactly: finite numbers but -0, strings, booleans, null, dense arrays, plain objects, 64 levels deep at most', async () => {
    const sparse: unknown[] = [];
    sparse[1] = 1;
    const accepted = [
      withExtra('null', null),
      withExtra('string', 'é "x"'),
      withExtra('false', false),
      withExtra('number', -2.5),
      withExtra('zero', 0),
      withExtra('array', [1, 'a', [true, null], { k: [] }]),
      withExtra('object', { a: { b: { c: 'd' } }, e: [] }),
      withExtra('deep62', nested(62)),
    ];
    const refused = [
      withExtra('nan', NaN),
      withExtra('infinity', -Infinity),
      withExtra('minus-zero', -0),
      withExtra('undefined', undefined),
      withExtra('function', () => 1),
      withExtra('bigint', 1n),
      withExtra('sparse', sparse),
      withExtra('date', new Date(0)),
      withExtra('no-prototype', Object.create(null) as unknown),
      withExtra('instance', new (class Point {
        x = 1;
      })()),
      withExtra('proto-key', JSON.parse('{"__proto__": 1}') as unknown),
      withExtra('nested-minus-zero', { a: [1, { b: -0 }] }),
      withExtra('deep63', nested(63)),
    ];
    expect(await keptPaths([...accepted, ...refused])).toEqual(accepted.map((m) => m.path));
  });

  it('only a memory with parseMemory\'s fields, in its order', async () => {
    const plain = memoryAt('episodic/plain.md');
    const { id, path, ...rest } = memoryAt('episodic/reordered.md');
    const reordered = { path, id, ...rest } as Memory;
    const more = { ...memoryAt('episodic/more.md'), extra_field: 1 } as Memory;
    const fewer: Partial<Memory> = memoryAt('episodic/fewer.md');
    delete fewer.session;
    expect(await keptPaths([reordered, more, fewer as Memory, plain])).toEqual(['episodic/plain.md']);
  });
});

describe('MemoryCache: a listing (begin … save)', () => {
  it('begin forgets the last listing: its rows, its changes and its hits', async () => {
    const store = newStore();
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    cache.keep(memoryAt('episodic/first.md'), version(1), null);
    cache.begin();
    cache.keep(memoryAt('episodic/second.md'), version(2), null);
    await cache.save(vaultOf(store));
    expect(rowPaths(store)).toEqual(['episodic/second.md']);

    const { store: full } = cacheWith(SAVE_AFTER);
    const loaded = await MemoryCache.load(vaultOf(full));
    loaded.begin();
    for (let i = 0; i < SAVE_AFTER; i++) loaded.keep(memoryAt(`episodic/n${i}.md`), version(99), null);
    loaded.begin();
    for (let i = 0; i < SAVE_AFTER; i++) expect(loaded.get(`episodic/n${i}.md`, 10 + i, 1000)).not.toBeNull();
    expect(loaded.hits).toBe(SAVE_AFTER);
    loaded.begin();
    expect(loaded.hits).toBe(0);
    for (let i = 0; i < SAVE_AFTER; i++) loaded.get(`episodic/n${i}.md`, 10 + i, 1000);
    await loaded.save(vaultOf(full));
    // nothing changed in the listing that counts: the file is left as it was
    expect(full.writes).toEqual([]);
  });

  it('without a cache file: written when the listing kept a row, not when it kept none', async () => {
    const store = newStore();
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    await cache.save(vaultOf(store));
    expect([store.writes, store.mkdirs]).toEqual([[], []]);
    cache.keep(memoryAt('episodic/a.md'), version(1), null);
    await cache.save(vaultOf(store));
    expect(store.writes).toEqual([MEMORY_CACHE_PATH]);
  });

  it(`a cache file is written again once ${SAVE_AFTER} rows changed (files read again), not before`, async () => {
    const { store, memories } = cacheWith(100);
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    memories.forEach((m, i) => cache.get(m.path, 10 + i, 1000));
    for (let i = 0; i < SAVE_AFTER - 1; i++) cache.keep(memories[i]!, version(500 + i), m0id);
    await cache.save(vaultOf(store));
    expect(store.writes).toEqual([]);
    cache.keep(memories[SAVE_AFTER - 1]!, version(600), m0id);
    await cache.save(vaultOf(store));
    expect(store.writes).toEqual([MEMORY_CACHE_PATH]);
    expect(rowPaths(store)).toEqual(memories.map((m) => m.path));
  });

  it('in a larger vault, once an eighth of the rows changed: files gone count as changed', async () => {
    // 1,000 rows; a listing of 880 drops 120 >= 880 / 8 = 110: written
    const { store, memories } = cacheWith(1000);
    const listing = async (n: number) => {
      const cache = await MemoryCache.load(vaultOf(store));
      cache.begin();
      for (let i = 0; i < n; i++) cache.get(memories[i]!.path, 10 + i, 1000);
      expect(cache.hits).toBe(n);
      await cache.save(vaultOf(store));
    };
    // 900 listed: 100 gone < 900 / 8 = 112.5: left as it was
    await listing(900);
    expect(store.writes).toEqual([]);
    await listing(880);
    expect(store.writes).toEqual([MEMORY_CACHE_PATH]);
    expect(rowPaths(store)).toEqual(memories.slice(0, 880).map((m) => m.path));
  });

  it('a move re-keys the row (the row now names its new path), and the moves count as changes', async () => {
    const { store, memories } = cacheWith(100);
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    memories.forEach((m, i) => cache.get(m.path, 10 + i, 1000));
    cache.moved('episodic/not-listed.md', 'archive/nowhere.md'); // no row: nothing moves
    // a move changes a row and leaves its old path without one: half of SAVE_AFTER moves write the file
    for (let i = 0; i < SAVE_AFTER / 2; i++) cache.moved(`episodic/n${i}.md`, `archive/n${i}.md`);
    await cache.save(vaultOf(store));
    expect(store.writes).toEqual([MEMORY_CACHE_PATH]);
    // the rows of the listing, then the moved ones in the order they moved
    expect(rowPaths(store)).toEqual([...memories.slice(SAVE_AFTER / 2).map((m) => m.path), ...memories.slice(0, SAVE_AFTER / 2).map((_, i) => `archive/n${i}.md`)]);
    const again = await MemoryCache.load(vaultOf(store));
    again.begin();
    expect(again.get('episodic/n3.md', 13, 1000)).toBeNull();
    expect(again.get('archive/n3.md', 13, 1000)).toStrictEqual({ memory: { ...memories[3]!, path: 'archive/n3.md' }, version: version(13), id: 'mem-aaaaaaaaaaaa' });
    expect(again.get('archive/nowhere.md', 10, 1000)).toBeNull();
  });

  it('a move of a row whose path another writer spelled with escapes (\\u00e9) re-keys it too', async () => {
    const m = memoryAt('episodic/été.md');
    const line = rowOf(m, version(7), null).replace('"episodic/été.md"', '"episodic/\\u00e9t\\u00e9.md"');
    const store = newStore({ [MEMORY_CACHE_PATH]: `${HEADER}\n${line}\n` });
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    expect(cache.get('episodic/été.md', 7, 1000)?.memory).toStrictEqual(m);
    cache.moved('episodic/été.md', 'archive/été.md');
    for (let i = 0; i < SAVE_AFTER; i++) cache.keep(memoryAt(`episodic/k${i}.md`), version(1), null);
    await cache.save(vaultOf(store));
    const again = await MemoryCache.load(vaultOf(store));
    again.begin();
    expect(again.get('archive/été.md', 7, 1000)?.memory).toStrictEqual({ ...m, path: 'archive/été.md' });
  });

  it('a file written after it came from its row: its row follows the new version, or goes when the new memory makes none', async () => {
    const { store, memories } = cacheWith(SAVE_AFTER);
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    memories.forEach((m, i) => cache.get(m.path, 10 + i, 1000));
    cache.keep(memories[0]!, version(500), 'mem-written00000');
    cache.keep({ ...memories[1]!, extra: { weight: -0 } }, version(501), null);
    const { id, path, ...rest } = memories[2]!;
    cache.keep({ path, id, ...rest } as Memory, version(502), null);
    for (let i = 3; i < SAVE_AFTER; i++) cache.keep(memories[i]!, version(10 + i), m0id);
    await cache.save(vaultOf(store));
    expect(rowPaths(store)).toEqual(memories.filter((_, i) => i !== 1 && i !== 2).map((m) => m.path));
    const again = await MemoryCache.load(vaultOf(store));
    again.begin();
    expect(again.get('episodic/n0.md', 10, 1000)).toBeNull();
    expect(again.get('episodic/n0.md', 500, 1000)).toStrictEqual({ memory: memories[0], version: version(500), id: 'mem-written00000' });
    expect([again.get('episodic/n1.md', 11, 1000), again.get('episodic/n2.md', 12, 1000)]).toEqual([null, null]);
  });

  it('a write that fails is machine data lost, not an error', async () => {
    const store = newStore();
    const cache = await MemoryCache.load(vaultOf(store));
    cache.begin();
    cache.keep(memoryAt('episodic/a.md'), version(1), null);
    await expect(cache.save(vaultOf(store, { failWrite: true }))).resolves.toBeUndefined();
    expect(store.files.has(MEMORY_CACHE_PATH)).toBe(false);
  });
});

describe('MemoryCache: the saved file is the rows joined as text (the reference), byte for byte', () => {
  /** Small deterministic generator (LCG) for the random rows. */
  const lcg = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const PIECES = ['a', 'b ', 'Z', '0', 'é', '€', '😀', '"', '\\', '\n', '\t', '\u0001', '\u2028', '\u007f', 'mem-', '[[x]]', '\ud800', '\udfff', '{', ']'];
  const randomText = (next: () => number, length: number) => Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');

  it('encodePieces: the pieces joined and encoded (TextEncoder), in views of one buffer, for buffers of 1 to 70 bytes and random pieces', () => {
    const next = lcg(7);
    for (let round = 0; round < 400; round++) {
      // well-formed text (JSON.stringify's, a decoder's): a lone surrogate at a piece's edge is not one piece's half of a pair
      const pieces = Array.from({ length: Math.floor(next() * 12) }, () => randomText(next, Math.floor(next() * 30)).replace(/[\ud800-\udfff]/g, (c) => (c === '\ud800' ? '\ud83d\ude00' : 'q')));
      const size = 1 + Math.floor(next() * 70);
      const out: Uint8Array[] = [];
      for (const chunk of encodePieces(pieces, size)) {
        expect(chunk.length).toBeGreaterThan(0);
        out.push(chunk.slice());
      }
      expect(Buffer.concat(out).equals(Buffer.from(new TextEncoder().encode(pieces.join(''))))).toBe(true);
    }
    // crafted: a piece that fills the buffer exactly, one cut inside a character, one larger than the buffer, empty ones
    const chunks = (pieces: string[], size: number) => {
      const out: string[] = [];
      for (const c of encodePieces(pieces, size)) out.push(Buffer.from(c).toString('utf8')); // each view read before the next is made
      return out;
    };
    expect(chunks(['abcd', 'ef'], 4)).toEqual(['abcd', 'ef']);
    expect(chunks(['ab€', 'c'], 4)).toEqual(['ab', '€c']);
    expect(chunks(['a', '😀😀x', '', 'y'], 5)).toEqual(['a😀', '😀x', 'y']);
    expect(chunks(['😀', 'é'], 3)).toEqual(['😀', 'é']);
    expect(chunks(['', ''], 4)).toEqual([]);
  });

  it('writePieces: chunks where the store takes them, the joined text where it does not; the same bytes', async () => {
    const pieces = ['{"a":1}\n', 'é'.repeat(40_000), '\n', '😀x'];
    const chunked: Array<[string, number[]]> = [];
    const joined: Array<[string, string]> = [];
    const chunkStore = { writeChunks: async (path: string, chunks: Iterable<Uint8Array>) => void chunked.push([path, [...chunks].map((c) => c.length)]), write: async () => { throw new Error('write'); } } as unknown as FileStore;
    const textStore = { write: async (path: string, text: string) => void joined.push([path, text]) } as unknown as FileStore;
    // consumed as they come: each view of the one 64 KB buffer read before the next (80,014 bytes in 2 views)
    const seen: string[] = [];
    const copyStore = { writeChunks: async (_: string, chunks: Iterable<Uint8Array>) => { for (const c of chunks) seen.push(Buffer.from(c).toString('utf8')); } } as unknown as FileStore;
    await writePieces(chunkStore, 'x/a.json', pieces);
    await writePieces(textStore, 'x/b.json', pieces);
    await writePieces(copyStore, 'x/c.json', pieces);
    expect(chunked).toEqual([['x/a.json', [65_536, 14_478]]]);
    expect(joined).toEqual([['x/b.json', pieces.join('')]]);
    expect(seen.join('')).toBe(pieces.join(''));
  });

  it('rows made by keep, rows read from the file, moves, on crafted and random memories (by writeChunks and by write)', async () => {
    for (const [seed, chunked] of [[1, true], [2, true], [3, false]] as const) {
      const next = lcg(seed);
      // the file's rows: read back by get() as the lines they were
      const listed = Array.from({ length: 40 }, (_, i) => parseMemory(`episodic/r${i} ${randomText(next, 3).replace(/[\n\\/]/g, '')}.md`, text(`mem-r${String(i).padStart(11, '0')}`, randomText(next, 30)), settings));
      const store = newStore({ [MEMORY_CACHE_PATH]: `${HEADER}\n${listed.map((m, i) => rowOf(m, version(100 + i), m.id)).join('\n')}\n` });
      const cache = await MemoryCache.load(vaultOf(store));
      cache.begin();
      // the reference: each row's line after its path, as a string, in the order a Map keeps them
      const expected = new Map<string, string>();
      listed.forEach((m, i) => {
        expect(cache.get(m.path, 100 + i, 1000)).not.toBeNull();
        expected.set(m.path, rowOf(m, version(100 + i), m.id).slice(JSON.stringify(m.path).length + 2));
      });
      const kept = Array.from({ length: 2600 }, (_, i) => {
        const body = i === 7 ? `big ${'€😀'.repeat(200_000)}` : i === 8 ? 'ascii only' : randomText(next, 1 + Math.floor(next() * 400));
        return parseMemory(`episodic/k${i} ${i % 3 === 0 ? 'été' : 'plain'}.md`, text(`mem-k${String(i).padStart(11, '0')}`, body), settings);
      });
      kept.forEach((m, i) => {
        const id = i % 5 === 0 ? null : m.id;
        cache.keep(m, version(i + 1, 1_700_000_000_000.25 + i, `t${i}`), id);
        expected.delete(m.path);
        expected.set(m.path, rowOf(m, version(i + 1, 1_700_000_000_000.25 + i, `t${i}`), id).slice(JSON.stringify(m.path).length + 2));
      });
      for (const m of [...listed.slice(0, 10), ...kept.slice(0, 900)]) {
        const to = m.path.replace('episodic/', 'archive/');
        cache.moved(m.path, to);
        const tail = expected.get(m.path)!;
        expected.delete(m.path);
        expected.set(to, tail);
      }
      await cache.save(vaultOf(store, { chunked }));
      const reference = [HEADER, ...[...expected].map(([path, tail]) => `[${JSON.stringify(path)},${tail}`), ''].join('\n');
      expect(store.files.get(MEMORY_CACHE_PATH)!.length).toBe(reference.length);
      expect(store.files.get(MEMORY_CACHE_PATH) === reference).toBe(true);
    }
  });
});
