import { EDGE_KINDS, GRAPH_TIERS } from './graph-model';
import type { Palette } from './memory-graph';

export const FALLBACK_PALETTE: Palette = {
  core: '#a882ff',
  active: '#44cf6e',
  warm: '#e0ac00',
  cold: '#027aff',
  archive: '#8a8a8a',
  related: '#6c6c6c',
  co_access: '#44cf6e',
  decays_from: '#a882ff',
  contradicts: '#fb464c',
  background: '#1e1e1e',
};

/** The palette from the theme (styles.css' --engram-tier-* and --engram-edge-* variables). */
export function readPalette(el: HTMLElement): Palette {
  const out = { ...FALLBACK_PALETTE };
  const style = el.ownerDocument.defaultView?.getComputedStyle(el);
  if (!style) return out;
  for (const key of [...GRAPH_TIERS, ...EDGE_KINDS]) {
    const value = style.getPropertyValue(`--engram-${(GRAPH_TIERS as readonly string[]).includes(key) ? 'tier' : 'edge'}-${key.replace('_', '-')}`).trim();
    if (/^#[0-9a-f]{6}$/i.test(value) || /^rgba?\(/i.test(value)) out[key] = value;
  }
  const background = style.getPropertyValue('--background-primary').trim() || style.backgroundColor;
  if (/^#[0-9a-f]{6}$/i.test(background) || /^rgb\(/i.test(background)) out.background = background;
  return out;
}

