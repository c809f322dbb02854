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
  const fields: Array<[string, FieldValue | null]> = [
    ['id', id],
    ['category', memory.category],
    ['created_at', memory.created_at],
    ['last_accessed_at', memory.created_at],
    ['agent_role', memory.agent_role],
    ['confidence', memory.confidence],
    ['tags', memory.tags],
    ['half_life_days', settings.halfLifeDays[memory.category]],
    ['access_count', 0],
    ['is_error', memory.is_error],
    ['tier', newMemoryTier({ half_life_days: settings.halfLifeDays[memory.category], access_count: 0, is_error: memory.is_error }, parseTimestamp(memory.created_at)!, now, settings)],
    ['co_access', {}],
    ['related_paths', memory.related_paths],
    ['amplitude', 1],
    ['activation', 0],
    ['activation_at', memory.created_at],
    ['content_hash', contentHash(body)],
    ['source', memory.source],
    ['session', memory.session],
    // a title for people: Obsidian shows it instead of the id (search, links, graph)
    ['aliases', title ? [title] : null],
    // the ids the body's links point to (ADR 0005: the file names in the links are for Obsidian)
    [LINK_IDS_FIELD, memory.links.length > 0 ? linkIdsValue(memory.links) : null],
  ];
  for (const [key, value] of Object.entries(memory.extra ?? {})) fields.push([key, value]);
  const lines = fields.flatMap(([k, v]) => (v === null ? [] : [[k, v] as const])).map(([k, v]) => `${k}: ${renderFieldValue(v)}`);
  return `---\n${lines.join('\n')}\n---\n${body}`;
}
