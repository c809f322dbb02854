import { frontmatterId, preferredPath } from '../memory-files';
import { formatTimestamp } from '../time';
import type { Vault } from '../vault';
import { mergeMemoryText } from './memory-merge';

/**
 * Memory files that share an id (issue 14): the conflict copies sync tools leave beside a note
 * two machines changed (Syncthing's `NAME.sync-conflict-DATE-TIME-DEVICE.md`, Dropbox's
 * `NAME (Laptop's conflicted copy DATE).md`, Obsidian Sync's `NAME (Conflicted copy DEVICE
 * DATE).md`; Engram's own `NAME (conflicted copy by Engram).md`, a person's save that went
 * into the file a compare-and-swap replaced, see headless/fs-files.ts), numbered duplicates
 * (`NAME 1.md`), a copy made by hand, the same memory in two folders (a move cut short). Each would be a second memory with the same id. They are merged
 * into the file `preferredPath` picks (outside archive/, not named like a copy: the person's
 * name for it stays), with the field rules of a merge without base (counters by the larger,
 * sets by union, times by the later; a body that differs kept whole between conflict markers),
 * and each extra copy is moved, not deleted, to `.engram/sync-copies/` (out of Obsidian's and
 * recall's sight), with a line in `.engram/sync-copies.jsonl`.
 */
export const COPIES_FOLDER = '.engram/sync-copies';
export const COPIES_LOG = '.engram/sync-copies.jsonl';

export interface DuplicateGroup {
  id: string;
  /** The file that stays (memory-files.ts' preferredPath). */
  keep: string;
  /** The other files holding the same memory. */
  copies: string[];
}

export interface CopiesMerged {
  id: string;
  kept: string;
  /** Each copy merged, and where it went. */
  moved: Array<{ from: string; to: string; kind: string }>;
  /** Copies that could not be merged (no readable frontmatter), left where they are. */
  skipped: string[];
  clashes: string[];
  body_conflicts: number;
}

/** What made a copy, from its name. */
export function copyKind(name: string): string {
  if (/\.sync-conflict-\d{8}-\d{6}/.test(name)) return 'Syncthing conflict copy';
  if (/\(conflicted copy by Engram(?: \d+)?\)/.test(name)) return 'a save Engram replaced';
  if (/\(conflicted copy/i.test(name)) return /\(Conflicted copy [^)]*\d{12}\)/.test(name) ? 'Obsidian Sync conflict copy' : 'Dropbox conflicted copy';
  if (/(?: \d+| \(\d+\))\.md$/.test(name)) return 'numbered duplicate';
  return 'another file with the same id';
}

/** Every id held by more than one file under the memory folders (any names, any sub-folders); `ids`: Vault.idPaths() when the caller has it. */
export async function findDuplicates(vault: Vault, ids?: Map<string, string[]>): Promise<DuplicateGroup[]> {
  const groups: DuplicateGroup[] = [];
  // the ids held by two files or more, then sorted: sorting all 10,000 ids of a first
  // consolidation (a comparator called ~130,000 times) to keep none cost it ~17 ms
  const held: Array<[string, string[]]> = [];
  for (const entry of ids ?? (await vault.idPaths())) if (entry[1].length >= 2) held.push(entry);
  for (const [id, paths] of held.sort(([a], [b]) => (a < b ? -1 : 1))) {
    const keep = preferredPath(paths);
    groups.push({ id, keep, copies: paths.filter((p) => p !== keep).sort() });
  }
  return groups;
}

/**
 * Merge one group into its keeper and move the copies away. Under the memory's lock; the keeper
 * is written with compare-and-swap before any copy moves, so a run stopped half-way is finished
 * by the next one (merging a copy again changes nothing: counters by the larger, sets by union,
 * a body already holding the copy's text stays as it is).
 */
export async function mergeDuplicates(vault: Vault, group: DuplicateGroup): Promise<CopiesMerged> {
  return vault.ports.locks.withLock(group.id, async () => {
    const { files } = vault.ports;
    const result: CopiesMerged = { id: group.id, kept: group.keep, moved: [], skipped: [], clashes: [], body_conflicts: 0 };
    const original = await vault.readText(group.keep);
    let merged = original;
    const merges: string[] = [];
    for (const copy of group.copies) {
      const text = await vault.readText(copy);
      if (text === null) continue;
      if (merged === null) {
        merged = text;
        merges.push(copy);
        continue;
      }
      const outcome = mergeMemoryText(null, merged, text, { settings: vault.settings, path: group.keep, labels: { ours: group.keep, theirs: copy } });
      if (!outcome || frontmatterId(text) !== group.id) {
        result.skipped.push(copy);
        continue;
      }
      merged = outcome.text;
      merges.push(copy);
      for (const clash of outcome.clashes) if (!result.clashes.includes(clash)) result.clashes.push(clash);
      result.body_conflicts += outcome.bodyConflicts;
    }
    if (merged === null || merges.length === 0) return result;
    if (merged !== original) await files.write(group.keep, merged, { expect: original });
    // The copy's bytes are written under .engram/ (a write, not a rename: the plugin's port moves
    // notes with Obsidian's file manager, which does not reach hidden folders), then the copy
    // leaves the notes, unless it changed since it was merged (then the next run merges it again).
    for (const from of merges) {
      const bytes = await files.read(from);
      if (!bytes) continue;
      const to = await freeName(vault, `${COPIES_FOLDER}/${from}`);
      await files.mkdir(to.slice(0, to.lastIndexOf('/')));
      await files.write(to, bytes, { expect: null });
      const now = await files.read(from);
      if (!now || !sameBytes(now, bytes)) continue;
      await files.remove(from);
      result.moved.push({ from, to, kind: copyKind(from.split('/').pop()!) });
    }
    const line = { at: formatTimestamp(vault.now()), ...result };
    const log = (await vault.readText(COPIES_LOG)) ?? '';
    await files.write(COPIES_LOG, `${log}${log && !log.endsWith('\n') ? '\n' : ''}${JSON.stringify(line)}\n`);
    return result;
  });
}

/** Whether two file contents are byte-identical (a file moved aside must be the one judged). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** PATH, or `NAME (2).md`, `NAME (3).md`... the first that no file holds. */
export async function freeName(vault: Vault, path: string): Promise<string> {
  if (!(await vault.ports.files.stat(path))) return path;
  for (let n = 2; ; n++) {
    const candidate = path.replace(/\.md$/, ` (${n}).md`);
    if (!(await vault.ports.files.stat(candidate))) return candidate;
  }
}

/** Merge every group of files that share an id. */
export async function mergeAllDuplicates(vault: Vault): Promise<CopiesMerged[]> {
  const out: CopiesMerged[] = [];
  for (const group of await findDuplicates(vault)) out.push(await mergeDuplicates(vault, group));
  return out;
}
