import Graph from 'graphology';
import type { Tier } from '../../core/settings';
import { EDGE_KINDS, GRAPH_TIERS, tierCounts, type GraphEdgeKind, type GraphModel, type GraphNode } from './graph-model';

/** A layout running off the main thread over the graph's x/y attributes. */
export interface LayoutRunner {
  stop(): void;
  kill(): void;
}
export type LayoutFactory = (graph: Graph) => LayoutRunner;

export interface GraphCanvasOptions {
  /** Click on a node. */
  onOpen: (node: GraphNode) => void;
  /** Starts the layout (a ForceAtlas2 worker in Obsidian); null draws the first positions only. */
  layout: LayoutFactory | null;
  /** Stop the layout after this long (it keeps no thread busy once the picture is stable). */
  layoutMs?: number;
  /** Frame scheduling (injected: tests and the browser page drive it). */
  requestFrame?: (fn: () => void) => number;
  cancelFrame?: (handle: number) => void;
}

interface NodeView extends GraphNode {
  radius: number;
}

const FALLBACK_COLOURS: Record<Tier | GraphEdgeKind, string> = {
  core: '#a882ff',
  active: '#44cf6e',
  warm: '#e0ac00',
  cold: '#027aff',
  archive: '#8a8a8a',
  related: '#6c6c6c',
  co_access: '#44cf6e',
  decays_from: '#a882ff',
  contradicts: '#fb464c',
};

/**
 * The memory graph drawn on a canvas: nodes coloured by tier (colours from the theme's CSS
 * variables `--engram-tier-*`), sized by strength, edges by kind (co-access thicker with its
 * count); pan by dragging, zoom with the wheel, hover for a node's strength, half-life, tier
 * and last access, click to open; filters by tier and category; a legend with counts. The
 * first frame is drawn from a deterministic spiral (ordered by tier) before any layout runs;
 * the layout then moves the nodes from a worker, and frames are drawn only when something
 * changed; edges are left out while nodes move (as sigma.js's hideEdgesOnMove) and drawn once
 * the layout settles.
 */
export class MemoryGraphCanvas {
  readonly root: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly tooltip: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly filters: HTMLElement;
  private readonly ctx: CanvasRenderingContext2D | null;
  private graph = new Graph({ type: 'undirected', multi: true });
  private nodes = new Map<string, NodeView>();
  private edges: Array<{ source: string; target: string; kind: GraphEdgeKind; weight: number }> = [];
  private readonly hiddenTiers = new Set<string>();
  private readonly hiddenCategories = new Set<string>();
  private colours: Record<Tier | GraphEdgeKind, string> = { ...FALLBACK_COLOURS };
  private view = { x: 0, y: 0, scale: 1 };
  private frame: number | null = null;
  private layout: LayoutRunner | null = null;
  private layoutTimer: number | null = null;
  private drag: { x: number; y: number; moved: boolean } | null = null;
  private hovered: NodeView | null = null;
  /** The view follows the layout (fits every frame) until the user pans or zooms. */
  private autoFit = true;
  /** When the first frame was drawn (performance.now()). */
  firstFrameAt: number | null = null;
  private readonly listeners: Array<[EventTarget, string, EventListener]> = [];

  constructor(
    container: HTMLElement,
    private readonly options: GraphCanvasOptions,
  ) {
    this.root = container.createDiv({ cls: 'engram-graph' });
    this.filters = this.root.createDiv({ cls: 'engram-graph-filters' });
    this.canvas = this.root.createEl('canvas', { cls: 'engram-graph-canvas' });
    this.legend = this.root.createDiv({ cls: 'engram-graph-legend' });
    this.tooltip = this.root.createDiv({ cls: 'engram-graph-tooltip' });
    this.tooltip.hidden = true;
    this.ctx = this.canvas.getContext('2d');
    this.listen(this.canvas, 'mousedown', (e) => this.onDown(e as MouseEvent));
    this.listen(this.canvas, 'mousemove', (e) => this.onMove(e as MouseEvent));
    this.listen(this.canvas, 'mouseup', (e) => this.onUp(e as MouseEvent));
    this.listen(this.canvas, 'mouseleave', () => this.setHovered(null));
    this.listen(this.canvas, 'wheel', (e) => this.onWheel(e as WheelEvent));
    this.readColours();
    this.buildFilters();
  }

