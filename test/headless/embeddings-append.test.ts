import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { checksum, copyRows, copyStoredRows, EMBEDDINGS_BIN, EMBEDDINGS_INDEX, isPacked, loadVectors, storedArray, updateVectors, updateVectorsFrom, type LoadResult, type StoredVectors } from '../../src/core/embeddings/store';
import type { Embedder, FileStore } from '../../src/core/ports';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { memoryVault } from '../helpers/memory-ports';

/*
 * embeddings.bin format 2 (issue 23, the 100k nightly run): an update that adds vectors appends
 * their rows and rewrites the index; one that only removes rewrites the index alone. What a load
 * reads must be what writing the whole bin gives (the memory store, which cannot append), and a
 * crash at any point of an append leaves what was there before, read exactly, or a bin found
 * damaged: never other vectors.
 */

const D = 3;
/** Vectors a float32 round trip must keep bit for bit (-0, NaN, subnormal, large), distinct per text. */
const embedder: Embedder = {
  model: 'odd:v1',
  async embed(texts) {
    return texts.map((t) => Float32Array.from([t.length === 1 ? -0 : Number.NaN, 1e-40 * t.charCodeAt(0), 3.4e38 / (t.length + t.charCodeAt(t.length - 1))]));
  },
};
const sources = (ids: string) => [...ids].map((id) => ({ id, text: `${id} text` }));

/** The stored vectors read through storedArray (one array, rows anywhere in it) as packed rows; null when in pieces. */
function throughArray(stored: StoredVectors): Float32Array | null {
  const one = storedArray(stored);
  if (!one) return null;
  const out = new Float32Array(stored.ids.length * stored.dimensions);
  for (let i = 0; i < stored.ids.length; i++) {
    const row = one.rows ? one.rows[i]! : i;
    out.set(one.data.subarray(row * stored.dimensions, (row + 1) * stored.dimensions), i * stored.dimensions);
  }
  return out;
}

const hex = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');

/** What a load gives, comparable: ids, hashes and the vectors' bytes in order. */
function view(r: LoadResult) {
  const v = r.vectors;
  return { problem: r.problem, ids: v?.ids ?? null, hashes: v?.hashes ?? null, bytes: v ? Buffer.from(v.vectors.buffer, v.vectors.byteOffset, v.vectors.byteLength).toString('hex') : null };
}

