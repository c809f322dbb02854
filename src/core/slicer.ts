/**
 * Long work done in slices, so that a long-lived process (the MCP server, the plugin) answers
 * requests while it works: the work calls `tick()` after each unit (a document), and awaits it;
 * once the slice's budget is spent, `tick()` gives the event loop a turn (`yieldTurn`) and a
 * new slice begins. The budget is `units` per slice when given (tests count documents, no
 * clock involved), else `budgetMs` of the injected clock. `hurry()` stops the pauses: a
 * request that needs the result has the rest done at once.
 */
export const SLICE_MS = 20;

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

  /** No more pauses: the rest of the work runs at once. */
  hurry(): void {
    this.hurried = true;
  }
}