  private listen(target: EventTarget, type: string, fn: EventListener): void {
    target.addEventListener(type, fn);
    this.listeners.push([target, type, fn]);
  }

  private readColours(): void {
    const win = this.root.ownerDocument.defaultView;
    if (!win) return;
    const style = win.getComputedStyle(this.root);
    for (const key of [...GRAPH_TIERS, ...EDGE_KINDS]) {
      const value = style.getPropertyValue(`--engram-${GRAPH_TIERS.includes(key as Tier) ? 'tier' : 'edge'}-${key.replace('_', '-')}`).trim();
      if (value) this.colours[key] = value;
    }
  }

  /** Show a model: replaces the graph, draws the first frame, starts the layout. */
  setModel(model: GraphModel): void {
    this.stopLayout();
    this.autoFit = true;
    this.graph = new Graph({ type: 'undirected', multi: true });
    this.nodes = new Map();
    // first positions: a golden-angle spiral, core in the middle and archive outside
    const order = [...model.nodes].sort((a, b) => GRAPH_TIERS.indexOf(a.tier) - GRAPH_TIERS.indexOf(b.tier) || (a.id < b.id ? -1 : 1));
    const golden = Math.PI * (3 - Math.sqrt(5));
    order.forEach((node, i) => {
      const r = 10 * Math.sqrt(i + 1);
      this.graph.addNode(node.id, { x: r * Math.cos(i * golden), y: r * Math.sin(i * golden), size: 1 });
      this.nodes.set(node.id, { ...node, radius: radiusFor(node.strength) });
    });
    this.edges = model.edges.filter((e) => this.nodes.has(e.source) && this.nodes.has(e.target));
    for (const e of this.edges) this.graph.addEdge(e.source, e.target, { weight: e.kind === 'co_access' ? Math.min(4, e.weight) : 1 });
    this.graph.on('eachNodeAttributesUpdated', () => this.requestDraw());
    this.fit();
    this.renderLegend();
    this.drawNow();
    if (this.options.layout && this.graph.order > 1) {
      this.layout = this.options.layout(this.graph);
      this.layoutTimer = window.setTimeout(() => this.stopLayout(), this.options.layoutMs ?? 10_000);
    }
  }

  /** A memory's frontmatter changed: recolour and resize its node. */
  updateNode(node: GraphNode): void {
    const current = this.nodes.get(node.id);
    if (!current) return;
    this.nodes.set(node.id, { ...node, radius: radiusFor(node.strength) });
    this.renderLegend();
    this.requestDraw();
  }

  /** Where a node is drawn, in CSS pixels from the canvas's top left (null when unknown). */
  screenPosition(id: string): { x: number; y: number } | null {
    if (!this.graph.hasNode(id)) return null;
    const rect = this.canvas.getBoundingClientRect();
    const ratio = rect.width > 0 ? this.canvas.width / rect.width : 1;
    const a = this.graph.getNodeAttributes(id);
    return { x: (this.view.x + (a.x as number) * this.view.scale) / ratio, y: (this.view.y + (a.y as number) * this.view.scale) / ratio };
  }

  stopLayout(): void {
    if (this.layoutTimer !== null) window.clearTimeout(this.layoutTimer);
    this.layoutTimer = null;
    if (this.layout) {
      this.layout.stop();
      this.layout.kill();
      this.layout = null;
      this.requestDraw();
    }
  }

  resize(width: number, height: number): void {
    const ratio = this.root.ownerDocument.defaultView?.devicePixelRatio ?? 1;
    this.canvas.width = Math.max(1, Math.round(width * ratio));
    this.canvas.height = Math.max(1, Math.round(height * ratio));
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    this.fit();
    this.drawNow();
  }

  /** Scale and centre so every node is in view. */
  private fit(): void {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    this.graph.forEachNode((_, a) => {
      minX = Math.min(minX, a.x as number);
      maxX = Math.max(maxX, a.x as number);
      minY = Math.min(minY, a.y as number);
      maxY = Math.max(maxY, a.y as number);
    });
    if (!Number.isFinite(minX)) return;
    const w = this.canvas.width;
    const h = this.canvas.height;
    this.view.scale = 0.9 * Math.min(w / Math.max(1, maxX - minX), h / Math.max(1, maxY - minY));
    this.view.x = w / 2 - ((minX + maxX) / 2) * this.view.scale;
    this.view.y = h / 2 - ((minY + maxY) / 2) * this.view.scale;
  }

