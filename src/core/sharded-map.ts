/**
 * A string-keyed map kept in 64 shards, for lookups over every memory of a vault (row by id, by
 * path). A JS Map rehashes all its entries in one step when it doubles: 24 ms of CPU at 65,536
 * entries and 46-71 ms at 131,072, one block of a preload in slices or of the request whose
 * addition crosses it. A shard holds about 1/64 of the entries, so each doubling moves 1/64 as
 * many. Lookups: get, set, has, delete, clear, size; `keys` in no useful order (shard by shard), for
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

  clear(): void {
    for (const shard of this.shards) shard.clear();
    this.count = 0;
  }

  /** Every key, shard by shard (not in insertion order). */
  *keys(): Generator<string> {
    for (const shard of this.shards) yield* shard.keys();
  }
}

/**
 * A sharded map that gives its values in insertion order, as a Map does (a key set again keeps
 * its place; deleted and set again, it goes last), for the maps of every memory that are also
 * iterated (the plugin's documents by id). Entries sit in two arrays by insertion number; a
 * deletion leaves a hole, and the arrays are closed up once holes are most of them.
 */
export class OrderedShardedMap<V> {
  private readonly at = new ShardedMap<number>();
  private keyAt: Array<string | undefined> = [];
  private valueAt: Array<V | undefined> = [];
  private holes = 0;

  get size(): number {
    return this.at.size;
  }

  get(key: string): V | undefined {
    const i = this.at.get(key);
    return i === undefined ? undefined : this.valueAt[i];
  }

  has(key: string): boolean {
    return this.at.has(key);
  }

  set(key: string, value: V): this {
    const i = this.at.get(key);
    if (i !== undefined) this.valueAt[i] = value;
    else {
      this.at.set(key, this.keyAt.length);
      this.keyAt.push(key);
      this.valueAt.push(value);
    }
    return this;
  }

  delete(key: string): boolean {
    const i = this.at.get(key);
    if (i === undefined) return false;
    this.at.delete(key);
    this.keyAt[i] = undefined;
    this.valueAt[i] = undefined;
    if (++this.holes > HOLES_KEPT && 2 * this.holes > this.keyAt.length) this.closeUp();
    return true;
  }

  clear(): void {
    for (const key of this.keyAt) if (key !== undefined) this.at.delete(key);
    this.keyAt = [];
    this.valueAt = [];
    this.holes = 0;
  }

  /** The values in insertion order. */
  *values(): Generator<V> {
    const keys = this.keyAt;
    const values = this.valueAt;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) yield values[i]!;
  }

  /**
   * The values in insertion order, in a new array: a copy of the table in one step where
   * `[...values()]` takes an iterator step per entry (100,000 documents: 26 ms of CPU against 6
   * for the copy, medians of 30 at load 9; the plugin's engine build took its documents so in
   * one turn of a build in slices).
   */
  valuesArray(): V[] {
    if (this.holes === 0) return this.valueAt.slice() as V[];
    const keys = this.keyAt;
    const values = this.valueAt;
    const out: V[] = [];
    for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) out.push(values[i]!);
    return out;
  }

  private closeUp(): void {
    const keys: string[] = [];
    const values: V[] = [];
    for (let i = 0; i < this.keyAt.length; i++) {
      const key = this.keyAt[i];
      if (key === undefined) continue;
      this.at.set(key, keys.length);
      keys.push(key);
      values.push(this.valueAt[i]!);
    }
    this.keyAt = keys;
    this.valueAt = values;
    this.holes = 0;
  }
}

/** Holes an OrderedShardedMap keeps before closing up (below this, never). */
const HOLES_KEPT = 1024;
