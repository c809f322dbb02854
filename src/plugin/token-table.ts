import { bpeCounter } from '../core/bpe-count';
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

/**
 * Counting cl100k_base tokens exactly as tiktoken encodes (byte-pair merges by rank), without a
 * tokenizer library: the table is downloaded, the algorithm is src/core/bpe-count.ts.
 */
export function tokenCounter(table: Uint8Array): (text: string) => number {
  const ranks = parseTiktoken(table);
  return bpeCounter((bytes) => ranks.get(bytes));
}
