import { ItemView, TFile, TFolder, type WorkspaceLeaf } from 'obsidian';
import { parseMemory } from '../../core/memory';
import type { EngramService } from '../service';
import { forceAtlas2Layout } from './fa2-layout';
import { MemoryGraphCanvas } from './graph-canvas';
import { buildGraphModel, graphNode } from './graph-model';

export const GRAPH_VIEW_TYPE = 'engram-memory-graph';

/** The memory graph as an Obsidian view: the canvas, fed from the vault and kept current. */
export class MemoryGraphView extends ItemView {
  private graph: MemoryGraphCanvas | null = null;
  private observer: ResizeObserver | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly service: EngramService,
    private readonly open: (path: string) => Promise<void>,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return GRAPH_VIEW_TYPE;
  }

  getDisplayText(): string {
    return 'Memory graph';
  }

  override getIcon(): string {
    return 'git-fork';
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.contentEl.addClass('engram-graph-view');
    this.graph = new MemoryGraphCanvas(this.contentEl, {
      onOpen: (node) => void this.open(node.path),
      layout: typeof Worker === 'undefined' ? null : forceAtlas2Layout,
    });
    if (typeof ResizeObserver !== 'undefined') {
      this.observer = new ResizeObserver(() => this.fitToView());
      this.observer.observe(this.contentEl);
    }
    this.fitToView();
    this.registerEvent(this.app.metadataCache.on('changed', (file, data) => this.onChanged(file, data)));
    await this.refresh();
  }

  private fitToView(): void {
    this.graph?.resize(Math.max(200, this.contentEl.clientWidth), Math.max(200, this.contentEl.clientHeight));
  }

  /** Rebuild from every memory (archive included) and the open conflict notes. */
  async refresh(): Promise<void> {
    const { vault } = this.service;
    const { memories } = await vault.loadAll({ archive: true });
    const conflicts: Array<[string, string]> = [];
    const folder = this.app.vault.getAbstractFileByPath(this.service.files.full('conflicts'));
    if (folder instanceof TFolder) {
      for (const child of folder.children) {
        if (!(child instanceof TFile)) continue;
        const fm = this.app.metadataCache.getFileCache(child)?.frontmatter;
        const sides: unknown = fm?.sides;
        if (fm?.status === 'open' && Array.isArray(sides) && sides.length === 2) conflicts.push([String(sides[0]), String(sides[1])]);
      }
    }
    this.graph?.setModel(buildGraphModel(memories, conflicts, vault.now(), vault.settings));
  }

  /** A note's frontmatter changed (a touch, a person's edit): recolour its node. */
  private onChanged(file: TFile, data: string): void {
    if (!this.graph || !this.service.memoryIdOf(file)) return;
    const path = this.service.files.relative(file.path);
    if (!path) return;
    try {
      const memory = parseMemory(path, data, this.service.vault.settings);
      this.graph.updateNode(graphNode(memory, this.service.vault.now(), this.service.vault.settings));
    } catch {
      // a note being edited may not parse for a moment: keep its node as it was
    }
  }

  override async onClose(): Promise<void> {
    this.observer?.disconnect();
    this.observer = null;
    this.graph?.destroy();
    this.graph = null;
  }
}
