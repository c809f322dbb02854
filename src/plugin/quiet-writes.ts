import { activationAt, boostAt, roundActivation, type Use } from '../core/activation';
import { NotFoundError } from '../core/errors';
import type { FieldValue } from '../core/frontmatter';
import type { Memory } from '../core/memory';
import type { Tier } from '../core/settings';
import { incrementCoAccess, useMemories } from '../core/touch';
import { formatTimestamp } from '../core/time';
import type { Vault } from '../core/vault';

/** At most this many memories are written per batch (a first tier pass on a large vault spreads out). */
const MAX_PER_BATCH = 500;

/** What is waiting to be written to one memory. */
export interface DeferredChange {
  /** Co-access counts to add (Hebb), by partner id. */
  coAccess: Record<string, number>;
  /** Spread activation received, each with the time it was given (it decays until written). */
  boosts: Array<{ share: number; at: number }>;
  /** The tier the memory should show now (the upkeep pass); computed again when written. */
  tier: boolean;
  /** Uses not yet recorded (a touch with its boost), each with its time and co-access partners. */
  uses?: Array<{ use: Use; at: number; partners: string[] }>;
}

export interface QuietWritesOptions {
  /** A note typed in (or changed by another program) within this time is not written. */
  quietMs: number;
  /** Pending changes are written in batches, at most this often. */
  batchMs: number;
}

export interface QuietScheduler {
  now(): number;
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

/**
 * Writes that nobody asked for right now (the other side of a co-access link, activation that
 * spread from an opened note, a tier that decayed) are queued and written in batches, each
 * memory once with everything it has waiting, and never while the memory's note is open in a
 * tab or was typed in recently: it waits until the note is closed and quiet. The queue survives
 * a restart (`save`/`load` of its JSON, kept in `.engram/`).
 */
export class QuietWrites {
  private readonly pending = new Map<string, DeferredChange>();
  private timer: number | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /** Files written (tests, the closing note's figures). */
  writes = 0;

  constructor(
    private readonly vault: () => Vault,
    /** Whether the memory is open in a tab or was typed in within `quietMs`. */
    private readonly busy: (id: string) => boolean,
    private readonly scheduler: QuietScheduler,
    private readonly options: () => QuietWritesOptions,
    private readonly onError: (error: unknown) => void,
    /** Called when the queue changed (the shell persists it). */
    private readonly changed: () => void = () => undefined,
  ) {}

  private entry(id: string): DeferredChange {
    let change = this.pending.get(id);
    if (!change) {
      change = { coAccess: {}, boosts: [], tier: false };
      this.pending.set(id, change);
    }
    return change;
  }

  /** `id` was used together with `partner`: co_access[partner] += 1, later. */
  addCoAccess(id: string, partner: string): void {
    const change = this.entry(id);
    change.coAccess[partner] = (change.coAccess[partner] ?? 0) + 1;
    this.queued();
  }

  /** Activation spread to `id` at `at`. */
  addBoost(id: string, share: number, at: number): void {
    this.entry(id).boosts.push({ share, at });
    this.queued();
  }

  /** `id` was used (touched) at `at`, together with `partners`: recorded when the note is quiet. */
  addUse(id: string, use: Use, at: number, partners: string[] = []): void {
    const change = this.entry(id);
    (change.uses ??= []).push({ use, at, partners });
    this.queued();
  }

  /** The written tier of `id` is out of date. */
  addTier(id: string): void {
    this.entry(id).tier = true;
    this.queued();
  }

  /** Memories whose tier update is waiting. */
  get tiersWaiting(): number {
    let n = 0;
    for (const change of this.pending.values()) if (change.tier) n++;
    return n;
  }

  /** Drop the waiting tier updates (the person paused them); other waiting changes stay. Returns how many. */
  dropTiers(): number {
    let n = 0;
    for (const [id, change] of this.pending) {
      if (!change.tier) continue;
      n++;
      change.tier = false;
      if (Object.keys(change.coAccess).length === 0 && change.boosts.length === 0 && !change.uses?.length) this.pending.delete(id);
    }
    this.changed();
    return n;
  }

  /** Memories with something waiting. */
  get waiting(): string[] {
    return [...this.pending.keys()];
  }

