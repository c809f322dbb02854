import { createHash } from 'node:crypto';

/**
 * `@noble/hashes/sha2`'s sha256 for the Node builds (esbuild.config.mjs aliases it here): the
 * same digest from OpenSSL. The core hashes every memory it writes (its id, its content_hash),
 * and noble's pure-JavaScript SHA-256 was 7 % of an import of 10,000 lines (1.2 s of 17 s in a
 * CPU profile); the plugin and the tests keep noble, which has no Node dependency.
 */
export function sha256(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(bytes).digest();
}
