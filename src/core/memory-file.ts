import { renderFieldValue, type FieldValue } from './frontmatter';
import { contentHash } from './ids';
import { formatLink, LINK_IDS_FIELD, linkIdsValue, type MemoryLink } from './links';
import type { Category, Confidence, EngramSettings } from './settings';
import { newMemoryTier } from './tiers';
import { parseTimestamp } from './time';
import { memoryTitle } from './title';

/** What a new memory is made of, before it has an id. */
export interface NewMemory {
  text: string;
  category: Category;
  created_at: string;
  confidence: Confidence;
  tags: string[];
  is_error: boolean;
  related_paths: string[];
  agent_role: string | null;
  source: string | null;
  session: string | null;
  links: MemoryLink[];
  /** Further fields, after SPEC's (consolidation's reinforcement_count, cluster_size). */
  extra?: Record<string, FieldValue>;
}

/** One frontmatter line of a field, nothing for a null value. */
function fieldLine(key: string, value: FieldValue | null): string {
  return value === null ? '' : `${key}: ${renderFieldValue(value)}\n`;
}

/**
 * renderFieldValue's text, as a template writes it (`undefined`, which renderFieldValue gives back
 * for an undefined value, as the word): a join would write nothing for it.
 */
function fieldValue(value: FieldValue): string {
  return `${renderFieldValue(value)}`;
}

/**
 * The markdown of a new memory file, fields in SPEC §2's order. Its tier is the one its age
 * implies at `now`, so an imported old episode does not start out active. `title`: memoryTitle of
 * its text, when the caller has it already (an import names the file by it).
 *
 * Written as one text: the keys and values are pieces joined once, each value rendered once
 * (the created_at three times in the file, once here). A text built field line by field line made
 * ~5 KB of short-lived strings for a file of ~0.8 KB (a fifth of what an import of 10,000 lines
 * allocated). A null value leaves its line out, as fieldLine does; the fields SPEC requires
 * are never null in a NewMemory, and a memory whose are goes field by field
 * (renderByFieldLines). test/core/memory-file.test.ts holds the field-by-field renderer as
 * the reference and compares both over crafted and random memories.
 */
export function renderMemoryFile(id: string, memory: NewMemory, settings: EngramSettings, now: number, title = memoryTitle(memory.text)): string {
  const links = memory.links;
  const body = links.length > 0 ? `${memory.text.trim()}\n\n${linksLine(links)}\n` : `${memory.text.trim()}\n`;
  const halfLife = settings.halfLifeDays[memory.category];
  const created = memory.created_at;
  const tier = newMemoryTier({ half_life_days: halfLife, access_count: 0, is_error: memory.is_error }, parseTimestamp(created)!, now, settings);
  // (a created_at null has thrown already: parseTimestamp reads its length)
  if (id === null || memory.category === null || memory.confidence === null || memory.tags === null || halfLife === null || memory.is_error === null || memory.related_paths === null) {
    return renderByFieldLines(id, memory, halfLife, tier, body, title);
  }
  const createdValue = fieldValue(created);
  // the file's pieces, joined once: one flat text (a template's + chain left ~40 string pieces
  // a file, and the text was flattened again when it was checked and written)
  const out = ['---\nid: ', fieldValue(id), '\ncategory: ', fieldValue(memory.category), '\ncreated_at: ', createdValue, '\nlast_accessed_at: ', createdValue, '\n'];
  if (memory.agent_role !== null) out.push('agent_role: ', fieldValue(memory.agent_role), '\n');
  out.push('confidence: ', fieldValue(memory.confidence), '\ntags: ');
  pushList(out, memory.tags);
  out.push('\nhalf_life_days: ', fieldValue(halfLife), '\naccess_count: 0\nis_error: ', fieldValue(memory.is_error), '\ntier: ', fieldValue(tier), '\nco_access: {}\nrelated_paths: ');
  pushList(out, memory.related_paths);
  out.push('\namplitude: 1\nactivation: 0\nactivation_at: ', createdValue, '\ncontent_hash: ', fieldValue(contentHash(body)), '\n');
  if (memory.source !== null) out.push('source: ', fieldValue(memory.source), '\n');
  if (memory.session !== null) out.push('session: ', fieldValue(memory.session), '\n');
  if (title) out.push('aliases: [', JSON.stringify(title), ']\n');
  if (links.length > 0) {
    out.push(LINK_IDS_FIELD, ': [');
    // linkIdsValue's items, `KIND TARGET`, each as JSON writes it
    for (let i = 0; i < links.length; i++) out.push(i === 0 ? '' : ', ', JSON.stringify(`${links[i]!.kind} ${links[i]!.target}`));
    out.push(']\n');
  }
  const extra = memory.extra ?? null;
  if (extra !== null) out.push(extraLines(extra));
  out.push('---\n', body);
  return out.join('');
}

/**
 * renderFieldValue of a list, its pieces pushed onto `out`: `["a", "b"]`, each item as JSON
 * writes it, which is renderFieldValue's double-quoted scalar for every item (a string, and
 * anything else a list may hold: null, a boolean, a number, finite or not, an object; nothing
 * for undefined or a hole). Something other than a list goes to renderFieldValue.
 */
function pushList(out: string[], list: string[]): void {
  if (!Array.isArray(list)) {
    out.push(fieldValue(list));
    return;
  }
  out.push('[');
  for (let i = 0; i < list.length; i++) out.push(i === 0 ? '' : ', ', JSON.stringify(list[i]));
  out.push(']');
}

/** The body's line of links, `links.map(formatLink).join(' ')` without the array of them. */
function linksLine(links: MemoryLink[]): string {
  let line = formatLink(links[0]!);
  for (let i = 1; i < links.length; i++) line += ` ${formatLink(links[i]!)}`;
  return line;
}

/** The further fields' lines (consolidation's), in their order. */
function extraLines(extra: Record<string, FieldValue>): string {
  let text = '';
  for (const [key, value] of Object.entries(extra)) text += fieldLine(key, value);
  return text;
}

/** renderMemoryFile a field line at a time, each null value's line left out: for a memory whose required fields are not all there. */
function renderByFieldLines(id: string, memory: NewMemory, halfLife: number, tier: string, body: string, title: string): string {
  const field = fieldLine;
  let text = '---\n';
  text += field('id', id);
  text += field('category', memory.category);
  text += field('created_at', memory.created_at);
  text += field('last_accessed_at', memory.created_at);
  text += field('agent_role', memory.agent_role);
  text += field('confidence', memory.confidence);
  text += field('tags', memory.tags);
  text += field('half_life_days', halfLife);
  text += field('access_count', 0);
  text += field('is_error', memory.is_error);
  text += field('tier', tier);
  text += field('co_access', {});
  text += field('related_paths', memory.related_paths);
  text += field('amplitude', 1);
  text += field('activation', 0);
  text += field('activation_at', memory.created_at);
  text += field('content_hash', contentHash(body));
  text += field('source', memory.source);
  text += field('session', memory.session);
  text += field('aliases', title ? [title] : null);
  text += field(LINK_IDS_FIELD, memory.links.length > 0 ? linkIdsValue(memory.links) : null);
  return `${text}${extraLines(memory.extra ?? {})}---\n${body}`;
}
