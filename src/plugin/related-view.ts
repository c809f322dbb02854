import { ItemView, MarkdownView, TFile, TFolder, type WorkspaceLeaf } from 'obsidian';
import { bodyText } from '../core/memory';
import type { RecallDoc } from '../core/recall/catalog';
import { formatDay } from '../core/time';
import { demotionOf, graphNode, type GraphNode } from './graph/graph-model';
import type { MemoryIndex } from './memory-index';
import type { EngramService } from './service';
import type { TierStatusBar } from './status-bar';

export const RELATED_VIEW_TYPE = 'engram-related';

/** One row of the sidebar: a memory with why it is listed. */
export interface RelatedItem {
  id: string;
  path: string;
  label: string;
  why: string;
  node: GraphNode;
  /** When its tier next drops (null: never). */
  nextDemotionMs: number | null;
}

/** What the sidebar lists for a memory. */
export interface RelatedSections {
  current: RelatedItem | null;
  coAccess: RelatedItem[];
  links: RelatedItem[];
  recalled: RelatedItem[];
  conflicts: Array<{ path: string; label: string; sides: string[] }>;
}

/**
 * The related-memories sidebar for the note in the editor (what Smart Connections users
 * expect): its co-access partners (used together, by count), its links both ways, and what
 * recall finds for its text, each with tier, strength and the day its tier next drops; then
 * the conflicts open for a person to resolve. On a phone it also shows the tier counts and an
 * embedding's progress, which live in the status bar on desktop.
 */
