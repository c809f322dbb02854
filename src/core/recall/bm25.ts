/**
 * Okapi BM25 with the BM25+ lower bound (Lv & Zhai 2011): each matching term adds at least
 * `delta`, so long documents are not pushed below short ones that miss the term.
 *   score(d, q) = Σ_t idf(t) · (tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl)) + delta)
 *   idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
 * Documents are term lists (already analysed); the index is incremental (add, remove).
 */
export interface Bm25Params {
  k1: number;
  b: number;
  delta: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75, delta: 0.5 };

interface Posting {
  doc: number;
  tf: number;
}

export class Bm25Index {
  private readonly docIds: string[] = [];
  private readonly docIndex = new Map<string, number>();
  private readonly lengths: number[] = [];
  private readonly alive: boolean[] = [];
  private readonly postings = new Map<string, Posting[]>();
  private totalLength = 0;
  private count = 0;

  constructor(private readonly params: Bm25Params = DEFAULT_BM25) {}

  get size(): number {
    return this.count;
  }

  has(id: string): boolean {
    return this.docIndex.has(id);
  }

  add(id: string, terms: string[]): void {
    if (this.docIndex.has(id)) this.remove(id);
    const doc = this.docIds.length;
    this.docIds.push(id);
    this.docIndex.set(id, doc);
    this.lengths.push(terms.length);
    this.alive.push(true);
    this.totalLength += terms.length;
    this.count++;
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    for (const [term, n] of tf) {
      const list = this.postings.get(term);
      if (list) list.push({ doc, tf: n });
      else this.postings.set(term, [{ doc, tf: n }]);
    }
  }

  remove(id: string): void {
    const doc = this.docIndex.get(id);
    if (doc === undefined) return;
    this.docIndex.delete(id);
    this.alive[doc] = false;
    this.totalLength -= this.lengths[doc]!;
    this.count--;
    // Postings of a removed document are skipped at search time (alive[]), and dropped
    // when the index is rebuilt.
  }

  /** Document frequency of a term among live documents (approximate after removals). */
  df(term: string): number {
    return this.postings.get(term)?.length ?? 0;
  }

  /**
   * Scores of every document matching at least one query term, filtered by `accept`.
   * Query terms may repeat (a repeated term counts again) or carry weights.
   */
  scores(query: Map<string, number>, accept?: (id: string) => boolean): Map<string, number> {
    const { k1, b, delta } = this.params;
    const n = Math.max(1, this.count);
    const avgdl = this.totalLength / n || 1;
    const acc = new Map<number, number>();
    for (const [term, weight] of query) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        if (!this.alive[doc]) continue;
        const norm = tf + k1 * (1 - b + (b * this.lengths[doc]!) / avgdl);
        acc.set(doc, (acc.get(doc) ?? 0) + weight * idf * ((tf * (k1 + 1)) / norm + delta));
      }
    }
    const out = new Map<string, number>();
    for (const [doc, score] of acc) {
      const id = this.docIds[doc]!;
      if (!accept || accept(id)) out.set(id, score);
    }
    return out;
  }
}

/** The k best entries of a score map, ties broken by id for determinism. */
export function topK(scores: Map<string, number>, k: number): Array<[string, number]> {
  return [...scores].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, k);
}