  private visible(node: NodeView): boolean {
    return !this.hiddenTiers.has(node.tier) && !this.hiddenCategories.has(node.category);
  }

  private requestDraw(): void {
    if (this.frame !== null) return;
    const request = this.options.requestFrame ?? ((fn: () => void) => window.requestAnimationFrame(fn));
    this.frame = request(() => {
      this.frame = null;
      this.drawNow();
    });
  }

  /** Draw one frame now: edges batched into one path per kind (and co-access width), then nodes one path per tier. */
  drawNow(): void {
    const ctx = this.ctx;
    if (!ctx) return;
    if (this.autoFit) this.fit();
    const { x: ox, y: oy, scale } = this.view;
    const xs = new Map<string, number>();
    const ys = new Map<string, number>();
    this.graph.forEachNode((key, a) => {
      xs.set(key, ox + (a.x as number) * scale);
      ys.set(key, oy + (a.y as number) * scale);
    });
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.globalAlpha = 0.35;
    // Edges are drawn when the picture is still: while the layout moves the nodes (or the user
    // drags the view) rasterising thousands of lines each frame would take the main thread
    // (measured: ~100 ms per frame at 5,000 nodes in software rendering).
    const edgeKinds = this.layout || this.drag?.moved ? [] : EDGE_KINDS;
    for (const kind of edgeKinds) {
      ctx.strokeStyle = this.colours[kind];
      const widths = kind === 'co_access' ? [1, 2, 3, 4] : [0];
      for (const w of widths) {
        ctx.lineWidth = kind === 'co_access' ? 0.5 + w / 2 : 0.75;
        ctx.beginPath();
        for (const e of this.edges) {
          if (e.kind !== kind || (kind === 'co_access' && Math.min(4, Math.max(1, Math.round(e.weight))) !== w)) continue;
          if (!this.visible(this.nodes.get(e.source)!) || !this.visible(this.nodes.get(e.target)!)) continue;
          ctx.moveTo(xs.get(e.source)!, ys.get(e.source)!);
          ctx.lineTo(xs.get(e.target)!, ys.get(e.target)!);
        }
        ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;
    const zoom = Math.max(0.6, Math.min(3, Math.sqrt(scale)));
    for (const tier of GRAPH_TIERS) {
      ctx.fillStyle = this.colours[tier];
      ctx.beginPath();
      for (const node of this.nodes.values()) {
        if (node.tier !== tier || !this.visible(node)) continue;
        const x = xs.get(node.id)!;
        const y = ys.get(node.id)!;
        const r = node.radius * zoom;
        ctx.moveTo(x + r, y);
        ctx.arc(x, y, r, 0, 2 * Math.PI);
      }
      ctx.fill();
    }
    if (this.hovered) {
      ctx.strokeStyle = this.colours.core;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(xs.get(this.hovered.id)!, ys.get(this.hovered.id)!, this.hovered.radius * zoom + 3, 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (this.firstFrameAt === null) this.firstFrameAt = performance.now();
  }

  private nodeAt(clientX: number, clientY: number): NodeView | null {
    const rect = this.canvas.getBoundingClientRect();
    const ratio = rect.width > 0 ? this.canvas.width / rect.width : 1;
    const px = (clientX - rect.left) * ratio;
    const py = (clientY - rect.top) * ratio;
    const zoom = Math.max(0.6, Math.min(3, Math.sqrt(this.view.scale)));
    let best: NodeView | null = null;
    let bestD = Infinity;
    for (const node of this.nodes.values()) {
      if (!this.visible(node)) continue;
      const x = this.view.x + (this.graph.getNodeAttribute(node.id, 'x') as number) * this.view.scale;
      const y = this.view.y + (this.graph.getNodeAttribute(node.id, 'y') as number) * this.view.scale;
      const d = Math.hypot(x - px, y - py);
      if (d <= node.radius * zoom + 4 * ratio && d < bestD) {
        best = node;
        bestD = d;
      }
    }
    return best;
  }

  private onDown(e: MouseEvent): void {
    this.drag = { x: e.clientX, y: e.clientY, moved: false };
  }

  private onMove(e: MouseEvent): void {
    if (this.drag) {
      const dx = e.clientX - this.drag.x;
      const dy = e.clientY - this.drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) this.drag.moved = true;
      if (this.drag.moved) {
        this.autoFit = false;
        const ratio = this.canvas.width / Math.max(1, this.canvas.getBoundingClientRect().width);
        this.view.x += dx * ratio;
        this.view.y += dy * ratio;
        this.drag.x = e.clientX;
        this.drag.y = e.clientY;
        this.requestDraw();
      }
      return;
    }
    this.setHovered(this.nodeAt(e.clientX, e.clientY), e);
  }

  private onUp(e: MouseEvent): void {
    const drag = this.drag;
    this.drag = null;
    if (drag && !drag.moved) {
      const node = this.nodeAt(e.clientX, e.clientY);
      if (node) this.options.onOpen(node);
    } else if (drag) this.requestDraw();
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    const rect = this.canvas.getBoundingClientRect();
    const ratio = rect.width > 0 ? this.canvas.width / rect.width : 1;
    const px = (e.clientX - rect.left) * ratio;
    const py = (e.clientY - rect.top) * ratio;
    const factor = Math.exp(-e.deltaY / 500);
    this.autoFit = false;
    this.view.x = px - (px - this.view.x) * factor;
    this.view.y = py - (py - this.view.y) * factor;
    this.view.scale *= factor;
    this.requestDraw();
  }

  private setHovered(node: NodeView | null, e?: MouseEvent): void {
    if (node === this.hovered) return;
    this.hovered = node;
    this.tooltip.hidden = node === null;
    if (node && e) {
      this.tooltip.empty();
      const line = (text: string) => this.tooltip.createDiv({ text });
      line(node.id);
      line(`tier ${node.tier} · ${node.category}`);
      line(`strength ${node.strength.toFixed(2)} · half-life ${node.halfLifeDays.toFixed(1)} d`);
      line(`last access ${node.lastAccessedAt.slice(0, 10)}`);
      const rect = this.root.getBoundingClientRect();
      this.tooltip.style.left = `${e.clientX - rect.left + 12}px`;
      this.tooltip.style.top = `${e.clientY - rect.top + 12}px`;
    }
    this.requestDraw();
  }

  private buildFilters(): void {
    const group = (values: readonly string[], hidden: Set<string>, label: string) => {
      const box = this.filters.createDiv({ cls: 'engram-graph-filter-group', attr: { 'aria-label': label } });
      for (const value of values) {
        const item = box.createEl('label');
        const input = item.createEl('input', { type: 'checkbox', attr: { 'data-filter': value } });
        input.checked = true;
        item.appendText(value);
        this.listen(input, 'change', () => {
          if (input.checked) hidden.delete(value);
          else hidden.add(value);
          this.requestDraw();
        });
      }
    };
    group(GRAPH_TIERS, this.hiddenTiers, 'Tiers');
    group(['episodic', 'semantic', 'decision'], this.hiddenCategories, 'Categories');
  }

  private renderLegend(): void {
    this.legend.empty();
    const counts = tierCounts([...this.nodes.values()]);
    const item = (colour: string, text: string, kind: 'tier' | 'edge') => {
      const row = this.legend.createDiv({ cls: ['engram-graph-legend-item', `engram-graph-legend-${kind}`] });
      row.createSpan({ cls: 'engram-graph-swatch' }).style.setProperty('--engram-swatch', colour);
      row.appendText(text);
    };
    for (const tier of GRAPH_TIERS) item(this.colours[tier], `${tier} (${counts[tier]})`, 'tier');
    for (const kind of EDGE_KINDS) item(this.colours[kind], kind.replace('_', '-'), 'edge');
  }

  destroy(): void {
    this.stopLayout();
    if (this.frame !== null) (this.options.cancelFrame ?? ((h: number) => window.cancelAnimationFrame(h)))(this.frame);
    this.frame = null;
    for (const [target, type, fn] of this.listeners) target.removeEventListener(type, fn);
    this.listeners.length = 0;
    this.graph.clear();
    this.root.remove();
  }
}

/** Node radius in pixels from strength (0..1): visible when faint, never huge. */
function radiusFor(strength: number): number {
  return 2 + 4 * Math.sqrt(Math.max(0, Math.min(1, strength)));
}
