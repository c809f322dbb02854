import Graph from 'graphology';
import Sigma from 'sigma';
import type { Tier } from '../../core/settings';
import { formatDay } from '../../core/time';
import { EDGE_KINDS, GRAPH_TIERS } from './graph-model';
import type { EdgeAttributes, MemoryGraph, NodeAttributes, Palette } from './memory-graph';
export { readPalette } from './palette';

/** A layout running off the main thread over the graph's x/y attributes. */
export interface LayoutRunner {
  stop(): void;
  kill(): void;
  isRunning(): boolean;
}
export type LayoutFactory = (graph: Graph<NodeAttributes, EdgeAttributes>) => LayoutRunner;

export interface GraphRendererOptions {
  /** A click (or tap) on a node. */
  onOpen: (id: string) => void;
  /** The text shown on hover, read when needed (null: none). */
  textOf: (id: string) => string | null;
  /** When a memory's tier next drops (computed on hover; null: never). */
  nextDemotion: (id: string) => number | null;
  /** Starts the layout (ForceAtlas2 in a worker); null keeps the first positions. */
  layout: LayoutFactory | null;
  /** Stop the layout after this long. */
  layoutMs?: number;
}

/**
 * The memory graph drawn with sigma.js (WebGL, made for graphology): nodes coloured by tier,
 * sized and faded by strength, labelled with their first words; edges by kind. Drag or touch
 * to pan, wheel or pinch to zoom; hover (or a first tap) shows the memory's text, tier,
 * strength, half-life, last access and next demotion; a click or tap opens it. A search box
 * highlights matching memories; "focus" highlights the current note and its neighbours and
 * moves to them. Filters by tier and category; a legend with counts. Edges are left out while
 * the layout moves the nodes (what keeps each frame short at 10,000 memories) and drawn once
 * it settles.
 */
