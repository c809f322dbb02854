import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { PathError } from './errors';

/** SPEC §2: `mem-` and 12 lowercase hex/alnum characters, in the frontmatter; the file name is free (ADR 0005). */
export const MEMORY_ID = /^mem-[a-z0-9]{12}$/;

export function isMemoryId(value: string): boolean {
  return MEMORY_ID.test(value);
}

export function assertMemoryId(value: string): string {
  if (!isMemoryId(value)) {
    throw new PathError(`not a memory id: ${JSON.stringify(value)} (expected mem- and 12 lowercase letters or digits)`);
  }
  return value;
}

/** A sha256 with a hex digest of text of its own (the Node builds': headless/node-sha2.ts). */
const hexOfText = (sha256 as typeof sha256 & { hex?: (text: string) => string }).hex;

export function sha256Hex(text: string): string {
  return hexOfText ? hexOfText(text) : bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * A new memory's id, derived from what it says and when: the same import replayed with
 * the same clock gives the same ids. `attempt` moves past a (rare) collision.
 */
export function deriveMemoryId(text: string, createdAt: string, attempt = 0): string {
  return `mem-${sha256Hex(`${createdAt}\u0000${text}\u0000${attempt}`).slice(0, 12)}`;
}

/** SPEC §2 `content_hash`: detects edits of the body made outside Engram (e.g. in Obsidian). */
export function contentHash(body: string): string {
  return sha256Hex(body.trim()).slice(0, 16);
}

/**
 * A vault-relative path from user input, normalised to '/' separators; rejects absolute
 * paths, `..` segments, NUL bytes and empty segments so input can never leave the vault.
 */
export function safeRelativePath(input: string): string {
  const path = input.replace(/\\/g, '/');
  if (path.includes('\0')) throw new PathError(`invalid path ${JSON.stringify(input)}: NUL byte`);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
    throw new PathError(`invalid path ${JSON.stringify(input)}: must be relative to the vault`);
  }
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) throw new PathError(`invalid path ${JSON.stringify(input)}: empty`);
  if (parts.includes('..')) throw new PathError(`invalid path ${JSON.stringify(input)}: leaves the vault`);
  return parts.join('/');
}
