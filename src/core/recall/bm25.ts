/**
 * Okapi BM25 with the BM25+ lower bound (Lv & Zhai 2011): each matching term adds at least
 * `delta`, so long documents are not pushed below short ones that miss the term.
 *   score(d, q) = Σ_t w_t · idf(t) · (tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl)) + delta)
 *   idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
 * Documents are numbered 0..n−1 in the order they are added and hold analysed term lists.
 * Scoring accumulates into a reused typed array, so a query costs the length of its terms'
 * postings and allocates almost nothing.
 *
 * A long-lived index follows changed documents (live-index.ts): `remove` takes a document's
 * postings out and leaves its number empty, `put` indexes a document again under its number.
 * N, df and the total length count live documents only, so scores are exactly those of an
 * index built from the live documents alone (numbers keep their order, which is all that
 * ties look at).
 */
import { ShardedMap } from '../sharded-map';
import { reserveList } from './doc-table';

export interface Bm25Params {
  k1: number;
  b: number;
  delta: number;
}

interface PostingList {
  docs: number[] | Int32Array;
  tfs: number[] | Uint16Array;
}

/** The index in flat arrays (compressed sparse rows), for snapshots. */
export interface Bm25Arrays {
  terms: string[];
  offsets: Int32Array;
  docs: Int32Array;
  tfs: Uint16Array;
  lengths: Int32Array;
}

/** Documents touched by a query and their scores (valid until the next query). */
export interface Bm25Scores {
  docs: Int32Array;
  count: number;
  scores: Float64Array;
}

export class Bm25Index {
  private lengths: number[] | Int32Array = [];
  /**
   * Posting list of each term, sharded: the bench's 100k memories hold 105,218 terms, and a JS
   * Map doubling past 65,536 rehashes them all inside one `add` (~30 ms of one preload slice).
   */
  private readonly postings = new ShardedMap<PostingList>();
  /** Set for an index read from a snapshot: read-only. */
  private frozen: Bm25Arrays | null = null;
  private totalLength = 0;
  /** Documents not removed (N in idf and avgdl). */
  private live = 0;
  private acc = new Float64Array(0);
  private seen = new Uint8Array(0);
  private touched = new Int32Array(0);

  constructor(private readonly params: Bm25Params) {}

  /**
   * An index over flat arrays read back from a snapshot, terms sorted: a query term is found
   * by binary search, so opening does no work per document or per term.
   */
  static fromArrays(params: Bm25Params, arrays: Bm25Arrays): Bm25Index {
    const index = new Bm25Index(params);
    index.frozen = arrays;
    index.lengths = arrays.lengths;
    let total = 0;
    for (let i = 0; i < arrays.lengths.length; i++) total += arrays.lengths[i]!;
    index.totalLength = total;
    index.live = arrays.lengths.length;
    return index;
  }