export class GraphRenderer {
  readonly root: HTMLElement;
  readonly stage: HTMLElement;
  readonly tooltip: HTMLElement;
  readonly searchInput: HTMLInputElement;
  private readonly legend: HTMLElement;
  private readonly filters: HTMLElement;
  private readonly status: HTMLElement;
  readonly sigma: Sigma<NodeAttributes, EdgeAttributes>;
  /**
   * What sigma draws: the model's nodes (the same attribute objects, so the layout's positions
   * are shared) and, once the layout has settled, its edges. Edges in sigma's graph are processed
   * at every frame even when hidden; leaving them out while nodes move keeps frames short.
   */
  readonly display = new Graph<NodeAttributes, EdgeAttributes>({ type: 'undirected', multi: true });
  private readonly hiddenTiers = new Set<string>();
  private readonly hiddenCategories = new Set<string>();
  /** Highlighted memories (a search or a focus); null: none, everything drawn normally. */
  private highlighted: Set<string> | null = null;
  private hovered: string | null = null;
  private layout: LayoutRunner | null = null;
  /** Edges and labels wait until the layout has settled (each frame stays short meanwhile). */
  private settling: boolean;
  private layoutTimer: number | null = null;
  private searchTimer: number | null = null;
  /** When the first frame was drawn (performance.now()). */
  firstFrameAt: number | null = null;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    container: HTMLElement,
    readonly model: MemoryGraph,
    private readonly palette: Palette,
    private readonly options: GraphRendererOptions,
  ) {
    this.root = container.createDiv({ cls: 'engram-graph' });
    this.stage = this.root.createDiv({ cls: 'engram-graph-stage' });
    const controls = this.root.createDiv({ cls: 'engram-graph-controls' });
    this.searchInput = controls.createEl('input', { type: 'search', cls: 'engram-graph-search', attr: { placeholder: 'Search memories', 'aria-label': 'Search memories' } });
    this.filters = controls.createDiv({ cls: 'engram-graph-filters' });
    this.status = controls.createDiv({ cls: 'engram-graph-status' });
    this.legend = this.root.createDiv({ cls: 'engram-graph-legend' });
    this.tooltip = this.root.createDiv({ cls: 'engram-graph-tooltip' });
    this.tooltip.hidden = true;
    this.settling = options.layout !== null && model.graph.order > 1;
    model.graph.forEachNode((id, a) => this.display.addNode(id, a));
    if (!this.settling) this.addEdges();
    this.sigma = new Sigma(this.display, this.stage, {
      allowInvalidContainer: true,
      renderEdgeLabels: false,
      renderLabels: !this.settling,
      hideEdgesOnMove: true,
      hideLabelsOnMove: false,
      itemSizesReference: 'screen',
      zIndex: false,
      labelDensity: 0.5,
      labelGridCellSize: 120,
      labelRenderedSizeThreshold: 4,
      labelFont: 'var(--font-interface, sans-serif)',
      labelColor: { color: '#dadada' },
      labelSize: 11,
      defaultEdgeType: 'line',
      minCameraRatio: 0.02,
      maxCameraRatio: 4,
      nodeReducer: (id, data) => this.nodeLook(id, data),
      edgeReducer: (id, data) => this.edgeLook(id, data),
    });
    this.sigma.once('afterRender', () => (this.firstFrameAt ??= performance.now()));
    this.sigma.on('enterNode', ({ node }) => this.hover(node));
    this.sigma.on('leaveNode', () => this.hover(null));
    this.sigma.on('clickNode', ({ node }) => this.options.onOpen(node));
    this.listen(this.searchInput, 'input', () => this.searchSoon());
    this.listen(this.searchInput, 'keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Enter') this.search(true);
    });
    this.buildFilters();
    this.renderLegend();
    this.mirror();
  }

  /** Keep the displayed graph in step with the model (changes from the vault, the layout's moves). */
  private mirror(): void {
    const g = this.model.graph;
    const on = (event: string, fn: (e: { key: string; source?: string; target?: string; attributes?: unknown }) => void) => {
      g.on(event as 'nodeAdded', fn);
      this.cleanups.push(() => g.off(event as 'nodeAdded', fn));
    };
    on('nodeAdded', ({ key }) => {
      this.display.addNode(key, g.getNodeAttributes(key));
      this.renderLegend();
    });
    on('nodeDropped', ({ key }) => {
      if (this.display.hasNode(key)) this.display.dropNode(key);
      this.renderLegend();
    });
    on('nodeAttributesUpdated', ({ key }) => {
      if (this.display.hasNode(key)) this.display.replaceNodeAttributes(key, g.getNodeAttributes(key));
      this.renderLegend();
    });
    on('edgeAdded', ({ key, source, target }) => {
      if (!this.settling && !this.display.hasEdge(key)) this.display.addEdgeWithKey(key, source!, target!, g.getEdgeAttributes(key));
    });
    on('edgeDropped', ({ key }) => {
      if (this.display.hasEdge(key)) this.display.dropEdge(key);
    });
    const moved = () => this.sigma.refresh({ partialGraph: { nodes: this.display.nodes() }, schedule: true });
    g.on('eachNodeAttributesUpdated', moved);
    this.cleanups.push(() => g.off('eachNodeAttributesUpdated', moved));
  }

  private addEdges(): void {
    this.model.graph.forEachEdge((key, a, source, target) => {
      if (!this.display.hasEdge(key)) this.display.addEdgeWithKey(key, source, target, a);
    });
  }

  private listen(target: EventTarget, type: string, fn: EventListener): void {
    target.addEventListener(type, fn);
    this.cleanups.push(() => target.removeEventListener(type, fn));
  }

  private visible(data: NodeAttributes): boolean {
    return !this.hiddenTiers.has(data.tier) && !this.hiddenCategories.has(data.category);
  }

  /**
   * How a node is drawn: hidden by the filters; a highlighted one (a search match, or the focused
   * note's neighbourhood) larger, outlined and labelled. Only highlighted nodes change look, so
   * a search or a focus redraws those nodes, not all 10,000.
   */
  private nodeLook(id: string, data: NodeAttributes): Partial<NodeAttributes & { hidden: boolean; highlighted: boolean; forceLabel: boolean }> {
    if (!this.visible(data)) return { ...data, hidden: true };
    if (this.highlighted?.has(id)) return { ...data, size: data.size * 2, highlighted: true, forceLabel: this.highlighted.size <= 50 };
    return data;
  }

  /** Highlight another set of nodes, redrawing only those whose look changes. */
  private setHighlighted(next: Set<string> | null): void {
    const changed = new Set<string>([...(this.highlighted ?? []), ...(next ?? [])]);
    this.highlighted = next;
    const nodes = [...changed].filter((id) => this.display.hasNode(id));
    if (nodes.length > 0) this.sigma.refresh({ partialGraph: { nodes }, schedule: true });
  }

  private edgeLook(id: string, data: EdgeAttributes): Partial<EdgeAttributes & { hidden: boolean }> {
    if (this.settling) return { ...data, hidden: true };
    const graph = this.display;
    const [s, t] = graph.extremities(id);
    if (!this.visible(graph.getNodeAttributes(s)) || !this.visible(graph.getNodeAttributes(t))) return { ...data, hidden: true };
    return data;
  }

  /** Start the layout (first frame already drawn from the spiral). */
  start(): void {
    this.killLayout();
    if (this.options.layout && this.model.graph.order > 1) {
      this.layout = this.options.layout(this.model.graph);
      this.status.setText('Laying out…');
      this.layoutTimer = window.setTimeout(() => this.stopLayout(), this.options.layoutMs ?? 10_000);
    }
  }

  private killLayout(): void {
    if (this.layoutTimer !== null) window.clearTimeout(this.layoutTimer);
    this.layoutTimer = null;
    if (!this.layout) return;
    this.layout.stop();
    this.layout.kill();
    this.layout = null;
  }

  /** Stop the layout; edges and labels are drawn from now on. */
  stopLayout(): void {
    this.killLayout();
    if (!this.settling) return;
    this.settling = false;
    this.status.setText('');
    this.addEdges();
    this.sigma.setSetting('renderLabels', true);
  }

  /** Whether edges and labels are drawn (the layout has settled). */
  get settled(): boolean {
    return !this.settling;
  }

  get layoutRunning(): boolean {
    return this.layout?.isRunning() ?? false;
  }

  private hover(id: string | null): void {
    this.hovered = id;
    this.tooltip.hidden = id === null;
    if (id !== null) {
      const a = this.model.graph.getNodeAttributes(id);
      this.tooltip.empty();
      this.tooltip.createDiv({ cls: 'engram-graph-tooltip-title', text: a.label || id });
      const text = this.options.textOf(id);
      if (text) this.tooltip.createDiv({ cls: 'engram-graph-tooltip-text', text: text.length > 280 ? `${text.slice(0, 277)}…` : text });
      this.tooltip.createDiv({ text: `${a.tier} · ${a.category} · strength ${a.strength.toFixed(2)} · half-life ${a.halfLifeDays.toFixed(1)} d` });
      const next = this.options.nextDemotion(id);
      this.tooltip.createDiv({ text: `last access ${formatDay(a.lastAccessMs)}${next === null ? '' : ` · ${nextTier(a.tier)} from ${formatDay(next)}`}` });
      this.tooltip.createDiv({ cls: 'engram-graph-tooltip-id', text: id });
      const d = this.sigma.getNodeDisplayData(id);
      if (d) {
        const p = this.sigma.framedGraphToViewport(d);
        this.tooltip.style.left = `${Math.round(p.x + 12)}px`;
        this.tooltip.style.top = `${Math.round(p.y + 12)}px`;
      }
    }
  }

  private searchSoon(): void {
    if (this.searchTimer !== null) window.clearTimeout(this.searchTimer);
    this.searchTimer = window.setTimeout(() => this.search(false), 150);
  }

  /** Highlight the memories matching the search box; `go`: move to the first of them. */
  search(go: boolean): string[] {
    if (this.searchTimer !== null) window.clearTimeout(this.searchTimer);
    this.searchTimer = null;
    const query = this.searchInput.value.trim();
    const found = query ? this.model.search(query) : [];
    this.setHighlighted(query ? new Set(found) : null);
    this.status.setText(query ? `${found.length} found` : '');
    if (go && found[0]) this.moveTo(found[0]);
    return found;
  }

  /** Highlight a memory and its neighbours (two hops) and move to it; null clears. */
  focus(id: string | null): void {
    if (id === null || !this.model.graph.hasNode(id)) {
      this.setHighlighted(null);
      this.status.setText('');
      return;
    }
    this.searchInput.value = '';
    const around = this.model.neighbourhood(id, 2);
    this.setHighlighted(around);
    this.status.setText(`${this.model.graph.getNodeAttribute(id, 'label') || id} and ${around.size - 1} linked`);
    this.moveTo(id);
  }

  private moveTo(id: string): void {
    const d = this.sigma.getNodeDisplayData(id);
    if (d) void this.sigma.getCamera().animate({ x: d.x, y: d.y, ratio: 0.25 }, { duration: 400 });
  }

  /** Where a node is drawn, in CSS pixels from the stage's top left. */
  screenPosition(id: string): { x: number; y: number } | null {
    const d = this.sigma.getNodeDisplayData(id);
    return d ? this.sigma.framedGraphToViewport(d) : null;
  }

  resize(): void {
    this.sigma.resize();
    this.sigma.refresh({ skipIndexation: true });
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
          this.sigma.refresh({ skipIndexation: true });
        });
      }
    };
    group(GRAPH_TIERS, this.hiddenTiers, 'Tiers');
    group(['episodic', 'semantic', 'decision'], this.hiddenCategories, 'Categories');
  }

  private renderLegend(): void {
    this.legend.empty();
    const counts = this.model.counts();
    const item = (colour: string, text: string, kind: 'tier' | 'edge') => {
      const row = this.legend.createDiv({ cls: ['engram-graph-legend-item', `engram-graph-legend-${kind}`] });
      row.createSpan({ cls: 'engram-graph-swatch' }).style.setProperty('--engram-swatch', colour);
      row.appendText(text);
    };
    for (const tier of GRAPH_TIERS) item(this.palette[tier], `${tier} (${counts[tier]})`, 'tier');
    for (const kind of EDGE_KINDS) item(this.palette[kind], kind.replace('_', '-'), 'edge');
  }

  destroy(): void {
    this.stopLayout();
    if (this.searchTimer !== null) window.clearTimeout(this.searchTimer);
    for (const fn of this.cleanups.splice(0)) fn();
    this.sigma.kill();
    this.root.remove();
  }
}

function nextTier(tier: Tier): string {
  return GRAPH_TIERS[Math.min(GRAPH_TIERS.length - 1, GRAPH_TIERS.indexOf(tier) + 1)]!;
}