describe('embeddings.bin appended to (format 2)', () => {
  let dir: string;
  let files: NodeFileStore;
  let vault: Vault;
  const open = (store: FileStore) => new Vault({ files: store, locks: new NodeLocks(dir), clock: { now: () => 0 }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
  const bin = () => readFileSync(path.join(dir, EMBEDDINGS_BIN));
  const index = () => JSON.parse(readFileSync(path.join(dir, EMBEDDINGS_INDEX), 'utf8'));
  /** The same updates through a store that cannot append: the bin written whole each time. */
  const whole = async (...steps: string[]) => {
    const { vault: reference } = memoryVault('2026-01-01T00:00:00Z');
    for (const ids of steps) await updateVectors(reference, sources(ids), embedder);
    return view(await loadVectors(reference));
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'engram-append-'));
    mkdirSync(path.join(dir, '.engram'));
    files = new NodeFileStore(dir);
    vault = open(files);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('appends new vectors after the rows there, wherever they come in the order, and reads what a whole write reads', async () => {
    await updateVectors(vault, sources('abc'), embedder);
    const first = bin();
    const inode = statSync(path.join(dir, EMBEDDINGS_BIN)).ino;
    expect(index().rows).toEqual([['a', 0, expect.any(String)], ['b', 1, expect.any(String)], ['c', 2, expect.any(String)]]);
    // x and y new, between and after the others: their rows go at the end
    const report = await updateVectors(vault, sources('axbcy'), embedder);
    expect([report.embedded, report.kept]).toEqual([2, 3]);
    expect(statSync(path.join(dir, EMBEDDINGS_BIN)).ino).toBe(inode); // the same file, written in place
    expect(bin().subarray(0, first.length).equals(first)).toBe(true);
    expect(bin().length).toBe(5 * D * 4);
    expect(index().rows.map((r: unknown[]) => [r[0], r[1]])).toEqual([['a', 0], ['x', 3], ['b', 1], ['c', 2], ['y', 4]]);
    // the checksum carried on over the appended words is the whole bin's
    const all = bin();
    expect(index().checksum).toBe(checksum(new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.length))));
    expect(view(await loadVectors(vault))).toEqual(await whole('abc', 'axbcy'));
  });

  it('removing vectors rewrites the index alone; a quarter of the rows unused, the bin is written whole, in order', async () => {
    await updateVectors(vault, sources('abcdefgh'), embedder);
    const before = bin();
    await updateVectors(vault, sources('abdefgh'), embedder);
    expect(bin().equals(before)).toBe(true);
    expect(index().bytes).toBe(8 * D * 4);
    expect(view(await loadVectors(vault))).toEqual(await whole('abcdefgh', 'abdefgh'));
    // 2 of 8 rows unused: still appended to; a third (3 of 9 after the append) is more than a quarter
    await updateVectors(vault, sources('abdfghi'), embedder);
    expect([bin().length, index().rows.map((r: unknown[]) => r[1])]).toEqual([9 * D * 4, [0, 1, 3, 5, 6, 7, 8]]);
    await updateVectors(vault, sources('bdfghij'), embedder);
    expect([bin().length, index().rows.map((r: unknown[]) => r[1])]).toEqual([7 * D * 4, [0, 1, 2, 3, 4, 5, 6]]);
    expect(view(await loadVectors(vault))).toEqual(await whole('abcdefgh', 'abdefgh', 'abdfghi', 'bdfghij'));
  });

  it('gives back from an update what a load reads, so the next update appends without reading the bin', async () => {
    let { stored } = await updateVectorsFrom(vault, null, sources('abc'), embedder);
    ({ stored } = await updateVectorsFrom(vault, stored, sources('cxab'), embedder));
    expect(view(stored)).toEqual(view(await loadVectors(vault)));
    expect(stored.layout).toEqual((await loadVectors(vault)).layout);
    ({ stored } = await updateVectorsFrom(vault, stored, sources('cxaby'), embedder));
    expect(view(stored)).toEqual(await whole('abc', 'cxab', 'cxaby'));
    expect(view(await loadVectors(vault))).toEqual(view(stored));
  });

  it('reads a format 1 index and bin as an older version wrote them, and appends to them', async () => {
    const vs = await embedder.embed(['a text', 'b text']);
    const packed = Float32Array.from([...vs[0]!, ...vs[1]!]);
    const reference = await whole('ab');
    writeFileSync(path.join(dir, EMBEDDINGS_BIN), new Uint8Array(packed.buffer));
    writeFileSync(path.join(dir, EMBEDDINGS_INDEX), JSON.stringify({ format: 1, model: 'odd:v1', dimensions: D, bytes: 2 * D * 4, checksum: checksum(packed), entries: { b: [1, reference.hashes![1]], a: [0, reference.hashes![0]] } }));
    expect(view(await loadVectors(vault))).toEqual(reference);
    await updateVectors(vault, sources('bca'), embedder);
    expect([bin().length, index().format, index().rows.map((r: unknown[]) => [r[0], r[1]])]).toEqual([3 * D * 4, 2, [['b', 1], ['c', 2], ['a', 0]]]);
    expect(view(await loadVectors(vault))).toEqual(await whole('ab', 'bca'));
  });

  it('a crash during an append, before or after part of it is written, leaves the vectors as they were; the next append cuts what it left', async () => {
    await updateVectors(vault, sources('abc'), embedder);
    const before = view(await loadVectors(vault));
    const indexBefore = readFileSync(path.join(dir, EMBEDDINGS_INDEX), 'utf8');
    for (const torn of [0, 5, D * 4 + 1]) {
      const crashing = new NodeFileStore(dir, {
        appending: (_full, fd) => {
          // some bytes of the append reach the file (a torn write), then the process dies
          if (torn > 0) require('node:fs').writeSync(fd, Buffer.alloc(torn, 0xab), 0, torn, 3 * D * 4);
          throw new Error('killed');
        },
      });
      await expect(updateVectors(open(crashing), sources('abcxy'), embedder)).rejects.toThrow('killed');
      expect([bin().length, readFileSync(path.join(dir, EMBEDDINGS_INDEX), 'utf8')]).toEqual([3 * D * 4 + torn, indexBefore]);
      expect(view(await loadVectors(vault))).toEqual(before);
    }
    await updateVectors(vault, sources('abcxy'), embedder);
    expect(bin().length).toBe(5 * D * 4);
    expect(view(await loadVectors(vault))).toEqual(await whole('abc', 'abcxy'));
  });

  it('a crash after the append, before the index is written, leaves the vectors as they were', async () => {
    await updateVectors(vault, sources('abc'), embedder);
    const before = view(await loadVectors(vault));
    class NoIndex extends NodeFileStore {
      override async write(rel: string, data: string | Uint8Array, options?: { expect?: string | null }) {
        if (rel === EMBEDDINGS_INDEX) throw new Error('killed');
        return super.write(rel, data, options);
      }
    }
    await expect(updateVectors(open(new NoIndex(dir)), sources('abcx'), embedder)).rejects.toThrow('killed');
    expect(bin().length).toBe(4 * D * 4);
    expect(view(await loadVectors(vault))).toEqual(before);
    await updateVectors(vault, sources('abcy'), embedder);
    expect(view(await loadVectors(vault))).toEqual(await whole('abc', 'abcy'));
  });

  it('a bin changed under the rows the index covers is found damaged (checksum), never read as other vectors', async () => {
    await updateVectors(vault, sources('abc'), embedder);
    await updateVectors(vault, sources('abcxy'), embedder);
    for (const at of [0, 3 * D * 4 + 2]) {
      const bytes = bin();
      bytes[at] = bytes[at]! ^ 0x01;
      writeFileSync(path.join(dir, EMBEDDINGS_BIN), bytes);
      expect((await loadVectors(vault)).problem).toBe(`${EMBEDDINGS_BIN} does not match its index (checksum): the embeddings will be rebuilt`);
      bytes[at] = bytes[at]! ^ 0x01;
      writeFileSync(path.join(dir, EMBEDDINGS_BIN), bytes);
    }
    // an index whose rows do not each name one row of the bin
    const good = readFileSync(path.join(dir, EMBEDDINGS_INDEX), 'utf8');
    for (const rows of [[['a', 0, 'h'], ['b', 0, 'h']], [['a', 0, 'h'], ['a', 1, 'h']], [['a', 5, 'h']], [['a', 1.5, 'h']]]) {
      writeFileSync(path.join(dir, EMBEDDINGS_INDEX), JSON.stringify({ ...JSON.parse(good), rows }));
      expect((await loadVectors(vault)).problem).toBe(`${EMBEDDINGS_INDEX} lists ${rows.length} vectors, not one row each of the 5 in ${5 * D * 4} bytes: the embeddings will be rebuilt`);
    }
    writeFileSync(path.join(dir, EMBEDDINGS_INDEX), JSON.stringify({ ...JSON.parse(good), bytes: 5 * D * 4 - 2 }));
    expect((await loadVectors(vault)).problem).toBe(`${EMBEDDINGS_INDEX} is unreadable (58 bytes): the embeddings will be rebuilt`);
    // a bin shorter than the index covers (another writer replaced it): written whole by the next update
    writeFileSync(path.join(dir, EMBEDDINGS_INDEX), good);
    writeFileSync(path.join(dir, EMBEDDINGS_BIN), bin().subarray(0, 2 * D * 4));
    expect((await loadVectors(vault)).problem).toBe(`${EMBEDDINGS_BIN} has ${2 * D * 4} bytes where its index says ${5 * D * 4}: the embeddings will be rebuilt`);
    const report = await updateVectors(vault, sources('abcxyz'), embedder);
    expect([report.embedded, bin().length]).toEqual([6, 6 * D * 4]);
    expect(view(await loadVectors(vault))).toEqual(await whole('abcxyz'));
  });
});