export class RelatedView extends ItemView {
  private unsubscribe: (() => void) | null = null;
  private timer: number | null = null;
  private currentId: string | null = null;
  /** The last sections drawn (tests, and to skip drawing what did not change). */
  sections: RelatedSections | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly service: EngramService,
    private readonly index: MemoryIndex,
    private readonly labelOf: (doc: RecallDoc) => string,
    private readonly status: TierStatusBar | null,
    private readonly showStatus: boolean,
    private readonly open: (path: string) => Promise<void>,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return RELATED_VIEW_TYPE;
  }

  getDisplayText(): string {
    return 'Related memories';
  }

  override getIcon(): string {
    return 'brain';
  }

  override async onOpen(): Promise<void> {
    this.contentEl.addClass('engram-related');
    await this.index.load();
    this.unsubscribe = this.index.subscribe((changes) => {
      if (changes.some((c) => c.id === this.currentId) || changes.length > 0) this.refreshSoon();
    });
    this.registerEvent(this.app.workspace.on('file-open', () => this.refreshSoon()));
    if (this.status && this.showStatus) this.status.onChange = () => this.renderStatus();
    this.refresh();
  }

  private refreshSoon(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = null;
      this.refresh();
    }, 300);
  }

  /** Rebuild the lists for the memory in the active editor. */
  refresh(): void {
    const file = this.app.workspace.getActiveViewOfType(MarkdownView)?.file ?? this.app.workspace.getActiveFile();
    const id = this.service.memoryIdOf(file);
    this.currentId = id;
    this.sections = this.compute(id, file);
    this.render();
  }

  private item(doc: RecallDoc, why: string, now: number): RelatedItem {
    const settings = this.service.vault.settings;
    return { id: doc.id, path: doc.path, label: this.labelOf(doc), why, node: graphNode(doc, now, settings), nextDemotionMs: demotionOf(doc, now, settings) };
  }

  private compute(id: string | null, file: TFile | null): RelatedSections {
    const now = this.service.vault.now();
    const doc = id ? this.index.get(id) : undefined;
    const sections: RelatedSections = { current: null, coAccess: [], links: [], recalled: [], conflicts: this.openConflicts() };
    if (!doc) return sections;
    sections.current = this.item(doc, '', now);
    sections.coAccess = Object.entries(doc.co_access)
      .filter(([other, n]) => n > 0 && this.index.get(other))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([other, n]) => this.item(this.index.get(other)!, `used together ${n}×`, now));
    const seen = new Set<string>([doc.id]);
    for (const link of doc.links) {
      const target = this.index.get(link.target);
      if (target && !seen.has(target.id)) {
        seen.add(target.id);
        sections.links.push(this.item(target, link.kind.replace('_', ' '), now));
      }
    }
    for (const other of this.index.all()) {
      if (seen.has(other.id)) continue;
      const back = other.links.find((l) => l.target === doc.id);
      if (back) {
        seen.add(other.id);
        sections.links.push(this.item(other, `${back.kind.replace('_', ' ')} (links here)`, now));
      }
    }
    const text = doc.text ?? (file ? this.cachedText(file) : null);
    if (text && this.index.engineReady) {
      const hits = this.index.engine().recall(text.slice(0, 500), { limit: 9, radius: 'all' }, now);
      sections.recalled = hits.filter((h) => h.doc.id !== doc.id).slice(0, 8).map((h) => this.item(this.index.get(h.doc.id) ?? h.doc, `recall ${h.score.toFixed(2)}`, now));
    } else if (text) {
      // the recall engine is built when the vault is idle; the list fills in then
      window.setTimeout(() => {
        void this.index.buildInSlices().then(() => this.refreshSoon());
      }, 1000);
    }
    return sections;
  }

  /** The note's text as the editor holds it (no file read). */
  private cachedText(file: TFile): string | null {
    const view = this.app.workspace.getActiveViewOfType(MarkdownView);
    if (view?.file !== file) return null;
    const value = view.editor.getValue();
    const end = value.startsWith('---') ? value.indexOf('\n---', 3) : -1;
    return bodyText(end >= 0 ? value.slice(value.indexOf('\n', end + 1) + 1) : value);
  }

  private openConflicts(): Array<{ path: string; label: string; sides: string[] }> {
    const out: Array<{ path: string; label: string; sides: string[] }> = [];
    const folder = this.app.vault.getAbstractFileByPath(this.service.files.full('conflicts'));
    if (!(folder instanceof TFolder)) return out;
    for (const child of folder.children) {
      if (!(child instanceof TFile) || child.extension !== 'md') continue;
      const fm = this.app.metadataCache.getFileCache(child)?.frontmatter;
      const sides: unknown = fm?.sides;
      if (fm?.status !== 'open') continue;
      const ids = Array.isArray(sides) ? sides.map(String) : [];
      const labels = ids.map((s) => {
        const d = this.index.get(s);
        return d ? this.labelOf(d) : s;
      });
      out.push({ path: child.path, label: labels.length === 2 ? `${labels[0]} ↔ ${labels[1]}` : child.basename, sides: ids });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  private render(): void {
    const s = this.sections;
    this.contentEl.empty();
    if (this.showStatus) this.contentEl.createDiv({ cls: 'engram-related-status' });
    this.renderStatus();
    if (!s) return;
    if (!s.current) this.contentEl.createEl('p', { cls: 'engram-related-empty', text: 'Open a memory to see what is related to it.' });
    else {
      const head = this.contentEl.createDiv({ cls: 'engram-related-current' });
      head.createDiv({ cls: 'engram-related-title', text: s.current.label });
      head.createDiv({ cls: `engram-related-meta engram-tier-${s.current.node.tier}`, text: describe(s.current) });
      this.list('Used together', s.coAccess);
      this.list('Links', s.links);
      this.list('Recall finds', s.recalled);
    }
    const box = this.contentEl.createDiv({ cls: 'engram-related-section' });
    box.createEl('h4', { text: `Open conflicts (${s.conflicts.length})` });
    for (const c of s.conflicts) {
      const row = box.createDiv({ cls: 'engram-related-item engram-related-conflict', text: c.label });
      this.activate(row, `Open the conflict: ${c.label}`, () => void this.app.workspace.getLeaf(false).openFile(this.app.vault.getFileByPath(c.path)!));
    }
  }

  private list(title: string, items: RelatedItem[]): void {
    const box = this.contentEl.createDiv({ cls: 'engram-related-section' });
    box.createEl('h4', { text: `${title} (${items.length})` });
    for (const item of items) {
      const row = box.createDiv({ cls: 'engram-related-item', attr: { 'data-id': item.id } });
      row.createDiv({ cls: 'engram-related-label', text: item.label });
      row.createDiv({ cls: `engram-related-meta engram-tier-${item.node.tier}`, text: `${item.why} · ${describe(item)}` });
      this.activate(row, `Open ${item.label} (${item.why})`, () => void this.open(item.path));
    }
  }

  /** A row that acts like a button: focusable by Tab, named for screen readers, run by a click, Enter or Space. */
  private activate(row: HTMLElement, label: string, run: () => void): void {
    row.setAttribute('role', 'button');
    row.setAttribute('tabindex', '0');
    row.setAttribute('aria-label', label);
    this.registerDomEvent(row, 'click', run);
    this.registerDomEvent(row, 'keydown', (event: KeyboardEvent) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      run();
    });
  }

  private renderStatus(): void {
    if (!this.showStatus || !this.status) return;
    const el = this.contentEl.querySelector<HTMLElement>('.engram-related-status');
    if (!el) return;
    el.setText(this.status.text);
    const cancel = this.status.cancel;
    el.toggleClass('is-clickable', cancel !== null);
    el.onclick = cancel;
    el.onkeydown = cancel ? (event: KeyboardEvent) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      cancel();
    } : null;
    if (cancel) {
      el.setAttribute('role', 'button');
      el.setAttribute('tabindex', '0');
      el.setAttribute('aria-label', this.status.text);
    } else {
      el.removeAttribute('role');
      el.removeAttribute('tabindex');
      el.removeAttribute('aria-label');
    }
  }

  override async onClose(): Promise<void> {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.status) this.status.onChange = null;
  }
}

/** tier · strength · next demotion, as the sidebar shows it. */
export function describe(item: RelatedItem): string {
  const node = item.node;
  const next = item.nextDemotionMs === null ? (node.tier === 'core' ? 'never decays' : '') : `drops ${formatDay(item.nextDemotionMs)}`;
  return [node.tier, `strength ${node.strength.toFixed(2)}`, next].filter(Boolean).join(' · ');
}