  private list(term: string): PostingList | undefined {
    const frozen = this.frozen;
    if (!frozen) return this.postings.get(term);
    let lo = 0;
    let hi = frozen.terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = frozen.terms[mid]!;
      if (t === term) {
        const start = frozen.offsets[mid]!;
        const end = frozen.offsets[mid + 1]!;
        return { docs: frozen.docs.subarray(start, end), tfs: frozen.tfs.subarray(start, end) };
      }
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** The index as flat arrays, terms sorted (see fromArrays). */
  toArrays(): Bm25Arrays {
    if (this.frozen) return this.frozen;
    if (this.live !== this.lengths.length) throw new Error('an index with removed documents is not saved (build it again from the live ones)');
    const terms = [...this.postings.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const lists = terms.map((term) => this.postings.get(term)!);
    const offsets = new Int32Array(terms.length + 1);
    let total = 0;
    for (let t = 0; t < lists.length; t++) {
      offsets[t] = total;
      total += lists[t]!.docs.length;
    }
    offsets[terms.length] = total;
    const docs = new Int32Array(total);
    const tfs = new Uint16Array(total);
    for (let t = 0; t < lists.length; t++) {
      const list = lists[t]!;
      const at = offsets[t]!;
      docs.set(list.docs, at);
      for (let k = 0; k < list.tfs.length; k++) tfs[at + k] = Math.min(list.tfs[k]!, 65535);
    }
    return { terms, offsets, docs, tfs, lengths: Int32Array.from(this.lengths) };
  }

  /** Live documents. */
  get size(): number {
    return this.live;
  }

  /** Document numbers given out (live or removed): the next `add` returns this. */
  get slots(): number {
    return this.lengths.length;
  }

  /**
   * Room for `slots` documents made ahead (live-index.ts `reserve`), one array per step: the
   * lengths' store and the scratch a query scores into, so neither an addition nor the first
   * query after it copies an array of the whole index.
   */
  *reserve(slots: number): Generator<void> {
    if (this.frozen) return;
    reserveList(this.lengths as number[], slots);
    yield;
    if (this.acc.length >= slots) return;
    this.acc = new Float64Array(slots);
    yield;
    this.seen = new Uint8Array(slots);
    yield;
    this.touched = new Int32Array(slots);
    yield;
  }

  /**
   * Add a document; returns its number. `length` is what length normalisation counts (default:
   * every term); index terms that are not words (time terms) are left out of it.
   */
  add(terms: readonly string[], length = terms.length): number {
    return this.addLists([terms], length);
  }

  /**
   * Add a document whose terms are these lists one after the other (what `add` of their
   * concatenation does, without making it): a memory's words and facets, an episode's members.
   */
  addLists(lists: ReadonlyArray<readonly string[]>, length: number): number {
    if (this.frozen) throw new Error('a snapshot index is read-only');
    const lengths = this.lengths as number[];
    const doc = lengths.length;
    lengths.push(length);
    this.totalLength += length;
    this.live++;
    for (const terms of lists) {
      for (const term of terms) {
        let list = this.postings.get(term);
        if (!list) this.postings.set(term, (list = { docs: [], tfs: [] }));
        const docs = list.docs as number[];
        const tfs = list.tfs as number[];
        const last = docs.length - 1;
        if (last >= 0 && docs[last] === doc) tfs[last]!++;
        else {
          docs.push(doc);
          tfs.push(1);
        }
      }
    }
    return doc;
  }

  /**
   * Take document `doc` out of the index (`terms`: the terms it was added with): its postings
   * go, its number stays empty (length 0, in no posting list) until `put` fills it again.
   */
  remove(doc: number, terms: readonly string[]): void {
    if (this.frozen) throw new Error('a snapshot index is read-only');
    const lengths = this.lengths as number[];
    for (const term of new Set(terms)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const docs = list.docs as number[];
      const at = lowerBound(docs, doc);
      if (docs[at] !== doc) continue;
      if (docs.length === 1) {
        this.postings.delete(term);
        continue;
      }
      docs.splice(at, 1);
      (list.tfs as number[]).splice(at, 1);
    }
    this.totalLength -= lengths[doc]!;
    lengths[doc] = 0;
    this.live--;
  }

  /**
   * Index a document under an empty number (one `remove` left, or the next number): its
   * postings go in at their place in each list, as `add` in number order would have put them.
   */
  put(doc: number, terms: readonly string[], length = terms.length): void {
    if (this.frozen) throw new Error('a snapshot index is read-only');
    const lengths = this.lengths as number[];
    if (doc === lengths.length) {
      this.add(terms, length);
      return;
    }
    for (const [term, tf] of termCounts(terms)) this.insertPosting(term, doc, tf);
    lengths[doc] = length;
    this.totalLength += length;
    this.live++;
  }

  /** Document `doc`'s posting for `term`, at its place in the term's ascending list. */
  private insertPosting(term: string, doc: number, tf: number): void {
    let list = this.postings.get(term);
    if (!list) this.postings.set(term, (list = { docs: [], tfs: [] }));
    const docs = list.docs as number[];
    const at = lowerBound(docs, doc);
    docs.splice(at, 0, doc);
    (list.tfs as number[]).splice(at, 0, tf);
  }

  /**
   * Index document `doc` again, from the terms it was indexed with (`before`) to `after`: what
   * `remove` then `put` give, touching only the terms whose count changes (an edit of one memory
   * changes a few of its episode's hundreds of terms; a common word's list holds most documents).
   */
  update(doc: number, before: readonly string[], after: readonly string[], length = after.length): void {
    if (this.frozen) throw new Error('a snapshot index is read-only');
    const lengths = this.lengths as number[];
    const was = termCounts(before);
    const now = termCounts(after);
    for (const [term, tf] of was) {
      if (now.get(term) === tf) continue;
      const list = this.postings.get(term);
      if (!list) continue;
      const docs = list.docs as number[];
      const at = lowerBound(docs, doc);
      if (docs[at] !== doc) continue;
      const next = now.get(term);
      if (next !== undefined) (list.tfs as number[])[at] = next;
      else if (docs.length === 1) this.postings.delete(term);
      else {
        docs.splice(at, 1);
        (list.tfs as number[]).splice(at, 1);
      }
    }
    for (const [term, tf] of now) if (!was.has(term)) this.insertPosting(term, doc, tf);
    this.totalLength += length - lengths[doc]!;
    lengths[doc] = length;
  }

  df(term: string): number {
    return this.list(term)?.docs.length ?? 0;
  }

  /**
   * Score every document that holds a query term (term → query weight). A `qualifier` term
   * (a facet such as "names a time") adds to a document only when the document holds another
   * query term: it orders matches, it never makes one.
   */
  score(query: Map<string, number>, qualifiers?: ReadonlySet<string>): Bm25Scores {
    const n = this.live;
    const slots = this.lengths.length;
    // grown by half at once (or to the room reserved): one addition at a time does not copy them each query
    if (this.acc.length < slots) this.acc = new Float64Array(Math.max(slots, Math.ceil(this.acc.length * 1.5)));
    if (this.seen.length < slots) this.seen = new Uint8Array(this.acc.length);
    if (this.touched.length < slots) this.touched = new Int32Array(this.acc.length);
    const { k1, b, delta } = this.params;
    const avgdl = this.totalLength / Math.max(1, n) || 1;
    const acc = this.acc;
    const seen = this.seen;
    const touched = this.touched;
    let count = 0;
    // two passes: the words first, then the qualifiers over the documents the words found
    for (const qualifier of qualifiers ? [false, true] : [false]) for (const [term, weight] of query) {
      if ((qualifiers?.has(term) ?? false) !== qualifier) continue;
      const list = this.list(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.docs.length + 0.5) / (list.docs.length + 0.5));
      const { docs, tfs } = list;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        if (qualifier && seen[doc] === 0) continue;
        const tf = tfs[i]!;
        const norm = tf + k1 * (1 - b + (b * this.lengths[doc]!) / avgdl);
        if (seen[doc] === 0) {
          seen[doc] = 1;
          acc[doc] = 0;
          touched[count++] = doc;
        }
        acc[doc]! += weight * idf * ((tf * (k1 + 1)) / norm + delta);
      }
    }
    for (let i = 0; i < count; i++) seen[touched[i]!] = 0;
    return { docs: touched, count, scores: acc };
  }
}

