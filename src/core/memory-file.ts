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
  const field = (key: string, value: FieldValue | null): void => {
    if (value !== null) text += `${key}: ${renderFieldValue(value)}\n`;
  };
  field('id', id);
  field('category', memory.category);
  field('created_at', memory.created_at);
  field('last_accessed_at', memory.created_at);
  field('agent_role', memory.agent_role);
  field('confidence', memory.confidence);
  field('tags', memory.tags);
  field('half_life_days', halfLife);
  field('access_count', 0);
  field('is_error', memory.is_error);
  field('tier', newMemoryTier({ half_life_days: halfLife, access_count: 0, is_error: memory.is_error }, parseTimestamp(memory.created_at)!, now, settings));
  field('co_access', {});
  field('related_paths', memory.related_paths);
  field('amplitude', 1);
  field('activation', 0);
  field('activation_at', memory.created_at);
  field('content_hash', contentHash(body));
  field('source', memory.source);
  field('session', memory.session);
  // a title for people: Obsidian shows it instead of the id (search, links, graph)
  field('aliases', title ? [title] : null);
  // the ids the body's links point to (ADR 0005: the file names in the links are for Obsidian)
  field(LINK_IDS_FIELD, memory.links.length > 0 ? linkIdsValue(memory.links) : null);
  for (const [key, value] of Object.entries(memory.extra ?? {})) field(key, value);
  return `${text}---\n${body}`;
}
