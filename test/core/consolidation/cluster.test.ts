import { clusterKernel, clustersOf, dotRows, exhaustivePairs, lexicalClusters, lexicalLinks, lexicalMedoid, lexicalPairs, rowFingerprints, setCosine, vectorClusters, vectorMedoid, vectorPairs } from '../../../src/core/consolidation/cluster';

describe('clustering (SPEC §8)', () => {
  function corpus(n: number, seed: number): Array<Set<string>> {
    let s = seed;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    // topics of 6 words each; a text takes 3-6 words from one topic and 0-2 from anywhere
    const topics = Array.from({ length: 40 }, (_, t) => Array.from({ length: 6 }, (_, w) => `t${t}w${w}`));
    return Array.from({ length: n }, () => {
      const topic = topics[Math.floor(rand() * topics.length)]!;
      const set = new Set<string>();
      const k = 3 + Math.floor(rand() * 4);
      while (set.size < k) set.add(topic[Math.floor(rand() * topic.length)]!);
      for (let e = Math.floor(rand() * 3); e > 0; e--) set.add(`t${Math.floor(rand() * 40)}w${Math.floor(rand() * 6)}`);
      return set;
    });
  }

  it('finds exactly the pairs the exhaustive method finds, on 3,000 texts', () => {
    const sets = corpus(3000, 11);
    const fast = lexicalPairs(sets, 0.6);
    const slow = exhaustivePairs(sets.length, (a, b) => setCosine(sets[a]!, sets[b]!), 0.6);
    expect(fast.length).toBeGreaterThan(10_000);
    expect(fast.map(([a, b]) => `${a}-${b}`)).toEqual(slow.map(([a, b]) => `${a}-${b}`));
    expect(clustersOf(sets.length, fast, 3)).toEqual(clustersOf(sets.length, slow, 3));
  });

  it('links near-duplicate episodes through union-find, one verified pair per join, none collected', () => {
    // "The nightly build failed on the arm runner, attempt N": every pair at cosine 6/7
    const sets = Array.from({ length: 500 }, (_, i) => new Set(['nightli', 'build', 'fail', 'arm', 'runner', 'attempt', String(i)]));
    const parent = Array.from({ length: sets.length }, (_, i) => i);
    const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
    let links = 0;
    lexicalLinks(sets, 0.6, (a, b) => {
      links++;
      parent[find(b)] = find(a);
    }, (a, b) => find(a) === find(b));
    expect(links).toBe(sets.length - 1);
    expect(lexicalPairs(sets, 0.6)).toHaveLength((500 * 499) / 2);
  });

  it('clusters 6,000 near-duplicate episodes in a 96 MB heap, where their 18 million pairs took gigabytes (consolidate-oom-near-duplicates.sh)', () => {
    const script = `
      const { lexicalClusters } = require(${JSON.stringify(require('node:path').join(__dirname, '..', '..', '..', 'dist', 'lib.js'))});
      const sets = Array.from({ length: 6000 }, (_, i) => new Set(['nightli', 'build', 'fail', 'arm', 'runner', 'attempt', String(i)]));
      process.stdout.write(JSON.stringify(lexicalClusters(sets, 0.6, 3).clusters.map((c) => c.length)));`;
    const run = require('node:child_process').spawnSync(process.execPath, ['--max-old-space-size=96', '-e', script], { encoding: 'utf8' });
    expect([run.status, run.stdout]).toEqual([0, '[6000]']);
  });

  it('groups connected pairs with union-find and drops groups below the minimum size', () => {
    expect(clustersOf(7, [[0, 1, 1], [1, 2, 1], [4, 5, 1], [3, 6, 0.9], [6, 5, 0.9]], 3)).toEqual([[0, 1, 2], [3, 4, 5, 6]]);
    expect(clustersOf(4, [[0, 1, 1]], 3)).toEqual([]);
  });

  it('pairs vectors at the cosine threshold', () => {
    const v = (...x: number[]) => Float32Array.from(x);
    expect(vectorPairs([v(1, 0), v(0.9, Math.sqrt(1 - 0.81)), v(0, 1)], 0.82).map(([a, b, s]) => [a, b, Math.round(s * 100) / 100])).toEqual([[0, 1, 0.9]]);
  });

  it('finds the same vector clusters as comparing every pair, with sketches alone and with blocking, on 5,000 vectors', () => {
    const N = 5000;
    let s = 21;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const unit = (v: Float32Array) => {
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    // 200 topics; each vector is a topic centre plus noise of varying size, some far from any topic
    const d = 64;
    const centres = Array.from({ length: 200 }, () => unit(Float32Array.from({ length: d }, rand)));
    const vectors = Array.from({ length: N }, (_, i) => unit(Float32Array.from(centres[i % 200]!, (x) => x + rand() * (i % 7 === 0 ? 0.6 : 0.12))));
    const packed = new Float32Array(N * d);
    vectors.forEach((v, i) => packed.set(v, i * d));
    const slowPairs = vectorPairs(vectors, 0.82);
    expect(slowPairs.length).toBeGreaterThan(20_000);
    const slow = clustersOf(vectors.length, slowPairs, 3);
    expect(slow.length).toBeGreaterThan(150);
    const sketched = vectorClusters(packed, d, 0.82, 3);
    expect(sketched.clusters).toEqual(slow);
    // every pair's sketches, far fewer pairs' vectors
    expect(sketched.sketched).toBe((N * (N - 1)) / 2);
    expect(sketched.compared).toBeLessThan(sketched.sketched / 10);
    const blocked = vectorClusters(packed, d, 0.82, 3, { blockingFrom: 0 });
    expect(blocked.clusters).toEqual(slow);
    expect(blocked.sketched).toBeLessThan(sketched.sketched * 0.6);
    // the WebAssembly kernel's sums are JavaScript's: the same blocks, pairs compared and groups
    const plain = vectorClusters(packed, d, 0.82, 3, { wasm: false });
    const plainBlocked = vectorClusters(packed, d, 0.82, 3, { blockingFrom: 0, wasm: false });
    expect([plain.clusters, plain.sketched, plain.compared]).toEqual([slow, sketched.sketched, sketched.compared]);
    expect([plainBlocked.clusters, plainBlocked.sketched, plainBlocked.compared]).toEqual([slow, blocked.sketched, blocked.compared]);
  });

  it('clusters rows where they are (options.rows) exactly as the same rows packed: every path, crafted and random', () => {
    let s = 77;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const unit = (v: Float32Array) => {
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    /** The result as comparable values (labels in order, the sketch cache's words). */
    const seen = (r: ReturnType<typeof vectorClusters>) => ({
      clusters: r.clusters,
      labels: r.labels && [...r.labels],
      fresh: r.fresh,
      sketched: r.sketched,
      compared: r.compared,
      fingerprints: r.sketchCache && Array.from(r.sketchCache.fingerprints),
      sketches: r.sketchCache && Array.from(r.sketchCache.sketches),
      kept: r.sketchesKept,
    });
    let cases = 0;
    for (const [n, d, topics] of [[1, 5, 1], [2, 3, 1], [40, 7, 4], [700, 24, 60], [2600, 40, 200]] as const) {
      const centres = Array.from({ length: topics }, () => unit(Float32Array.from({ length: d }, rand)));
      const vectors = Array.from({ length: n }, (_, i) => unit(Float32Array.from(centres[i % topics]!, (x) => x + rand() * (i % 6 === 0 ? 0.7 : 0.1))));
      const packed = new Float32Array(n * d);
      vectors.forEach((v, i) => packed.set(v, i * d));
      // the same rows scattered in a larger array, in another order, junk rows between them
      const size = n * 2 + 3;
      const order = Array.from({ length: size }, (_, i) => i);
      for (let i = size - 1; i > 0; i--) {
        const j = Math.floor((rand() + 0.5) * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const rows = Int32Array.from(order.slice(0, n));
      const scattered = Float32Array.from({ length: size * d }, () => rand() * 1e30);
      vectors.forEach((v, i) => scattered.set(v, rows[i]! * d));
      const keys = vectors.map((_, i) => `k${i}`);
      // the previous night: a tenth of the rows unknown (new), the rest in the groups of the full run
      const night1 = vectorClusters(packed, d, 0.82, 3, { keys });
      const previous = new Map([...night1.labels!].filter(([key]) => Number(key.slice(1)) % 10 !== 3));
      const known = vectorClusters(packed, d, 0.82, 3, { known: null }).sketchCache;
      for (const options of [{}, { blockingFrom: 0 }, { keys }, { keys, previous }, { keys, previous, known: null }, { keys, previous, known: known ?? null }, { blockingFrom: 0, known: null }]) {
        for (const wasm of [true, false]) {
          const reference = vectorClusters(packed, d, 0.82, 3, { ...options, wasm });
          const fast = vectorClusters(scattered, d, 0.82, 3, { ...options, wasm, rows });
          expect([n, options, wasm, seen(fast)]).toEqual([n, options, wasm, seen(reference)]);
          for (const group of reference.clusters) expect(vectorMedoid(scattered, d, group, rows)).toBe(vectorMedoid(packed, d, group));
          cases++;
        }
      }
      if (n === 2600) {
        // the random case is no trivial one: groups carried, rows compared again, sketches kept
        const fresh = vectorClusters(scattered, d, 0.82, 3, { keys, previous, known: known!, rows });
        expect(fresh.clusters.length).toBeGreaterThan(150);
        expect(fresh.fresh).toBe(260); // the rows the previous night did not know
        expect(fresh.sketchesKept).toBe(n);
      }
    }
    expect(cases).toBe(70);
  });

  it('carries groups from one run to the next: comparing only new rows and broken groups finds the same clusters', () => {
    let s = 5;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const d = 48;
    const unit = (v: Float32Array) => {
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const centres = Array.from({ length: 150 }, () => unit(Float32Array.from({ length: d }, rand)));
    const rows = Array.from({ length: 3400 }, (_, i) => unit(Float32Array.from(centres[i % 150]!, (x) => x + rand() * (i % 5 === 0 ? 0.5 : 0.1))));
    const pack = (vs: Float32Array[]) => {
      const packed = new Float32Array(vs.length * d);
      vs.forEach((v, i) => packed.set(v, i * d));
      return packed;
    };
    // night 1: the first 3,000 rows
    const first = rows.slice(0, 3000);
    const night1 = vectorClusters(pack(first), d, 0.82, 3, { keys: first.map((_, i) => `k${i}`) });
    // night 2: 10 of them gone (members of groups, which must be linked again), 400 new rows
    const kept = Array.from({ length: 3400 }, (_, i) => i).filter((i) => i >= 3000 || i % 300 !== 7);
    const vs = kept.map((i) => rows[i]!);
    const keys = kept.map((i) => `k${i}`);
    const incremental = vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels });
    const full = clustersOf(vs.length, vectorPairs(vs, 0.82), 3);
    expect(incremental.clusters).toEqual(full);
    const plain = vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels, wasm: false });
    expect([plain.clusters, plain.labels, plain.fresh, plain.sketched, plain.compared]).toEqual([full, incremental.labels, incremental.fresh, incremental.sketched, incremental.compared]);
    expect(incremental.fresh).toBeGreaterThan(400);
    expect(incremental.fresh).toBeLessThan(vs.length / 4);
    // night 3: nothing new: nothing compared, the same groups
    const again = vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: incremental.labels });
    expect(again.fresh).toBe(0);
    expect(again.sketched).toBe(0);
    expect(again.clusters).toEqual(full);
  });

  it('keeps sketches between runs by their vectors\' fingerprints: the same groups and pairs compared, a vector embedded again sketched again', () => {
    let s = 9;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const d = 40;
    const unit = (v: Float32Array) => {
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const centres = Array.from({ length: 120 }, () => unit(Float32Array.from({ length: d }, rand)));
    const rows = Array.from({ length: 2600 }, (_, i) => unit(Float32Array.from(centres[i % 120]!, (x) => x + rand() * (i % 4 === 0 ? 0.55 : 0.1))));
    const pack = (vs: Float32Array[]) => {
      const packed = new Float32Array(vs.length * d);
      vs.forEach((v, i) => packed.set(v, i * d));
      return packed;
    };
    const first = rows.slice(0, 2400);
    const night1 = vectorClusters(pack(first), d, 0.82, 3, { keys: first.map((_, i) => `k${i}`), known: null });
    // every row's sketch, none kept (there were none)
    expect([night1.sketchCache!.fingerprints.length, night1.sketchCache!.sketches.length, night1.sketchesKept]).toEqual([4800, 4800, 0]);
    expect(Array.from(night1.sketchCache!.fingerprints.slice(0, 2))).toEqual(Array.from(rowFingerprints(pack([first[0]!]), d, 1)));
    // night 2: 200 new rows, row 5 embedded again (the same key, another vector)
    const vs = rows.map((v, i) => (i === 5 ? unit(Float32Array.from(v, (x, j) => x + (j === 0 ? 0.3 : 0))) : v));
    const keys = vs.map((_, i) => `k${i}`);
    const full = clustersOf(vs.length, vectorPairs(vs, 0.82), 3);
    const without = vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels });
    const kept = vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels, known: night1.sketchCache! });
    expect(without.clusters).toEqual(full);
    expect(kept.clusters).toEqual(full);
    // the same pairs sketched and compared as without the cache: 2,399 rows' sketches kept, row 5 and the 200 new ones made
    expect([kept.sketched, kept.compared, kept.sketchesKept]).toEqual([without.sketched, without.compared, 2399]);
    const plain = vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels, known: night1.sketchCache!, wasm: false });
    expect([plain.clusters, plain.labels, plain.sketched, plain.compared, plain.sketchCache]).toEqual([full, kept.labels, kept.sketched, kept.compared, kept.sketchCache]);
    expect(kept.sketchCache!.sketches).toEqual(vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels, known: null }).sketchCache!.sketches);
    // a cache of another dimension is not used
    expect(vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels, known: { ...night1.sketchCache!, dimensions: d + 1 } }).sketchesKept).toBe(0);
    // a sketch found by its fingerprint is used as it is: zeroed ones change what is compared (a damaged file is refused by its checksum: sketch-cache)
    const zeroed = { ...night1.sketchCache!, sketches: new Int32Array(night1.sketchCache!.sketches.length) };
    expect(vectorClusters(pack(vs), d, 0.82, 3, { keys, previous: night1.labels, known: zeroed }).compared).not.toBe(without.compared);
  });

  it('carries lexical groups from one run to the next with the same result as comparing every pair', () => {
    let s = 11;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i}`);
    // 100 topics of 8 words; each text takes 5-7 of its topic's words and 0-3 random ones
    const topics = Array.from({ length: 100 }, () => Array.from({ length: 8 }, () => vocabulary[Math.floor(rand() * 400)]!));
    const texts = Array.from({ length: 2500 }, (_, i) => {
      const topic = topics[i % 100]!;
      const words = topic.filter(() => rand() < 0.75);
      for (let k = Math.floor(rand() * 4); k > 0; k--) words.push(vocabulary[Math.floor(rand() * 400)]!);
      return new Set(words);
    });
    const night1 = lexicalClusters(texts.slice(0, 2000), 0.6, 3, { keys: texts.slice(0, 2000).map((_, i) => `k${i}`) });
    expect(night1.clusters).toEqual(clustersOf(2000, exhaustivePairs(2000, (a, b) => setCosine(texts[a]!, texts[b]!), 0.6), 3));
    const kept = Array.from({ length: 2500 }, (_, i) => i).filter((i) => i >= 2000 || i % 400 !== 3);
    const sets = kept.map((i) => texts[i]!);
    const incremental = lexicalClusters(sets, 0.6, 3, { keys: kept.map((i) => `k${i}`), previous: night1.labels });
    expect(incremental.fresh).toBeGreaterThanOrEqual(500);
    expect(incremental.fresh).toBeLessThan(sets.length / 4);
    expect(incremental.clusters).toEqual(clustersOf(sets.length, exhaustivePairs(sets.length, (a, b) => setCosine(sets[a]!, sets[b]!), 0.6), 3));
    expect(incremental.clusters.length).toBeGreaterThan(50);
    expect(lexicalMedoid([new Set(['a', 'b']), new Set(['a', 'b', 'c']), new Set(['a', 'x'])], [0, 1, 2])).toBe(0);
  });

  it('sums in the WebAssembly kernel to the last bit as dotRows does, and sketches pass as popcount says', () => {
    const kernel = clusterKernel()!;
    expect(kernel).not.toBeNull();
    let s = 3;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    // values of every scale (so that any other order of the sums rounds differently), signed zeros, subnormal and huge floats
    const special = [0, -0, 1e-40, -3e-39, 3e38, -2.5e38, 1, -1, 16777217, 1e-7];
    const value = (k: number) => (k % 11 === 0 ? special[(k / 11) % special.length]! : rand() * 10 ** Math.floor(rand() * 16 - 4));
    const values = new Float32Array(kernel.memory.buffer);
    const differ: string[] = [];
    let k = 0;
    for (let n = 0; n <= 41; n++) {
      for (let rep = 0; rep < 60; rep++) {
        const a = rep % 5;
        const b = a + n + (rep % 3);
        for (let i = 0; i < b + n; i++) values[i] = value(k++);
        const slow = dotRows(values, a, b, 0, n);
        const fast = kernel.dot(a * 4, b * 4, n);
        if (!Object.is(fast, slow)) differ.push(`${n}/${rep}: ${fast} ${slow}`);
      }
    }
    expect(differ).toEqual([]);
    // a sum that another order rounds differently: s0 = 2^53 - 2^53 + 1 (the ninth column), s1 = s2 = s3 = 2;
    // in column order the first seven ones are lost beside 2^53 and the sum is 4
    values.set([2 ** 53, 1, 1, 1, 1, 1, 1, 1, 1], 0);
    values.set([1, 1, 1, 1, -(2 ** 53), 1, 1, 1, 1], 16);
    expect([kernel.dot(0, 64, 9), dotRows(values, 0, 16, 0, 9)]).toEqual([7, 7]);
    // dot64 and dots: the same sums over the values widened to doubles beforehand
    const doubles = new Float64Array(kernel.memory.buffer);
    const wide: string[] = [];
    for (let n = 0; n <= 23; n++) {
      for (let rep = 0; rep < 40; rep++) {
        for (let i = 0; i < 2 * n; i++) values[i] = value(k++);
        doubles.set(values.subarray(0, 2 * n), 1000);
        if (!Object.is(kernel.dot64(8000, 8000 + n * 8, n), dotRows(values, 0, n, 0, n))) wide.push(`${n}/${rep}`);
      }
    }
    expect(wide).toEqual([]);
    for (let i = 0; i < 30; i++) values[i] = value(k++);
    doubles.set(values.subarray(0, 30), 1000);
    kernel.dots(8000, 8000 + 9 * 8, 7, 3, 16000);
    const pivots = Array.from({ length: 7 }, (_, p) => dotRows(values, 0, 9 + p * 3, 0, 3));
    expect(Array.from(new Float64Array(kernel.memory.buffer, 16000, 7))).toEqual(pivots);
    expect(new Set(pivots).size).toBe(7);
    // the sketch test: rows y in [from, to) within maxBits bits of the probe, in order
    const words = new Int32Array(kernel.memory.buffer);
    const bits = (x: number) => {
      let c = 0;
      for (let i = 0; i < 32; i++) c += (x >>> i) & 1;
      return c;
    };
    const probe = [0x12345678, -0x5555556];
    words.set(probe, 0);
    // sketches 0..399 from byte 8: random, and the probe with its low or high bits flipped
    for (let y = 0; y < 400; y++) {
      const flip = y % 3 === 0 ? [(1 << (y % 32)) - 1, 0] : y % 3 === 1 ? [0, -1 >>> (y % 33)] : [rand() * 2 ** 32, rand() * 2 ** 32];
      words[2 + y * 2] = probe[0]! ^ flip[0]!;
      words[3 + y * 2] = probe[1]! ^ flip[1]!;
    }
    for (const [from, to, maxBits] of [[0, 400, 25], [17, 380, 0], [0, 400, 64], [5, 5, 10], [1, 399, 31]] as const) {
      const slow: number[] = [];
      for (let y = from; y < to; y++) if (bits(probe[0]! ^ words[2 + y * 2]!) + bits(probe[1]! ^ words[3 + y * 2]!) <= maxBits) slow.push(y);
      const count = kernel.pass(0, 8, from, to, maxBits, 4000);
      expect(Array.from(words.subarray(1000, 1000 + count))).toEqual(slow);
    }
    // passDots: 5 fresh rows (sketches at byte 8 + 8·y of the 400 above, y = 0, 3, 7, 100, 398) against
    // the 400, leading columns of 6 from byte 8000 (fresh) and 9000 (old); lists from 20000, products from 40000
    const fresh = [0, 3, 7, 100, 398];
    fresh.forEach((y, g) => words.set(words.subarray(2 + y * 2, 4 + y * 2), 4000 / 4 + g * 2));
    for (let i = 0; i < 6 * 5 + 6 * 400; i++) values[8000 / 4 + (i < 30 ? i : i - 30 + 250)] = value(k++);
    words.fill(0, 7000 / 4, 7000 / 4 + 5);
    kernel.passDots(5, 4000, 8, 400, 27, 8000, 9000, 6, 20000, 40000, 7000);
    fresh.forEach((f, g) => {
      const ys: number[] = [];
      const products: number[] = [];
      for (let y = 0; y < 400; y++) {
        if (bits(words[2 + f * 2]! ^ words[2 + y * 2]!) + bits(words[3 + f * 2]! ^ words[3 + y * 2]!) > 27) continue;
        ys.push(y);
        products.push(dotRows(values, 8000 / 4 + g * 6, 9000 / 4 + y * 6, 0, 6));
      }
      const count = words[7000 / 4 + g]!;
      expect(ys.length).toBeGreaterThan(0);
      expect(Array.from(words.subarray(20000 / 4 + g * 400, 20000 / 4 + g * 400 + count))).toEqual(ys);
      expect(Array.from(doubles.subarray(40000 / 8 + g * 400, 40000 / 8 + g * 400 + count))).toEqual(products);
    });
  });

  it('makes the same sketches in the WebAssembly kernel as in JavaScript', () => {
    let s = 29;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    for (const d of [1, 7, 8, 37, 64]) {
      // random rows, a zero row (every sum 0: every bit set), a signed zero, rows of one column, tiny and huge values
      const rows = Array.from({ length: 150 }, (_, i) => Float32Array.from({ length: d }, (_, j) => (i === 0 ? 0 : i === 1 ? -0 : i < 2 + d ? (j === i - 2 ? 1 : 0) : rand() * 10 ** ((i % 9) - 4))));
      const packed = new Float32Array(rows.length * d);
      rows.forEach((v, i) => packed.set(v, i * d));
      const fast = vectorClusters(packed, d, 0.5, 2, { known: null }).sketchCache!;
      const slow = vectorClusters(packed, d, 0.5, 2, { known: null, wasm: false }).sketchCache!;
      expect(Array.from(fast.sketches)).toEqual(Array.from(slow.sketches));
      expect(fast.sketches.slice(0, 4)).toEqual(Int32Array.from([-1, -1, -1, -1]));
    }
    // rows kept from a cache are not sketched again, in either
    const d = 16;
    const packed = Float32Array.from({ length: 200 * d }, rand);
    const first = vectorClusters(packed, d, 0.5, 2, { known: null }).sketchCache!;
    const zeroed = { ...first, sketches: new Int32Array(first.sketches.length) };
    const again = (wasm: boolean) => vectorClusters(packed, d, 0.5, 2, { known: zeroed, wasm }).sketchCache!.sketches;
    expect(Array.from(again(true))).toEqual(Array.from(again(false)));
    expect(again(true).every((w) => w === 0)).toBe(true);
  });

  it('computes the same groups in JavaScript where WebAssembly is missing', () => {
    const saved = globalThis.WebAssembly;
    let s = 17;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const d = 24;
    const unit = (v: Float32Array) => {
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const centres = Array.from({ length: 30 }, () => unit(Float32Array.from({ length: d }, rand)));
    const vectors = Array.from({ length: 600 }, (_, i) => unit(Float32Array.from(centres[i % 30]!, (x) => x + rand() * (i % 3 === 0 ? 0.5 : 0.1))));
    const packed = new Float32Array(vectors.length * d);
    vectors.forEach((v, i) => packed.set(v, i * d));
    const slow = clustersOf(vectors.length, vectorPairs(vectors, 0.82), 3);
    const withKernel = vectorClusters(packed, d, 0.82, 3, { blockingFrom: 0 });
    try {
      delete (globalThis as { WebAssembly?: unknown }).WebAssembly;
      jest.isolateModules(() => {
        const fresh = require('../../../src/core/consolidation/cluster') as typeof import('../../../src/core/consolidation/cluster');
        expect(fresh.clusterKernel()).toBeNull();
        const without = fresh.vectorClusters(packed, d, 0.82, 3, { blockingFrom: 0 });
        expect([without.clusters, without.sketched, without.compared]).toEqual([slow, withKernel.sketched, withKernel.compared]);
      });
    } finally {
      globalThis.WebAssembly = saved;
    }
    expect(slow.length).toBeGreaterThan(20);
    expect(clusterKernel()).not.toBeNull();
  });

  it('links vectors at the threshold and not below it, and picks the member nearest the mean', () => {
    const rows = [
      [1, 0, 0, 0],
      [0.83, Math.sqrt(1 - 0.83 ** 2), 0, 0],
      [0.81, 0, Math.sqrt(1 - 0.81 ** 2), 0],
      [0, 0, 0, 1],
    ];
    const packed = Float32Array.from(rows.flat());
    expect(vectorClusters(packed, 4, 0.82, 2).clusters).toEqual([[0, 1]]);
    expect(vectorClusters(packed, 4, 0.8, 3).clusters).toEqual([[0, 1, 2]]);
    expect(vectorMedoid(packed, 4, [0, 1, 2])).toBe(0);
    expect(vectorClusters(new Float32Array(0), 4, 0.82, 3).clusters).toEqual([]);
    // 16 columns, 8 leading: row 0's last 8 columns sum to a square root past the largest float
    // (its tail bound is Infinity, times row 1's zero tail NaN), yet a·b = 1: the pair is compared
    // in full, as comparing every pair says (a threshold at which every sketch passes)
    const wide = new Float32Array(32);
    wide.set([1, 0, 0, 0, 0, 0, 0, 0, 3e38, 3e38, 3e38, 3e38, 3e38, 3e38, 3e38, 3e38], 0);
    wide[16] = 1;
    const linked = clustersOf(2, vectorPairs([wide.subarray(0, 16), wide.subarray(16)], -0.95), 2);
    expect(linked).toEqual([[0, 1]]);
    expect(vectorClusters(wide, 16, -0.95, 2).clusters).toEqual(linked);
    expect(vectorClusters(wide, 16, -0.95, 2, { wasm: false }).clusters).toEqual(linked);
  });
});
