import { NotFoundError, WriteConflictError } from './errors';
import { activationAt, boostFor, roundActivation, spreadBoost, spreadEdges, type Use } from './activation';
import type { FieldValue } from './frontmatter';
import { ARCHIVE_FOLDER, type Memory } from './memory';
import { archivedPath, freePath, revivedPath } from './memory-files';
import type { EngramSettings, Tier } from './settings';
import { currentTier, promote } from './tiers';
import { COUNTED_BY, machineId, usesKey } from './machine';
import { formatTimestamp, parseTimestamp } from './time';
import type { Vault } from './vault';

/**
 * Use reinforces memory (SPEC §4-5).
 * - touch: a memory was read to answer, updated, named by the user, or opened in Obsidian:
 *   one tier up, access_count + 1, last_accessed_at = now, the read boost to activation.
 * - cite: a memory was cited in an answer: the citation boost.
 * Boosts spread to linked memories (halved per hop, split by fan, never along supersedes),
 * and memories used together get co_access += 1 on both sides (Hebb).
 * A touch of an archived memory brings its file back out of archive/ (SPEC §4).
 */

export interface UseResult {
  id: string;
  path: string;
  tier_before: Tier;
  tier: Tier;
  access_count: number;
  activation: number;
  /** Activation crossed the validation threshold with this use (SPEC §10). */
  due_for_validation: boolean;
  /** Boost shares received by linked memories. */
  spread: Record<string, number>;
  /** The touch brought the file back out of archive/: where it was. */
  revived_from?: string;
}

export interface UseOptions {
  use: Use;
  /** Promote the tier and count the access (a touch); false for a citation alone. */
  touch: boolean;
  /** Link the memories used together by co-access. */
  coAccess: boolean;
  /** Others to link each memory to in the same write (e.g. the notes opened earlier in a session). */
  coAccessWith?: string[];
  /**
   * 'write' (default): linked memories get their spread share now; 'defer': the shares are only
   * computed and returned (in `spread`), for a caller that writes them later (the plugin, which
   * never writes a note open in an editor).
   */
  spread?: 'write' | 'defer';
  /** More fields to write in the same update (remember's reinforcement merges what it adds). */
  alsoWrite?: (memory: Memory) => Record<string, FieldValue>;
}

/** Touch (or cite) memories used together at the vault's `now`. */
export async function useMemories(vault: Vault, ids: string[], options: UseOptions): Promise<UseResult[]> {
  const now = vault.now();
  const settings = vault.settings;
  const machine = await machineId(vault);
  const unique = [...new Set(ids)];
  const boost = boostFor(options.use, settings);
  const results: UseResult[] = [];
  for (const id of unique) {
    let before: Memory | null = null;
    const partners = [...new Set([...(options.coAccess ? unique : []), ...(options.coAccessWith ?? [])])].filter((other) => other !== id);
    const written = await vault.update(id, (memory) => {
      before = memory;
      const fields: Record<string, FieldValue> = {
        activation: roundActivation(activationAt(memory, now, settings) + boost),
        activation_at: later(memory.activation_at, now),
      };
      if (options.touch) Object.assign(fields, touchFields(memory, now, settings, machine));
      if (partners.length > 0) fields.co_access = incrementCoAccess(memory.co_access, partners);
      return { ...fields, ...options.alsoWrite?.(memory), [COUNTED_BY]: machine };
    });
    let memory = written!;
    const prior = before as unknown as Memory;
    // the fields first, then the move: a run cut short between them leaves an archived file
    // whose tier says it was touched, which the next consolidation brings back (plan.ts)
    const revivedFrom = options.touch && isArchived(memory.path) ? memory.path : null;
    if (revivedFrom) memory = { ...memory, path: await reviveFromArchive(vault, memory.id) };
    const spread = await spreadFrom(vault, memory, boost, now, machine, options.spread !== 'defer');
    const threshold = settings.activation.validationThreshold;
    results.push({
      id,
      path: memory.path,
      tier_before: currentTier(prior, now, settings),
      tier: currentTier(memory, now, settings),
      access_count: memory.access_count,
      activation: memory.activation,
      due_for_validation: activationAt(prior, now, settings) < threshold && memory.activation >= threshold,
      spread,
      ...(revivedFrom ? { revived_from: revivedFrom } : {}),
    });
  }
  return results;
}

/**
 * What a touch writes besides activation (SPEC §4): one tier up, the access counted, the time of
 * access, and this device's own use count (`uses_<machine>`, machine.ts), which lets a merge of
 * two sync copies add both devices' uses. The time only moves forward: a touch from a slow clock
 * still counts, but a memory used on 11-20 does not look unused since October (and get pruned)
 * because a machine's clock said so. (The merge driver takes the later of two times for the
 * same reason.)
 */
export function touchFields(memory: Memory, now: number, settings: EngramSettings, machine: string): Record<string, FieldValue> {
  const key = usesKey(machine);
  const counted = memory.extra[key];
  const uses = typeof counted === 'number' && Number.isInteger(counted) && counted >= 0 ? counted : 0;
  return { tier: promote(currentTier(memory, now, settings)), access_count: memory.access_count + 1, last_accessed_at: later(memory.last_accessed_at, now), [key]: uses + 1 };
}

/** The later of a stored time and now, as written in a file. */
function later(stored: string | null, now: number): string {
  const at = stored === null ? null : parseTimestamp(stored);
  return at !== null && at > now ? stored! : formatTimestamp(now);
}

export function isArchived(path: string): boolean {
  return path.startsWith(`${ARCHIVE_FOLDER}/`);
}

