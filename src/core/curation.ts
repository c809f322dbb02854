import { supersededBy } from './supersession';
import { readConflictNote, type ConflictNote } from './consolidation/conflicts';
import { activationAt } from './activation';
import { memoryStrength } from './decay';
import { dropVectors } from './embeddings/store';
import { NotFoundError, UsageError, WriteConflictError } from './errors';
import { removeFrontmatterFields, setFrontmatterFields, splitFrontmatter } from './frontmatter';
import { nameKey } from './file-names';
import { assertMemoryId } from './ids';
import { LINK_IDS_FIELD, noteName } from './links';
import { bodyText, decodeNote, memoryText, parseMemory, type Memory } from './memory';
import type { Category, Confidence, Tier } from './settings';
import { currentTier, impliedTier } from './tiers';
import { parseTimestamp } from './time';
import { openRecall } from './recall/results';
import { filesContaining, recordedBodies } from './purge-traces';
import { changeBody, deleteHistory, removeLinks } from './versions';
import { listMemoryPaths } from './memory-files';
import { LAYOUT, MEMORY_FOLDERS, type Vault } from './vault';

/**
 * Curation (SPEC §14): what a person or an agent does to the vault by hand. Mark a memory's
 * confidence or core status, forget a memory (out of recall, recoverable) or purge it (gone
 * from every file Engram keeps), and list memories by what they are.
 */

// ---------------------------------------------------------------- mark

export interface MarkChange {
  confidence?: Confidence;
  /** true: core (never decays, always in the default radius); false: back to the tier its strength implies. */
  core?: boolean;
  /** false: no longer superseded (clears `superseded_by`, ADR 0004): a person undoing a supersession. */
  superseded?: false;
}

export interface MarkResult {
  id: string;
  path: string;
  confidence_before: Confidence;
  confidence: Confidence;
  tier_before: Tier;
  tier: Tier;
  /** The memory that superseded it before the mark, when `superseded: false` cleared it. */
  superseded_by_before?: string | null;
  changed: boolean;
}

/** Set confidence and/or core status. Not a touch: marking says how far to trust a memory, not that it was used. */
export async function markMemories(vault: Vault, ids: string[], change: MarkChange): Promise<MarkResult[]> {
  if (change.confidence === undefined && change.core === undefined && change.superseded === undefined) {
    throw new UsageError('mark: say what to mark: --verified, --observed, --inferred, --stale, --core, --no-core or --not-superseded');
  }
  const now = vault.now();
  const results: MarkResult[] = [];
  for (const id of [...new Set(ids)]) {
    let before: Memory | null = null;
    const written = await vault.update(id, (memory) => {
      before = memory;
      const fields: Record<string, string | null> = {};
      if (change.superseded === false && supersededBy(memory) !== null) fields.superseded_by = null;
      if (change.confidence !== undefined && memory.confidence !== change.confidence) fields.confidence = change.confidence;
      if (change.core === true && memory.tier !== 'core') fields.tier = 'core';
      if (change.core === false && memory.tier === 'core') {
        fields.tier = impliedTier({ ...memory, tier: null }, parseTimestamp(memory.last_accessed_at)!, now, vault.settings);
      }
      return Object.keys(fields).length > 0 ? fields : null;
    });
    const prior = before as unknown as Memory;
    const after = written ?? prior;
    results.push({
      id,
      path: after.path,
      confidence_before: prior.confidence,
      confidence: after.confidence,
      tier_before: currentTier(prior, now, vault.settings),
      tier: currentTier(after, now, vault.settings),
      changed: written !== null && written !== prior,
      ...(change.superseded === false ? { superseded_by_before: supersededBy(prior) } : {}),
    });
  }
  return results;
}

// ---------------------------------------------------------------- forget

/**
 * Forgotten memories wait in `.engram/forgotten/<folder>/`: out of recall, consolidation,
 * stats and Obsidian's search (a hidden folder), and back with `forget --undo`.
 */
export const FORGOTTEN_FOLDER = LAYOUT.forgotten;

export interface ForgetResult {
  id: string;
  from: string;
  to: string;
}

async function forgottenPath(vault: Vault, id: string): Promise<string | null> {
  return vault.forgottenPath(id);
}

