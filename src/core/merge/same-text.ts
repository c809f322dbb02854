import { activationAt, roundActivation } from '../activation';
import type { FieldValue } from '../frontmatter';
import { LINK_IDS_FIELD, parseLinkIds } from '../links';
import { memoryText, type Memory } from '../memory';
import type { Confidence, Tier } from '../settings';
import { TIERS } from '../settings';
import { currentTier } from '../tiers';
import { formatTimestamp, parseTimestamp } from '../time';
import { rememberedAgain } from '../touch';
import { SAME_TEXT_FIELD } from '../remember';
import type { Vault } from '../vault';
import { freeName, sameBytes } from './sync-copies';

/**
 * A memory remembered again while the memory holding its text could not be read (issue 24): a
 * person broke its YAML, so the second `remember` saw no memory and created one, recording the
 * unreadable one's id in `same_text_as`. Once that file is readable again (and still holds the
 * same text) the two are merged as the reinforcement would have done, into the older one (the id
 * other notes link to):
 *
 * - counts added: `access_count` = keeper + other + 1 and `remembered_again` = keeper + other +
 *   1 (the other's creation was a remembering of the same text, which counts as an access);
 *   amplitude added (SPEC §6: each remembering adds its amplitude);
 * - the later last access, the longer half-life, the warmer tier, the higher activation now, the
 *   higher confidence; tags, related paths, sources and link ids united; co-access counts added;
 * - the other memory's id is recorded in the keeper's `merged_ids` (so a run cut short never
 *   counts it twice), other memories' co-access and `link_ids` naming it now name the keeper,
 *   and its file is moved, not deleted, to `.engram/merged/` with a line in
 *   `.engram/merged.jsonl`.
 *
 * Only the fields that change are written (the person's words and other fields stay as written).
 */
export const MERGED_FOLDER = '.engram/merged';
export const MERGED_LOG = '.engram/merged.jsonl';
export const MERGED_IDS_FIELD = 'merged_ids';

export interface SameTextGroup {
  /** The memory that stays: the oldest (then the smaller id). */
  keep: Memory;
  /** The others holding the same text, oldest first. */
  others: Memory[];
}

export interface SameTextMerged {
  kept: string;
  path: string;
  merged: Array<{ id: string; from: string; to: string }>;
  /** Other notes whose co-access or link ids were pointed at the keeper. */
  repointed: string[];
}

/**
 * The memories written while an unreadable one held their text (`same_text_as`, remember.ts),
 * grouped under that one once it is readable and still holds the same text (by id and text).
 * Two memories with the same text that were remembered apart (two clones before they synced)
 * are left as they are: nothing says one is the other remembered again.
 */
export function findSameText(memories: Memory[]): SameTextGroup[] {
  const byId = new Map(memories.map((m) => [m.id, m]));
  const others = new Map<string, Memory[]>();
  for (const memory of memories) {
    const target = memory.extra[SAME_TEXT_FIELD];
    if (typeof target !== 'string' || target === memory.id) continue;
    const keep = byId.get(target.trim());
    if (!keep || memoryText(keep) !== memoryText(memory)) continue;
    others.set(keep.id, [...(others.get(keep.id) ?? []), memory]);
  }
  return [...others]
    .map(([id, list]) => ({ keep: byId.get(id)!, others: [...list].sort((a, b) => created(a) - created(b) || (a.id < b.id ? -1 : 1)) }))
    .sort((a, b) => (a.keep.id < b.keep.id ? -1 : 1));
}

function created(memory: Memory): number {
  return parseTimestamp(memory.created_at) ?? 0;
}

const CONFIDENCE_RANK: Record<Confidence, number> = { stale: 0, inferred: 1, observed: 2, verified: 3 };

function warmer(a: Tier, b: Tier): Tier {
  return TIERS.indexOf(a) <= TIERS.indexOf(b) ? a : b;
}

function laterTime(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return (parseTimestamp(b) ?? 0) > (parseTimestamp(a) ?? 0) ? b : a;
}