/**
 * Move an archived memory's file back to its category folder (SPEC §4: a touch of an archived
 * memory brings it back), under the memory's lock, so it never races a metadata write or
 * consolidation's prune of the same memory. Idempotent: a memory already out of archive/ stays
 * where it is; a move cut short (both paths, same bytes) is completed. The file keeps its name
 * (and sub-folder), so wikilinks keep resolving (Obsidian links by name). Returns the memory's path.
 */
export async function reviveFromArchive(vault: Vault, id: string): Promise<string> {
  return vault.ports.locks.withLock(id, async () => {
    const path = await vault.locate(id);
    if (!path) throw new NotFoundError(`no memory with id ${id}`);
    const { files } = vault.ports;
    if (!isArchived(path)) {
      // locate prefers the category folders: a leftover archive copy with the same bytes is the move's other half
      const archived = archivedPath(path);
      if ((await files.stat(archived)) && (await vault.readExact(archived)) === (await vault.readExact(path))) await files.remove(archived);
      return path;
    }
    const loaded = await vault.read(path, { stable: true });
    if (!loaded) throw new NotFoundError(`no memory with id ${id}`);
    // back to its category's folder with its name and sub-folder
    let target = revivedPath(path, loaded.memory.category);
    const there = await vault.readExact(target);
    if (there !== null && there === (await vault.readExact(path))) {
      // a move cut short (both paths, the same bytes): complete it
      await files.remove(path);
      return target;
    }
    // a name taken there by another note gets a number
    if (there !== null) target = await freePath(target, async (p) => (await files.stat(p)) !== null);
    try {
      await files.move(path, target);
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      return path;
    }
    return target;
  });
}

/**
 * Times a memory was recalled (touched: returned and used, injected, opened, named): its
 * accesses less the times the same text was remembered again (`remembered_again`, written by
 * remember's reinforcement, which counts as an access too).
 */
export function recallCount(memory: Pick<Memory, 'access_count' | 'extra'>): number {
  return Math.max(0, memory.access_count - rememberedAgain(memory));
}

/** How many times remembering reinforced this memory (frontmatter `remembered_again`). */
export function rememberedAgain(memory: Pick<Memory, 'extra'>): number {
  const value = memory.extra.remembered_again;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/** Hebb: co_access[other] += 1 for each partner, keeping the existing entries' order. */
export function incrementCoAccess(current: Record<string, number>, partners: string[]): Record<string, number> {
  const next = { ...current };
  for (const other of partners) next[other] = (next[other] ?? 0) + 1;
  return next;
}

/** Lower-case letters, digits and hyphens: memory ids, which localeCompare orders as their code units do. */
const ID_LIKE = /^[a-z0-9-]*$/;

/**
 * localeCompare's order, by code units for memory ids: the first localeCompare of a process
 * starts ICU's collator (~11 ms of CPU, 5 % of `node -e 0`), which a cold touch paid to order
 * the neighbours its spread writes. Other strings still go through localeCompare.
 */
export function compareIds(a: string, b: string): number {
  if (ID_LIKE.test(a) && ID_LIKE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}

async function spreadFrom(vault: Vault, source: Memory, boost: number, now: number, machine: string, write: boolean): Promise<Record<string, number>> {
  // each memory the spread reaches, with the text it was read from (null: the source, whose text is not kept)
  const cache = new Map<string, { memory: Memory; text: string | null } | null>([[source.id, { memory: source, text: null }]]);
  const loaded = async (id: string): Promise<{ memory: Memory; text: string | null } | null> => {
    if (!cache.has(id)) {
      const path = await vault.locate(id);
      cache.set(id, path ? await vault.read(path).catch(() => null) : null);
    }
    return cache.get(id)!;
  };
  const load = async (id: string): Promise<Memory | null> => (await loaded(id))?.memory ?? null;
  const neighbours = async (id: string): Promise<string[]> => {
    const memory = await load(id);
    if (!memory) return [];
    const edges = spreadEdges(memory);
    const present: string[] = [];
    for (const target of edges) if (await load(target)) present.push(target);
    return present;
  };
  const shares = await spreadBoost(source.id, boost, neighbours, vault.settings);
  const applied: Record<string, number> = {};
  for (const [id, share] of [...shares].sort(([a], [b]) => compareIds(a, b))) {
    if (write) {
      // from the text the spread read: written only if the file still holds exactly that text,
      // else from a fresh read, as update() would (Vault.updateKnown); update() read and parsed
      // each file again under its lock, and parsed what it wrote
      const change = (memory: Memory): Record<string, FieldValue> => ({
        activation: roundActivation(activationAt(memory, now, vault.settings) + share),
        activation_at: later(memory.activation_at, now),
        [COUNTED_BY]: machine,
      });
      // every memory a share went to was loaded, and found (neighbours() keeps only those)
      await vault.updateKnown((await loaded(id))!, change);
    }
    applied[id] = roundActivation(share);
  }
  return applied;
}

/**
 * Hebbian link between a memory and others used in the same session window (SPEC §5):
 * `co_access[other] += 1` on both sides, without touching anyone again (each was touched
 * when it was used). Partners that no longer exist are skipped.
 */
export async function linkCoAccess(vault: Vault, id: string, partners: string[]): Promise<string[]> {
  const others = [...new Set(partners)].filter((other) => other !== id);
  const machine = await machineId(vault);
  const linked: string[] = [];
  for (const other of others) {
    try {
      await vault.update(other, (memory) => ({ co_access: incrementCoAccess(memory.co_access, [id]), [COUNTED_BY]: machine }));
      linked.push(other);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  if (linked.length > 0) await vault.update(id, (memory) => ({ co_access: incrementCoAccess(memory.co_access, linked), [COUNTED_BY]: machine }));
  return linked;
}
