import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
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

type Ranks = Array<string | number[]>;

/**
 * A `.tiktoken` file (one `base64-token rank` per line) as the ranks gpt-tokenizer takes: the
 * token as a string where its bytes are UTF-8 that round-trips, else the bytes.
 */
export function parseTiktoken(text: string): Ranks {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const encoder = new TextEncoder();
  const ranks: Ranks = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const space = line.indexOf(' ');
    const rank = Number(line.slice(space + 1));
    const binary = atob(line.slice(0, space));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    let token: string | number[];
    try {
      const asText = decoder.decode(bytes);
      token = encoder.encode(asText).length === bytes.length ? asText : [...bytes];
    } catch {
      token = [...bytes];
    }
    ranks[rank] = token;
  }
  return ranks;
}

/** A token counter over a parsed table. */
export function tokenCounter(table: Uint8Array): (text: string) => number {
  const ranks = parseTiktoken(new TextDecoder().decode(table));
  const api = GptEncoding.getEncodingApi('cl100k_base', () => ranks);
  return (text) => api.countTokens(text);
}
