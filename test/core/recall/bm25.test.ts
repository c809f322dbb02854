// The BM25+ index (src/core/recall/bm25.ts) on its own: the scores its doc comment defines, the
// qualifier pass, the live-document rules of remove/put, the snapshot arrays and topDocs' order.
// Expected scores come from the formula as written in the comment (`formula` below) or by hand.
import { Bm25Index, topDocs, type Bm25Params } from '../../../src/core/recall/bm25';

const P: Bm25Params = { k1: 1.2, b: 0.75, delta: 1 };

/** score(d, q) = Σ_t w_t · idf(t) · (tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl)) + delta) over live docs. */
function formula(docs: Array<readonly string[] | null>, query: Map<string, number>, params = P): Map<number, number> {
  const live = docs.map((d, i) => [i, d] as const).filter((e): e is readonly [number, readonly string[]] => e[1] !== null);
  const n = live.length;
  const avgdl = live.reduce((s, [, d]) => s + d.length, 0) / Math.max(1, n) || 1;
  const out = new Map<number, number>();
  for (const [term, w] of query) {
    const df = live.filter(([, d]) => d.includes(term)).length;
    if (df === 0) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [i, d] of live) {
      const tf = d.filter((t) => t === term).length;
      if (tf === 0) continue;
      const norm = tf + params.k1 * (1 - params.b + (params.b * d.length) / avgdl);
      out.set(i, (out.get(i) ?? 0) + w * idf * ((tf * (params.k1 + 1)) / norm + params.delta));
    }
  }
  return out;
}

/** The scores of one query as a map doc → score, in the order the index touched the docs. */
function scored(index: Bm25Index, query: Map<string, number>, qualifiers?: ReadonlySet<string>): Map<number, number> {
  const r = index.score(query, qualifiers);
  const out = new Map<number, number>();
  for (let i = 0; i < r.count; i++) out.set(r.docs[i]!, r.scores[r.docs[i]!]!);
  return out;
}

