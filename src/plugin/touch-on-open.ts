import { NotFoundError } from '../core/errors';
import { useMemories } from '../core/touch';
import type { Vault } from '../core/vault';
import type { QuietWrites } from './quiet-writes';

/** What touch-on-open needs from its shell: timers and time (injected so tests control them). */
export interface TouchScheduler {
  now(): number;
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

export interface TouchOnOpenOptions {
  /** Memories opened within this many minutes of each other are linked by co-access. */
  coAccessWindowMinutes: number;
  /** Re-opening a note within this many minutes of its last counted open is the same use. */
  reopenMinutes: number;
  /** The write waits this long after an open (a note flicked past is written once, later). */
  debounceMs: number;
  /** A note typed in within this time is not written; the touch waits until it is quiet. */
  quietMs: number;
}

interface Pending {
  id: string;
  /** When it was opened: the time the touch records. */
  at: number;
  /** Memories opened before it in the session window: linked by co-access. */
  partners: string[];
  timer: number;
}

/**
 * Opening a memory note is a touch (SPEC §4-5). The shell reports opens (a note newly shown in
 * a leaf, see NoteOpens), typing and outside changes; this class decides and writes:
 * - one use per note per `reopenMinutes`: opening it again soon after is the same reading;
 * - the opened note is written once, after `debounceMs`, with everything the open changes in
 *   it (tier up one step, access counted, read boost, co-access with the notes opened before it
 *   in the session window), and not while it is being typed in;
 * - the other side of each co-access link and the activation that spreads to linked memories go
 *   to QuietWrites: written in batches, never to a note that is open or was typed in recently.
 */
export class TouchOnOpen {
  private readonly pending = new Map<string, Pending>();
  private readonly lastTyped = new Map<string, number>();
  /** When each memory's last counted open was. */
  private readonly lastUse = new Map<string, number>();
  /** Counted opens in the current session window: id and time, oldest first. */
  private opened: Array<{ id: string; at: number }> = [];
  /** The opened notes written (one per counted open). */
  writes = 0;
  private chain: Promise<unknown> = Promise.resolve();

  /** `vault` and `options` are read at each use: the settings tab may have changed them. */
  constructor(
    private readonly vault: () => Vault,
    private readonly deferred: QuietWrites,
    private readonly scheduler: TouchScheduler,
    private readonly options: () => TouchOnOpenOptions,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A memory note with this id was newly shown at `path`. Returns whether it counts as a use. */
  noteOpened(path: string, id: string): boolean {
    const now = this.scheduler.now();
    const { coAccessWindowMinutes, reopenMinutes, debounceMs } = this.options();
    const last = this.lastUse.get(id);
    if (last !== undefined && now - last < reopenMinutes * 60_000) return false;
    this.lastUse.set(id, now);
    const window = coAccessWindowMinutes * 60_000;
    this.opened = this.opened.filter((o) => now - o.at <= window && o.id !== id);
    const partners = [...new Set(this.opened.map((o) => o.id))];
    this.opened.push({ id, at: now });
    const previous = this.pending.get(path);
    if (previous) this.scheduler.clearTimeout(previous.timer);
    this.pending.set(path, { id, at: now, partners, timer: this.scheduler.setTimeout(() => this.flush(path), debounceMs) });
    return true;
  }

  /** The user typed in (or an outside program changed) the note at `path`. */
  edited(path: string): void {
    this.lastTyped.set(path, this.scheduler.now());
  }

  /** Whether the note at `path` was typed in within `quietMs`. */
  recentlyEdited(path: string): boolean {
    const typed = this.lastTyped.get(path);
    return typed !== undefined && this.scheduler.now() - typed < this.options().quietMs;
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
    const partners: string[] = [];
    for (const other of entry.partners) if (await vault.locate(other)) partners.push(other);
    let result;
    try {
      [result] = await useMemories(vault, [entry.id], { use: 'read', touch: true, coAccess: false, coAccessWith: partners, spread: 'defer' });
    } catch (error) {
      if (error instanceof NotFoundError) return; // renamed or deleted since it was opened
      throw error;
    }
    this.writes++;
    for (const other of partners) this.deferred.addCoAccess(other, entry.id);
    for (const [other, share] of Object.entries(result?.spread ?? {})) this.deferred.addBoost(other, share, entry.at);
  }

  /** Wait for the writes already started. */
  async settle(): Promise<void> {
    await this.chain;
  }

  /** Drop the opens not yet written: the plugin is unloading. */
  dispose(): void {
    for (const entry of this.pending.values()) this.scheduler.clearTimeout(entry.timer);
    this.pending.clear();
  }
}