/** Move a memory out of the vault's memory folders, keeping it whole for `forget --undo`. */
export async function forgetMemory(vault: Vault, id: string): Promise<ForgetResult> {
  assertMemoryId(id);
  return vault.ports.locks.withLock(id, async () => {
    const from = await vault.locate(id);
    if (!from) {
      if (await forgottenPath(vault, id)) throw new UsageError(`${id} is already forgotten (engram forget --undo ${id} brings it back)`);
      throw new NotFoundError(`no memory with id ${id}`);
    }
    const to = `${FORGOTTEN_FOLDER}/${from}`;
    await vault.ports.files.mkdir(to.slice(0, to.lastIndexOf('/')));
    await vault.ports.files.move(from, to);
    return { id, from, to };
  });
}

/** `forget --undo`: a forgotten memory back where it was. */
export async function restoreMemory(vault: Vault, id: string): Promise<ForgetResult> {
  assertMemoryId(id);
  return vault.ports.locks.withLock(id, async () => {
    const from = await forgottenPath(vault, id);
    if (!from) throw new NotFoundError(`${id} is not among the forgotten memories`);
    const to = from.slice(FORGOTTEN_FOLDER.length + 1);
    if (await vault.locate(id)) throw new WriteConflictError(`${to} (a memory with this id is in the vault)`);
    await vault.ports.files.move(from, to);
    return { id, from, to };
  });
}

/** The forgotten memories (those that can be read). */
export async function forgottenMemories(vault: Vault): Promise<Memory[]> {
  const out: Memory[] = [];
  for (const path of await listMemoryPaths(vault.ports.files, MEMORY_FOLDERS.map((folder) => `${FORGOTTEN_FOLDER}/${folder}`))) {
    const loaded = await vault.read(path).catch(() => null);
    if (loaded) out.push(loaded.memory);
  }
  return out;
}

// ---------------------------------------------------------------- purge

export interface PurgeResult {
  id: string;
  /** Files deleted: the memory, its recorded versions, conflict notes it was a side of. */
  removed: string[];
  /** Memories whose co_access, links or decays_from named it, now without it. */
  unlinked: string[];
  vectors_removed: boolean;
  /**
   * Files that still contain a distinctive piece of its text or of its earlier versions (a long
   * token such as a key, or a sentence): a daily log, a semantic memory made from it, a review
   * note. Listed, not rewritten: check them by hand.
   */
  also_contains: string[];
  /** For each file in also_contains, the pieces it holds. */
  also_contains_fragments: Record<string, string[]>;
}

/**
 * `forget --purge`: the memory is gone from the vault (someone pasted a secret): its file (in
 * the vault or among the forgotten), its versions, its vector, every other memory's co_access
 * entry and links to it, conflict notes it was a side of, and the recall caches. Files that
 * quote its text otherwise are listed, not rewritten: they are someone's words.
 */
export async function purgeMemory(vault: Vault, id: string): Promise<PurgeResult> {
  assertMemoryId(id);
  const path = (await vault.locate(id)) ?? (await forgottenPath(vault, id));
  if (!path) throw new NotFoundError(`no memory with id ${id} (in the vault or among the forgotten)`);
  const bytes = await vault.ports.files.read(path);
  let text = '';
  try {
    text = bytes ? bodyText(parseMemory(path, decodeNote(path, bytes, vault.settings.maxFileBytes), vault.settings).body) : '';
  } catch {
    text = bytes ? new TextDecoder().decode(bytes) : ''; // an unreadable file is purged too
  }
  const result: PurgeResult = { id, removed: [], unlinked: [], vectors_removed: false, also_contains: [], also_contains_fragments: {} };
  const texts = [text, ...(await recordedBodies(vault, id))];
  const { memories } = await vault.loadAll();
  const others = [...memories, ...(await forgottenMemories(vault))].filter((m) => m.id !== id);
  // links name its file (ADR 0005), and the name is often its first words: a link to it would keep them
  const name = nameKey(noteName(path));
  for (const other of others) {
    if (await unlinkFrom(vault, other, id, name)) result.unlinked.push(other.id);
  }
  for (const name of (await vault.ports.files.list(LAYOUT.conflicts)).sort()) {
    const notePath = `${LAYOUT.conflicts}/${name}`;
    const note = name.endsWith('.md') ? await readNote(vault, notePath) : null;
    if (note?.sides.includes(id)) {
      await vault.ports.files.remove(notePath);
      result.removed.push(notePath);
    }
  }
  result.vectors_removed = await dropVectors(vault, [id]);
  const versions = await deleteHistory(vault, id);
  if (versions > 0) result.removed.push(`.engram/versions/${id}/ (${versions} versions)`);
  await vault.ports.files.remove(path);
  result.removed.unshift(path);
  // its file's name too: made from its first words, it is in every link another note made to it
  for (const trace of await filesContaining(vault, [...texts, noteName(path)])) {
    result.also_contains.push(trace.path);
    result.also_contains_fragments[trace.path] = trace.fragments;
  }
  await vault.idPaths(); // the id index (.engram/cache/ids.json) forgets its path, which may hold its words
  await openRecall(vault, undefined, { rebuild: true }); // the recall caches (catalog, snapshot) are written again without it
  return result;
}

