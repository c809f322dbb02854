import { normalizePath } from 'obsidian';

/** The plugin's own settings (data.json); the memory model's live in `.engram/config.json`, shared with the runner. */
export interface PluginSettings {
  /** The memory folder inside this vault ('' = the vault itself). */
  folder: string;
  touchOnOpen: boolean;
  /** Opening a note again within this many minutes of its last counted open is the same use. */
  reopenMinutes: number;
  /** The opened note is written this long after the open. */
  debounceMs: number;
  /** A note typed in within this time is not written. */
  quietMs: number;
  /** Deferred writes (co-access partners, spread activation, tier upkeep) go out in batches this often. */
  batchMs: number;
  /** Cards drawn by creative recall. */
  creativeCount: number;
  /** Files the user agreed to download (by name). */
  allowedDownloads: string[];
}

export const DEFAULT_PLUGIN_SETTINGS: PluginSettings = {
  folder: 'memory',
  touchOnOpen: true,
  reopenMinutes: 10,
  debounceMs: 1500,
  quietMs: 5000,
  batchMs: 30_000,
  creativeCount: 5,
  allowedDownloads: [],
};

export function resolvePluginSettings(data: unknown): PluginSettings {
  const given = typeof data === 'object' && data !== null ? (data as Partial<PluginSettings>) : {};
  const out = { ...DEFAULT_PLUGIN_SETTINGS };
  if (typeof given.folder === 'string') out.folder = given.folder === '' || given.folder === '/' ? '' : normalizePath(given.folder);
  if (typeof given.touchOnOpen === 'boolean') out.touchOnOpen = given.touchOnOpen;
  if (Array.isArray(given.allowedDownloads)) out.allowedDownloads = given.allowedDownloads.filter((n): n is string => typeof n === 'string');
  for (const key of ['reopenMinutes', 'debounceMs', 'quietMs', 'batchMs', 'creativeCount'] as const) {
    const value = given[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}
