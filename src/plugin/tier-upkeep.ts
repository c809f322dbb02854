import type { RecallDoc } from '../core/recall/catalog';
import type { EngramSettings } from '../core/settings';
import { tierAt } from '../core/tiers';

/**
 * Keeping the written `tier` true without consolidation, so that Obsidian's own graph (which
 * colours notes by the property, with `[tier:…]` groups) agrees with Engram's view, status bar
 * and recall. A pass compares each memory's written tier with the tier the core's rule gives it
 * now (tiers only ever demote here) and queues a write for those that differ; the writes go
 * through the quiet queue (never to an open or recently typed-in note). A pass that would
 * rewrite more than a handful of notes (ASK_ABOVE) asks the person first: each rewritten note is
 * synced again, and a vault whose tiers are far out of date would otherwise be rewritten whole.
 */
export function staleTiers(docs: RecallDoc[], now: number, settings: EngramSettings): string[] {
  const out: string[] = [];
  for (const doc of docs) if (tierAt(doc, doc.accessMs, now, settings) !== doc.tier) out.push(doc.id);
  return out;
}

/** A pass that would rewrite more notes than this asks first (a handful goes without asking). */
export const ASK_ABOVE = 20;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The pass, throttled: when the vault opens (unless one ran in the last hour, on this device),
 * then once a day while it stays open. `lastPass` is kept by the shell (local storage).
 */
export class TierUpkeep {
  constructor(
    private readonly catalog: () => Promise<{ docs: RecallDoc[]; now: number; settings: EngramSettings }>,
    private readonly queue: (id: string) => void,
    private readonly lastPass: { get(): number | null; set(at: number): void },
    private readonly now: () => number,
    /**
     * Asked when a pass would rewrite more than ASK_ABOVE notes: true when the person agrees.
     * Refused, nothing is queued and the question comes again with the next daily pass.
     */
    private readonly ask: (count: number) => Promise<boolean> = async () => false,
  ) {}

  /** Run a pass if one is due (`opening`: the vault just opened). Returns the memories queued, or null. */
  async maybeRun(opening: boolean): Promise<string[] | null> {
    const last = this.lastPass.get();
    if (last !== null && this.now() - last < (opening ? HOUR : DAY)) return null;
    return this.run();
  }

  async run(): Promise<string[]> {
    const { docs, now, settings } = await this.catalog();
    const stale = staleTiers(docs, now, settings);
    this.lastPass.set(now);
    if (stale.length > ASK_ABOVE && !(await this.ask(stale.length))) return [];
    for (const id of stale) this.queue(id);
    return stale;
  }
}