function termCounts(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** The first position in an ascending list holding a value >= x. */
function lowerBound(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The k best of `count` candidates by score (ties: lower number first), keeping only those
 * `accept` allows. A bounded min-heap: O(count · log k).
 */
export function topDocs(docs: Int32Array | number[], count: number, score: (doc: number) => number, k: number, accept?: (doc: number) => boolean): Array<[number, number]> {
  if (k <= 0) return [];
  const heap: Array<[number, number]> = [];
  const worse = (a: [number, number], b: [number, number]) => a[1] < b[1] || (a[1] === b[1] && a[0] > b[0]);
  for (let i = 0; i < count; i++) {
    const doc = docs[i]!;
    const s = score(doc);
    // a full heap takes a candidate only when its worst is worse (worse(heap[0], [doc, s]),
    // without a pair made for each of thousands of candidates turned away)
    if (heap.length === k && !(heap[0]![1] < s || (heap[0]![1] === s && heap[0]![0] > doc))) continue;
    if (accept && !accept(doc)) continue;
    if (heap.length < k) {
      heap.push([doc, s]);
      let j = heap.length - 1;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (!worse(heap[j]!, heap[p]!)) break;
        [heap[j], heap[p]] = [heap[p]!, heap[j]!];
        j = p;
      }
    } else {
      heap[0] = [doc, s];
      let j = 0;
      for (;;) {
        const l = 2 * j + 1;
        const r = l + 1;
        let m = j;
        if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
        if (m === j) break;
        [heap[j], heap[m]] = [heap[m]!, heap[j]!];
        j = m;
      }
    }
  }
  return heap.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
}

/**
 * The flat arrays an index of documents added in one go has (Bm25Index.toArrays), made without
 * the index: each term numbered once, each (term, document, tf) kept in three typed arrays in
 * the order added, then placed by a counting sort into the terms' sorted order. A first recall
 * at 10k built two indexes' posting lists (~30,000 pairs of growing arrays) only to copy them
 * into these arrays for the snapshot. `addLists` numbers documents as Bm25Index's does.
 */
export class Bm25ArraysBuilder {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  /** Per term: the last document it was seen in, and the entry that holds its tf there. */
  private lastDoc = new Int32Array(1024);
  private lastEntry = new Int32Array(1024);
  private entryTerm: Int32Array<ArrayBuffer>;
  private entryDoc: Int32Array<ArrayBuffer>;
  private entryTf: Int32Array<ArrayBuffer>;
  private entries = 0;
  private readonly lengths: number[] = [];
  /** Set by toArrays when a tf did not fit in 16 bits (toArrays keeps 65,535 of it, as the snapshot does). */
  clamped = false;

  /**
   * `room`: the (term, document) entries to make room for at once, when the caller knows a bound
   * (the terms it will add): the arrays then never grow, where doubling from 4,096 to the
   * 250,000 entries of a 10k first recall copied them seven times into fresh memory.
   */
  constructor(room = 4096) {
    const size = Math.max(1, room);
    this.entryTerm = new Int32Array(size);
    this.entryDoc = new Int32Array(size);
    this.entryTf = new Int32Array(size);
  }

  /** Where each document's entries start (document d's are [starts[d], starts[d + 1]), the last one's run to `entries`). */
  private readonly starts: number[] = [];

  /** What Bm25Index.addLists does: a document whose terms are these lists one after the other; returns its number. */
  addLists(lists: ReadonlyArray<readonly string[]>, length: number): number {
    const doc = this.lengths.length;
    this.lengths.push(length);
    this.starts.push(this.entries);
    // indexed loops over locals: a first recall runs this once a document, the first thousand of
    // them before it is optimised, where each for-of step and each field read costs a call
    for (let l = 0; l < lists.length; l++) this.addTerms(lists[l]!, doc);
    return doc;
  }

  private addTerms(terms: readonly string[], doc: number): void {
    const ids = this.ids;
    let lastDoc = this.lastDoc;
    let lastEntry = this.lastEntry;
    for (let k = 0; k < terms.length; k++) {
      const term = terms[k]!;
      let id = ids.get(term);
      if (id === undefined) {
        id = this.names.length;
        ids.set(term, id);
        this.names.push(term);
        if (id === lastDoc.length) {
          lastDoc = this.lastDoc = grown(lastDoc);
          lastEntry = this.lastEntry = grown(lastEntry);
        }
        lastDoc[id] = -1;
      }
      if (lastDoc[id] === doc) this.entryTf[lastEntry[id]!]!++;
      else {
        const e = this.entries++;
        if (e === this.entryTerm.length) {
          this.entryTerm = grown(this.entryTerm);
          this.entryDoc = grown(this.entryDoc);
          this.entryTf = grown(this.entryTf);
        }
        lastDoc[id] = doc;
        lastEntry[id] = e;
        this.entryTerm[e] = id;
        this.entryDoc[e] = doc;
        this.entryTf[e] = 1;
      }
    }
  }

  /**
   * A builder whose documents are groups of this one's (an episode: its members), in the order
   * given, with these lengths: what addLists of each group's members' lists one after the other
   * gives (a term's tf in a group is the sum of its tfs in the members), read from this
   * builder's entries (terms numbered already, tfs counted) instead of hashing every term of
   * every member again. A first recall at 10k gave its 250,000 terms to each index.
   */
  grouped(groups: ReadonlyArray<readonly number[]>, lengths: readonly number[]): Bm25ArraysBuilder {
    // locals, not fields, in the loops: run once in a first recall, over its 250,000 entries,
    // mostly before it is optimised (a field read or an end(member) call per entry: ~20 ms at 10k)
    const { starts, entries, entryTerm, entryTf, names } = this;
    const count = starts.length;
    const endOf = (d: number) => (d + 1 < count ? starts[d + 1]! : entries);
    let room = 0;
    for (const group of groups) for (const member of group) room += endOf(member) - starts[member]!;
    const out = new Bm25ArraysBuilder(room);
    // this builder's term number -> out's (-1: not met yet); out's per-term state sized for every term
    const idOf = new Int32Array(names.length).fill(-1);
    const lastDoc = new Int32Array(Math.max(1024, names.length));
    const lastEntry = new Int32Array(lastDoc.length);
    const { entryTerm: outTerm, entryDoc: outDoc, entryTf: outTf } = out;
    let at = 0;
    for (let g = 0; g < groups.length; g++) {
      out.lengths.push(lengths[g]!);
      out.starts.push(at);
      const group = groups[g]!;
      for (let m = 0; m < group.length; m++) {
        const member = group[m]!;
        const end = endOf(member);
        for (let e = starts[member]!; e < end; e++) {
          const term = entryTerm[e]!;
          let id = idOf[term]!;
          if (id < 0) {
            id = out.names.length;
            idOf[term] = id;
            out.ids.set(names[term]!, id);
            out.names.push(names[term]!);
            lastDoc[id] = -1;
          }
          if (lastDoc[id] === g) outTf[lastEntry[id]!]! += entryTf[e]!;
          else {
            lastDoc[id] = g;
            lastEntry[id] = at;
            outTerm[at] = id;
            outDoc[at] = g;
            outTf[at] = entryTf[e]!;
            at++;
          }
        }
      }
    }
    out.entries = at;
    out.lastDoc = lastDoc;
    out.lastEntry = lastEntry;
    return out;
  }

  toArrays(): Bm25Arrays {
    const names = this.names;
    const n = names.length;
    // the terms in code-unit order, as `<` orders strings: sort's own comparison, without a
    // comparator called back for each pair (the terms are distinct: each one's rank is where its
    // number, from the map of terms, says); over the ~20,000 terms of a first recall at 10k,
    // mostly before the comparator was optimised, that was 10-25 ms a sort
    const terms = names.slice().sort();
    const ids = this.ids;
    const rank = new Int32Array(n);
    for (let r = 0; r < n; r++) rank[ids.get(terms[r]!)!] = r;
    // the entries' arrays as locals in the loops (grouped's reason)
    const { entries, entryTerm, entryDoc, entryTf } = this;
    const offsets = new Int32Array(n + 1);
    for (let e = 0; e < entries; e++) offsets[rank[entryTerm[e]!]! + 1]!++;
    for (let r = 0; r < n; r++) offsets[r + 1]! += offsets[r]!;
    const next = offsets.slice(0, n);
    const docs = new Int32Array(entries);
    const tfs = new Uint16Array(entries);
    let clamped = false;
    // entries are in document order, so each term's documents come out ascending, as its posting list holds them
    for (let e = 0; e < entries; e++) {
      const at = next[rank[entryTerm[e]!]!]!++;
      const tf = entryTf[e]!;
      docs[at] = entryDoc[e]!;
      if (tf > 65535) clamped = true;
      tfs[at] = Math.min(tf, 65535);
    }
    if (clamped) this.clamped = true;
    return { terms, offsets, docs, tfs, lengths: Int32Array.from(this.lengths) };
  }
}

/** An array twice as long with the same start. */
function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const out = new Int32Array(array.length * 2);
  out.set(array);
  return out;
}
