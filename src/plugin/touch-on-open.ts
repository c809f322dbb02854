import { NotFoundError } from '../core/errors';
import type { Vault } from '../core/vault';
import { linkCoAccess, useMemories } from '../core/touch';

/** What touch-on-open needs from its shell: timers and time (injected so tests control them). */
export interface TouchScheduler {
  now(): number;
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

export interface TouchOnOpenOptions {
  /** Memories opened within this many minutes of each other are linked by co-access. */
  coAccessWindowMinutes: number;
  /** Re-opening a note within this time makes one write, not several. */
  debounceMs: number;
  /** A note typed in within this time is not written; the touch waits until it is quiet. */
  quietMs: number;
}

interface Pending {
  id: string;
  /** When it was (last) opened: the time the touch records. */
  at: number;
  partners: string[];
  timer: number;
}

/**
 * Opening a memory note is a touch (SPEC §4-5): after `debounceMs` without another open of the
 * same note, its tier goes up one step, its access is counted, and it is linked by co-access
 * to the memories opened in the same session window. A note the user is typing in is never
 * written: the touch waits until it has been quiet for `quietMs`. The shell reports opens,
 * typing and modifications (its own writes excluded); this class decides and writes.
 */
export class TouchOnOpen {
  private readonly pending = new Map<string, Pending>();
  private readonly lastTyped = new Map<string, number>();
  /** Opens in the current session window: id and time, oldest first. */
  private opened: Array<{ id: string; at: number }> = [];
  /** Writes made (for tests and the status bar): one per flushed touch. */
  writes = 0;
  private chain: Promise<unknown> = Promise.resolve();

  /** `vault` and `options` are read at each use: the settings tab may have changed them. */
  constructor(
    private readonly vault: () => Vault,
    private readonly scheduler: TouchScheduler,
    private readonly options: () => TouchOnOpenOptions,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A memory note with this id was opened at `path`. */
  noteOpened(path: string, id: string): void {
    const now = this.scheduler.now();
    const window = this.options().coAccessWindowMinutes * 60_000;
    this.opened = this.opened.filter((o) => now - o.at <= window && o.id !== id);
    const partners = this.opened.map((o) => o.id);
    this.opened.push({ id, at: now });
    const previous = this.pending.get(path);
    if (previous) this.scheduler.clearTimeout(previous.timer);
    const merged = previous ? [...new Set([...previous.partners, ...partners])] : partners;
    this.pending.set(path, { id, at: now, partners: merged, timer: this.scheduler.setTimeout(() => this.flush(path), this.options().debounceMs) });
  }

  /** The user typed in (or an outside program changed) the note at `path`. */
  edited(path: string): void {
    this.lastTyped.set(path, this.scheduler.now());
  }

  /** Touches waiting to be written. */
  get waiting(): number {
    return this.pending.size;
  }

  private flush(path: string): void {
    const entry = this.pending.get(path);
    if (!entry) return;
    const typed = this.lastTyped.get(path);
    const quietFor = typed === undefined ? Infinity : this.scheduler.now() - typed;
    const quietMs = this.options().quietMs;
    if (quietFor < quietMs) {
      entry.timer = this.scheduler.setTimeout(() => this.flush(path), quietMs - quietFor);
      return;
    }
    this.pending.delete(path);
    this.chain = this.chain.then(() => this.write(entry)).catch(this.onError);
  }

  private async write(entry: Pending): Promise<void> {
    const vault = this.vault().at(entry.at);
    try {
      await useMemories(vault, [entry.id], { use: 'read', touch: true, coAccess: false });
    } catch (error) {
      if (error instanceof NotFoundError) return; // renamed or deleted since it was opened
      throw error;
    }
    if (entry.partners.length > 0) await linkCoAccess(vault, entry.id, entry.partners);
    this.writes++;
  }

  /** Wait for the writes already started (tests, unload). */
  async settle(): Promise<void> {
    await this.chain;
  }

  /** Drop everything not yet written: the plugin is unloading. */
  dispose(): void {
    for (const entry of this.pending.values()) this.scheduler.clearTimeout(entry.timer);
    this.pending.clear();
  }
}
