import { ItemView, MarkdownView, TFile, TFolder, type WorkspaceLeaf } from 'obsidian';
import type { RecallDoc } from '../../core/recall/catalog';
import type { EngramService } from '../service';
import type { MemoryIndex } from '../memory-index';
import { forceAtlas2Layout } from './fa2-layout';
import { demotionOf } from './graph-model';
import type { GraphRenderer } from './graph-renderer';
import { readPalette } from './palette';
import { MemoryGraph } from './memory-graph';

export const GRAPH_VIEW_TYPE = 'engram-memory-graph';

let webgl: boolean | undefined;

/** Whether this device can draw WebGL (sigma needs it); asked once, the test context released. */
function webglAvailable(el: HTMLElement): boolean {
  if (webgl !== undefined) return webgl;
  const canvas = el.createEl('canvas');
  try {
    const context = typeof WebGL2RenderingContext === 'undefined' ? null : (canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
    context?.getExtension('WEBGL_lose_context')?.loseContext();
    webgl = context !== null;
  } catch {
    webgl = false;
  } finally {
    canvas.remove();
  }
  return webgl;
}

/**
 * The memory graph as an Obsidian view: built from the plugin's in-memory catalog (no note is
 * read to open it), kept current from its changes (a memory created, deleted, moved to
 * archive/ or edited), drawn with sigma.js.
 */
export class MemoryGraphView extends ItemView {
  model: MemoryGraph | null = null;
  renderer: GraphRenderer | null = null;
  private observer: ResizeObserver | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly service: EngramService,
    private readonly index: MemoryIndex,
    private readonly labelOf: (doc: RecallDoc) => string,
    private readonly textOf: (id: string) => string | null,
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
    await this.index.load();
    const palette = readPalette(this.contentEl);
    this.model = new MemoryGraph(palette, this.labelOf, () => this.service.vault.settings, () => this.service.vault.now());
    // nodes first: the first frame draws them; the renderer adds the edges after it
    this.model.setNodes([...this.index.all()], this.openConflicts());
    this.unsubscribe = this.index.subscribe((changes) => this.model?.apply(changes, (id) => this.index.get(id)));
    if (!webglAvailable(this.contentEl)) {
      this.model.link();
      this.contentEl.createEl('p', { cls: 'engram-graph-unavailable', text: 'This device cannot draw the memory graph (it needs hardware graphics).' });
      return;
    }
    // sigma is loaded when a graph is first drawn (its module needs WebGL at load)
    const { GraphRenderer } = await import('./graph-renderer');
    this.renderer = new GraphRenderer(this.contentEl, this.model, palette, {
      onOpen: (id) => {
        const doc = this.index.get(id);
        if (doc) void this.open(doc.path);
      },
      textOf: this.textOf,
      nextDemotion: (id) => {
        const doc = this.index.get(id);
        return doc ? demotionOf(doc, this.service.vault.now(), this.service.vault.settings) : null;
      },
      layout: typeof Worker === 'undefined' ? null : forceAtlas2Layout,
    });
    const focus = this.renderer.root.querySelector('.engram-graph-controls')!.createEl('button', { cls: 'engram-graph-focus', text: 'Focus on the current note' });
    this.registerDomEvent(focus, 'click', () => this.focusActive());
    if (typeof ResizeObserver !== 'undefined') {
      this.observer = new ResizeObserver(() => this.renderer?.resize());
      this.observer.observe(this.contentEl);
    }
    this.renderer.start();
  }

  /** Highlight the memory of the note last shown in an editor, with its neighbours. */
  focusActive(): void {
    const file = this.app.workspace.getActiveViewOfType(MarkdownView)?.file ?? this.app.workspace.getActiveFile();
    const id = this.service.memoryIdOf(file);
    this.renderer?.focus(id);
  }

  /** Open conflict notes (`conflicts/`), as pairs of memory ids. */
  private openConflicts(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    const folder = this.app.vault.getAbstractFileByPath(this.service.files.full('conflicts'));
    if (!(folder instanceof TFolder)) return out;
    for (const child of folder.children) {
      if (!(child instanceof TFile)) continue;
      const fm = this.app.metadataCache.getFileCache(child)?.frontmatter;
      const sides: unknown = fm?.sides;
      if (fm?.status === 'open' && Array.isArray(sides) && sides.length === 2) out.push([String(sides[0]), String(sides[1])]);
    }
    return out;
  }

  override async onClose(): Promise<void> {
    this.observer?.disconnect();
    this.observer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.renderer?.destroy();
    this.renderer = null;
    this.model = null;
  }
}