async function readNote(vault: Vault, path: string): Promise<ConflictNote | null> {
  const text = await vault.readText(path).catch(() => null);
  return text ? readConflictNote(path, text) : null;
}

/**
 * Remove `id` (its file named `name`, a file-names.ts key) from a memory's co_access, body links
 * (by id or by name), `link_ids` and decays_from; true when anything changed.
 */
async function unlinkFrom(vault: Vault, memory: Memory, id: string, name: string): Promise<boolean> {
  const inCoAccess = id in memory.co_access;
  const inBody = removeLinks(memory.body, new Set([id]), new Set([name])) !== memory.body;
  const inProperty = decaysFrom(memory.extra.decays_from, id, name);
  const inLinkIds = linkIdsWithout(memory.extra[LINK_IDS_FIELD], id) !== null;
  if (!inCoAccess && !inBody && !inProperty && !inLinkIds) return false;
  if (memory.path.startsWith(`${FORGOTTEN_FOLDER}/`)) return unlinkForgotten(vault, memory.path, id, name);
  if (inBody) {
    const unlink = (body: string) => removeLinks(body, new Set([id]), new Set([name]));
    await changeBody(vault, memory.id, (m) => unlink(m.body), { reason: `link to purged ${id} removed`, by: 'engram', scrub: unlink });
  }
  if (inLinkIds) {
    await vault.update(memory.id, (m) => {
      const kept = linkIdsWithout(m.extra[LINK_IDS_FIELD], id);
      return kept === null ? null : { [LINK_IDS_FIELD]: kept };
    });
  }
  if (inCoAccess) {
    await vault.update(memory.id, (m) => {
      if (!(id in m.co_access)) return null;
      const { [id]: _gone, ...rest } = m.co_access;
      return { co_access: rest };
    });
  }
  if (inProperty) await removeProperty(vault, memory.id, id, name);
  return true;
}

/** Whether a decays_from property names the memory, by id or by its file's name. */
function decaysFrom(value: unknown, id: string, name: string): boolean {
  return typeof value === 'string' && (value.includes(id) || removeLinks(value, new Set(), new Set([name])) !== value);
}

/** `link_ids` without the entries recording `id`, or null when it has none. */
function linkIdsWithout(value: unknown, id: string): string[] | null {
  if (!Array.isArray(value)) return null;
  const entries = value.map(String);
  const kept = entries.filter((entry) => entry.trim().split(/\s+/)[1] !== id);
  return kept.length === entries.length ? null : kept;
}

/** decays_from is a property: removing it is a frontmatter edit under the memory's lock. */
async function removeProperty(vault: Vault, memoryId: string, id: string, name: string): Promise<void> {
  await vault.ports.locks.withLock(memoryId, async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const path = await vault.locate(memoryId);
      const loaded = path ? await vault.read(path, { stable: true }) : null;
      if (!path || !loaded) return;
      const value = loaded.memory.extra.decays_from;
      if (!decaysFrom(value, id, name)) return;
      const next = removeFrontmatterFields(loaded.text, ['decays_from']);
      try {
        await vault.ports.files.write(path, next, { expect: loaded.text });
        return;
      } catch (error) {
        if (!(error instanceof WriteConflictError)) throw error;
      }
    }
  });
}

/** A forgotten memory is no one else's to write: one compare-and-swap edit of its file. */
async function unlinkForgotten(vault: Vault, path: string, id: string, name: string): Promise<boolean> {
  const loaded = await vault.read(path, { stable: true });
  if (!loaded) return false;
  const { memory } = loaded;
  const split = splitFrontmatter(loaded.text)!;
  let next = split.head + split.yaml + split.fence + removeLinks(memory.body, new Set([id]), new Set([name]));
  if (id in memory.co_access) {
    const { [id]: _gone, ...rest } = memory.co_access;
    next = setFrontmatterFields(next, { co_access: rest });
  }
  const linkIds = linkIdsWithout(memory.extra[LINK_IDS_FIELD], id);
  if (linkIds !== null) next = setFrontmatterFields(next, { [LINK_IDS_FIELD]: linkIds });
  if (decaysFrom(memory.extra.decays_from, id, name)) next = removeFrontmatterFields(next, ['decays_from']);
  if (next === loaded.text) return false;
  await vault.ports.files.write(path, next, { expect: loaded.text });
  return true;
}

