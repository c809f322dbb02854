import type { PinnedFile } from './downloads';

/**
 * The cl100k_base token table (what the agent memory block's budget is counted in), 1.7 MB: not
 * bundled (main.js stays small); fetched once from OpenAI's published URL, the same file and
 * SHA-256 that OpenAI's tiktoken checks.
 */
export const CL100K: PinnedFile = {
  name: 'cl100k_base.tiktoken',
  url: 'https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken',
  sha256: '223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7',
  bytes: 1681126,
  purpose: 'counting the tokens of the agent memory block',
};

/**
 * cl100k_base's pre-tokenisation (tiktoken's pattern: contractions case-insensitively, letters
 * with one leading non-letter, up to three digits, punctuation runs, whitespace).
 */
const PIECES = /'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s/gu;

/** The table as a map from a token's bytes (one char per byte) to its rank. */
export function parseTiktoken(table: Uint8Array): Map<string, number> {
  const text = new TextDecoder().decode(table);
  const ranks = new Map<string, number>();
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) ranks.set(atob(line.slice(0, space)), Number(line.slice(space + 1)));
  }
  return ranks;
}

const encoder = new TextEncoder();

/** A string's UTF-8 bytes as one char per byte (the table's keys). */
function bytesOf(text: string): string {
  const bytes = encoder.encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 4096) out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  return out;
}

/**
 * Counting cl100k_base tokens exactly as tiktoken encodes (byte-pair merges by rank), without a
 * tokenizer library: the table is downloaded, the algorithm is this page.
 */
export function tokenCounter(table: Uint8Array): (text: string) => number {
  const ranks = parseTiktoken(table);
  const cache = new Map<string, number>();
  const merge = (piece: string): number => {
    const starts = Array.from({ length: piece.length + 1 }, (_, i) => i);
    const rank = (i: number) => (i + 2 < starts.length ? ranks.get(piece.slice(starts[i], starts[i + 2])) ?? Infinity : Infinity);
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
  return (text) => {
    let n = 0;
    for (const match of text.matchAll(PIECES)) {
      const piece = bytesOf(match[0]);
      if (ranks.has(piece)) n++;
      else {
        let count = cache.get(piece);
        if (count === undefined) {
          count = merge(piece);
          if (cache.size < 50_000) cache.set(piece, count);
        }
        n += count;
      }
    }
    return n;
  };
}
