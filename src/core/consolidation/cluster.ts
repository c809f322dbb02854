/**
 * Clustering (SPEC §8 step 4): episodes whose similarity reaches a threshold are linked, and
 * the connected groups (union-find) are clusters. Similar pairs are found without comparing
 * every pair:
 * - lexically, with an inverted index and prefix filtering: for cosine ≥ t between term sets
 *   A and B, |A∩B| ≥ t·sqrt(|A||B|) ≥ t²·|A|, so one of A's |A| − ⌈t²|A|⌉ + 1 rarest terms is
 *   shared; only those terms' postings are scanned;
 * - with vectors, by blocking: √n pivot vectors, each vector filed under its two nearest
 *   pivots, and pairs compared only inside a block (O(n·√n·d) instead of O(n²·d)). Close
 *   vectors share a nearest pivot; the test checks the clusters equal the exhaustive ones.
 * `exhaustivePairs` is the reference both are tested against.
 */
export type Pair = [a: number, b: number, similarity: number];

// Math's functions held in module constants: the loops below run millions of times and then read
// no global. Free in Node; under jest, whose modules run in a vm context where every global read
// goes through the context's interceptor, `Math.imul` in popcount alone made the 5,000-vector
// test 20 times slower (4.7 s instead of 0.23 s of CPU for one clustering).
const { sqrt, min, max, ceil, imul } = Math;

export function setCosine(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / sqrt(a.size * b.size);
}

export function exhaustivePairs(n: number, similarity: (a: number, b: number) => number, threshold: number): Pair[] {
  const pairs: Pair[] = [];
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const s = similarity(a, b);
      if (s >= threshold) pairs.push([a, b, s]);
    }
  }
  return pairs;
}

/** Terms ranked rarest first (then by text), every set as a sorted array of ranks. */
function rankTerms(sets: Array<Set<string>>): { ranked: Int32Array[]; terms: number } {
  const df = new Map<string, number>();
  for (const set of sets) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const terms = [...df.keys()].sort((x, y) => df.get(x)! - df.get(y)! || (x < y ? -1 : 1));
  const rank = new Map(terms.map((t, i) => [t, i]));
  return { ranked: sets.map((set) => Int32Array.from([...set].map((t) => rank.get(t)!)).sort()), terms: terms.length };
}

/** How many ranks two sorted rank arrays share. */
function overlapOf(a: Int32Array, b: Int32Array): number {
  let common = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      common++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return common;
}

export function lexicalPairs(sets: Array<Set<string>>, threshold: number): Pair[] {
  const pairs: Pair[] = [];
  lexicalLinks(sets, threshold, (a, b, s) => pairs.push([a, b, s]));
  return pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
}

/**
 * Every pair at cosine ≥ `threshold`, handed to `link` as it is found instead of collected:
 * memory stays proportional to the input, not to the pairs (13,000 near-duplicate episodes
 * are 84 million pairs). `linked(a, b)` skips the verification of a pair already joined
 * (through union-find: a pair already in one group needs no comparison).
 */
export function lexicalLinks(sets: Array<Set<string>>, threshold: number, link: (a: number, b: number, similarity: number) => void, linked?: (a: number, b: number) => boolean): void {
  // PPJoin (Xiao et al.) for cosine: terms ranked rarest first and every set sorted by rank;
  // sets in order of size; a set probes with its |A| − ⌈t²|A|⌉ + 1 rarest terms and is indexed
  // under its |A| − ⌈t|A|⌉ + 1 rarest, with their positions. A candidate is dropped as soon as
  // the overlap found so far plus what its remaining terms could add falls below
  // ⌈t·√(|A||B|)⌉, and partners smaller than t²|A| are skipped. Any pair at cosine ≥ t shares
  // a term in both prefixes and passes every bound, so nothing is lost (the tests compare with
  // every pair); survivors are verified by merging the two sorted rank lists.
  const { ranked, terms } = rankTerms(sets);
  const order = sets.map((_, i) => i).filter((i) => ranked[i]!.length > 0);
  order.sort((x, y) => ranked[x]!.length - ranked[y]!.length || x - y);
  const postSet: number[][] = Array.from({ length: terms }, () => []);
  const postPos: number[][] = Array.from({ length: terms }, () => []);
  const t2 = threshold * threshold;
  const overlap = new Int32Array(sets.length);
  const dead = new Uint8Array(sets.length);
  const touched: number[] = [];
  for (const a of order) {
    const ra = ranked[a]!;
    const la = ra.length;
    const probe = max(1, la - ceil(t2 * la - 1e-9) + 1);
    const minSize = t2 * la - 1e-9;
    for (let k = 0; k < probe && k < la; k++) {
      const ids = postSet[ra[k]!]!;
      const positions = postPos[ra[k]!]!;
      for (let x = 0; x < ids.length; x++) {
        const b = ids[x]!;
        if (dead[b]) continue;
        const lb = ranked[b]!.length;
        if (lb < minSize) continue;
        if (overlap[b] === 0) touched.push(b);
        const need = ceil(threshold * sqrt(la * lb) - 1e-9);
        if (overlap[b]! + 1 + min(la - k - 1, lb - positions[x]! - 1) >= need) overlap[b]!++;
        else {
          dead[b] = 1;
          if (overlap[b] === 0) overlap[b] = -1; // keep it in `touched` once
        }
      }
    }
    for (const b of touched) {
      if (!dead[b] && overlap[b]! > 0 && !linked?.(a, b)) {
        const rb = ranked[b]!;
        const s = overlapOf(ra, rb) / sqrt(la * rb.length);
        if (s >= threshold) link(min(a, b), max(a, b), s);
      }
      overlap[b] = 0;
      dead[b] = 0;
    }
    touched.length = 0;
    const indexed = max(1, la - ceil(threshold * la - 1e-9) + 1);
    for (let k = 0; k < indexed && k < la; k++) {
      postSet[ra[k]!]!.push(a);
      postPos[ra[k]!]!.push(k);
    }
  }
}

export function vectorPairs(vectors: Float32Array[], threshold: number): Pair[] {
  const pairs: Pair[] = [];
  for (let a = 0; a < vectors.length; a++) {
    const va = vectors[a]!;
    for (let b = a + 1; b < vectors.length; b++) {
      const vb = vectors[b]!;
      let s = 0;
      for (let j = 0; j < va.length; j++) s += va[j]! * vb[j]!;
      if (s >= threshold) pairs.push([a, b, s]);
    }
  }
  return pairs;
}

