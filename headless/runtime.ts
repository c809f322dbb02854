import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
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

/** Where the vault is and what time it is: everything a command needs to open the vault. */
export interface RuntimeOptions {
  vault?: string;
  now?: string;
  seed?: string;
  cwd: string;
  env: Record<string, string | undefined>;
}

/**
 * The memory folder: the folder that holds `.engram/` (`--vault DIR`, else `$ENGRAM_VAULT`, else
 * the current folder if it holds `.engram/`). DIR may also be the Obsidian vault the memory
 * folder sits in: a folder with `.obsidian/` and no `.engram/` of its own stands for the memory
 * folder the Engram plugin uses there (its `folder` setting, `memory` by default), so the same
 * path works for the plugin, the runner, MCP and cron.
 */
export function vaultRoot(options: RuntimeOptions): string {
  const dir = options.vault ?? options.env.ENGRAM_VAULT;
  if (dir) return memoryFolderIn(nodePath.resolve(options.cwd, dir));
  if (existsSync(nodePath.join(options.cwd, LAYOUT.machine))) return options.cwd;
  throw new UsageError('no memory folder: pass --vault DIR or set ENGRAM_VAULT (the folder holding .engram/, or the Obsidian vault it is in)');
}

/** The Obsidian plugin's id: its settings are `.obsidian/plugins/<id>/data.json`. */
export const PLUGIN_ID = 'engram-memory';

/** DIR itself when it is a memory folder or no Obsidian vault; else the plugin's memory folder in it. */
export function memoryFolderIn(dir: string): string {
  if (existsSync(nodePath.join(dir, LAYOUT.machine)) || !existsSync(nodePath.join(dir, '.obsidian'))) return dir;
  const folder = pluginFolderSetting(dir);
  return folder ? nodePath.join(dir, folder) : dir;
}

/** The plugin's `folder` setting in an Obsidian vault (`memory` when the plugin has saved none). */
function pluginFolderSetting(obsidianVault: string): string {
  const data = nodePath.join(obsidianVault, '.obsidian', 'plugins', PLUGIN_ID, 'data.json');
  try {
    const parsed: unknown = JSON.parse(readRegularFile(data));
    const folder = parsed && typeof parsed === 'object' ? (parsed as { folder?: unknown }).folder : undefined;
    if (typeof folder === 'string' && !folder.split(/[\\/]/).includes('..')) return folder.replace(/^\/+|\/+$/g, '');
  } catch {
    // no settings saved yet (or unreadable): the plugin's default
  }
  return 'memory';
}

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
function lazyTokenCounter(): TokenCounter {
  let exact: ((text: string) => number) | null = null;
  let sorted: ((text: string) => number) | null | undefined;
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

/** A regular file's text, opened without blocking: a FIFO in its place is an error, not a hang. */
function readRegularFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
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
