import Graph from 'graphology';
import Sigma from 'sigma';
import type { Tier } from '../../core/settings';
import { formatDay } from '../../core/time';
import { EDGE_KINDS, GRAPH_TIERS } from './graph-model';
import type { EdgeAttributes, MemoryGraph, NodeAttributes, Palette } from './memory-graph';
export { readPalette } from './palette';

/** Edges added to the drawing per frame once the layout has settled. */
const EDGE_BATCH = 2000;
/** Documents whose edges are added to the model per task before the layout starts. */
const LINK_SLICE = 1000;
/** Nodes given their labels per frame once the edges are drawn. */
const LABEL_BATCH = 2500;

/**
 * What sigma draws of a node: the fields it reads and nothing else, all present from the start
 * (sigma copies these objects at every full refresh and adds the fields that are missing).
 */
interface DrawnNode {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string | null;
  hidden: boolean;
  highlighted: boolean;
  forceLabel: boolean;
  type: string;
  zIndex: number;
}

interface DrawnEdge {
  size: number;
  color: string;
  label: string;
  hidden: boolean;
  forceLabel: boolean;
  type: string;
  zIndex: number;
}

function drawnNode(a: NodeAttributes): DrawnNode {
  return { x: a.x, y: a.y, size: a.size, color: a.color, label: a.label || null, hidden: false, highlighted: false, forceLabel: false, type: 'circle', zIndex: 0 };
}

