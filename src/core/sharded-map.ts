/**
 * A string-keyed map kept in 64 shards, for lookups over every memory of a vault (row by id, by
 * path). A JS Map rehashes all its entries in one step when it doubles: 24 ms of CPU at 65,536
 * entries and 46-71 ms at 131,072, one block of a preload in slices or of the request whose
 * addition crosses it. A shard holds about 1/64 of the entries, so each doubling moves 1/64 as
 * many. Lookups: get, set, has, delete, size; `keys` in no useful order (shard by shard), for
 * callers that sort them.
 */
const SHARDS = 64;

export class ShardedMap<V> {
  private readonly shards: Array<Map<string, V>> = Array.from({ length: SHARDS }, () => new Map<string, V>());
  private count = 0;

  /** The shard of a key: a hash of its last 8 characters (ids and paths differ at their end). */
  private shard(key: string): Map<string, V> {
    let h = key.length;
    for (let i = Math.max(0, key.length - 8); i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
    return this.shards[h & (SHARDS - 1)]!;
  }

  get(key: string): V | undefined {
    return this.shard(key).get(key);
  }

  has(key: string): boolean {
    return this.shard(key).has(key);
  }

  set(key: string, value: V): this {
    const shard = this.shard(key);
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    return this;
  }

  delete(key: string): boolean {
    const gone = this.shard(key).delete(key);
    if (gone) this.count--;
    return gone;
  }

  get size(): number {
    return this.count;
  }

  /** Every key, shard by shard (not in insertion order). */
  *keys(): Generator<string> {
    for (const shard of this.shards) yield* shard.keys();
  }
}
