import type { DocTable } from './doc-table';

/**
 * The association graph recall spreads activation over (SPEC §7): `related` links, Hebbian
 * `co_access` and `decays_from` (an episode and the pattern it became), followed in both
 * directions; never `supersedes` or `contradicts`.
 *
 * Raw edge weights:
 * - related: 0.75 towards the later memory, 0.25 towards the earlier one (0.5 when they
 *   share a time). Within an episode what follows a memory is what it led to: an answer
 *   follows its question, an outcome its cause.
 * - co_access: n / (n + 2) for n co-accesses: Hebbian strength that saturates.
 * - decays_from: 0.5 both ways.
 * Fan normalisation: a node's outgoing weights are divided by their sum when it exceeds 1,
 * so a hub passes on no more than a memory with two links does.
 *
 * Edges are derived on demand from the document table (plus a reverse index of links), so
 * opening costs one pass over the links and a query touches only the seeds' neighbourhood.
 */
export type EdgeKind = 'related' | 'co_access' | 'decays_from';

export interface Edge {
  target: number;
  weight: number;
  kinds: EdgeKind[];
}

export const EDGE_WEIGHTS = { later: 0.75, earlier: 0.25, simultaneous: 0.5, decaysFrom: 0.5, coAccessHalf: 2 } as const;

export function coAccessWeight(count: number): number {
  return count / (count + EDGE_WEIGHTS.coAccessHalf);
}

function relatedWeight(fromMs: number, toMs: number): number {
  return toMs > fromMs ? EDGE_WEIGHTS.later : toMs < fromMs ? EDGE_WEIGHTS.earlier : EDGE_WEIGHTS.simultaneous;
}

/** Reverse links: sources linking to each document (CSR). */
interface ReverseLinks {
  inOffsets: Int32Array;
  inSources: Int32Array;
  inKinds: Uint8Array;
  /** The counting scratch, kept for the next build (`rebuilt`). */
  counts: Int32Array;
}

export class AssociationIndex {
  private readonly inOffsets: Int32Array;
  private readonly inSources: Int32Array;
  private readonly inKinds: Uint8Array;
  private readonly counts: Int32Array;
  private readonly cache = new Map<number, Edge[]>();

  constructor(
    private readonly table: DocTable,
    reverse: ReverseLinks = runSteps(reverseLinkSteps(table)),
  ) {
    this.inOffsets = reverse.inOffsets;
    this.inSources = reverse.inSources;
    this.inKinds = reverse.inKinds;
    this.counts = reverse.counts;
  }

  /**
   * The index over the table's links as they are now (rows changed in place: live-index.ts),
   * in this one's offsets and scratch where they fit: this one is not used after. Two arrays of
   * a row each, fresh, are 200 page faults at 100k rows (3-4 ms here).
   */
  rebuilt(table: DocTable): AssociationIndex {
    return new AssociationIndex(table, runSteps(reverseLinkSteps(table, { counts: this.counts, inOffsets: this.inOffsets })));
  }

  /** The same index with its reverse links made in slices (reverseLinkSteps: `tick` after each step). */
  static async inSlices(table: DocTable, tick: () => Promise<void>): Promise<AssociationIndex> {
    const steps = reverseLinkSteps(table);
    for (;;) {
      const step = steps.next();
      if (step.done) return new AssociationIndex(table, step.value);
      await tick();
    }
  }

  /** Forget the edges worked out so far (the table's rows changed in place). */
  clearCache(): void {
    this.cache.clear();
  }

  /** Fan-normalised outgoing edges of a document. */
  edges(node: number): Edge[] {
    const cached = this.cache.get(node);
    if (cached) return cached;
    const t = this.table;
    const byTarget = new Map<number, Edge>();
    const add = (target: number, weight: number, kind: EdgeKind) => {
      if (target === node) return;
      const edge = byTarget.get(target);
      if (!edge) byTarget.set(target, { target, weight, kinds: [kind] });
      else if (!edge.kinds.includes(kind)) {
        edge.weight += weight;
        edge.kinds.push(kind);
      }
    };
    const linked = (other: number, kindCode: number) => {
      if (kindCode === 2) return; // contradicts: never an association (it orders the two sides, recall.ts)
      if (kindCode === 0) add(other, relatedWeight(t.createdMs[node]!, t.createdMs[other]!), 'related');
      else add(other, EDGE_WEIGHTS.decaysFrom, 'decays_from');
    };
    for (let k = t.linkOffsets[node]!; k < t.linkOffsets[node + 1]!; k++) linked(t.linkTargets[k]!, t.linkKinds[k]!);
    for (let k = this.inOffsets[node]!; k < this.inOffsets[node + 1]!; k++) linked(this.inSources[k]!, this.inKinds[k]!);
    for (let k = t.coOffsets[node]!; k < t.coOffsets[node + 1]!; k++) add(t.coTargets[k]!, coAccessWeight(t.coCounts[k]!), 'co_access');
    const edges = [...byTarget.values()];
    const total = edges.reduce((sum, e) => sum + e.weight, 0);
    if (total > 1) for (const edge of edges) edge.weight /= total;
    this.cache.set(node, edges);
    return edges;
  }
}

const LINKS_A_STEP = 1024;

/**
 * The reverse links of a table, yielding after each LINKS_A_STEP links counted, the sums, and each
 * LINKS_A_STEP links filled (a yield a document cost a cold recall at 10k ~3 % of its instructions:
 * 10,000 resumptions of the generator, without TurboFan).
 */
function* reverseLinkSteps(table: DocTable, reuse?: Pick<ReverseLinks, 'counts' | 'inOffsets'>): Generator<void, ReverseLinks> {
  const { n, linkOffsets, linkTargets, linkKinds } = table;
  // as long as the table's offsets (room for rows to come: doc-table.ts tableRows); past n all 0
  // (no reverse link), as an addition with no link leaves them until the next build
  const size = Math.max(n + 1, linkOffsets.length);
  const counts = reuse && reuse.counts.length === size ? reuse.counts.fill(0) : new Int32Array(size);
  for (let k = 0; k < linkTargets.length; k++) {
    counts[linkTargets[k]! + 1]!++;
    if (k % LINKS_A_STEP === LINKS_A_STEP - 1) yield;
  }
  yield;
  for (let i = 0; i < n; i++) counts[i + 1]! += counts[i]!;
  yield;
  const inOffsets = reuse && reuse.inOffsets.length === size ? reuse.inOffsets : new Int32Array(size);
  inOffsets.set(counts);
  const inSources = new Int32Array(linkTargets.length);
  const inKinds = new Uint8Array(linkTargets.length);
  const fill = counts;
  let unyielded = 0;
  for (let source = 0; source < n; source++) {
    for (let k = linkOffsets[source]!; k < linkOffsets[source + 1]!; k++) {
      const at = fill[linkTargets[k]!]!++;
      inSources[at] = source;
      inKinds[at] = linkKinds[k]!;
    }
    unyielded += linkOffsets[source + 1]! - linkOffsets[source]!;
    if (unyielded >= LINKS_A_STEP) {
      unyielded = 0;
      yield;
    }
  }
  return { inOffsets, inSources, inKinds, counts };
}

function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
