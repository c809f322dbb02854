import type { TFile } from 'obsidian';
import { loadCatalog } from '../core/recall/catalog';
import { tierAt } from '../core/tiers';
import { tierCounts } from './graph/graph-model';
import type { EngramService } from './service';

/** The status-bar item: memories per tier, refreshed (debounced) when memories change. */
export class TierStatusBar {
  private timer: number | null = null;
  /** Text shown while a long job (embedding) reports progress; null: the tier counts. */
  private job: string | null = null;
  counts: Record<string, number> | null = null;

  constructor(
    readonly el: HTMLElement,
    private readonly service: EngramService,
  ) {
    el.addClass('engram-status');
    el.setText('Engram');
  }

  changed(file: TFile): void {
    if (this.service.memoryIdOf(file)) this.refresh(1000);
  }

  refresh(delayMs = 0): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = null;
      void this.count();
    }, delayMs);
  }

  /** From the catalog: only notes changed since the last count are parsed again. */
  private async count(): Promise<void> {
    const { vault } = this.service;
    const { docs } = await loadCatalog(vault);
    const now = vault.now();
    this.counts = tierCounts(docs.map((d) => ({ tier: tierAt(d, d.accessMs, now, vault.settings) })));
    this.render();
  }

  /** Show a job's progress instead of the counts (null: back to the counts). */
  setJob(text: string | null, onClick?: () => void): void {
    this.job = text;
    this.el.onclick = text && onClick ? onClick : null;
    this.render();
  }

  private render(): void {
    if (this.job) {
      this.el.setText(this.job);
      return;
    }
    const c = this.counts;
    if (!c) return;
    this.el.setText(`core ${c.core} · active ${c.active} · warm ${c.warm} · cold ${c.cold} · archive ${c.archive}`);
    this.el.setAttribute('aria-label', 'Memories per tier');
  }

  dispose(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
  }
}