/** Connected groups of at least `minSize` members (union-find), each sorted, in order of their first member. */
export function clustersOf(n: number, pairs: Pair[], minSize: number): number[][] {
  const uf = new UnionFind(n);
  for (const [a, b] of pairs) uf.union(a, b);
  return uf.groups(minSize);
}

class UnionFind {
  readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }
  find(x: number): number {
    const p = this.parent;
    while (p[x] !== x) x = p[x] = p[p[x]!]!;
    return x;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[max(ra, rb)] = min(ra, rb);
  }
  groups(minSize: number): number[][] {
    const n = this.parent.length;
    const groups = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      const r = this.find(i);
      const g = groups.get(r);
      if (g) g.push(i);
      else groups.set(r, [i]);
    }
    return [...groups.values()].filter((g) => g.length >= minSize).sort((x, y) => x[0]! - y[0]!);
  }
}

/** Dot product of rows a and b of a packed matrix over columns [from, to), unrolled by four. */
export function dotRows(m: Float32Array, a: number, b: number, from: number, to: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = a + from;
  let j = b + from;
  const end = a + to;
  for (; i + 3 < end; i += 4, j += 4) {
    s0 += m[i]! * m[j]!;
    s1 += m[i + 1]! * m[j + 1]!;
    s2 += m[i + 2]! * m[j + 2]!;
    s3 += m[i + 3]! * m[j + 3]!;
  }
  for (; i < end; i++, j++) s0 += m[i]! * m[j]!;
  return s0 + s1 + s2 + s3;
}

/**
 * The same dot products as dotRows, four columns at a time in WebAssembly SIMD: two lanes of
 * doubles per accumulator pair, (s0, s1) and (s2, s3), each f32 value widened exactly and each
 * product and sum rounded as JavaScript rounds them, in the same order, then s0 + s1 + s2 + s3.
 * The results are dotRows' to the last bit (the tests compare them), three to four times
 * faster. Also the sketch test of one row against the rows after it (one popcnt of 64 bits).
 * Hand-assembled (below, instruction by instruction) so core needs no build step or file; where
 * WebAssembly or its SIMD is missing, vectorClusters computes the same in JavaScript.
 */
interface Kernel {
  memory: WebAssembly.Memory;
  /** dot(a, b, n): rows of n f32 values at byte offsets a and b. */
  dot: (a: number, b: number, n: number) => number;
  /**
   * pass(probe, sketches, from, to, maxBits, out): the rows y in [from, to) whose 64-bit sketch
   * (8 bytes a row from byte offset `sketches`) differs from the one at byte offset `probe` in
   * at most maxBits bits, in order, written as int32 from byte offset `out`; returns how many.
   */
  pass: (probe: number, sketches: number, from: number, to: number, maxBits: number, out: number) => number;
  /** dot64(a, b, n): dot() of rows of n doubles (f32 values widened beforehand: the same sum, fewer instructions). */
  dot64: (a: number, b: number, n: number) => number;
  /** dots(r, base, count, n, out): out[p] (f64) = dot64(r, base + 8·n·p, n) for p < count. */
  dots: (r: number, base: number, count: number, n: number, out: number) => void;
  /**
   * sketchRows(rows, planes, n, count, out): sketches() of `count` rows of n f32 values from
   * byte offset `rows`, 8 bytes each from `out`; the planes as doubles from `planes`, eight
   * planes a pass over the row, the pair 2k, 2k+1 of pass P side by side (see sketches()).
   */
  sketchRows: (rows: number, planes: number, n: number, count: number, out: number) => void;
  /**
   * passDots(G, fresh, old, m, maxBits, freshHeads, oldHeads, h, lists, products, counts): for
   * each of the m old rows in order (8-byte sketches from `old`, h f32 leading columns each from
   * `oldHeads`), each of the G fresh rows (the same from `fresh`, `freshHeads`) whose sketch
   * differs in at most maxBits bits takes its position y (into its list: m int32 from lists +
   * 4·m·g) and dot() of their leading columns (m doubles from products + 8·m·g); counts[g] how
   * many (int32, set to 0 by the caller).
   */
  passDots: (groups: number, fresh: number, old: number, m: number, maxBits: number, freshHeads: number, oldHeads: number, h: number, lists: number, products: number, counts: number) => void;
}

let kernelModule: WebAssembly.Module | null | undefined;

