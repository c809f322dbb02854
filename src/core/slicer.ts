/**
 * Long work done in slices, so that a long-lived process (the MCP server, the plugin) answers
 * requests while it works: the work calls `tick()` after each unit (a document), and awaits it;
 * once the slice's budget is spent, `tick()` gives the event loop a turn (`yieldTurn`) and a
 * new slice begins. The budget is `units` per slice when given (tests count documents, no
 * clock involved), else `budgetMs` of the injected clock. `hurry()` stops the pauses: a
 * request that needs the result has the rest done at once.
 */
/**
 * 10 ms: V8 adds its own pauses inside a slice (scavenges of 20-38 ms while a 100k-memory index is
 * built, most of what it allocates surviving), so a slice of 20 ms could block for ~60 ms.
 */
export const SLICE_MS = 10;

export class Slicer {
  private count = 0;
  private started: number;
  private hurried = false;
  /** Units done in each slice so far (the last one still open). */
  readonly slices: number[] = [0];

  constructor(
    private readonly units: number | null,
    private readonly clock: () => number,
    private readonly yieldTurn: () => Promise<void>,
    private readonly budgetMs = SLICE_MS,
  ) {
    this.started = clock();
  }

  /** One unit of work done: pause when the slice is spent. */
  readonly tick = (): Promise<void> => {
    this.count++;
    this.slices[this.slices.length - 1]!++;
    if (this.hurried) return Promise.resolve();
    const spent = this.units !== null ? this.count >= this.units : this.clock() - this.started >= this.budgetMs;
    return spent ? this.pause() : Promise.resolve();
  };

  /** End the slice now (between two phases of the work). */
  async pause(): Promise<void> {
    if (this.hurried) return;
    await this.yieldTurn();
    this.count = 0;
    this.slices.push(0);
    this.started = this.clock();
  }

  /** Whether hurry() was called: no more pauses. */
  get isHurried(): boolean {
    return this.hurried;
  }

  /** No more pauses: the rest of the work runs at once. */
  hurry(): void {
    this.hurried = true;
  }
}

/** Items merged between two ticks of sortInSlices. */
const SORT_BLOCK = 1024;

/**
 * `items` sorted by `compare` as Array.prototype.sort sorts them (stable), in slices: runs of
 * SORT_BLOCK sorted at once, then merged pairwise, a `tick` after each block of items placed
 * (sorting 100,000 file names at once takes ~100 ms); no merge when the runs are already in
 * order. A new array; `items` is left as it is.
 */
export async function sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number, tick: () => Promise<void>): Promise<T[]> {
  const n = items.length;
  let from: T[] = [];
  for (let at = 0; at < n; at += SORT_BLOCK) {
    for (const item of items.slice(at, at + SORT_BLOCK).sort(compare)) from.push(item);
    await tick();
  }
  // already in order (a listing the store sorted): nothing to merge
  let sorted = true;
  for (let at = SORT_BLOCK; at < n && sorted; at += SORT_BLOCK) sorted = compare(from[at - 1]!, from[at]!) <= 0;
  if (sorted) return from;
  let to: T[] = new Array<T>(n);
  for (let width = SORT_BLOCK; width < n; width *= 2) {
    let placed = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let [i, j] = [lo, mid];
      for (let k = lo; k < hi; k++) {
        // the left run first on ties: stable
        to[k] = j >= hi || (i < mid && compare(from[i]!, from[j]!) <= 0) ? from[i++]! : from[j++]!;
        if (++placed % SORT_BLOCK === 0) await tick();
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
