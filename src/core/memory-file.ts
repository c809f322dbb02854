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
 * renderFieldValue of a list: `["a", "b"]`, each string as JSON writes it (renderFieldValue's
 * double-quoted scalar), without the array of rendered items. Other lists go to renderFieldValue.
 */
function listValue(list: string[]): string {
  const n = list.length;
  if (n === 0) return '[]';
  let out = '[';
  for (let i = 0; i < n; i++) {
    const item = list[i];
    if (typeof item !== 'string') return renderFieldValue(list);
    out += i === 0 ? JSON.stringify(item) : `, ${JSON.stringify(item)}`;
  }
  return `${out}]`;
}

/**
 * The markdown of a new memory file, fields in SPEC §2's order. Its tier is the one its age
 * implies at `now`, so an imported old episode does not start out active. `title`: memoryTitle of
 * its text, when the caller has it already (an import names the file by it).
 *
 * Written as one text: the keys stand in the template and each value is rendered once (the
 * created_at three times in the file, once here). A text built field line by field line made
 * ~5 KB of short-lived strings for a file of ~0.8 KB (a fifth of what an import of 10,000 lines
 * allocated). A null value leaves its line out, as fieldLine does; the fields SPEC requires
 * are never null in a NewMemory, and a memory whose are goes field by field
 * (renderByFieldLines). test/core/memory-file.test.ts holds the field-by-field renderer as
 * the reference and compares both over crafted and random memories.
 */
export function renderMemoryFile(id: string, memory: NewMemory, settings: EngramSettings, now: number, title = memoryTitle(memory.text)): string {
  const links = memory.links;
  const body = links.length > 0 ? `${memory.text.trim()}\n\n${links.map(formatLink).join(' ')}\n` : `${memory.text.trim()}\n`;
  const halfLife = settings.halfLifeDays[memory.category];
  const created = memory.created_at;
  const tier = newMemoryTier({ half_life_days: halfLife, access_count: 0, is_error: memory.is_error }, parseTimestamp(created)!, now, settings);
  if (id === null || memory.category === null || created === null || memory.confidence === null || memory.tags === null || halfLife === null || memory.is_error === null || memory.related_paths === null) {
    return renderByFieldLines(id, memory, halfLife, tier, body, title);
  }
  const createdValue = renderFieldValue(created);
  const tags = Array.isArray(memory.tags) ? listValue(memory.tags) : renderFieldValue(memory.tags);
  const paths = Array.isArray(memory.related_paths) ? listValue(memory.related_paths) : renderFieldValue(memory.related_paths);
  const text =
    `---\nid: ${renderFieldValue(id)}\ncategory: ${renderFieldValue(memory.category)}\ncreated_at: ${createdValue}\nlast_accessed_at: ${createdValue}\n` +
    `${fieldLine('agent_role', memory.agent_role)}confidence: ${renderFieldValue(memory.confidence)}\ntags: ${tags}\nhalf_life_days: ${renderFieldValue(halfLife)}\n` +
    `access_count: 0\nis_error: ${renderFieldValue(memory.is_error)}\ntier: ${renderFieldValue(tier)}\nco_access: {}\nrelated_paths: ${paths}\n` +
    `amplitude: 1\nactivation: 0\nactivation_at: ${createdValue}\ncontent_hash: ${renderFieldValue(contentHash(body))}\n` +
    `${fieldLine('source', memory.source)}${fieldLine('session', memory.session)}${title ? `aliases: ${listValue([title])}\n` : ''}` +
    `${links.length > 0 ? `${LINK_IDS_FIELD}: ${listValue(linkIdsValue(links))}\n` : ''}`;
  const extra = memory.extra ?? null;
  return extra === null ? `${text}---\n${body}` : `${text}${extraLines(extra)}---\n${body}`;
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