function kernelBytes(): Uint8Array<ArrayBuffer> {
  const uleb = (v: number): number[] => (v < 0x80 ? [v] : [(v & 0x7f) | 0x80, ...uleb(v >>> 7)]);
  const sleb = (v: number): number[] => {
    const out: number[] = [];
    for (;;) {
      const b = v & 0x7f;
      v >>= 7;
      if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) return [...out, b];
      out.push(b | 0x80);
    }
  };
  const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
  const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
  const name = (text: string): number[] => [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];
  const [I32, I64, F64, V128] = [0x7f, 0x7e, 0x7c, 0x7b];
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const i32 = (v: number) => [0x41, ...sleb(v)];
  const [add, shl, geU, geS, leU, and, mul] = [[0x6a], [0x74], [0x4f], [0x4e], [0x4d], [0x71], [0x6c]];
  const simd = (op: number, ...rest: number[]) => [0xfd, ...uleb(op), ...rest];
  const load64Zero = (offset: number) => simd(0x5d, 2, offset); // v128.load64_zero: two f32 values
  const promote = simd(0x5f); // f64x2.promote_low_f32x4
  const [f64x2Add, f64x2Mul] = [simd(0xf0), simd(0xf2)];
  const lane = (i: number) => simd(0x21, i); // f64x2.extract_lane
  const loop = (exit: number[], body: number[]) => [0x02, 0x40, 0x03, 0x40, ...exit, 0x0d, 1, ...body, 0x0c, 0, 0x0b, 0x0b];
  const bump = (i: number, by: number) => [...get(i), ...i32(by), ...add, ...set(i)];
  // dot(a, b, n) with locals end, acc01, acc23, s0
  const dot = [
    ...vec([[1, I32], [2, V128], [1, F64]]),
    ...get(0), ...get(2), ...i32(-4), ...and, ...i32(2), ...shl, ...add, ...set(3),
    ...loop([...get(0), ...get(3), ...geU], [
      ...get(4), ...get(0), ...load64Zero(0), ...promote, ...get(1), ...load64Zero(0), ...promote, ...f64x2Mul, ...f64x2Add, ...set(4),
      ...get(5), ...get(0), ...load64Zero(8), ...promote, ...get(1), ...load64Zero(8), ...promote, ...f64x2Mul, ...f64x2Add, ...set(5),
      ...bump(0, 16), ...bump(1, 16),
    ]),
    ...get(4), ...lane(0), ...set(6),
    ...get(0), ...get(2), ...i32(3), ...and, ...i32(2), ...shl, ...add, ...set(3),
    ...loop([...get(0), ...get(3), ...geU], [
      ...get(6), ...get(0), 0x2a, 2, 0, 0xbb, ...get(1), 0x2a, 2, 0, 0xbb, 0xa2, 0xa0, ...set(6), // s0 += f64(a) * f64(b)
      ...bump(0, 4), ...bump(1, 4),
    ]),
    ...get(6), ...get(4), ...lane(1), 0xa0, ...get(5), ...lane(0), 0xa0, ...get(5), ...lane(1), 0xa0,
    0x0b,
  ];
  // pass(probe, sketches, from, to, maxBits, out) with locals y, k, and the probe's sketch
  const pass = [
    ...vec([[2, I32], [1, I64]]),
    ...get(0), 0x29, 3, 0, ...set(8),
    ...get(2), ...set(6),
    ...loop([...get(6), ...get(3), ...geS], [
      // out[k] = y; k += popcount(probe ^ sketches[y]) <= maxBits
      ...get(5), ...get(7), ...i32(2), ...shl, ...add, ...get(6), 0x36, 2, 0,
      ...get(7), ...get(8), ...get(1), ...get(6), ...i32(3), ...shl, ...add, 0x29, 3, 0, 0x85, 0x7b, 0xa7, ...get(4), ...leU, ...add, ...set(7),
      ...bump(6, 1),
    ]),
    ...get(7),
    0x0b,
  ];
  // dot64(a, b, n): dot() over values stored as doubles already (no widening), locals as dot()'s
  const load = (offset: number) => simd(0x00, 3, offset); // v128.load: two doubles
  const dot64 = [
    ...vec([[1, I32], [2, V128], [1, F64]]),
    ...get(0), ...get(2), ...i32(-4), ...and, ...i32(3), ...shl, ...add, ...set(3),
    ...loop([...get(0), ...get(3), ...geU], [
      ...get(4), ...get(0), ...load(0), ...get(1), ...load(0), ...f64x2Mul, ...f64x2Add, ...set(4),
      ...get(5), ...get(0), ...load(16), ...get(1), ...load(16), ...f64x2Mul, ...f64x2Add, ...set(5),
      ...bump(0, 32), ...bump(1, 32),
    ]),
    ...get(4), ...lane(0), ...set(6),
    ...get(0), ...get(2), ...i32(3), ...and, ...i32(3), ...shl, ...add, ...set(3),
    ...loop([...get(0), ...get(3), ...geU], [
      ...get(6), ...get(0), 0x2b, 3, 0, ...get(1), 0x2b, 3, 0, 0xa2, 0xa0, ...set(6), // s0 += a * b
      ...bump(0, 8), ...bump(1, 8),
    ]),
    ...get(6), ...get(4), ...lane(1), 0xa0, ...get(5), ...lane(0), 0xa0, ...get(5), ...lane(1), 0xa0,
    0x0b,
  ];
  // dots(r, base, count, n, out) with local p: dot64 of row r with each of count rows from base
  const dots = [
    ...vec([[1, I32]]),
    ...loop([...get(5), ...get(2), ...geS], [
      ...get(4), ...get(5), ...i32(3), ...shl, ...add,
      ...get(0), ...get(1), ...get(5), ...get(3), ...mul, ...i32(3), ...shl, ...add, ...get(3), 0x10, 3, 0x39, 3, 0,
      ...bump(5, 1),
    ]),
    0x0b,
  ];
  // sketchRows(rows, planes, n, count, out) with locals r, pass, end, x, acc0..acc3, byte, bits,
  // row pointer, plane pointer: for each of count rows of n f32 values, the 64 planes eight at a
  // time (four pairs, one pair a lane pair), each plane's sum over the columns in order as
  // sketches() takes it; bit 8·pass + 2k + lane set where that sum is ≥ 0; stored as 8 bytes
  const zero = simd(0x0c, ...new Array<number>(16).fill(0)); // v128.const 0
  const accumulate = (k: number) => [...get(9 + k), ...get(16), ...load(16 * k), ...get(8), ...f64x2Mul, ...f64x2Add, ...set(9 + k)];
  const sign = (k: number, l: number) => [...get(9 + k), ...lane(l), 0x44, 0, 0, 0, 0, 0, 0, 0, 0, 0x66, ...i32(2 * k + l), ...shl, 0x72]; // | (lane >= 0) << 2k+l
  const sketchRows = [
    ...vec([[3, I32], [5, V128], [1, I32], [1, I64], [2, I32]]),
    ...loop([...get(5), ...get(3), ...geS], [
      ...i32(0), ...set(6), 0x42, 0, ...set(14), ...get(1), ...set(16),
      ...loop([...get(6), ...i32(8), ...geS], [
        ...zero, ...set(9), ...zero, ...set(10), ...zero, ...set(11), ...zero, ...set(12),
        ...get(0), ...get(5), ...get(2), ...mul, ...i32(2), ...shl, ...add, ...set(15),
        ...get(15), ...get(2), ...i32(2), ...shl, ...add, ...set(7),
        ...loop([...get(15), ...get(7), ...geU], [
          ...get(15), 0x2a, 2, 0, 0xbb, ...simd(0x14), ...set(8), // x = splat(f64(row[j]))
          ...accumulate(0), ...accumulate(1), ...accumulate(2), ...accumulate(3),
          ...bump(16, 64), ...bump(15, 4),
        ]),
        ...i32(0), ...sign(0, 0), ...sign(0, 1), ...sign(1, 0), ...sign(1, 1), ...sign(2, 0), ...sign(2, 1), ...sign(3, 0), ...sign(3, 1), ...set(13),
        ...get(14), ...get(13), 0xad, ...get(6), ...i32(3), ...shl, 0xad, 0x86, 0x84, ...set(14),
        ...bump(6, 1),
      ]),
      ...get(4), ...get(5), ...i32(3), ...shl, ...add, ...get(14), 0x37, 3, 0,
      ...bump(5, 1),
    ]),
    0x0b,
  ];
  // passDots(G, fresh, old, m, maxBits, freshHeads, oldHeads, h, lists, products, counts) with
  // locals y, g, the old row's sketch, c, the old row's leading columns: for each old row y in
  // order, each of the G fresh rows whose sketch is within maxBits bits of its own gets y
  // appended to its list (m int32 each from `lists`) and dot(fresh row, old row) to its products
  // (m doubles each from `products`); counts[g] (int32) how many
  const at = (base: number, stride: number) => [...get(base), ...get(12), ...get(3), ...mul, ...get(14), ...add, ...i32(stride), ...shl, ...add];
  const passDots = [
    ...vec([[2, I32], [1, I64], [2, I32]]),
    ...loop([...get(11), ...get(3), ...geS], [
      ...get(2), ...get(11), ...i32(3), ...shl, ...add, 0x29, 3, 0, ...set(13),
      ...get(6), ...get(11), ...get(7), ...mul, ...i32(2), ...shl, ...add, ...set(15),
      ...i32(0), ...set(12),
      ...loop([...get(12), ...get(0), ...geS], [
        ...get(13), ...get(1), ...get(12), ...i32(3), ...shl, ...add, 0x29, 3, 0, 0x85, 0x7b, 0xa7, ...get(4), ...leU,
        0x04, 0x40,
        ...get(10), ...get(12), ...i32(2), ...shl, ...add, 0x28, 2, 0, ...set(14),
        ...at(8, 2), ...get(11), 0x36, 2, 0,
        ...at(9, 3), ...get(5), ...get(12), ...get(7), ...mul, ...i32(2), ...shl, ...add, ...get(15), ...get(7), 0x10, 0, 0x39, 3, 0,
        ...get(10), ...get(12), ...i32(2), ...shl, ...add, ...get(14), ...i32(1), ...add, 0x36, 2, 0,
        0x0b,
        ...bump(12, 1),
      ]),
      ...bump(11, 1),
    ]),
    0x0b,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 3, I32, I32, I32, 1, F64], [0x60, 6, I32, I32, I32, I32, I32, I32, 1, I32], [0x60, 5, I32, I32, I32, I32, I32, 0], [0x60, 11, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, 0]])),
    ...section(3, vec([[0], [1], [2], [0], [2], [3]])),
    ...section(5, vec([[0, 1]])),
    ...section(7, vec([[...name('dot'), 0, 0], [...name('pass'), 0, 1], [...name('dots'), 0, 2], [...name('dot64'), 0, 3], [...name('sketchRows'), 0, 4], [...name('passDots'), 0, 5], [...name('memory'), 2, 0]])),
    ...section(10, vec([dot, pass, dots, dot64, sketchRows, passDots].map((body) => [...uleb(body.length), ...body]))),
  ]);
}

