import Graph from 'graphology';
import type { RecallDoc } from '../../core/recall/catalog';
import type { EngramSettings, Tier } from '../../core/settings';
import type { IndexChange } from '../memory-index';
import { edgeKey, EDGE_KINDS, GRAPH_TIERS, graphEdges, graphNode, tierCounts, type GraphEdgeKind, type GraphNode } from './graph-model';

/** A node's attributes in the graphology graph (sigma reads x, y, size, color, label). */
export interface NodeAttributes extends GraphNode {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  /** Lower-cased label and id, for search. */
  haystack: string;
}

export interface EdgeAttributes {
  kind: GraphEdgeKind;
  weight: number;
  size: number;
  color: string;
}

/** Colours as `#rrggbb`: tiers, edge kinds, and the background they fade into. */
export type Palette = Record<Tier | GraphEdgeKind | 'background', string>;

/**
 * The memory graph as data: a graphology graph of every memory (archive included) and its
 * links, with the attributes sigma draws, kept current from the index's changes (a note
 * created, deleted, moved or edited changes its node and edges, nothing else). Knows nothing
 * of the DOM: the view renders it, the tests read it.
 */
export class MemoryGraph {
  readonly graph = new Graph<NodeAttributes, EdgeAttributes>({ type: 'undirected', multi: true });
  private conflicts: Array<[string, string]> = [];
  /** The documents whose edges `link` adds (null: linked). */
  private unlinked: Map<string, RecallDoc> | null = null;

  constructor(
    private palette: Palette,
    /** The label of a memory: its title (first `aliases` entry) or first words. */
    private readonly labelOf: (doc: RecallDoc) => string,
    private readonly settings: () => EngramSettings,
    private readonly now: () => number,
  ) {}

  /** Build from every document (and the open conflicts), laying new nodes out on a spiral by tier. */
  setDocs(docs: RecallDoc[], conflicts: Array<[string, string]> = []): void {
    this.setNodes(docs, conflicts);
    this.link();
  }

  /**
   * The nodes alone, on a spiral by tier: what the first frame draws (edges are not drawn while
   * the layout moves the nodes). `link` adds the edges afterwards.
   */
  setNodes(docs: RecallDoc[], conflicts: Array<[string, string]> = []): void {
    this.graph.clear();
    this.conflicts = conflicts;
    this.unlinked = new Map(docs.map((d) => [d.id, d]));
    const now = this.now();
    const settings = this.settings();
    const rank = new Map<string, number>(GRAPH_TIERS.map((t, i) => [t, i]));
    const nodes = docs.map((doc) => ({ doc, node: graphNode(doc, now, settings) }));
    nodes.sort((a, b) => rank.get(a.node.tier)! - rank.get(b.node.tier)! || (a.node.id < b.node.id ? -1 : 1));
    const golden = Math.PI * (3 - Math.sqrt(5));
    nodes.forEach(({ doc, node }, i) => {
      const r = 10 * Math.sqrt(i + 1);
      this.graph.addNode(node.id, this.attributes(doc, node, r * Math.cos(i * golden), r * Math.sin(i * golden)));
    });
  }

  /** Whether the edges of `setNodes` are still to be added. */
  get linked(): boolean {
    return this.unlinked === null;
  }

  /**
   * Add the edges among the nodes of `setNodes` (the documents as changed since), those of at
   * most `limit` documents at a time (a view adds them in slices, one task each); true when all
   * are in.
   */
  link(limit = Infinity): boolean {
    const docs = this.unlinked;
    if (!docs) return true;
    const present = (id: string) => this.graph.hasNode(id);
    let count = 0;
    for (const [id, doc] of docs) {
      if (count++ >= limit) return false;
      docs.delete(id);
      for (const edge of graphEdges([doc], present, [])) this.addEdge(edge.source, edge.target, edge.kind, edge.weight);
    }
    this.unlinked = null;
    for (const edge of graphEdges([], present, this.conflicts)) this.addEdge(edge.source, edge.target, edge.kind, edge.weight);
    return true;
  }

  private attributes(doc: RecallDoc, node: GraphNode, x: number, y: number): NodeAttributes {
    const label = this.labelOf(doc);
    return {
      ...node,
      x,
      y,
      size: 2 + 4 * Math.sqrt(Math.max(0, Math.min(1, node.strength))),
      color: faded(this.palette[node.tier], this.palette.background, 0.35 + 0.65 * node.strength),
      label,
      haystack: `${label} ${node.id}`.toLowerCase(),
    };
  }

  /** An edge, once per kind and pair (co-access counted both ways keeps the larger count). */
  private addEdge(source: string, target: string, kind: GraphEdgeKind, weight: number): void {
    const key = edgeKey(kind, source, target);
    if (this.graph.hasEdge(key)) {
      if (this.graph.getEdgeAttribute(key, 'weight') < weight) this.graph.mergeEdgeAttributes(key, { weight, size: edgeSize(kind, weight) });
      return;
    }
    this.graph.addEdgeWithKey(key, source, target, { kind, weight, size: edgeSize(kind, weight), color: faded(this.palette[kind], this.palette.background, 0.5) });
  }

