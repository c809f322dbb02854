import { isMemoryId } from './ids';

/** SPEC §2: typed links are wikilinks `[[id|kind]]`. */
export const LINK_KINDS = ['related', 'decays_from', 'supersedes', 'contradicts'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export interface MemoryLink {
  target: string;
  kind: LinkKind;
}

const WIKILINK = /\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g;

/**
 * The typed links in a memory's body. A wikilink to a memory id without a known kind
 * (`[[mem-x]]` or `[[mem-x|some label]]`) counts as `related`; links to other notes are ignored.
 */
export function parseLinks(body: string): MemoryLink[] {
  const links: MemoryLink[] = [];
  const seen = new Set<string>();
  for (const m of body.matchAll(WIKILINK)) {
    const target = m[1]!.trim().replace(/\.md$/, '').split('/').pop()!;
    if (!isMemoryId(target)) continue;
    const label = (m[2] ?? '').trim();
    const kind: LinkKind = (LINK_KINDS as readonly string[]).includes(label) ? (label as LinkKind) : 'related';
    const key = `${target}|${kind}`;
    if (seen.has(key)) continue;
    seen.add(key);
    links.push({ target, kind });
  }
  return links;
}

export function formatLink(link: MemoryLink): string {
  return `[[${link.target}|${link.kind}]]`;
}
