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
 * The markdown of a new memory file, fields in SPEC §2's order. Its tier is the one its age
 * implies at `now`, so an imported old episode does not start out active. `title`: memoryTitle of
 * its text, when the caller has it already (an import names the file by it).
 */
export function renderMemoryFile(id: string, memory: NewMemory, settings: EngramSettings, now: number, title = memoryTitle(memory.text)): string {
  const body = memory.links.length > 0 ? `${memory.text.trim()}\n\n${memory.links.map(formatLink).join(' ')}\n` : `${memory.text.trim()}\n`;
  // one line a field, null ones left out: written straight into the text (an array of pairs,
  // filtered and mapped, was a fifth of what an import allocates for each file)
  const halfLife = settings.halfLifeDays[memory.category];
  let text = '---\n';
  // a module function, not a closure made for every file (the bundle names each closure it makes)
  const field = fieldLine;
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
  text += field('tier', newMemoryTier({ half_life_days: halfLife, access_count: 0, is_error: memory.is_error }, parseTimestamp(memory.created_at)!, now, settings));
  text += field('co_access', {});
  text += field('related_paths', memory.related_paths);
  text += field('amplitude', 1);
  text += field('activation', 0);
  text += field('activation_at', memory.created_at);
  text += field('content_hash', contentHash(body));
  text += field('source', memory.source);
  text += field('session', memory.session);
  // a title for people: Obsidian shows it instead of the id (search, links, graph)
  text += field('aliases', title ? [title] : null);
  // the ids the body's links point to (ADR 0005: the file names in the links are for Obsidian)
  text += field(LINK_IDS_FIELD, memory.links.length > 0 ? linkIdsValue(memory.links) : null);
  for (const [key, value] of Object.entries(memory.extra ?? {})) text += field(key, value);
  return `${text}---\n${body}`;
}
