// Shared by the benchmarks' synthetic corpora: a seeded generator and a Zipf sampler (as in
// natural text: a few words in most texts, most words rare).

/** A deterministic pseudo-random generator in [0, 1) (a linear congruential generator). */
export function rng(seed) {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** A function drawing words of `vocabulary` with probability proportional to 1 / rank. */
export function zipfSampler(rand, vocabulary) {
  const cumulative = [];
  let sum = 0;
  for (let r = 1; r <= vocabulary.length; r++) cumulative.push((sum += 1 / r));
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo];
  };
}
