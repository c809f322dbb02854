import type { RecallDoc } from '../core/recall/catalog';
import type { EngramSettings } from '../core/settings';
import { tierAt } from '../core/tiers';

/**
 * Keeping the written `tier` true without consolidation, so that Obsidian's own graph (which
 * colours notes by the property, with `[tier:…]` groups) agrees with Engram's view, status bar
 * and recall. A pass compares each memory's written tier with the tier the core's rule gives it
 * now (tiers only ever demote here) and queues a write for those that differ; the writes go
 * through the quiet queue (never to an open or recently typed-in note).
 */
export function staleTiers(docs: RecallDoc[], now: number, settings: EngramSettings): string[] {
  const out: string[] = [];
  for (const doc of docs) if (tierAt(doc, doc.accessMs, now, settings) !== doc.tier) out.push(doc.id);
  return out;
}

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
    for (const id of stale) this.queue(id);
    this.lastPass.set(now);
    return stale;
  }
}
