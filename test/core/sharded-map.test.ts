import { ShardedMap } from '../../src/core/sharded-map';

/* A map in shards answers every lookup as one JS Map does, through additions, replacements and deletions. */
describe('ShardedMap', () => {
  it('get, has, set, delete and size as a Map, over ids, paths and keys shorter than a shard hash', () => {
    const sharded = new ShardedMap<number>();
    const plain = new Map<string, number>();
    const keys = [
      ...Array.from({ length: 3000 }, (_, i) => `mem-${i.toString(36).padStart(12, '0')}`),
      ...Array.from({ length: 3000 }, (_, i) => `episodic/work/mem-${i.toString(36).padStart(12, '0')}.md`),
      '', 'a', 'ü', 'é☕',
    ];
    let seed = 11;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let step = 0; step < 20000; step++) {
      const key = keys[Math.floor(random() * keys.length)]!;
      if (random() < 0.3) expect(sharded.delete(key)).toBe(plain.delete(key));
      else {
        expect(sharded.set(key, step)).toBe(sharded);
        plain.set(key, step);
      }
      expect(sharded.size).toBe(plain.size);
    }
    for (const key of keys) expect([key, sharded.get(key), sharded.has(key)]).toEqual([key, plain.get(key), plain.has(key)]);
    expect(sharded.get('absent')).toBeUndefined();
    expect(sharded.size).toBe(4020); // the same as the Map's, checked at every step above
  });
});