/** A new instance of the kernel (its own memory), or null where WebAssembly SIMD is missing. */
export function clusterKernel(): Kernel | null {
  if (kernelModule === undefined) {
    try {
      kernelModule = new WebAssembly.Module(kernelBytes());
    } catch {
      kernelModule = null; // no WebAssembly, no SIMD, or compiling refused (a page's policy)
    }
  }
  try {
    return kernelModule ? (new WebAssembly.Instance(kernelModule).exports as unknown as Kernel) : null;
  } catch {
    return null;
  }
}

/** Room for `bytes` in the kernel's memory. */
function reserve(kernel: Kernel, bytes: number): void {
  const have = kernel.memory.buffer.byteLength;
  if (bytes > have) kernel.memory.grow(ceil((bytes - have) / 65536));
}

/**
 * Groups carried from the previous run (see VectorClusterOptions.previous): rows whose key
 * is unchanged and whose group lost no member are joined as before; the rest (new, changed,
 * or in a broken group) are returned, to be compared with every row.
 */
function carryGroups(uf: UnionFind, keys: string[], previous: Map<string, string>): number[] {
  const formerSize = new Map<string, number>();
  for (const label of previous.values()) if (label) formerSize.set(label, (formerSize.get(label) ?? 0) + 1);
  const present = new Map<string, number[]>();
  const fresh: number[] = [];
  keys.forEach((key, r) => {
    const label = previous.get(key);
    if (label === undefined) fresh.push(r);
    else if (label) {
      const rows = present.get(label);
      if (rows) rows.push(r);
      else present.set(label, [r]);
    }
  });
  for (const [label, rows] of present) {
    if (rows.length === formerSize.get(label)) for (const r of rows) uf.union(rows[0]!, r);
    else fresh.push(...rows); // the group lost a member: find its links again
  }
  return fresh.sort((a, b) => a - b);
}

/**
 * Every row's group label for the next run: the key of its group's first row (its root), ''
 * when alone. Sizes by root in an array: at 100k rows a Map of sizes and an array per entry
 * cost a nightly run ~0.2 s.
 */
function groupLabels(uf: UnionFind, keys: string[]): Map<string, string> {
  const n = keys.length;
  const root = new Int32Array(n);
  const size = new Int32Array(n);
  for (let r = 0; r < n; r++) size[(root[r] = uf.find(r))]!++;
  const labels = new Map<string, string>();
  for (let r = 0; r < n; r++) labels.set(keys[r]!, size[root[r]!]! > 1 ? keys[root[r]!]! : '');
  return labels;
}

export interface LexicalClusters {
  clusters: number[][];
  labels: Map<string, string> | null;
  fresh: number;
}

/**
 * Groups of term sets linked at cosine ≥ `threshold`: every pair by AllPairs (lexicalPairs),
 * or, with the previous run's groups (`keys`, `previous`), only the new and changed sets and
 * the members of broken groups, each probed with its rarest terms against an index of every
 * set's rarest terms (a pair at cosine ≥ t that passes the size filter has its first common
 * term among the |X| − ⌈t²|X|⌉ + 1 rarest of both sets).
 */
export function lexicalClusters(sets: Array<Set<string>>, threshold: number, minSize: number, options: { keys?: string[]; previous?: Map<string, string> | null } = {}): LexicalClusters {
  const n = sets.length;
  const uf = new UnionFind(n);
  const done = (fresh: number): LexicalClusters => ({ clusters: uf.groups(minSize), labels: options.keys ? groupLabels(uf, options.keys) : null, fresh });
  if (options.keys && options.previous && options.previous.size > 0) {
    const fresh = carryGroups(uf, options.keys, options.previous);
    if (fresh.length * 4 <= n) {
      // every set indexed under its probe prefix (its |B| − ⌈t²|B|⌉ + 1 rarest terms): for a
      // pair at cosine ≥ t that passes the size filter, the first common term lies in both
      // sets' probe prefixes, whichever is larger
      const { ranked, terms } = rankTerms(sets);
      const postings: number[][] = Array.from({ length: terms }, () => []);
      const t2 = threshold * threshold;
      const probeLength = (l: number) => max(1, l - ceil(t2 * l - 1e-9) + 1);
      ranked.forEach((r, b) => {
        for (let k = 0; k < probeLength(r.length) && k < r.length; k++) postings[r[k]!]!.push(b);
      });
      const isFresh = new Uint8Array(n);
      for (const r of fresh) isFresh[r] = 1;
      const seen = new Int32Array(n).fill(-1);
      for (const a of fresh) {
        const ra = ranked[a]!;
        const la = ra.length;
        if (la === 0) continue;
        for (let k = 0; k < probeLength(la) && k < la; k++) {
          for (const b of postings[ra[k]!]!) {
            // a pair of two fresh sets is found from the earlier one
            if (b === a || seen[b] === a || (isFresh[b] && b < a)) continue;
            seen[b] = a;
            const lb = ranked[b]!.length;
            if (lb < t2 * la - 1e-9 || lb * t2 > la + 1e-9 || uf.find(a) === uf.find(b)) continue;
            if (overlapOf(ra, ranked[b]!) / sqrt(la * lb) >= threshold) uf.union(a, b);
          }
        }
      }
      return done(fresh.length);
    }
  }
  lexicalLinks(sets, threshold, (a, b) => uf.union(a, b), (a, b) => uf.find(a) === uf.find(b));
  return done(n);
}

