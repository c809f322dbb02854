import { OrderedShardedMap, ShardedMap } from '../../src/core/sharded-map';

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
    // each step's answers kept and compared once at the end (an expect a step took ~30 s under load)
    const got: unknown[] = [];
    const want: unknown[] = [];
    for (let step = 0; step < 20000; step++) {
      const key = keys[Math.floor(random() * keys.length)]!;
      if (random() < 0.3) {
        got.push(sharded.delete(key));
        want.push(plain.delete(key));
      } else {
        got.push(sharded.set(key, step) === sharded);
        want.push(plain.set(key, step) === plain);
      }
      got.push(sharded.size);
      want.push(plain.size);
    }
    expect(got).toEqual(want);
    expect(keys.map((key) => [key, sharded.get(key), sharded.has(key)])).toEqual(keys.map((key) => [key, plain.get(key), plain.has(key)]));
    expect(sharded.get('absent')).toBeUndefined();
    expect(sharded.size).toBe(4020); // the same as the Map's, checked at every step above
    expect([...sharded.keys()].sort()).toEqual([...plain.keys()].sort());
    sharded.clear();
    expect([sharded.size, sharded.get(keys[0]!), [...sharded.keys()]]).toEqual([0, undefined, []]);
  });
});

/* The ordered one also gives its values in a Map's order: set again keeps a key's place, deleted and set again it goes last. */
describe('OrderedShardedMap', () => {
  it('answers and iterates as a Map through additions, replacements, deletions (closing up its holes) and clear', () => {
    const ordered = new OrderedShardedMap<number>();
    const plain = new Map<string, number>();
    const keys = Array.from({ length: 2500 }, (_, i) => `mem-${i.toString(36).padStart(12, '0')}`);
    let seed = 5;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const same = () => {
      expect(ordered.size).toBe(plain.size);
      expect([...ordered.values()]).toEqual([...plain.values()]);
      expect(ordered.valuesArray()).toEqual([...plain.values()]);
    };
    for (const phase of [0.1, 0.7, 0.3]) {
      // deletions 10 %, then 70 % (holes pass half the entries: closed up), then 30 %
      const got: unknown[] = [];
      const want: unknown[] = [];
      for (let step = 0; step < 5000; step++) {
        const key = keys[Math.floor(random() * keys.length)]!;
        if (random() < phase) {
          got.push(ordered.delete(key));
          want.push(plain.delete(key));
        } else {
          got.push(ordered.set(key, step) === ordered);
          want.push(plain.set(key, step) === plain);
        }
      }
      for (const key of keys) {
        got.push(ordered.get(key), ordered.has(key));
        want.push(plain.get(key), plain.has(key));
      }
      expect(got).toEqual(want);
      same();
    }
    ordered.clear();
    plain.clear();
    same();
    ordered.set('b', 1).set('a', 2).set('b', 3);
    expect([...ordered.values()]).toEqual([3, 2]);
  });

  it('valuesArray: the values in insertion order in a copy the map does not change afterwards, with or without holes', () => {
    const ordered = new OrderedShardedMap<number>();
    ordered.set('a', 1).set('b', 2).set('c', 3);
    const before = ordered.valuesArray();
    expect(before).toEqual([1, 2, 3]);
    ordered.set('a', 9);
    ordered.delete('b');
    expect(before).toEqual([1, 2, 3]);
    const holed = ordered.valuesArray();
    expect(holed).toEqual([9, 3]);
    ordered.set('d', 4);
    expect(holed).toEqual([9, 3]);
    expect(ordered.valuesArray()).toEqual([9, 3, 4]);
  });
});
