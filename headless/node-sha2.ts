/**
 * `@noble/hashes/sha2`'s sha256 for the Node builds (esbuild.config.mjs aliases it here): the
 * same digest from OpenSSL. The core hashes every memory it writes (its id, its content_hash),
 * and noble's pure-JavaScript SHA-256 was 7 % of an import of 10,000 lines (1.2 s of 17 s in a
 * CPU profile); the plugin and the tests keep noble, which has no Node dependency.
 * crypto.hash (Node 20.12+) digests in one call, without a Hash object per text (a first recall
 * hashes 10,000 texts: 2-5x faster than createHash); older Node takes createHash. node:crypto is
 * loaded at the first hash, not at start: a cold recall, context or touch hashes nothing.
 */
type Crypto = typeof import('node:crypto') & { hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer };
let crypto: Crypto | undefined;

export function sha256(bytes: Uint8Array): Uint8Array {
  crypto ??= require('node:crypto') as Crypto;
  return crypto.hash ? crypto.hash('sha256', bytes, 'buffer') : crypto.createHash('sha256').update(bytes).digest();
}