export interface VectorClusterOptions {
  /** Below this many vectors every pair's sketches are compared. */
  blockingFrom?: number;
  /**
   * A key per row that changes when the row's vector does (id and content hash), and the
   * groups of the previous run by key ('' for a row alone). With both, only rows that are new,
   * changed, or in a group that lost a member are compared (with every row); the others keep
   * their groups, since the pairs among them were compared last time and have not changed.
   */
  keys?: string[];
  previous?: Map<string, string> | null;
  /** How many nearest pivots each vector is filed under when blocking. */
  probes?: number;
  /**
   * Sketches made by an earlier run (see SketchCache): a row whose vector has a fingerprint
   * found there takes that sketch instead of computing it (64 products of d columns per row:
   * at 100k rows, 2 s of every nightly run). With it (null too), the result carries every
   * row's sketch for the next run, when sketches were needed.
   */
  known?: SketchCache | null;
  /** false: compute everything in JavaScript, without the WebAssembly kernel (the same result; for the tests). */
  wasm?: boolean;
  /**
   * Row r is row rows[r] of `packed` (rows of d columns), not the r-th: the vectors as the
   * embeddings store holds them (the bin as read and appended to) are clustered where they are,
   * not copied out into a new array first (a 147 MB array at 100k episodes, whose first touch
   * cost about a second of CPU a night here). Absent: row r at r·d.
   */
  rows?: Int32Array;
}

/** Where each of n rows of d columns starts: rows[r]·d, or r·d without `rows`. */
function rowStarts(n: number, d: number, rows?: Int32Array): Int32Array {
  const at = new Int32Array(n);
  for (let r = 0; r < n; r++) at[r] = (rows ? rows[r]! : r) * d;
  return at;
}

/**
 * Rows' sketches by the fingerprint of the vector they were made from, kept between runs: a
 * sketch is a function of the vector's bytes alone (fixed planes), so a row whose vector has
 * the same two 32-bit fingerprints (FNV-1a and a multiply-xorshift hash of its words) has the
 * same sketch. Keyed by the vector, not by the memory: a vector embedded again under the same
 * key (a forced re-embed) is sketched again.
 */
export interface SketchCache {
  dimensions: number;
  /** Two words per row: the fingerprints of its vector. */
  fingerprints: Uint32Array;
  /** Two words per row: its sketch (low and high 32 bits). */
  sketches: Int32Array;
}

/** Two 32-bit hashes of each row's words (see SketchCache). */
export function rowFingerprints(packed: Float32Array, d: number, n: number, at: Int32Array = rowStarts(n, d)): Uint32Array {
  const words = new Uint32Array(packed.buffer, packed.byteOffset, packed.length);
  const out = new Uint32Array(n * 2);
  for (let r = 0; r < n; r++) {
    let f = 0x811c9dc5;
    let g = 0x9e3779b9 ^ d;
    for (let j = at[r]!, end = j + d; j < end; j++) {
      const w = words[j]!;
      f = imul(f ^ w, 0x01000193);
      g = imul(g ^ w, 0x5bd1e995);
      g ^= g >>> 15;
    }
    out[r * 2] = f >>> 0;
    out[r * 2 + 1] = g >>> 0;
  }
  return out;
}

export interface VectorClusters {
  clusters: number[][];
  /** With `keys`: every row's group label ('' alone), for the next run's `previous`. */
  labels: Map<string, string> | null;
  /** Rows compared as new (all of them in a full run). */
  fresh: number;
  /** Pairs whose sketches were compared. */
  sketched: number;
  /** Pairs whose vectors were compared (passed the sketch filter). */
  compared: number;
  /** With `known` (null too), when any pair was sketched: every row's sketch, for the next run's `known`. */
  sketchCache?: SketchCache;
  /** Rows whose sketch came from `known`. */
  sketchesKept?: number;
}

const SKETCH_BITS = 64;

