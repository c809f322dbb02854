import { existsSync, realpathSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import * as nodePath from 'node:path';
import { bpeCounter, sortedRankOf, type SortedRanks } from '../src/core/bpe-count';
import { UsageError, EngramError } from '../src/core/errors';
import type { Ports, Random, TokenCounter } from '../src/core/ports';
import { seededRandom } from '../src/core/random';
import { resolveSettings, type EngramSettings } from '../src/core/settings';
import { parseTimestamp } from '../src/core/time';
import { LAYOUT, Vault } from '../src/core/vault';
import { NodeFileStore } from './fs-files';
import { NodeLocks } from './locks';
import { readRegularFile, vaultRoot } from './vault-root';

/** Where the vault is and what time it is: everything a command needs to open the vault. */
export interface RuntimeOptions {
  vault?: string;
  now?: string;
  seed?: string;
  cwd: string;
  env: Record<string, string | undefined>;
}

export { memoryFolderIn, PLUGIN_ID, vaultRoot } from './vault-root';

export function parseNow(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = parseTimestamp(value);
  if (ms === null) throw new UsageError(`--now: expected an ISO-8601 date-time such as 2026-04-30T09:10:00Z, got ${JSON.stringify(value)}`);
  return ms;
}

/**
 * cl100k_base token counts, ready on first use: from the sorted rank table the build writes
 * beside the bundle (dist/cl100k.js, a few ms to load), or from gpt-tokenizer (~180 ms to load)
 * where there is none (the sources run by the tests) and for a text holding `<|`, whose special
 * tokens gpt-tokenizer refuses as it always did. The same counts: test/headless/token-count.test.ts.
 */
/**
 * One counter a process, shared by the vaults it opens: the merges it has counted stay counted
 * (bpeCounter's cache), which is what a long-lived process (engram serve, engram mcp) asks for
 * again and again. Counts are the same either way.
 */
let exact: ((text: string) => number) | null = null;
let sorted: ((text: string) => number) | null | undefined;

function lazyTokenCounter(): TokenCounter {
  const gptTokenizer = (): ((text: string) => number) =>
    (exact ??= (require('gpt-tokenizer/encoding/cl100k_base') as { countTokens: (t: string) => number }).countTokens);
  return {
    count(text: string): number {
      if (text.includes('<|')) return gptTokenizer()(text);
      if (sorted === undefined) sorted = sortedTableCounter();
      return (sorted ?? gptTokenizer())(text);
    },
  };
}

function sortedTableCounter(): ((text: string) => number) | null {
  const file = nodePath.join(__dirname, 'cl100k.js');
  if (!existsSync(file)) return null;
  return bpeCounter(sortedRankOf(require(file) as SortedRanks));
}

export function loadSettings(root: string): EngramSettings {
  const path = nodePath.join(root, LAYOUT.config);
  if (!existsSync(path)) return resolveSettings(undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readRegularFile(path));
  } catch (error) {
    throw new EngramError(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return resolveSettings(parsed, LAYOUT.config);
}

/**
 * Where this vault is opened from (Ports.place): the host name and the folder's real path. A
 * copy of the vault elsewhere, on this machine or another, is another place.
 */
export function placeOf(root: string): string {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // not there yet (init creates it): its path as given
  }
  return `${hostname()}\n${nodePath.resolve(real)}`;
}

export interface Runtime {
  vault: Vault;
  root: string;
  files: NodeFileStore;
}

/** Open a vault; `requireInit` refuses a folder that `engram init` has not prepared. */
export function openVault(options: RuntimeOptions, requireInit = true): Runtime {
  const root = vaultRoot(options);
  if (requireInit) {
    if (!existsSync(root) || !statSync(root).isDirectory()) throw new EngramError(`${root}: no such folder (run engram init)`);
    if (!existsSync(nodePath.join(root, LAYOUT.version))) throw new EngramError(`${root}: not an Engram vault (run engram --vault ${root} init)`);
  }
  const fixed = parseNow(options.now);
  const random: Random = options.seed !== undefined ? seededRandom(options.seed) : Math.random;
  const files = new NodeFileStore(root);
  const ports: Ports = {
    files,
    locks: new NodeLocks(root),
    clock: { now: () => fixed ?? Date.now() },
    random,
    tokens: lazyTokenCounter(),
    place: placeOf(root),
  };
  return { vault: new Vault(ports, requireInit ? loadSettings(root) : resolveSettings(undefined)), root, files };
}

/** Whether a folder sits inside an Obsidian vault already (an ancestor with `.obsidian/`). */
export function insideObsidianVault(root: string): boolean {
  return obsidianVaultAround(root) !== null;
}

/** The Obsidian vault a folder sits in: its nearest ancestor with `.obsidian/`, or null. */
export function obsidianVaultAround(root: string): string | null {
  let dir = nodePath.dirname(nodePath.resolve(root));
  for (;;) {
    if (existsSync(nodePath.join(dir, '.obsidian'))) return dir;
    const parent = nodePath.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
