import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { isPacked, loadVectors, updateVectors, updateVectorsFrom, type LoadResult } from '../../src/core/embeddings/store';
import type { Embedder } from '../../src/core/ports';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { memoryVault } from '../helpers/memory-ports';

/*
 * An update appends to the bin from the vectors this process holds. Held packed (a reader asked
 * for `vectors`), they are the memories' rows in order, which are the bin's rows only when the
 * bin holds no row that no memory holds: after a removal (the index rewritten alone) the bin has
 * such rows at its end, and the packed vectors must not be taken for the bin's rows (the
 * appended rows would be looked for past them).
 */

const embedder: Embedder = {
  model: 'rows:v1',
  async embed(texts) {
    return texts.map((t) => Float32Array.from([t.charCodeAt(0), t.length, t.charCodeAt(0) * 0.5]));
  },
};
const sources = (ids: string) => [...ids].map((id) => ({ id, text: `${id} text` }));
const view = (r: LoadResult) => ({ problem: r.problem, ids: r.vectors?.ids ?? null, vectors: r.vectors ? Array.from(r.vectors.vectors) : null });

describe('packed vectors of a bin with rows no memory holds', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'engram-unused-rows-'));
    mkdirSync(path.join(dir, '.engram'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('are not taken for the bin: the update after them gives back and writes what a whole write gives', async () => {
    const vault = new Vault({ files: new NodeFileStore(dir), locks: new NodeLocks(dir), clock: { now: () => 0 }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    await updateVectors(vault, sources('abcd'), embedder);
    await updateVectors(vault, sources('abc'), embedder); // d's row stays in the bin, no memory holds it
    const loaded = await loadVectors(vault);
    expect([loaded.layout!.binRows, Array.from(loaded.layout!.rows), isPacked(loaded.vectors!)]).toEqual([4, [0, 1, 2], false]);
    expect(Array.from(loaded.vectors!.vectors)).toEqual([97, 6, 48.5, 98, 6, 49, 99, 6, 49.5]); // packed here, as a reader would
    const { stored } = await updateVectorsFrom(vault, loaded, sources('abcx'), embedder);
    const expected = { problem: null, ids: ['a', 'b', 'c', 'x'], vectors: [97, 6, 48.5, 98, 6, 49, 99, 6, 49.5, 120, 6, 60] };
    expect(view(stored)).toEqual(expected);
    expect(view(await loadVectors(vault))).toEqual(expected);
    expect((await loadVectors(vault)).layout!.binRows).toBe(5); // appended after d's row, not written whole
    const { vault: reference } = memoryVault('2026-01-01T00:00:00Z');
    for (const ids of ['abcd', 'abc', 'abcx']) await updateVectors(reference, sources(ids), embedder);
    expect(view(await loadVectors(reference))).toEqual(expected);
  });
});