/** Gaussian numbers from a fixed seed (Box-Muller over an LCG): the same sketches every run. */
function gaussians(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const uniform = () => ((state = (imul(state, 1664525) + 1013904223) >>> 0) + 1) / (2 ** 32 + 1);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = sqrt(-2 * Math.log(uniform()));
    const t = 2 * Math.PI * uniform();
    out[i] = r * Math.cos(t);
    if (i + 1 < count) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

/** 64-bit SimHash of every row (two int32 words): bit k is the side of random hyperplane k. `skip`: rows whose sketch is in `out` already. */
function sketches(packed: Float32Array, d: number, n: number, at: Int32Array, out: Int32Array<ArrayBufferLike> = new Int32Array(n * 2), skip?: Uint8Array, kernel?: Kernel | null): Int32Array<ArrayBufferLike> {
  const planes = gaussians(SKETCH_BITS * d, 0x5eed);
  if (kernel && d > 0) {
    // the planes as doubles, eight a pass: plane 8P + 2k + l, column j at double (8P·d + 8j + 2k + l)
    const chunk = 64;
    const rowsAt = SKETCH_BITS * d * 8;
    const outAt = rowsAt + chunk * d * 4;
    reserve(kernel, outAt + chunk * 8);
    const doubles = new Float64Array(kernel.memory.buffer, 0, SKETCH_BITS * d);
    for (let plane = 0; plane < SKETCH_BITS; plane++) {
      const first = (plane >> 3) * 8 * d + (plane & 7);
      for (let j = 0; j < d; j++) doubles[first + j * 8] = planes[plane * d + j]!;
    }
    const values = new Float32Array(kernel.memory.buffer);
    const words = new Int32Array(kernel.memory.buffer);
    const rows = new Int32Array(chunk);
    for (let r = 0; r < n; ) {
      let count = 0;
      for (; r < n && count < chunk; r++) {
        if (skip?.[r]) continue;
        values.set(packed.subarray(at[r], at[r]! + d), rowsAt / 4 + count * d);
        rows[count++] = r;
      }
      kernel.sketchRows(rowsAt, 0, d, count, outAt);
      for (let c = 0; c < count; c++) {
        out[rows[c]! * 2] = words[outAt / 4 + c * 2]!;
        out[rows[c]! * 2 + 1] = words[outAt / 4 + c * 2 + 1]!;
      }
    }
    return out;
  }
  for (let r = 0; r < n; r++) {
    if (skip?.[r]) continue;
    let lo = 0;
    let hi = 0;
    const v = at[r]!;
    // four planes at a time: each of the row's values is read once for four products
    for (let k = 0; k < SKETCH_BITS; k += 4) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      const p0 = k * d;
      const p1 = p0 + d;
      const p2 = p1 + d;
      const p3 = p2 + d;
      for (let j = 0; j < d; j++) {
        const x = packed[v + j]!;
        s0 += planes[p0 + j]! * x;
        s1 += planes[p1 + j]! * x;
        s2 += planes[p2 + j]! * x;
        s3 += planes[p3 + j]! * x;
      }
      const bits = (s0 >= 0 ? 1 : 0) | (s1 >= 0 ? 2 : 0) | (s2 >= 0 ? 4 : 0) | (s3 >= 0 ? 8 : 0);
      if (k < 32) lo |= bits << k;
      else hi |= bits << (k - 32);
    }
    out[r * 2] = lo;
    out[r * 2 + 1] = hi;
  }
  return out;
}

/**
 * For fresh rows rows[x .. x+group) (group ≤ 4), the old rows (by position in `oldSketch`, two
 * words each) whose sketch differs from theirs in at most `maxBits` bits: into passed[g], count[g].
 */
function passSketches(sketch: Int32Array<ArrayBufferLike>, rows: Int32Array<ArrayBufferLike>, x: number, group: number, oldSketch: Int32Array<ArrayBufferLike>, m: number, maxBits: number, passed: Int32Array[], count: Int32Array): void {
  const at = (g: number, word: number) => (g < group ? sketch[rows[x + g]! * 2 + word]! : 0);
  const [l0, h0, l1, h1, l2, h2, l3, h3] = [at(0, 0), at(0, 1), at(1, 0), at(1, 1), at(2, 0), at(2, 1), at(3, 0), at(3, 1)];
  const [p0, p1, p2, p3] = passed as [Int32Array, Int32Array, Int32Array, Int32Array];
  let k0 = 0;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  // rows past `group` test against zero sketches; what they find is not used
  for (let y = 0; y < m; y++) {
    const lo = oldSketch[y * 2]!;
    const hi = oldSketch[y * 2 + 1]!;
    if (popcount(l0 ^ lo) + popcount(h0 ^ hi) <= maxBits) p0[k0++] = y;
    if (popcount(l1 ^ lo) + popcount(h1 ^ hi) <= maxBits) p1[k1++] = y;
    if (popcount(l2 ^ lo) + popcount(h2 ^ hi) <= maxBits) p2[k2++] = y;
    if (popcount(l3 ^ lo) + popcount(h3 ^ hi) <= maxBits) p3[k3++] = y;
  }
  count[0] = k0;
  count[1] = k1;
  count[2] = k2;
  count[3] = k3;
}

