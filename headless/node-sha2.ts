import { sha256 as jsSha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/**
 * `@noble/hashes/sha2`'s sha256 for the Node builds (esbuild.config.mjs aliases it here): the
 * same digest from OpenSSL. The core hashes every memory it writes (its id, its content_hash),
 * and noble's pure-JavaScript SHA-256 was 7 % of an import of 10,000 lines (1.2 s of 17 s in a
 * CPU profile); the plugin and the tests keep noble, which has no Node dependency.
 * crypto.hash (Node 20.12+) digests in one call, without a Hash object per text (a first recall
 * hashes 10,000 texts: 2-5x faster than createHash); older Node takes createHash.
 *
 * node:crypto is loaded at the 17th hash of a process: loading it (with the node:stream stack
 * it pulls in) costs ~14 ms, and a cold touch hashes one short text (its place stamp) and a
 * few bodies; the first 16 go through noble's JavaScript (the same digests; `@noble/hashes/sha2.js`
 * is not aliased), in microseconds each.
 */
type Crypto = typeof import('node:crypto') & { hash?: (algorithm: string, data: Uint8Array | string, encoding: 'buffer' | 'hex') => Buffer | string };
let crypto: Crypto | undefined;
/** Hashes left before node:crypto is worth loading. */
let inJavaScript = 16;

function loaded(): Crypto | undefined {
  if (crypto === undefined && inJavaScript-- <= 0) crypto = require('node:crypto') as Crypto;
  return crypto;
}

export function sha256(bytes: Uint8Array): Uint8Array {
  const c = loaded();
  if (c === undefined) return jsSha256(bytes);
  return c.hash ? (c.hash('sha256', bytes, 'buffer') as Buffer) : c.createHash('sha256').update(bytes).digest();
}

/**
 * The hex digest of a text's UTF-8 bytes (src/core/ids.ts sha256Hex takes it when the sha256 it
 * imports has it): crypto.hash reads the string and writes the hex itself, where the core
 * encoded the text and hexed the digest in JavaScript (5 % of a first recall at 10k, which hashes
 * each of 10,000 bodies).
 */
sha256.hex = (text: string): string => {
  const c = loaded();
  if (c?.hash) return c.hash('sha256', text, 'hex') as string;
  return bytesToHex(sha256(utf8ToBytes(text)));
};
