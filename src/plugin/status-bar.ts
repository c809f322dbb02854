import type { Tier } from '../core/settings';
import { tierAt } from '../core/tiers';
import type { RecallDoc } from '../core/recall/catalog';
import { tierCounts } from './graph/graph-model';
import type { IndexChange, MemoryIndex } from './memory-index';
import type { EngramService } from './service';

/**
 * Memories per tier, from the in-memory index: a change moves one memory between counts
 * (O(changed)); a full count runs when the index loads and every 10 minutes (tiers decay with
 * time, not only with changes). On a phone, where there is no status bar, the same text goes
 * to the sidebar (see `text`).
 */
export class TierStatusBar {
  /** Text shown while a long job (embedding) reports progress; null: the tier counts. */
  private job: string | null = null;
  counts: Record<Tier, number> | null = null;
  private timer: number | null = null;
  /** Called when the text changed (the sidebar shows it on mobile). */
  onChange: (() => void) | null = null;

  constructor(
    readonly el: HTMLElement | null,
    private readonly service: EngramService,
    private readonly index: MemoryIndex,
  ) {
    el?.addClass('engram-status');
    el?.setText('Engram');
    // a control when it offers an action (cancel, set up): reachable by Tab, Enter and Space
    el?.addEventListener('click', () => this.act());
    el?.addEventListener('keydown', (event: KeyboardEvent) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      this.act();
    });
  }

  /** What a click, Enter or Space on the status bar does now (null: it is only a label). */
  private action: { label: string; run: () => void } | null = null;
  /** Text shown instead of the counts while an action is offered (set up); null: the counts. */
  private prompt: string | null = null;

  private act(): void {
    if (this.job) this.cancel?.();
    else this.action?.run();
  }

  /** Offer an action in place of the counts (`text` null: back to the counts). */
  setAction(text: string | null, label = '', run?: () => void): void {
    this.prompt = text;
    this.action = text && run ? { label, run } : null;
    this.render();
  }

  private tierOf(doc: RecallDoc, now: number): Tier {
    return doc.archived ? 'archive' : tierAt(doc, doc.accessMs, now, this.service.vault.settings);
  }

  /** Count every memory again (at load, and every 10 minutes). */
  recount(): void {
    const now = this.service.vault.now();
    const tiers: Array<{ tier: Tier }> = [];
    for (const doc of this.index.all()) tiers.push({ tier: this.tierOf(doc, now) });
    this.counts = tierCounts(tiers);
    this.render();
  }

  /** Memories changed: move each between counts. */
  changed(changes: IndexChange[]): void {
    if (!this.counts || changes.length > 100) {
      this.recount();
      return;
    }
    const now = this.service.vault.now();
    for (const { before, after } of changes) {
      if (before) this.counts[this.tierOf(before, now)]--;
      if (after) this.counts[this.tierOf(after, now)]++;
    }
    this.render();
  }

  /** Start counting: now, and every 10 minutes. */
  start(): void {
    this.recount();
    this.timer = window.setInterval(() => this.recount(), 600_000);
  }

  /** Show a job's progress instead of the counts (null: back to the counts). */
  setJob(text: string | null, onClick?: () => void): void {
    this.job = text;
    this.cancel = text && onClick ? onClick : null;
    this.render();
  }

  /** What a click on the job cancels (the sidebar offers it on mobile). */
  cancel: (() => void) | null = null;

  /** What the status bar shows. */
  get text(): string {
    if (this.job) return this.job;
    if (this.prompt) return this.prompt;
    const c = this.counts;
    return c ? `core ${c.core} · active ${c.active} · warm ${c.warm} · cold ${c.cold} · archive ${c.archive}` : 'Engram';
  }

  private render(): void {
    const el = this.el;
    if (el) {
      el.setText(this.text);
      const action = this.job && this.cancel ? { label: this.job.includes('(pause)') ? 'Pause the tier updates' : 'Cancel the embedding', run: this.cancel } : this.job ? null : this.action;
      el.setAttribute('aria-label', action ? action.label : this.job ? this.job : `Memories per tier: ${this.text}`);
      if (action) {
        el.setAttribute('role', 'button');
        el.setAttribute('tabindex', '0');
        el.addClass('mod-clickable');
      } else {
        el.removeAttribute('role');
        el.removeAttribute('tabindex');
        el.removeClass('mod-clickable');
      }
    }
    this.onChange?.();
  }

  dispose(): void {
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
  }
}
