import { normalizePath, type App } from 'obsidian';
import type { Tier } from '../core/settings';
import { TIER_COLOURS } from '../core/vault';
import { GRAPH_TIERS } from './graph/graph-model';

/** A colour group of Obsidian's graph view (`graph.json`): notes matching `query` take `color`. */
export interface ColourGroup {
  query: string;
  color: { a: number; rgb: number };
}

const TIER_QUERY = /^\[tier:(core|active|warm|cold|archive)\]$/;

/**
 * The graph's colour groups with one group per tier first (the first matching group colours a
 * note, so the user's own groups would otherwise win over the tiers), then the user's groups in
 * their order, without any earlier tier groups (replaced by the current colours).
 */
export function tierGroupsFirst(existing: unknown, colours: Record<Tier, number>): ColourGroup[] {
  const user = Array.isArray(existing) ? (existing as unknown[]) : [];
  const kept = user.filter((g): g is ColourGroup => typeof g === 'object' && g !== null && typeof (g as { query?: unknown }).query === 'string' && !TIER_QUERY.test((g as ColourGroup).query));
  return [...GRAPH_TIERS.map((tier) => ({ query: `[tier:${tier}]`, color: { a: 1, rgb: colours[tier] } })), ...kept];
}

/**
 * The tier colours as Engram's own views show them: the `--engram-tier-*` CSS variables (the
 * theme's colours, styles.css), so the native graph and Engram's graph agree; the fallbacks of
 * styles.css where a value cannot be read.
 */
export function tierColours(doc: Document): Record<Tier, number> {
  const style = doc.defaultView?.getComputedStyle(doc.body);
  const out = { ...TIER_COLOURS } as Record<Tier, number>;
  for (const tier of GRAPH_TIERS) {
    const rgb = parseColour(style?.getPropertyValue(`--engram-tier-${tier}`) ?? '');
    if (rgb !== null) out[tier] = rgb;
  }
  return out;
}

/** `#rgb`, `#rrggbb` or `rgb(r, g, b)` as a 24-bit number (null for anything else). */
export function parseColour(value: string): number | null {
  const text = value.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(text)?.[1];
  if (hex) return parseInt(hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex, 16);
  const rgb = /^rgba?\(\s*(\d{1,3})[\s,]+(\d{1,3})[\s,]+(\d{1,3})/.exec(text);
  if (!rgb) return null;
  const [r, g, b] = [rgb[1], rgb[2], rgb[3]].map((n) => Math.min(255, Number(n)));
  return (r! << 16) | (g! << 8) | b!;
}

/** The running core graph plugin, as far as Engram uses it (not part of the public API). */
interface GraphPlugin {
  enabled: boolean;
  instance: { options: { colorGroups?: unknown }; saveOptions(): unknown };
}

function runningGraphPlugin(app: App): GraphPlugin | null {
  const internal = (app as unknown as { internalPlugins?: { getPluginById?: (id: string) => unknown } }).internalPlugins;
  const plugin = internal?.getPluginById?.('graph') as Partial<GraphPlugin> | null | undefined;
  const instance = plugin?.instance;
  if (!plugin?.enabled || !instance || typeof instance.options !== 'object' || instance.options === null || typeof instance.saveOptions !== 'function') return null;
  return plugin as GraphPlugin;
}

/**
 * Put the tier groups first in Obsidian's graph settings. When the core graph plugin is running
 * it holds the settings in memory and writes them to `graph.json` itself (a file written under
 * it is overwritten when a graph view closes), so the groups go into its options, it saves them,
 * and open graph views are reopened to show them; otherwise `graph.json` is written, which the
 * plugin reads when it starts. Returns how they were installed.
 */
export async function installTierGroups(app: App, colours: Record<Tier, number>): Promise<'live' | 'file'> {
  const graph = runningGraphPlugin(app);
  if (graph) {
    graph.instance.options.colorGroups = tierGroupsFirst(graph.instance.options.colorGroups, colours);
    await graph.instance.saveOptions();
    for (const leaf of app.workspace.getLeavesOfType('graph')) {
      const state = leaf.getViewState();
      await leaf.setViewState({ type: 'empty' });
      await leaf.setViewState(state);
    }
    return 'live';
  }
  const path = normalizePath(`${app.vault.configDir}/graph.json`);
  const adapter = app.vault.adapter;
  const current: unknown = (await adapter.exists(path)) ? JSON.parse(await adapter.read(path)) : {};
  const json: Record<string, unknown> = typeof current === 'object' && current !== null && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
  json.colorGroups = tierGroupsFirst(json.colorGroups, colours);
  await adapter.write(path, `${JSON.stringify(json, null, 2)}\n`);
  return 'file';
}