  change(id: string): DeferredChange | undefined {
    return this.pending.get(id);
  }

  private queued(): void {
    this.changed();
    if (this.timer === null) this.timer = this.scheduler.setTimeout(() => void this.flush(), this.options().batchMs);
  }

  /** Write every waiting memory that is quiet; the rest wait for the next batch. */
  flush(): Promise<void> {
    this.timer = null;
    const ready = [...this.pending.entries()].filter(([id]) => !this.busy(id)).slice(0, MAX_PER_BATCH);
    for (const [id] of ready) this.pending.delete(id);
    if (this.pending.size > 0) this.timer = this.scheduler.setTimeout(() => void this.flush(), this.options().batchMs);
    if (ready.length > 0) this.changed();
    const run = this.chain.then(async () => {
      for (const [id, change] of ready) await this.write(id, change);
    });
    this.chain = run.catch(this.onError);
    return this.chain.then(() => undefined);
  }

  private async write(id: string, change: DeferredChange): Promise<void> {
    const vault = this.vault();
    const now = vault.now();
    try {
      for (const use of change.uses ?? []) {
        const [result] = await useMemories(vault.at(use.at), [id], { use: use.use, touch: true, coAccess: false, coAccessWith: use.partners, spread: 'defer' });
        this.writes++;
        for (const [other, share] of Object.entries(result?.spread ?? {})) this.addBoost(other, share, use.at);
      }
      const written = await vault.update(id, (memory) => fieldsFor(memory, change, now, vault, this.tierOf));
      if (written) this.writes++;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // deleted meanwhile: nothing to write
    }
  }

  /** The tier a memory should show at `now` (set by the shell: the core's tier rule). */
  tierOf: (memory: Memory, now: number) => Tier = (memory) => memory.tier ?? 'active';

  /** Wait for the writes already started. */
  async settle(): Promise<void> {
    await this.chain;
  }

  /** The queue as JSON (kept across restarts). */
  save(): string {
    return JSON.stringify({ version: 1, pending: Object.fromEntries(this.pending) });
  }

  /** Add a saved queue's changes to this one. */
  load(json: string): void {
    try {
      const saved = JSON.parse(json) as { version?: number; pending?: Record<string, DeferredChange> };
      if (saved.version !== 1 || typeof saved.pending !== 'object' || saved.pending === null) return;
      for (const [id, change] of Object.entries(saved.pending)) {
        for (const [partner, n] of Object.entries(change.coAccess ?? {})) if (typeof n === 'number') this.entry(id).coAccess[partner] = (this.entry(id).coAccess[partner] ?? 0) + n;
        for (const b of change.boosts ?? []) if (typeof b.share === 'number' && typeof b.at === 'number') this.entry(id).boosts.push(b);
        if (change.tier === true) this.entry(id).tier = true;
        for (const u of change.uses ?? []) if (typeof u.at === 'number' && Array.isArray(u.partners)) (this.entry(id).uses ??= []).push(u);
      }
      if (this.pending.size > 0) this.queued();
    } catch {
      // a damaged queue file: those deferred writes are lost, nothing else is
    }
  }

  dispose(): void {
    if (this.timer !== null) this.scheduler.clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The fields one deferred write sets, from the memory as it is now. */
function fieldsFor(memory: Memory, change: DeferredChange, now: number, vault: Vault, tierOf: (m: Memory, now: number) => Tier): Record<string, FieldValue> | null {
  const fields: Record<string, FieldValue> = {};
  const partners = Object.entries(change.coAccess).filter(([other]) => other !== memory.id);
  if (partners.length > 0) {
    let next = memory.co_access;
    for (const [other, n] of partners) for (let i = 0; i < n; i++) next = incrementCoAccess(next, [other]);
    fields.co_access = next;
  }
  if (change.boosts.length > 0) {
    const received = change.boosts.reduce((sum, b) => sum + boostAt(b.share, b.at, now, vault.settings), 0);
    fields.activation = roundActivation(activationAt(memory, now, vault.settings) + received);
    fields.activation_at = formatTimestamp(now);
  }
  if (change.tier) {
    const tier = tierOf(memory, now);
    if (tier !== memory.tier) fields.tier = tier;
  }
  return Object.keys(fields).length > 0 ? fields : null;
}