  /** Apply the index's changes: nodes added, removed, moved or changed, with their edges. */
  apply(changes: IndexChange[], lookup: (id: string) => RecallDoc | undefined): void {
    const now = this.now();
    const settings = this.settings();
    for (const { id, after } of changes) {
      if (after) this.unlinked?.set(id, after);
      else this.unlinked?.delete(id);
      if (!after) {
        if (this.graph.hasNode(id)) this.graph.dropNode(id);
        continue;
      }
      const node = graphNode(after, now, settings);
      if (this.graph.hasNode(id)) {
        const { x, y } = this.graph.getNodeAttributes(id);
        this.graph.replaceNodeAttributes(id, this.attributes(after, node, x, y));
        for (const edge of this.graph.edges(id)) {
          if (this.graph.getEdgeAttribute(edge, 'kind') !== 'contradicts') this.graph.dropEdge(edge);
        }
      } else {
        // a new memory appears beside what it links to, or near the centre
        const near = [...after.links.map((l) => l.target), ...Object.keys(after.co_access)].find((other) => this.graph.hasNode(other));
        const base = near ? this.graph.getNodeAttributes(near) : { x: 0, y: 0 };
        this.graph.addNode(id, this.attributes(after, node, base.x + jitter(id), base.y + jitter(`${id}y`)));
      }
      // its own links and co-access, and those of others pointing at it
      const related = new Map<string, RecallDoc>([[id, after]]);
      for (const other of this.graph.nodes()) {
        const doc = other === id ? after : lookup(other);
        if (doc && (doc.links.some((l) => l.target === id) || (doc.co_access[id] ?? 0) > 0)) related.set(other, doc);
      }
      for (const edge of graphEdges(related.values(), (n) => this.graph.hasNode(n), [])) {
        if (edge.source === id || edge.target === id) this.addEdge(edge.source, edge.target, edge.kind, edge.weight);
      }
    }
  }

  /** The node ids whose label or id contains every word of `query`. */
  search(query: string): string[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    const out: string[] = [];
    this.graph.forEachNode((id, a) => {
      if (words.every((w) => a.haystack.includes(w))) out.push(id);
    });
    return out;
  }

  /** A memory and the memories within `hops` links of it. */
  neighbourhood(id: string, hops = 1): Set<string> {
    const seen = new Set<string>();
    if (!this.graph.hasNode(id)) return seen;
    let frontier = [id];
    seen.add(id);
    for (let h = 0; h < hops; h++) {
      const next: string[] = [];
      for (const n of frontier) {
        this.graph.forEachNeighbor(n, (m) => {
          if (!seen.has(m)) {
            seen.add(m);
            next.push(m);
          }
        });
      }
      frontier = next;
    }
    return seen;
  }

  counts(): Record<Tier, number> {
    const nodes: Array<{ tier: Tier }> = [];
    this.graph.forEachNode((_, a) => nodes.push(a));
    return tierCounts(nodes);
  }

  /** New colours (the theme changed): every node and edge recoloured. */
  setPalette(palette: Palette): void {
    this.palette = palette;
    this.graph.updateEachNodeAttributes((_, a) => ({ ...a, color: faded(palette[a.tier], palette.background, 0.35 + 0.65 * a.strength) }));
    this.graph.updateEachEdgeAttributes((_, a) => ({ ...a, color: faded(palette[a.kind], palette.background, 0.5) }));
  }

  get conflictPairs(): Array<[string, string]> {
    return this.conflicts;
  }
}

export const EDGE_KIND_LIST = EDGE_KINDS;

function edgeSize(kind: GraphEdgeKind, weight: number): number {
  return kind === 'co_access' ? 0.5 + Math.min(4, weight) / 2 : 0.75;
}

/** A small deterministic offset from a string (new nodes do not all land on one point). */
function jitter(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return ((h % 1000) / 1000) * 20;
}

/**
 * A colour faded towards the background by `amount` (1: the colour, 0: the background), as an
 * opaque `#rrggbb`: what drawing it with that opacity over the view's background looks like.
 * Decay shows as fading; opaque colours also keep WebGL blending out of it.
 */
export function faded(colour: string, background: string, amount: number): string {
  const a = Math.max(0, Math.min(1, amount));
  const c = rgbOf(colour);
  const b = rgbOf(background);
  if (!c || !b) return colour;
  let out = '#';
  for (let i = 0; i < 3; i++) out += HEX[Math.round(c[i]! * a + b[i]! * (1 - a))];
  return out;
}

const HEX = Array.from({ length: 256 }, (_, v) => v.toString(16).padStart(2, '0'));
/** Parsed colours (a palette has a dozen; 10,000 nodes are coloured from them). */
const parsed = new Map<string, [number, number, number] | null>();

function rgbOf(colour: string): [number, number, number] | null {
  let rgb = parsed.get(colour);
  if (rgb === undefined) {
    if (parsed.size > 256) parsed.clear();
    parsed.set(colour, (rgb = parseRgb(colour)));
  }
  return rgb;
}

function parseRgb(colour: string): [number, number, number] | null {
  const hex = /^#([0-9a-f]{6})$/i.exec(colour.trim())?.[1];
  if (hex) return [parseInt(hex.slice(0, 2), 16), parseInt(hex.slice(2, 4), 16), parseInt(hex.slice(4, 6), 16)];
  const rgb = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)/i.exec(colour.trim());
  return rgb ? [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] : null;
}
