import { normalizePath } from 'obsidian';

/** The plugin's own settings (data.json); the memory model's live in `.engram/config.json`, shared with the runner. */
export interface PluginSettings {
  /** The memory folder inside this vault ('' = the vault itself). */
  folder: string;
  touchOnOpen: boolean;
  /** Re-opening a note within this time makes one write. */
  debounceMs: number;
  /** A note typed in within this time is not written. */
  quietMs: number;
  /** Cards drawn by creative recall. */
  creativeCount: number;
}

export const DEFAULT_PLUGIN_SETTINGS: PluginSettings = {
  folder: 'memory',
  touchOnOpen: true,
  debounceMs: 1500,
  quietMs: 5000,
  creativeCount: 5,
};

export function resolvePluginSettings(data: unknown): PluginSettings {
  const given = typeof data === 'object' && data !== null ? (data as Partial<PluginSettings>) : {};
  const out = { ...DEFAULT_PLUGIN_SETTINGS };
  if (typeof given.folder === 'string') out.folder = given.folder === '' || given.folder === '/' ? '' : normalizePath(given.folder);
  if (typeof given.touchOnOpen === 'boolean') out.touchOnOpen = given.touchOnOpen;
  for (const key of ['debounceMs', 'quietMs', 'creativeCount'] as const) {
    const value = given[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}