describe('vectors held where the bin has them (not packed until asked for)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'engram-binrows-'));
    mkdirSync(path.join(dir, '.engram'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies what copyRows copies from the packed vectors, through chains of appends, removals, changes and loads out of order', async () => {
    const vault = new Vault({ files: new NodeFileStore(dir), locks: new NodeLocks(dir), clock: { now: () => 0 }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const { vault: reference } = memoryVault('2026-01-01T00:00:00Z');
    let seed = 11;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const variant = new Map<string, number>();
    let stored: LoadResult | null = null;
    let chained = 0;
    let oneArray = 0;
    for (let step = 0; step < 60; step++) {
      // mostly the ids there in their order, some dropped, some added anywhere, a text changed now and then
      const ids = [...'abcdefghijklmnop'].filter(() => rand() < 0.8);
      for (let i = ids.length - 1; i > 0; i--) {
        if (rand() < 0.7) continue; // mostly in the order they had
        const j = Math.floor(rand() * (i + 1));
        [ids[i], ids[j]] = [ids[j]!, ids[i]!];
      }
      for (const id of ids) if (rand() < 0.05) variant.set(id, (variant.get(id) ?? 0) + 1);
      const given = ids.map((id) => ({ id, text: `${id} text ${variant.get(id) ?? 0}` }));
      // now and then from a fresh load (its rows out of order), otherwise from what the last update gave back
      ({ stored } = await updateVectorsFrom(vault, step % 7 === 3 ? await loadVectors(vault) : stored, given, embedder));
      await updateVectors(reference, given, embedder);
      const packed = (await loadVectors(reference)).vectors!;
      const held = stored.vectors!;
      if (!isPacked(held)) chained++;
      expect([step, held.ids, held.hashes]).toEqual([step, packed.ids, packed.hashes]);
      // one array with the rows where they are (the appends went into the room past the bin read)
      const through = throughArray(held);
      if (through) oneArray++;
      expect([step, through && hex(through)]).toEqual([step, through && hex(packed.vectors)]);
      for (let trial = 0; trial < 20; trial++) {
        const count = Math.floor(rand() * (ids.length + 3));
        let r = Math.floor(rand() * ids.length);
        const rows = Array.from({ length: count }, () => {
          const pick = rand();
          r = pick < 0.6 ? r + 1 : pick < 0.75 ? -1 : Math.floor(rand() * ids.length);
          const row = r >= ids.length ? -1 : r;
          r = Math.max(r, 0);
          return row;
        });
        const at = Math.floor(rand() * 3);
        const fast = Float32Array.from({ length: (count + at + 1) * D }, (_, i) => -i);
        const slow = fast.slice();
        copyStoredRows(held, fast, count, (i) => rows[i]!, at);
        copyRows(packed.vectors, slow, D, count, (i) => rows[i]!, at);
        expect([step, trial, hex(fast)]).toEqual([step, trial, hex(slow)]);
      }
      // the fresh load reads the same, packed or not
      const loaded = (await loadVectors(vault)).vectors!;
      const all = new Float32Array(loaded.ids.length * D);
      copyStoredRows(loaded, all, loaded.ids.length, (i) => i);
      expect([step, hex(all)]).toEqual([step, hex(packed.vectors)]);
      if (step % 5 === 4) expect([step, hex(held.vectors), isPacked(held)]).toEqual([step, hex(packed.vectors), true]);
    }
    // updates that appended gave back vectors held where the bin has them (the others wrote the bin whole, packed)
    expect(chained).toBe(27);
    // the others: an append after a whole write (its packed array has no room past it) holds its rows apart
    expect(oneArray).toBe(37);
  });

  it('appends in memory into the room past the bin read: one array, and never twice into the same room', async () => {
    const open = (store: FileStore) => new Vault({ files: store, locks: new NodeLocks(dir), clock: { now: () => 0 }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const vault = open(new NodeFileStore(dir));
    const whole = async (...steps: string[]) => {
      const { vault: reference } = memoryVault('2026-01-01T00:00:00Z');
      for (const ids of steps) await updateVectors(reference, sources(ids), embedder);
      return view(await loadVectors(reference));
    };
    await updateVectors(vault, sources('abc'), embedder);
    // a store that cannot read with room: the appended rows are a piece of their own
    const plain = new NodeFileStore(dir);
    (plain as { readWithRoom?: unknown }).readWithRoom = undefined;
    const without = open(plain);
    const fromPlain = await updateVectorsFrom(without, await loadVectors(without), sources('axbc'), embedder);
    expect(storedArray(fromPlain.stored.vectors!)).toBeNull();
    expect(view(fromPlain.stored)).toEqual(await whole('abc', 'axbc'));
    const loaded = await loadVectors(vault);
    const read = storedArray(loaded.vectors!)!;
    expect(Array.from(read.rows!)).toEqual([0, 3, 1, 2]);
    // the room: an eighth of the rows and at least 1,024, past the 4 rows read
    expect(read.data.buffer.byteLength).toBeGreaterThanOrEqual((4 + 1024) * D * 4);
    const { stored } = await updateVectorsFrom(vault, loaded, sources('axbcy'), embedder);
    const one = storedArray(stored.vectors!)!;
    expect(one.data.buffer).toBe(read.data.buffer); // written into the room, not into a new array
    expect([one.data.length, Array.from(one.rows!)]).toEqual([5 * D, [0, 3, 1, 2, 4]]);
    const reference = await whole('abc', 'axbc', 'axbcy');
    expect(hex(throughArray(stored.vectors!)!)).toBe(reference.bytes);
    // from the first update's vectors, the room past them is theirs: one array again
    const next = await updateVectorsFrom(vault, stored, sources('axbcyw'), embedder);
    expect(storedArray(next.stored.vectors!)!.data.buffer).toBe(read.data.buffer);
    expect(hex(throughArray(next.stored.vectors!)!)).toBe((await whole('abc', 'axbc', 'axbcy', 'axbcyw')).bytes);
    // a second update from the vectors as first loaded: the room past them is taken, so its rows
    // go into an array of their own, and what the first updates hold stays as it was
    const other = await updateVectorsFrom(vault, loaded, sources('axbcz'), embedder);
    expect(storedArray(other.stored.vectors!)).toBeNull();
    expect(hex(other.stored.vectors!.vectors)).toBe((await whole('abc', 'axbc', 'axbcz')).bytes);
    expect(hex(throughArray(stored.vectors!)!)).toBe(reference.bytes);
    expect(hex(throughArray(next.stored.vectors!)!)).toBe((await whole('abc', 'axbc', 'axbcy', 'axbcyw')).bytes);
  });

  it('an update that appends gives back the vectors unpacked: the bin read and the rows appended, not a copy', async () => {
    const vault = new Vault({ files: new NodeFileStore(dir), locks: new NodeLocks(dir), clock: { now: () => 0 }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    await updateVectors(vault, sources('abc'), embedder);
    await updateVectors(vault, sources('axbc'), embedder);
    // x's row is the bin's last: a load out of order holds them unpacked
    const loaded = await loadVectors(vault);
    expect(isPacked(loaded.vectors!)).toBe(false);
    const { stored } = await updateVectorsFrom(vault, loaded, sources('axbcy'), embedder);
    expect(isPacked(stored.vectors!)).toBe(false);
    const again = await updateVectorsFrom(vault, stored, sources('axbcyz'), embedder);
    expect(isPacked(again.stored.vectors!)).toBe(false);
    expect(view(again.stored)).toEqual(view(await loadVectors(vault)));
    expect(isPacked(again.stored.vectors!)).toBe(true);
  });
});