function expectScores(actual: Map<number, number>, expected: Map<number, number>): void {
  expect([...actual.keys()].sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
  for (const [doc, s] of expected) expect(actual.get(doc)).toBeCloseTo(s, 12);
}

const DOCS: string[][] = [
  ['sqlite', 'storage', 'decision'],
  ['postgres', 'storage', 'storage', 'server', 'replica'],
  ['sqlite', 'sqlite', 'test'],
  ['deploy', 'friday'],
];

function build(docs: readonly (readonly string[])[] = DOCS, params = P): Bm25Index {
  const index = new Bm25Index(params);
  docs.forEach((d, i) => expect(index.add(d)).toBe(i));
  return index;
}

describe('Bm25Index.score', () => {
  it('gives the BM25+ score of the formula, by hand for one term', () => {
    const index = build();
    // 'friday': N = 4, df = 1, idf = ln(1 + 3.5 / 1.5); doc 3 has |d| = 2, avgdl = 13 / 4 = 3.25
    const idf = Math.log(1 + 3.5 / 1.5);
    const norm = 1 + 1.2 * (1 - 0.75 + (0.75 * 2) / 3.25);
    const s = scored(index, new Map([['friday', 1]]));
    expect([...s.keys()]).toEqual([3]);
    expect(s.get(3)).toBeCloseTo(idf * ((1 * 2.2) / norm + 1), 12);
    expect(s.get(3)).toBeCloseTo(2.6327538086, 9);
  });

  it('sums weighted terms, counts repeated terms as tf, and leaves out documents holding none', () => {
    const index = build();
    const q = new Map([
      ['sqlite', 1],
      ['storage', 0.5],
      ['absent', 3],
    ]);
    const s = scored(index, q);
    expectScores(s, formula(DOCS, q));
    expect(s.has(3)).toBe(false);
  });

  it('gives a matching term at least delta × idf: a long document is not pushed to zero', () => {
    const long = ['x', ...Array.from({ length: 500 }, (_, i) => `w${i}`)];
    const index = build([long, ['y'], ['z']]);
    const s = scored(index, new Map([['x', 1]]));
    const idf = Math.log(1 + 2.5 / 1.5);
    expect(s.get(0)! > idf).toBe(true);
    expectScores(s, formula([long, ['y'], ['z']], new Map([['x', 1]])));
  });

  it('uses each parameter (k1, b, delta)', () => {
    const q = new Map([
      ['storage', 1],
      ['sqlite', 1],
    ]);
    for (const params of [
      { k1: 2, b: 0.75, delta: 1 },
      { k1: 1.2, b: 0.3, delta: 1 },
      { k1: 1.2, b: 0.75, delta: 0 },
    ]) {
      expectScores(scored(build(DOCS, params), q), formula(DOCS, q, params));
    }
  });

  it('starts each query from zero (scratch arrays reset) and returns the docs in the order touched', () => {
    const index = build();
    const q = new Map([['storage', 1]]);
    const first = scored(index, q);
    const second = scored(index, q);
    expect([...second]).toEqual([...first]);
    expect([...first.keys()]).toEqual([0, 1]);
    const other = scored(index, new Map([['test', 1]]));
    expectScores(other, formula(DOCS, new Map([['test', 1]])));
  });

  it('a qualifier adds only to documents another query term found, after the words', () => {
    const docs = [['march', 'meeting'], ['march'], ['meeting', 'notes'], ['other']];
    const index = build(docs);
    const q = new Map([
      ['march', 1],
      ['meeting', 1],
    ]);
    // 'march' as a qualifier: doc 1 holds only it, so it is not found; doc 0 gets both terms
    const s = scored(index, q, new Set(['march']));
    expect([...s.keys()]).toEqual([0, 2]);
    const words = formula(docs, new Map([['meeting', 1]]));
    const both = formula(docs, q);
    expect(s.get(0)).toBeCloseTo(both.get(0)!, 12);
    expect(s.get(2)).toBeCloseTo(words.get(2)!, 12);
    // a query of qualifiers alone finds nothing
    expect(index.score(new Map([['march', 1]]), new Set(['march'])).count).toBe(0);
    // without qualifiers, the same query scores every document holding either term
    expectScores(scored(index, q), both);
  });

  it('counts the length given to add, not the terms, in length normalisation; an empty index length is 1', () => {
    const index = new Bm25Index(P);
    index.add(['a', 'b', 'c'], 1);
    index.add(['a'], 1);
    index.add(['b'], 1);
    // avgdl = 3 / 3 = 1, |d0| = 1
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    expect(scored(index, new Map([['a', 1]])).get(0)).toBeCloseTo(idf * (2.2 / (1 + 1.2) + 1), 12);
    // every length 0: avgdl taken as 1, so |d|/avgdl is 0, not NaN
    const zero = new Bm25Index(P);
    zero.add(['a'], 0);
    zero.add(['b'], 0);
    const idf0 = Math.log(1 + 1.5 / 1.5);
    expect(scored(zero, new Map([['a', 1]])).get(0)).toBeCloseTo(idf0 * (2.2 / (1 + 1.2 * 0.25) + 1), 12);
  });

  it('an empty index scores nothing', () => {
    const r = new Bm25Index(P).score(new Map([['a', 1]]));
    expect(r.count).toBe(0);
  });
});

describe('Bm25Index: documents removed and put back', () => {
  it('after remove, scores, df and size are those of an index of the live documents alone', () => {
    const index = build();
    index.remove(1, DOCS[1]!);
    expect(index.size).toBe(3);
    expect(index.slots).toBe(4);
    expect(index.df('storage')).toBe(1);
    expect(index.df('postgres')).toBe(0);
    const q = new Map([
      ['storage', 1],
      ['sqlite', 1],
      ['postgres', 1],
    ]);
    const live: Array<string[] | null> = [DOCS[0]!, null, DOCS[2]!, DOCS[3]!];
    expectScores(scored(index, q), formula(live, q));
  });

  it('remove leaves alone a term list that does not hold the document, and terms never indexed', () => {
    const index = build();
    // 'sqlite' is in docs 0 and 2, not 3; 'nowhere' is in none
    index.remove(3, ['sqlite', 'nowhere', 'deploy', 'friday']);
    expect(index.df('sqlite')).toBe(2);
    expect(index.df('deploy')).toBe(0);
    expectScores(scored(index, new Map([['sqlite', 1]])), formula([DOCS[0]!, DOCS[1]!, DOCS[2]!, null], new Map([['sqlite', 1]])));
  });

  it('put fills an empty number at its place in each list, as add in number order would', () => {
    const index = build();
    index.remove(1, DOCS[1]!);
    const again = ['sqlite', 'storage', 'server', 'sqlite'];
    index.put(1, again);
    expect(index.size).toBe(4);
    const docs = [DOCS[0]!, again, DOCS[2]!, DOCS[3]!];
    const fresh = build(docs);
    const q = new Map([
      ['sqlite', 1],
      ['storage', 2],
      ['server', 1],
      ['replica', 1],
    ]);
    const s = scored(index, q);
    expectScores(s, formula(docs, q));
    // same lists as a fresh build: the docs in number order, the same tfs
    expect(index.toArrays()).toEqual(fresh.toArrays());
  });

  it('put at the next number is an add; put with a length counts that length', () => {
    const index = build();
    index.put(4, ['friday', 'review'], 7);
    expect(index.slots).toBe(5);
    expect(index.size).toBe(5);
    const fresh = build();
    fresh.add(['friday', 'review'], 7);
    expect(index.toArrays()).toEqual(fresh.toArrays());
    index.remove(2, DOCS[2]!);
    index.put(2, ['test'], 9);
    expect(index.toArrays().lengths).toEqual(Int32Array.from([3, 5, 9, 2, 7]));
  });

  it('a term whose only document is removed leaves the index (not an empty list in the snapshot)', () => {
    const index = build();
    index.remove(3, DOCS[3]!);
    index.put(3, ['sqlite']);
    expect(index.toArrays().terms).toEqual(['decision', 'postgres', 'replica', 'server', 'sqlite', 'storage', 'test']);
  });

  it('update gives what remove then put give, touching only the terms whose count changed', () => {
    const after = ['sqlite', 'sqlite', 'server', 'decision', 'sqlite'];
    for (const doc of [0, 1, 2, 3]) {
      const updated = build();
      updated.update(doc, DOCS[doc]!, after, 4);
      const twice = build();
      twice.remove(doc, DOCS[doc]!);
      twice.put(doc, after, 4);
      expect([doc, updated.toArrays()]).toEqual([doc, twice.toArrays()]);
      expect(updated.size).toBe(4);
      const q = new Map([['sqlite', 1], ['server', 1], ['postgres', 1], ['decision', 2]]);
      expect([doc, scored(updated, q)]).toEqual([doc, scored(twice, q)]);
    }
    // a term whose only document drops it leaves the index; the same terms again change nothing
    const index = build();
    index.update(3, DOCS[3]!, ['sqlite']);
    expect(index.toArrays().terms).toEqual(['decision', 'postgres', 'replica', 'server', 'sqlite', 'storage', 'test']);
    const before = index.toArrays();
    index.update(3, ['sqlite'], ['sqlite']);
    expect(index.toArrays()).toEqual(before);
  });

  it('an index with removed documents is not saved', () => {
    const index = build();
    index.remove(0, DOCS[0]!);
    expect(() => index.toArrays()).toThrow('an index with removed documents is not saved (build it again from the live ones)');
  });
});

describe('Bm25Index snapshot arrays', () => {
  it('toArrays lays the postings out by sorted term (compressed rows)', () => {
    const a = build().toArrays();
    expect(a.terms).toEqual(['decision', 'deploy', 'friday', 'postgres', 'replica', 'server', 'sqlite', 'storage', 'test']);
    expect([...a.offsets]).toEqual([0, 1, 2, 3, 4, 5, 6, 8, 10, 11]);
    expect([...a.docs]).toEqual([0, 3, 3, 1, 1, 1, 0, 2, 0, 1, 2]);
    expect([...a.tfs]).toEqual([1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 1]);
    expect([...a.lengths]).toEqual([3, 5, 3, 2]);
  });

  it('caps a term frequency at 65535 in the arrays', () => {
    const index = build([Array.from({ length: 70000 }, () => 'same')]);
    expect([...index.toArrays().tfs]).toEqual([65535]);
  });

  it('fromArrays scores as the index it came from, finds every term by binary search and no other', () => {
    const built = build();
    const restored = Bm25Index.fromArrays(P, built.toArrays());
    expect(restored.size).toBe(4);
    expect(restored.slots).toBe(4);
    const terms = built.toArrays().terms;
    for (const t of terms) expect(restored.df(t)).toBe(built.df(t));
    for (const t of ['a', 'dz', 'zzz', 'sqlitf', 'storag']) expect(restored.df(t)).toBe(0);
    const q = new Map(terms.map((t, i) => [t, 1 + i / 10]));
    expectScores(scored(restored, q), formula(DOCS, q));
    expect(restored.toArrays()).toBe(restored.toArrays());
  });

  it('a snapshot index is read-only', () => {
    const restored = Bm25Index.fromArrays(P, build().toArrays());
    expect(() => restored.add(['x'])).toThrow('a snapshot index is read-only');
    expect(() => restored.remove(0, ['sqlite'])).toThrow('a snapshot index is read-only');
    expect(() => restored.put(4, ['x'])).toThrow('a snapshot index is read-only');
    expect([...restored.reserve(100)]).toHaveLength(0);
  });
});

describe('Bm25Index.reserve', () => {
  it('makes room in steps (lengths, then the three scratch arrays), once', () => {
    const index = build();
    expect([...index.reserve(64)]).toHaveLength(4);
    // the scratch is large enough already: only the lengths' step
    expect([...index.reserve(32)]).toHaveLength(1);
    expect(index.slots).toBe(4);
    for (let i = 0; i < 60; i++) index.add([`t${i % 3}`]);
    const docs: string[][] = [...DOCS, ...Array.from({ length: 60 }, (_, i) => [`t${i % 3}`])];
    expectScores(scored(index, new Map([['t1', 1]])), formula(docs, new Map([['t1', 1]])));
  });

  it('the scratch arrays grow with the index between queries', () => {
    const index = new Bm25Index(P);
    const docs: string[][] = [];
    for (let i = 0; i < 40; i++) {
      const d = [`g${i % 4}`, 'all'];
      docs.push(d);
      index.add(d);
      const q = new Map([
        ['all', 1],
        [`g${i % 4}`, 1],
      ]);
      expectScores(scored(index, q), formula(docs, q));
    }
  });
});

describe('topDocs', () => {
  const scores = [0.5, 2, 2, 0.1, 3, 0.5, 1];
  const all = Int32Array.from(scores.map((_, i) => i));

  it('the k best by score, ties to the lower number, best first', () => {
    expect(topDocs(all, all.length, (d) => scores[d]!, 3)).toEqual([
      [4, 3],
      [1, 2],
      [2, 2],
    ]);
    expect(topDocs(all, all.length, (d) => scores[d]!, 5)).toEqual([
      [4, 3],
      [1, 2],
      [2, 2],
      [6, 1],
      [0, 0.5],
    ]);
    expect(topDocs(all, all.length, (d) => scores[d]!, 100)).toEqual([
      [4, 3],
      [1, 2],
      [2, 2],
      [6, 1],
      [0, 0.5],
      [5, 0.5],
      [3, 0.1],
    ]);
  });

  it('takes into a full heap a tie with a lower number, never a worse score with a lower number', () => {
    // ties met in falling number: each displaces the heap's worst (the higher number)
    expect(topDocs([9, 8, 7, 6], 4, () => 1, 2)).toEqual([
      [6, 1],
      [7, 1],
    ]);
    const score = (d: number) => (d === 1 ? 0.5 : 1);
    expect(topDocs([5, 6, 1], 3, score, 2)).toEqual([
      [5, 1],
      [6, 1],
    ]);
    // the same candidate again is no better than itself: not asked for
    const asked: number[] = [];
    expect(topDocs([6, 5, 6], 3, () => 1, 2, (d) => (asked.push(d), true))).toEqual([
      [5, 1],
      [6, 1],
    ]);
    expect(asked).toEqual([6, 5]);
  });

  it('reads only the first count candidates; nothing for k of 0 or less', () => {
    expect(topDocs(all, 4, (d) => scores[d]!, 2)).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(topDocs(all, all.length, (d) => scores[d]!, 0)).toEqual([]);
    expect(topDocs(all, all.length, (d) => scores[d]!, -1)).toEqual([]);
  });

  it('keeps only accepted candidates, and asks only for those that would enter', () => {
    const asked: number[] = [];
    const accept = (d: number) => {
      asked.push(d);
      return d !== 4;
    };
    expect(topDocs(all, all.length, (d) => scores[d]!, 2, accept)).toEqual([
      [1, 2],
      [2, 2],
    ]);
    // 3, 5 and 6 are no better than the heap's worst once it holds 1 and 2 (or 0 and 1)
    expect(asked).toEqual([0, 1, 2, 4]);
  });

  it('agrees with a full sort on many candidates (heap order kept at every size)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const many = Array.from({ length: 300 }, () => Math.floor(random() * 40) / 4);
    const docs = many.map((_, i) => i);
    const sorted = docs.map((d) => [d, many[d]!] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    for (const k of [1, 2, 3, 7, 31, 64, 299, 300]) expect(topDocs(docs, docs.length, (d) => many[d]!, k)).toEqual(sorted.slice(0, k));
  });
});