function union(have: string[], add: string[], fold: (s: string) => string = (s) => s): string[] | null {
  const seen = new Set(have.map(fold));
  const added = add.filter((v) => !seen.has(fold(v)) && seen.add(fold(v)));
  return added.length > 0 ? [...have, ...added] : null;
}

function mergedIds(memory: Memory): string[] {
  const value = memory.extra[MERGED_IDS_FIELD];
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * The keeper's fields after `other` is merged into it (only those that change); null when the
 * keeper records `other` as merged already.
 */
export function sameTextFields(keep: Memory, other: Memory, now: number, vault: Pick<Vault, 'settings'>): Record<string, FieldValue> | null {
  if (mergedIds(keep).includes(other.id)) return null;
  const settings = vault.settings;
  const fields: Record<string, FieldValue> = {
    access_count: keep.access_count + other.access_count + 1,
    remembered_again: rememberedAgain(keep) + rememberedAgain(other) + 1,
    amplitude: Math.round((keep.amplitude + other.amplitude) * 10_000) / 10_000,
    [MERGED_IDS_FIELD]: [...mergedIds(keep), other.id, ...mergedIds(other).filter((id) => !mergedIds(keep).includes(id))],
  };
  const last = laterTime(keep.last_accessed_at, other.last_accessed_at);
  if (last !== keep.last_accessed_at) fields.last_accessed_at = last;
  if (other.half_life_days > keep.half_life_days) fields.half_life_days = other.half_life_days;
  const tier = warmer(currentTier(keep, now, settings), currentTier(other, now, settings));
  if (tier !== keep.tier) fields.tier = tier;
  const activation = roundActivation(Math.max(activationAt(keep, now, settings), activationAt(other, now, settings)));
  if (activation !== keep.activation) {
    fields.activation = activation;
    fields.activation_at = formatTimestamp(now);
  }
  if (CONFIDENCE_RANK[other.confidence] > CONFIDENCE_RANK[keep.confidence]) fields.confidence = other.confidence;
  const tags = union(keep.tags, other.tags, (t) => t.toLowerCase());
  if (tags) fields.tags = tags;
  const paths = union(keep.related_paths, other.related_paths);
  if (paths) fields.related_paths = paths;
  if (other.source !== null && other.source !== keep.source) {
    if (keep.source === null) fields.source = other.source;
    else {
      const sources = Array.isArray(keep.extra.sources) ? keep.extra.sources.map(String) : [];
      const more = union(sources, [other.source, ...(Array.isArray(other.extra.sources) ? other.extra.sources.map(String) : [])].filter((s) => s !== keep.source));
      if (more) fields.sources = more;
    }
  }
  if (other.is_error && !keep.is_error) fields.is_error = true;
  if (other.agent_role !== null && keep.agent_role === null) fields.agent_role = other.agent_role;
  if (keep.session === null && other.session !== null) fields.session = other.session;
  // what a later memory or a pattern says of the other (ADR 0004, SPEC §8) now holds for the keeper
  for (const field of ['superseded_by', 'decays_from'] as const) {
    const value = other.extra[field];
    if (typeof value === 'string' && value.trim() !== '' && (keep.extra[field] === undefined || keep.extra[field] === null || keep.extra[field] === '')) fields[field] = value;
  }
  const coAccess = { ...keep.co_access };
  let coChanged = false;
  for (const [id, count] of Object.entries(other.co_access)) {
    if (id === keep.id || id === other.id) continue;
    coAccess[id] = (coAccess[id] ?? 0) + count;
    coChanged = true;
  }
  if (coChanged) fields.co_access = coAccess;
  const keepLinks = Array.isArray(keep.extra[LINK_IDS_FIELD]) ? (keep.extra[LINK_IDS_FIELD] as unknown[]).map(String) : [];
  const otherLinks = parseLinkIds(other.extra[LINK_IDS_FIELD])
    .filter((l) => l.target !== keep.id && l.target !== other.id)
    .map((l) => `${l.kind} ${l.target}`);
  const links = union(keepLinks, otherLinks);
  if (links) fields[LINK_IDS_FIELD] = links;
  return fields;
}

/**
 * Merge one group: the keeper written first (under its lock, compare-and-swap), then each other
 * memory's file moved to `.engram/merged/`, then the notes that named it pointed at the keeper.
 * A run stopped half-way is finished by the next one (`merged_ids` keeps the counts from being
 * added twice).
 */
export async function mergeSameText(vault: Vault, group: SameTextGroup, memories: Memory[]): Promise<SameTextMerged> {
  const { files } = vault.ports;
  const now = vault.now();
  const result: SameTextMerged = { kept: group.keep.id, path: group.keep.path, merged: [], repointed: [] };
  for (const other of group.others) {
    const written = await vault.update(group.keep.id, (keep) => sameTextFields(keep, other, now, vault));
    if (written) result.path = written.path;
    const bytes = await files.read(other.path);
    if (!bytes) continue;
    const to = await freeName(vault, `${MERGED_FOLDER}/${other.path}`);
    await files.mkdir(to.slice(0, to.lastIndexOf('/')));
    await files.write(to, bytes, { expect: null });
    // changed since it was read (a touch meanwhile): left for the next run, which merges the rest
    const current = await files.read(other.path);
    if (!current || !sameBytes(current, bytes)) continue;
    await files.remove(other.path);
    result.merged.push({ id: other.id, from: other.path, to });
  }
  const gone = new Set(result.merged.map((m) => m.id));
  if (gone.size === 0) return result;
  for (const memory of memories) {
    if (memory.id === group.keep.id || gone.has(memory.id)) continue;
    const names = Object.keys(memory.co_access).some((id) => gone.has(id)) || parseLinkIds(memory.extra[LINK_IDS_FIELD]).some((l) => gone.has(l.target));
    if (!names) continue;
    await vault.update(memory.id, (current) => repointFields(current, gone, group.keep.id));
    result.repointed.push(memory.path);
  }
  const line = { at: formatTimestamp(now), ...result };
  const log = (await vault.readText(MERGED_LOG)) ?? '';
  await files.write(MERGED_LOG, `${log}${log && !log.endsWith('\n') ? '\n' : ''}${JSON.stringify(line)}\n`);
  return result;
}

/** A note's co-access and link ids with the merged ids replaced by the keeper's. */
export function repointFields(memory: Memory, gone: Set<string>, keeper: string): Record<string, FieldValue> | null {
  const fields: Record<string, FieldValue> = {};
  if (Object.keys(memory.co_access).some((id) => gone.has(id))) {
    const next: Record<string, number> = {};
    for (const [id, count] of Object.entries(memory.co_access)) {
      const to = gone.has(id) ? keeper : id;
      if (to === memory.id) continue;
      next[to] = (next[to] ?? 0) + count;
    }
    fields.co_access = next;
  }
  const ids = memory.extra[LINK_IDS_FIELD];
  if (Array.isArray(ids) && parseLinkIds(ids).some((l) => gone.has(l.target))) {
    const out: string[] = [];
    for (const entry of ids.map(String)) {
      const m = /^(\w+) (mem-[a-z0-9]{12})$/.exec(entry.trim());
      const next = m && gone.has(m[2]!) ? `${m[1]} ${keeper}` : entry;
      if (!out.includes(next)) out.push(next);
    }
    fields[LINK_IDS_FIELD] = out;
  }
  return Object.keys(fields).length > 0 ? fields : null;
}

/** Find and merge every group; the memories are those just read (for the notes to repoint). */
export async function mergeAllSameText(vault: Vault, memories: Memory[]): Promise<SameTextMerged[]> {
  const out: SameTextMerged[] = [];
  for (const group of findSameText(memories)) out.push(await mergeSameText(vault, group, memories));
  return out;
}
