import { isMemoryId } from './ids';

/**
 * SPEC §2, ADR 0005: typed links are wikilinks `[[File name|kind]]` (Obsidian resolves them by
 * file name), and the ids they point to are kept in the frontmatter (`link_ids`), which is
 * what Engram believes: a link whose file was renamed outside Obsidian is repaired from it.
 * Links written before (`[[mem-…|kind]]`, by id) still count.
 */
export const LINK_KINDS = ['related', 'decays_from', 'supersedes', 'contradicts'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export interface MemoryLink {
  /** The memory linked to, by id. */
  target: string;
  kind: LinkKind;
  /** Its file name (without `.md`) when the link is written: what Obsidian resolves. */
  name?: string;
}

/** The frontmatter field holding the ids of a memory's typed links: `["related mem-…", "supersedes mem-…"]`. */
export const LINK_IDS_FIELD = 'link_ids';

/** A note's name as Obsidian links to it: the file name without `.md`. */
export function noteName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');
}

/** The `link_ids` value for links. */
export function linkIdsValue(links: MemoryLink[]): string[] {
  return links.map((l) => `${l.kind} ${l.target}`);
}

/**
 * The links a `link_ids` value records (entries that are not `KIND mem-…` are ignored): what
 * `/^(\w+) (mem-[a-z0-9]{12})$/` finds in each trimmed entry (the tests keep it as the reference),
 * read where the entry stands: an id is 16 characters, so the space is the 17th from the end, and
 * a kind of LINK_KINDS is a word. A first recall at 10k reads one or two entries of each memory:
 * the pattern's match arrays and a closure for each were 12-20 ms of its profile.
 */
export function parseLinkIds(value: unknown): MemoryLink[] {
  if (!Array.isArray(value)) return [];
  const out: MemoryLink[] = [];
  for (const entry of value) {
    if (typeof entry !== 'string') continue;
    const text = entry.trim();
    const space = text.length - 17;
    if (space < 1 || text.charCodeAt(space) !== 0x20) continue;
    const target = text.slice(space + 1);
    const kind = LINK_KINDS[(LINK_KINDS as readonly string[]).indexOf(text.slice(0, space))];
    if (kind === undefined || !isMemoryId(target) || recorded(out, kind, target)) continue;
    out.push({ target, kind });
  }
  return out;
}

function recorded(links: readonly MemoryLink[], kind: LinkKind, target: string): boolean {
  for (const l of links) if (l.kind === kind && l.target === target) return true;
  return false;
}

const WIKILINK = /\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g;

/**
 * The typed links in a memory's body. A wikilink to a memory id without a known kind
 * (`[[mem-x]]` or `[[mem-x|some label]]`) counts as `related`; links to other notes are ignored.
 */
export function parseLinks(body: string): MemoryLink[] {
  // a link counts only when its target is a memory id, which starts with mem-: a body without one
  // (Engram writes links by file name since issue 21) has none, without running the pattern
  if (!body.includes('mem-')) return [];
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
  return `[[${link.name ?? link.target}|${link.kind}]]`;
}

/**
 * Links with the file name of their target filled in where it was missing (a link found by
 * resonance, supersession or a conflict names only an id): written `[[File name|kind]]` with the
 * id in `link_ids`, like every other link (ADR 0005). A target whose file is not known keeps its
 * id as the link text.
 */
export function namedLinks(links: MemoryLink[], pathOf: (id: string) => string | null | undefined): MemoryLink[] {
  return links.map((link) => {
    if (link.name !== undefined) return link;
    const path = pathOf(link.target);
    return path ? { ...link, name: noteName(path) } : link;
  });
}

/** Links of `more` not already in `links` (same target and kind). */
export function withLinks(links: MemoryLink[], more: MemoryLink[]): MemoryLink[] {
  const out = [...links];
  for (const link of more) if (!out.some((l) => l.target === link.target && l.kind === link.kind)) out.push({ target: link.target, kind: link.kind });
  return out;
}

/** `link_ids` with `link` added (kept as written otherwise), or null when it is there already. */
export function addLinkId(current: unknown, link: MemoryLink): string[] | null {
  const entries = Array.isArray(current) ? current.map(String) : [];
  const entry = `${link.kind} ${link.target}`;
  return entries.includes(entry) ? null : [...entries, entry];
}
