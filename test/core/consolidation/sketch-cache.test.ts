import { decodeSketches, encodeSketches, loadSketches, saveSketches, SKETCH_CACHE_PATH } from '../../../src/core/consolidation/sketch-cache';
import { memoryVault } from '../../helpers/memory-ports';

describe('the sketch cache file (.engram/cache/sketches.bin)', () => {
  const cache = { dimensions: 384, fingerprints: Uint32Array.from([1, 2, 0xffffffff, 0x80000000]), sketches: Int32Array.from([-1, 0x7fffffff, -2147483648, 5]) };

  it('reads back what it wrote, word for word, with its header', () => {
    const bytes = encodeSketches(cache);
    expect(bytes.length).toBe((5 + 2 * 4) * 4);
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    expect(Array.from(words.slice(0, 4))).toEqual([0x314b5345, 1, 384, 2]);
    expect(Array.from(words.slice(5))).toEqual([1, 2, 0xffffffff, 0x7fffffff, 0xffffffff, 0x80000000, 0x80000000, 5]);
    const back = decodeSketches(bytes)!;
    expect([back.dimensions, Array.from(back.fingerprints), Array.from(back.sketches)]).toEqual([384, Array.from(cache.fingerprints), Array.from(cache.sketches)]);
    // at an odd offset in a larger buffer (a read's bytes need not be aligned)
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(Array.from(decodeSketches(shifted.subarray(1))!.sketches)).toEqual(Array.from(cache.sketches));
    expect(decodeSketches(encodeSketches({ dimensions: 8, fingerprints: new Uint32Array(0), sketches: new Int32Array(0) }))).toEqual({ dimensions: 8, fingerprints: new Uint32Array(0), sketches: new Int32Array(0) });
  });

  it('refuses a file cut short, grown, damaged in any byte, or of another sketch', () => {
    const bytes = encodeSketches(cache);
    expect(decodeSketches(bytes.subarray(0, bytes.length - 4))).toBeNull();
    expect(decodeSketches(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(decodeSketches(bytes.subarray(0, 12))).toBeNull();
    expect(decodeSketches(new Uint8Array([...bytes, 0, 0, 0, 0]))).toBeNull();
    for (let i = 0; i < bytes.length; i++) {
      if (i >= 8 && i < 12) continue; // the dimensions: any value is a cache of those dimensions
      const damaged = bytes.slice();
      damaged[i] = damaged[i]! ^ 0x10;
      expect([i, decodeSketches(damaged)]).toEqual([i, null]);
    }
    const other = bytes.slice();
    new Uint32Array(other.buffer)[1] = 2;
    expect(decodeSketches(other)).toBeNull();
  });

  it('is saved in .engram/cache and loaded; a missing or unreadable one is none', async () => {
    const { vault, files } = memoryVault('2026-11-30T00:00:00Z');
    expect(await loadSketches(vault)).toBeNull();
    await saveSketches(vault, cache);
    expect(Array.from((await loadSketches(vault))!.fingerprints)).toEqual(Array.from(cache.fingerprints));
    await files.write(SKETCH_CACHE_PATH, new TextEncoder().encode('not a cache, 24 bytes...'));
    expect(await loadSketches(vault)).toBeNull();
  });
});
