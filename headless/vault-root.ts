import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { UsageError } from '../src/core/errors';

/**
 * Where a command's vault is, from its options alone: shared by the CLI (headless/runtime.ts) and
 * the launcher (dist/engram.js), which asks it before it loads the CLI bundle, to find the
 * vault's `engram serve` (headless/serve-client.ts). Kept apart so the launcher stays small:
 * node:fs, node:path and the error classes only.
 */

/** The machine folder, LAYOUT.machine (src/core/vault.ts; a test holds them equal). */
export const MACHINE_FOLDER = '.engram';

/** The Obsidian plugin's id: its settings are `.obsidian/plugins/<id>/data.json`. */
export const PLUGIN_ID = 'engram-memory';

/**
 * The memory folder: the folder that holds `.engram/` (`--vault DIR`, else `$ENGRAM_VAULT`, else
 * the current folder if it holds `.engram/`). DIR may also be the Obsidian vault the memory
 * folder sits in: a folder with `.obsidian/` and no `.engram/` of its own stands for the memory
 * folder the Engram plugin uses there (its `folder` setting, `memory` by default), so the same
 * path works for the plugin, the runner, MCP and cron.
 */
export function vaultRoot(options: { vault?: string; cwd: string; env: Record<string, string | undefined> }): string {
  const dir = options.vault ?? options.env.ENGRAM_VAULT;
  if (dir) return memoryFolderIn(nodePath.resolve(options.cwd, dir));
  if (existsSync(nodePath.join(options.cwd, MACHINE_FOLDER))) return options.cwd;
  throw new UsageError('no memory folder: pass --vault DIR or set ENGRAM_VAULT (the folder holding .engram/, or the Obsidian vault it is in)');
}

/** DIR itself when it is a memory folder or no Obsidian vault; else the plugin's memory folder in it. */
export function memoryFolderIn(dir: string): string {
  if (existsSync(nodePath.join(dir, MACHINE_FOLDER)) || !existsSync(nodePath.join(dir, '.obsidian'))) return dir;
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

/** A regular file's text, opened without blocking: a FIFO in its place is an error, not a hang. */
export function readRegularFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
