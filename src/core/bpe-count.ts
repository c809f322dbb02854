/**
 * Counting cl100k_base tokens exactly as tiktoken encodes (byte-pair merges by rank, OpenAI's
 * tiktoken and gpt-tokenizer), given only a way to look a byte string's rank up. The plugin
 * looks ranks up in a map of the downloaded table (src/plugin/token-table.ts); the CLI in a
 * table sorted by bytes that the build writes (dist/cl100k.js), which needs no map of 100,000
 * entries built at each start.
 */

/** A byte string (one char per byte) -> its rank, or undefined when it is no token. */
export type RankOf = (bytes: string) => number | undefined;

/**
 * cl100k_base's pre-tokenisation (tiktoken's pattern: contractions case-insensitively, letters
 * with one leading non-letter, up to three digits, punctuation runs, whitespace).
 */
const PIECES = /'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s/gu;

const encoder = new TextEncoder();

/** A string's UTF-8 bytes as one char per byte (the table's keys). */
function bytesOf(text: string): string {
  const bytes = encoder.encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 4096) out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  return out;
}

/** A text's cl100k_base token count (special tokens such as <|endoftext|> counted as plain text). */
export function bpeCounter(rankOf: RankOf): (text: string) => number {
  const cache = new Map<string, number>();
  const merge = (piece: string): number => {
    const starts = Array.from({ length: piece.length + 1 }, (_, i) => i);
    const rank = (i: number) => (i + 2 < starts.length ? rankOf(piece.slice(starts[i], starts[i + 2])) ?? Infinity : Infinity);
    const pairRanks = starts.map((_, i) => rank(i));
    for (;;) {
      let best = Infinity;
      let at = -1;
      for (let i = 0; i < pairRanks.length - 1; i++) {
        if (pairRanks[i]! < best) {
          best = pairRanks[i]!;
          at = i;
        }
      }
      if (at < 0) return starts.length - 1;
      starts.splice(at + 1, 1);
      pairRanks.splice(at + 1, 1);
      pairRanks[at] = rank(at);
      if (at > 0) pairRanks[at - 1] = rank(at - 1);
    }
  };
  // each piece's count by its text: a word met again (most of a text's pieces, and all of them
  // when a process counts the same memories again) costs one look-up, not its UTF-8 bytes and a
  // search of the table
  return (text) => {
    let n = 0;
    for (const match of text.matchAll(PIECES)) {
      const piece = match[0];
      let count = cache.get(piece);
      if (count === undefined) {
        const bytes = bytesOf(piece);
        count = rankOf(bytes) !== undefined ? 1 : merge(bytes);
        if (cache.size < 50_000) cache.set(piece, count);
      }
      n += count;
    }
    return n;
  };
}

/**
 * The ranks as the build writes them: every token's bytes (one char per byte) concatenated in
 * byte order, where token i is keys[offsets[i], offsets[i + 1]), and its rank.
 */
export interface SortedRanks {
  keys: string;
  offsets: Uint32Array;
  ranks: Uint32Array;
}

/** Rank look-up by binary search in a sorted table (a string's < is byte order for one char per byte). */
export function sortedRankOf(table: SortedRanks): RankOf {
  const { keys, offsets, ranks } = table;
  return (bytes) => {
    let lo = 0;
    let hi = ranks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const key = keys.slice(offsets[mid], offsets[mid + 1]);
      if (key === bytes) return ranks[mid]!;
      if (key < bytes) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  };
}