// ---------------------------------------------------------------- list

export interface ListFilter {
  category?: Category;
  tags?: string[];
  tier?: Tier;
  confidence?: Confidence;
  role?: string;
  /** Created within [since, until] (ms). */
  since?: number;
  until?: number;
  /** Last accessed within [accessedSince, accessedUntil] (ms). */
  accessedSince?: number;
  accessedUntil?: number;
  /** Only memories that are a side of an open conflict. */
  inConflict?: boolean;
  /** List the forgotten memories instead. */
  forgotten?: boolean;
}

export const LIST_SORTS = ['created', 'accessed', 'strength', 'activation', 'access_count', 'id'] as const;
export type ListSort = (typeof LIST_SORTS)[number];

export interface ListEntry {
  id: string;
  path: string;
  category: Category;
  tier: Tier;
  confidence: Confidence;
  strength: number;
  activation: number;
  access_count: number;
  created_at: string;
  last_accessed_at: string;
  agent_role: string | null;
  tags: string[];
  in_conflict: boolean;
  text: string;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Memories matching every filter, sorted (newest, strongest, … first; `reverse` flips it). */
export async function listMemories(vault: Vault, filter: ListFilter, sort: ListSort = 'created', reverse = false): Promise<{ entries: ListEntry[]; unreadable: number }> {
  const now = vault.now();
  const settings = vault.settings;
  const loaded = filter.forgotten ? { memories: await forgottenMemories(vault), problems: [] } : await vault.loadAll();
  const conflicted = await openConflictSides(vault);
  const entries: ListEntry[] = [];
  for (const m of loaded.memories) {
    const tier = currentTier(m, now, settings);
    const created = parseTimestamp(m.created_at)!;
    const accessed = parseTimestamp(m.last_accessed_at)!;
    if (filter.category && m.category !== filter.category) continue;
    if (filter.tier && tier !== filter.tier) continue;
    if (filter.confidence && m.confidence !== filter.confidence) continue;
    if (filter.role !== undefined && m.agent_role !== filter.role) continue;
    if (filter.tags && !filter.tags.every((t) => m.tags.includes(t))) continue;
    if (filter.since !== undefined && created < filter.since) continue;
    if (filter.until !== undefined && created > filter.until) continue;
    if (filter.accessedSince !== undefined && accessed < filter.accessedSince) continue;
    if (filter.accessedUntil !== undefined && accessed > filter.accessedUntil) continue;
    const inConflict = conflicted.has(m.id);
    if (filter.inConflict && !inConflict) continue;
    entries.push({
      id: m.id,
      path: m.path,
      category: m.category,
      tier,
      confidence: m.confidence,
      strength: round(memoryStrength(m, now, settings)),
      activation: round(activationAt(m, now, settings)),
      access_count: m.access_count,
      created_at: m.created_at,
      last_accessed_at: m.last_accessed_at,
      agent_role: m.agent_role,
      tags: m.tags,
      in_conflict: inConflict,
      text: memoryText(m),
    });
  }
  const key: Record<ListSort, (e: ListEntry) => number | string> = {
    created: (e) => parseTimestamp(e.created_at)!,
    accessed: (e) => parseTimestamp(e.last_accessed_at)!,
    strength: (e) => e.strength,
    activation: (e) => e.activation,
    access_count: (e) => e.access_count,
    id: (e) => e.id,
  };
  const k = key[sort];
  // numbers: largest first; ids: alphabetical; ties by id so the order is stable
  entries.sort((a, b) => {
    const [x, y] = [k(a), k(b)];
    const primary = typeof x === 'number' ? (y as number) - x : x < y ? -1 : x > y ? 1 : 0;
    return primary !== 0 ? primary : a.id < b.id ? -1 : 1;
  });
  if (reverse) entries.reverse();
  return { entries, unreadable: loaded.problems.length };
}

async function openConflictSides(vault: Vault): Promise<Set<string>> {
  const sides = new Set<string>();
  for (const name of await vault.ports.files.list(LAYOUT.conflicts)) {
    if (!name.endsWith('.md')) continue;
    const note = await readNote(vault, `${LAYOUT.conflicts}/${name}`);
    if (note?.status === 'open') for (const side of note.sides) sides.add(side);
  }
  return sides;
}