function drawnEdge(a: EdgeAttributes): DrawnEdge {
  return { size: a.size, color: a.color, label: '', hidden: false, forceLabel: false, type: 'line', zIndex: 0 };
}

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
  readonly sigma: Sigma<DrawnNode, DrawnEdge>;
  /**
   * What sigma draws: the model's nodes (positions copied from the layout at each of its steps)
   * and, once the layout has settled, its edges. Edges in sigma's graph are processed at every
   * frame even when hidden; leaving them out while nodes move keeps frames short.
   */
  readonly display = new Graph<DrawnNode, DrawnEdge>({ type: 'undirected', multi: true });
  private readonly hiddenTiers = new Set<string>();
  private readonly hiddenCategories = new Set<string>();
  /** Highlighted memories (a search or a focus); null: none, everything drawn normally. */
  private highlighted: Set<string> | null = null;
  private hovered: string | null = null;
  private layout: LayoutRunner | null = null;
  /** Edges and labels wait until the layout has settled (each frame stays short meanwhile). */
  private settling: boolean;
  private layoutTimer: number | null = null;
  /** Edges being added to the display, a batch per frame. */
  private drawing = false;
  /** Cancels frames and timers still to come. */
  private readonly pending = new Set<() => void>();
  private searchTimer: number | null = null;
  /** When the first frame was drawn (performance.now()). */
  firstFrameAt: number | null = null;
  /** When the last edges and labels were handed to sigma after the layout (performance.now()). */
  settledAt: number | null = null;
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
    model.graph.forEachNode((id, a) => this.display.addNode(id, drawnNode(a)));
    if (!this.settling) this.addEdges();
    this.sigma = new Sigma(this.display, this.stage, {
      allowInvalidContainer: true,
      renderEdgeLabels: false,
      // labels are left out (null) while the layout moves the nodes: sigma would place them all in its label grid at every step
      renderLabels: true,
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
    // sigma drew the nodes while it was built; the browser shows them at the next frame
    this.afterFrame(() => (this.firstFrameAt ??= performance.now()), false);
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
      this.display.addNode(key, drawnNode(g.getNodeAttributes(key)));
      this.renderLegend();
    });
    on('nodeDropped', ({ key }) => {
      if (this.display.hasNode(key)) this.display.dropNode(key);
      this.renderLegend();
    });
    on('nodeAttributesUpdated', ({ key }) => {
      if (this.display.hasNode(key)) this.display.replaceNodeAttributes(key, drawnNode(g.getNodeAttributes(key)));
      this.renderLegend();
    });
    on('edgeAdded', ({ key, source, target }) => {
      if (!this.settling && !this.display.hasEdge(key)) this.display.addEdgeWithKey(key, source!, target!, drawnEdge(g.getEdgeAttributes(key)));
    });
    on('edgeDropped', ({ key }) => {
      if (this.display.hasEdge(key)) this.display.dropEdge(key);
    });
    // The layout moved every node: sigma reads positions from the graph's attributes when it
    // processes it, so a step copies them and asks for processing, with no per-node update.
    const moved = () => {
      g.forEachNode((id, a) => {
        const drawn = this.display.getNodeAttributes(id);
        drawn.x = a.x;
        drawn.y = a.y;
      });
      this.sigma.scheduleRefresh({ partialGraph: { nodes: [] } });
    };
    g.on('eachNodeAttributesUpdated', moved);
    this.cleanups.push(() => g.off('eachNodeAttributesUpdated', moved));
  }

  private addEdges(): void {
    this.model.graph.forEachEdge((key, a, source, target) => {
      if (!this.display.hasEdge(key)) this.display.addEdgeWithKey(key, source, target, drawnEdge(a));
    });
  }

  private listen(target: EventTarget, type: string, fn: EventListener): void {
    target.addEventListener(type, fn);
    this.cleanups.push(() => target.removeEventListener(type, fn));
  }

  /** Whether the tier and category filters let a memory through. */
  private visible(id: string): boolean {
    if (this.hiddenTiers.size === 0 && this.hiddenCategories.size === 0) return true;
    const a = this.model.graph.getNodeAttributes(id);
    return !this.hiddenTiers.has(a.tier) && !this.hiddenCategories.has(a.category);
  }

  /**
   * How a node is drawn (`data` is sigma's own copy): unlabelled while the layout runs; hidden by
   * the filters; a highlighted one (a search match, or the focused note's neighbourhood) larger,
   * outlined and labelled. Only highlighted nodes change look, so a search or a focus redraws
   * those nodes, not all 10,000.
   */
  private nodeLook(id: string, data: DrawnNode): DrawnNode {
    if (this.settling) data.label = null;
    if (!this.visible(id)) data.hidden = true;
    else if (this.highlighted?.has(id)) {
      data.size *= 2;
      data.highlighted = true;
      data.forceLabel = this.highlighted.size <= 50;
    }
    return data;
  }

  /** Highlight another set of nodes, redrawing only those whose look changes. */
  private setHighlighted(next: Set<string> | null): void {
    const changed = new Set<string>([...(this.highlighted ?? []), ...(next ?? [])]);
    this.highlighted = next;
    const nodes = [...changed].filter((id) => this.display.hasNode(id));
    if (nodes.length > 0) this.sigma.refresh({ partialGraph: { nodes }, schedule: true });
  }

  private edgeLook(id: string, data: DrawnEdge): DrawnEdge {
    if (this.settling) data.hidden = true;
    else if (this.hiddenTiers.size > 0 || this.hiddenCategories.size > 0) {
      const [s, t] = this.display.extremities(id);
      data.hidden = !this.visible(s) || !this.visible(t);
    }
    return data;
  }

  /**
   * Start the layout once the first frame (the nodes on their spiral) is on screen: the model's
   * edges, which the layout pulls along, are added then.
   */
  start(): void {
    this.killLayout();
    this.status.setText('Laying out…');
    const link = () => {
      if (!this.model.link(LINK_SLICE)) return this.soon(link);
      if (this.settling && this.options.layout) {
        this.layout = this.options.layout(this.model.graph);
        this.layoutTimer = window.setTimeout(() => this.stopLayout(), this.options.layoutMs ?? 10_000);
      } else {
        this.status.setText('');
      }
    };
    this.afterFrame(link);
  }

  /** Run `fn` in a task of its own, soon; cancelled by `destroy`. */
  private soon(fn: () => void): void {
    const timer = window.setTimeout(() => {
      this.pending.delete(cancel);
      fn();
    }, 0);
    const cancel = () => window.clearTimeout(timer);
    this.pending.add(cancel);
  }

  /**
   * Run `fn` after the next frame (`yieldFirst`: in a task of its own after it, so the frame is
   * painted first); cancelled by `destroy`.
   */
  private afterFrame(fn: () => void, yieldFirst = true): void {
    const frame = window.requestAnimationFrame(() => {
      this.pending.delete(cancelFrame);
      if (yieldFirst) this.soon(fn);
      else fn();
    });
    const cancelFrame = () => window.cancelAnimationFrame(frame);
    this.pending.add(cancelFrame);
  }

  private killLayout(): void {
    if (this.layoutTimer !== null) window.clearTimeout(this.layoutTimer);
    this.layoutTimer = null;
    if (!this.layout) return;
    this.layout.stop();
    this.layout.kill();
    this.layout = null;
  }

  /**
   * Stop the layout; the edges are drawn from now on, added a batch per frame (each frame
   * processes what is drawn: all 13,000 edges of 10,000 memories at once took one 400-600 ms
   * task), then the labels.
   */
  stopLayout(): void {
    this.killLayout();
    if (!this.settling) return;
    this.settling = false;
    this.drawing = true;
    this.status.setText('Drawing links…');
    const graph = this.model.graph;
    const edges = graph.edges();
    let next = 0;
    const batch = () => {
      for (const end = Math.min(edges.length, next + EDGE_BATCH); next < end; next++) {
        const key = edges[next]!;
        if (graph.hasEdge(key) && !this.display.hasEdge(key)) this.display.addEdgeWithKey(key, graph.source(key), graph.target(key), drawnEdge(graph.getEdgeAttributes(key)));
      }
      if (next < edges.length) return this.afterFrame(batch);
      this.label(this.display.nodes(), 0);
    };
    batch();
  }

  /** The labels, a batch of nodes per frame: each node through nodeLook again (not the edges). */
  private label(nodes: string[], from: number): void {
    const batch = nodes.slice(from, from + LABEL_BATCH).filter((id) => this.display.hasNode(id));
    if (batch.length > 0) this.sigma.refresh({ partialGraph: { nodes: batch }, schedule: true });
    if (from + LABEL_BATCH < nodes.length) return this.afterFrame(() => this.label(nodes, from + LABEL_BATCH));
    this.settledAt = performance.now();
    this.drawing = false;
    this.status.setText('');
  }

  /** Whether edges and labels are drawn (the layout has settled). */
  get settled(): boolean {
    return !this.settling && !this.drawing;
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
    this.killLayout();
    for (const cancel of this.pending) cancel();
    this.pending.clear();
    if (this.searchTimer !== null) window.clearTimeout(this.searchTimer);
    for (const fn of this.cleanups.splice(0)) fn();
    this.sigma.kill();
    this.root.remove();
  }
}

function nextTier(tier: Tier): string {
  return GRAPH_TIERS[Math.min(GRAPH_TIERS.length - 1, GRAPH_TIERS.indexOf(tier) + 1)]!;
}