/** popcount(x) + popcount(y): the two words' counts summed per byte (at most 16) before the final multiply. */
function popcount2(x: number, y: number): number {
  x -= (x >>> 1) & 0x55555555;
  y -= (y >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  y = (y & 0x33333333) + ((y >>> 2) & 0x33333333);
  x = ((x + (x >>> 4)) & 0x0f0f0f0f) + ((y + (y >>> 4)) & 0x0f0f0f0f);
  return imul(x, 0x01010101) >>> 24;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return imul(x, 0x01010101) >>> 24;
}

/**
 * Connected groups of unit vectors (rows of `packed`, `d` columns) linked at cosine ≥
 * `threshold`, without comparing most pairs' vectors:
 * - a pair already in one group is skipped (only connectivity matters);
 * - each row has a 64-bit SimHash sketch; two rows at angle θ differ in each bit with
 *   probability θ/π, so a pair whose sketches differ in more bits than the threshold angle
 *   predicts plus four standard deviations is rejected (a pair at exactly the threshold is
 *   lost with probability about 3·10⁻⁵; closer pairs, and a group's other paths, much less);
 * - the vectors of a pair that passes are compared with an exact bound first: with h leading
 *   columns, a·b ≤ a[:h]·b[:h] + |a[h:]|·|b[h:]| (Cauchy-Schwarz);
 * - from `blockingFrom` rows, blocking: √n pivot rows, each row filed under its `probes`
 *   nearest pivots, and pairs compared only inside a block. Close vectors share a near pivot.
 * The tests check the groups equal those of comparing every pair exactly.
 */
export function vectorClusters(packed: Float32Array, d: number, threshold: number, minSize: number, options: VectorClusterOptions = {}): VectorClusters {
  const n = d === 0 ? 0 : (options.rows?.length ?? packed.length / d);
  // where each row starts in `packed` (options.rows: anywhere; else row r at r·d)
  const at = rowStarts(n, d, options.rows);
  const uf = new UnionFind(n);
  const h = min(d, max(8, Math.round(d / 4)));
  // WebAssembly SIMD where there is (see Kernel): the same sums, so the same pairs and groups
  const kernel = options.wasm === false || n === 0 ? null : clusterKernel();
  // computed on the first comparison: a run that finds nothing new compares nothing
  let tail: Float32Array = new Float32Array(0);
  let sketch: Int32Array = new Int32Array(0);
  let sketchCache: SketchCache | undefined;
  let sketchesKept = 0;
  const prepare = (): void => {
    if (sketch.length > 0 || n === 0) return;
    tail = new Float32Array(n);
    for (let r = 0; r < n; r++) tail[r] = sqrt(max(0, dotRows(packed, at[r]!, at[r]!, h, d)));
    if (options.known === undefined) {
      sketch = sketches(packed, d, n, at, undefined, undefined, kernel);
      return;
    }
    const fingerprints = rowFingerprints(packed, d, n, at);
    sketch = new Int32Array(n * 2);
    const kept = new Uint8Array(n);
    const known = options.known;
    if (known && known.dimensions === d) {
      // fingerprint → its row in `known` (the first 53 bits as a number key; both words checked)
      const at = new Map<number, number>();
      const kf = known.fingerprints;
      for (let k = 0; k * 2 < kf.length; k++) at.set((kf[k * 2 + 1]! & 0x1fffff) * 4294967296 + kf[k * 2]!, k);
      for (let r = 0; r < n; r++) {
        const k = at.get((fingerprints[r * 2 + 1]! & 0x1fffff) * 4294967296 + fingerprints[r * 2]!);
        if (k === undefined || kf[k * 2 + 1] !== fingerprints[r * 2 + 1]) continue;
        sketch[r * 2] = known.sketches[k * 2]!;
        sketch[r * 2 + 1] = known.sketches[k * 2 + 1]!;
        kept[r] = 1;
        sketchesKept++;
      }
    }
    sketches(packed, d, n, at, sketch, kept, kernel);
    sketchCache = { dimensions: d, fingerprints, sketches: sketch };
  };
  const q = Math.acos(max(-1, min(1, threshold))) / Math.PI;
  const maxBits = min(SKETCH_BITS, Math.floor(SKETCH_BITS * q + 4 * sqrt(SKETCH_BITS * q * (1 - q))));
  let sketched = 0;
  let compared = 0;
  /**
   * The exact test of a pair whose sketches passed, given a·b over the leading h columns: the
   * bound rejects only when below the threshold (a tail too large for a float is Infinity, and
   * Infinity · 0 is NaN: such a pair is compared in full).
   */
  const close = (a: number, b: number, head: number): boolean => !(head + tail[a]! * tail[b]! < threshold) && head + dotRows(packed, at[a]!, at[b]!, h, d) >= threshold;
  /** Pairs of `a` with rows[from..to): the sketch test inline, then the exact comparison. */
  const scan = (a: number, rows: Int32Array, from: number, to: number): void => {
    if (from >= to) return;
    prepare();
    const lo = sketch[a * 2]!;
    const hi = sketch[a * 2 + 1]!;
    sketched += to - from;
    for (let x = from; x < to; x++) {
      const b = rows[x]!;
      if (popcount2(lo ^ sketch[b * 2]!, hi ^ sketch[b * 2 + 1]!) > maxBits) continue;
      if (uf.find(a) === uf.find(b)) continue;
      compared++;
      if (close(a, b, dotRows(packed, at[a]!, at[b]!, 0, h))) uf.union(a, b);
    }
  };
  /**
   * Every pair of rows[from..to), row after row, as scan() takes them: with the kernel, the
   * rows' sketches and leading columns copied side by side into its memory first.
   */
  const scanAll = (rows: Int32Array, from: number, to: number): void => {
    const size = to - from;
    if (size < 2) return;
    if (!kernel) {
      for (let x = from; x < to; x++) scan(rows[x]!, rows, x + 1, to);
      return;
    }
    prepare();
    const headAt = size * 8;
    const outAt = headAt + size * h * 8;
    reserve(kernel, outAt + size * 4);
    const words = new Int32Array(kernel.memory.buffer);
    const doubles = new Float64Array(kernel.memory.buffer);
    for (let x = 0; x < size; x++) {
      const r = rows[from + x]!;
      words[x * 2] = sketch[r * 2]!;
      words[x * 2 + 1] = sketch[r * 2 + 1]!;
      doubles.set(packed.subarray(at[r], at[r]! + h), headAt / 8 + x * h);
    }
    sketched += (size * (size - 1)) / 2;
    for (let x = 0; x < size; x++) {
      const a = rows[from + x]!;
      const passed = kernel.pass(x * 8, 0, x + 1, size, maxBits, outAt);
      for (let k = 0; k < passed; k++) {
        const y = words[outAt / 4 + k]!;
        const b = rows[from + y]!;
        if (uf.find(a) === uf.find(b)) continue;
        compared++;
        if (close(a, b, kernel.dot64(headAt + x * h * 8, headAt + y * h * 8, h))) uf.union(a, b);
      }
    }
  };
  const finish = (fresh: number): VectorClusters => ({
    clusters: uf.groups(minSize),
    labels: options.keys ? groupLabels(uf, options.keys) : null,
    fresh,
    sketched,
    compared,
    ...(sketchCache ? { sketchCache, sketchesKept } : {}),
  });
  const all = Int32Array.from({ length: n }, (_, i) => i);
  if (options.keys && options.previous && options.previous.size > 0) {
    const fresh = carryGroups(uf, options.keys, options.previous);
    if (fresh.length * 4 <= n) {
      const isFresh = new Uint8Array(n);
      for (const r of fresh) isFresh[r] = 1;
      const old = all.filter((r) => !isFresh[r]);
      const rows = Int32Array.from(fresh).sort();
      if (rows.length > 0 && old.length > 0) prepare();
      const m = old.length;
      /** Links `a` to the old rows list[0..c) (positions in `old`) that passed the sketch test, in order. */
      /** Links `a` to the old rows list[0..c) (positions in `old`) that passed the sketch test, in order; head(k, a, b): a·b over the leading columns. */
      const link = (a: number, list: Int32Array, c: number, head: (k: number, a: number, b: number) => number): void => {
        sketched += m;
        for (let k = 0; k < c; k++) {
          const b = old[list[k]!]!;
          if (uf.find(a) === uf.find(b)) continue;
          compared++;
          if (close(a, b, head(k, a, b))) uf.union(a, b);
        }
      };
      if (kernel && rows.length > 0 && m > 0) {
        // Sixteen fresh rows a pass over the old rows, in their order (their sketches and leading
        // columns side by side): each old row is read once for the sixteen, its sketch tested
        // against theirs and its leading columns multiplied with those that pass, while in the
        // cache (one row at a time, as scan() takes them, every product was a cache miss).
        // The passes and products are then linked row after row as below: the same pairs
        // compared in the same order, a product computed for a pair linked meanwhile unused.
        const group = 16;
        const oldHeadAt = m * 8;
        const freshAt = oldHeadAt + m * h * 4;
        const freshHeadAt = freshAt + group * 8;
        const countAt = freshHeadAt + group * h * 4;
        const listAt = countAt + group * 4;
        const productAt = ceil((listAt + group * m * 4) / 8) * 8;
        reserve(kernel, productAt + group * m * 8);
        const words = new Int32Array(kernel.memory.buffer);
        const values = new Float32Array(kernel.memory.buffer);
        const products = new Float64Array(kernel.memory.buffer);
        for (let y = 0; y < m; y++) {
          const r = old[y]!;
          words[y * 2] = sketch[r * 2]!;
          words[y * 2 + 1] = sketch[r * 2 + 1]!;
          values.set(packed.subarray(at[r], at[r]! + h), oldHeadAt / 4 + y * h);
        }
        for (let x = 0; x < rows.length; x += group) {
          const size = min(group, rows.length - x);
          for (let g = 0; g < size; g++) {
            const a = rows[x + g]!;
            words[freshAt / 4 + g * 2] = sketch[a * 2]!;
            words[freshAt / 4 + g * 2 + 1] = sketch[a * 2 + 1]!;
            values.set(packed.subarray(at[a], at[a]! + h), freshHeadAt / 4 + g * h);
          }
          words.fill(0, countAt / 4, countAt / 4 + group);
          kernel.passDots(size, freshAt, 0, m, maxBits, freshHeadAt, oldHeadAt, h, listAt, productAt, countAt);
          for (let g = 0; g < size; g++) {
            const a = rows[x + g]!;
            const list = new Int32Array(words.buffer, listAt + g * m * 4, m);
            link(a, list, words[countAt / 4 + g]!, (k) => products[productAt / 8 + g * m + k]!);
            scan(a, rows, x + g + 1, rows.length);
          }
        }
        return finish(rows.length);
      }
      // The sketch test of a fresh row against every old row, four fresh rows per pass over the
      // old rows' sketches (copied side by side): the rows that pass, in the old rows' order, are
      // then linked exactly as scan() would, row after row. Which pairs pass does not depend on
      // the links made meanwhile, so the pairs compared, their order and the groups are scan()'s.
      const oldSketch = new Int32Array(m * 2);
      for (let y = 0; y < m; y++) {
        oldSketch[y * 2] = sketch[old[y]! * 2]!;
        oldSketch[y * 2 + 1] = sketch[old[y]! * 2 + 1]!;
      }
      const passed = [new Int32Array(m), new Int32Array(m), new Int32Array(m), new Int32Array(m)];
      const count = new Int32Array(4);
      const head = (_: number, a: number, b: number): number => dotRows(packed, at[a]!, at[b]!, 0, h);
      for (let x = 0; x < rows.length; x += 4) {
        const group = min(4, rows.length - x);
        if (m > 0) passSketches(sketch, rows, x, group, oldSketch, m, maxBits, passed, count);
        for (let g = 0; g < group; g++) {
          const a = rows[x + g]!;
          if (m > 0) link(a, passed[g]!, count[g]!, head);
          scan(a, rows, x + g + 1, rows.length);
        }
      }
      return finish(rows.length);
    }
  }
  const blockingFrom = options.blockingFrom ?? 20_000;
  if (n < blockingFrom) {
    scanAll(all, 0, n);
    return finish(n);
  }
  // Blocking: each row filed under its `probes` nearest pivots by the leading h columns (a
  // quarter of the work of full rows; close rows have close leading columns too).
  const probes = options.probes ?? 6;
  const m = max(probes, ceil(sqrt(n)));
  const pivotRow = Int32Array.from({ length: m }, (_, k) => Math.floor((k * n) / m));
  const near = new Int32Array(n * probes);
  const sims = new Float64Array(probes);
  const blockSize = new Int32Array(m);
  // with the kernel: the pivots' leading columns side by side, then each row's, then its m products
  let toPivots: ((r: number) => void) | null = null;
  let similarity: Float64Array = new Float64Array(0);
  if (kernel) {
    const rowAt = m * h * 8;
    const simsAt = rowAt + h * 8;
    reserve(kernel, simsAt + m * 8);
    const doubles = new Float64Array(kernel.memory.buffer);
    for (let p = 0; p < m; p++) doubles.set(packed.subarray(at[pivotRow[p]!], at[pivotRow[p]!]! + h), p * h);
    similarity = new Float64Array(kernel.memory.buffer, simsAt, m);
    toPivots = (r) => {
      doubles.set(packed.subarray(at[r], at[r]! + h), rowAt / 8);
      kernel.dots(rowAt, 0, m, h, simsAt);
    };
  }
  for (let r = 0; r < n; r++) {
    let filled = 0;
    toPivots?.(r);
    for (let p = 0; p < m; p++) {
      const s = toPivots ? similarity[p]! : dotRows(packed, at[r]!, at[pivotRow[p]!]!, 0, h);
      if (filled < probes || s > sims[filled - 1]!) {
        let k = filled < probes ? filled++ : filled - 1;
        while (k > 0 && sims[k - 1]! < s) {
          sims[k] = sims[k - 1]!;
          near[r * probes + k] = near[r * probes + k - 1]!;
          k--;
        }
        sims[k] = s;
        near[r * probes + k] = p;
      }
    }
    for (let k = 0; k < probes; k++) blockSize[near[r * probes + k]!]!++;
  }
  const start = new Int32Array(m + 1);
  for (let p = 0; p < m; p++) start[p + 1] = start[p]! + blockSize[p]!;
  const members = new Int32Array(start[m]!);
  const fill = start.slice(0, m);
  for (let r = 0; r < n; r++) for (let k = 0; k < probes; k++) members[fill[near[r * probes + k]!]!++] = r;
  // a pair sharing several blocks is sketched in each (cheap); once linked it is skipped
  for (let p = 0; p < m; p++) scanAll(members, start[p]!, start[p + 1]!);
  return finish(n);
}

/** The member closest to the group's mean vector: the most representative episode. */
export function vectorMedoid(packed: Float32Array, d: number, group: number[], rows?: Int32Array): number {
  const at = (r: number): number => (rows ? rows[r]! : r) * d;
  const mean = new Float64Array(d);
  for (const r of group) for (let j = 0; j < d; j++) mean[j]! += packed[at(r) + j]!;
  let best = group[0]!;
  let bestScore = -Infinity;
  for (const r of group) {
    let s = 0;
    for (let j = 0; j < d; j++) s += mean[j]! * packed[at(r) + j]!;
    if (s > bestScore) {
      bestScore = s;
      best = r;
    }
  }
  return best;
}

/** The member with the highest summed similarity to the others (the first 100 when larger). */
export function lexicalMedoid(sets: Array<Set<string>>, group: number[]): number {
  const sample = group.slice(0, 100);
  let best = group[0]!;
  let bestScore = -Infinity;
  for (const a of sample) {
    let score = 0;
    for (const b of sample) if (a !== b) score += setCosine(sets[a]!, sets[b]!);
    if (score > bestScore) {
      bestScore = score;
      best = a;
    }
  }
  return best;
}
