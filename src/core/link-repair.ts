import { patternExample } from './consolidation/pattern-summary';
import { PATTERN_TITLE_CHARS } from './consolidation/semantic';
import { claimFileName, takenNames } from './file-names';
import { setFrontmatterFields, splitFrontmatter, readFrontmatter, type FieldValue } from './frontmatter';
import { contentHash, isMemoryId, MEMORY_ID } from './ids';
import { LINK_IDS_FIELD, LINK_KINDS, linkIdsValue, noteName, parseLinkIds, type LinkKind, type MemoryLink } from './links';
import { memoryText, type Memory } from './memory';
import { listMemoryPaths, preferredPath } from './memory-files';
import type { FileStore } from './ports';
import { memoryTitle } from './title';
import { LAYOUT, MEMORY_FOLDERS, type ReadNote, type Vault } from './vault';

/**
 * Links that keep resolving when file names are free (ADR 0005). Obsidian resolves `[[Name]]`
 * by file name and rewrites the links itself when it renames a file; a rename outside it (a
 * file manager, git, a sync tool) leaves them pointing at a name that is gone. Engram knows the
 * ids they meant (a memory's `link_ids`, a conflict note's `sides`, a review note's `memory`)
 * and points them at the file that holds the id now. Links written by id (`[[mem-…]]`, before
 * readable names) are rewritten to the file name, their ids recorded in `link_ids`.
 * `migrateNames` gives memories named by their id (`mem-….md`) a readable name, then repairs.
 */

export interface LinkRewrite {
  /** The note whose link changed. */
  path: string;
  from: string;
  to: string;
}

export interface LinkReport {
  /** Links pointed at the file that holds their memory now. */
  rewritten: LinkRewrite[];
  /** Notes whose `link_ids` gained the ids of their links. */
  recorded: string[];
  /** Notes written (empty on a dry run). */
  written: string[];
  /** Notes that changed meanwhile or could not be written: left as they were. */
  skipped: Array<{ path: string; reason: string }>;
}

const WIKILINK = /\[\[([^\]|#\n]+)(#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g;
/** WIKILINK for linksStand's exec loop; a link's target ending in `.md` (baseOf drops it). */
const LINK_SCAN = new RegExp(WIKILINK.source, 'g');
const MD_END = /\.md$/i;

export interface Names {
  /** The file name (without `.md`) of the file holding each id. */
  nameOf: Map<string, string>;
  /** Every name a link can resolve to in the memory folder (lowercase), with the id the file holds, if any. */
  byName: Map<string, string | null>;
}

/**
 * What a caller that has just read the vault can give instead of reading it again: its loaded
 * memories with their texts and the paths listed (`Vault.loadAll({ keep: true })`), and the
 * files holding each id (`Vault.idPaths()`), as fresh as the caller's own look.
 */
export interface LinkRepairInput {
  loaded?: { memories: Memory[]; paths: string[]; read: Map<string, ReadNote> };
  ids?: Map<string, string[]>;
}

/** The names links resolve to (exported for the tests of linksStand). */
export async function names(vault: Vault, renamed: Map<string, string>, given: LinkRepairInput): Promise<Names> {
  const nameOf = new Map<string, string>();
  const byName = new Map<string, string | null>();
  // a name a file holding an id has resolves to that id (the last id of a name, in the ids'
  // order); every other name listed, to no memory. The files that are their id's only one are
  // named here, once: the listing below would only find their names taken (a lower-case copy
  // of each of the 10,000 names, twice, was most of a consolidation's link repair)
  const named = new Set<string>();
  for (const [id, paths] of given.ids ?? (await vault.idPaths())) {
    const name = renamed.get(id) ?? noteName(preferredPath(paths));
    nameOf.set(id, name);
    byName.set(name.toLowerCase(), id);
    if (paths.length === 1 && !renamed.has(id)) named.add(paths[0]!);
  }
  for (const path of await listMemoryPaths(vault.ports.files, [LAYOUT.conflicts, 'review', LAYOUT.daily])) {
    const key = noteName(path).toLowerCase();
    if (!byName.has(key)) byName.set(key, null);
  }
  for (const path of given.loaded?.paths ?? (await listMemoryPaths(vault.ports.files, MEMORY_FOLDERS))) {
    if (named.has(path)) continue;
    const key = noteName(path).toLowerCase();
    if (!byName.has(key)) byName.set(key, null);
  }
  // a renamed file's old name no longer resolves
  if (renamed.size > 0) for (const id of renamed.keys()) byName.delete(id.toLowerCase());
  for (const [id, name] of renamed) byName.set(name.toLowerCase(), id);
  return { nameOf, byName };
}

function baseOf(target: string): string {
  return target.trim().replace(/\.md$/i, '').split('/').pop()!;
}

interface Rewritten {
  text: string;
  rewrites: Array<{ from: string; to: string }>;
  found: MemoryLink[];
}

/**
 * A text's wikilinks pointed at the files that hold their ids now. `expected` are the ids the
 * note says it links to (in order); a link to a name that resolves nowhere takes the first of
 * them (same kind) that no link of the note reaches.
 */
function rewriteLinks(text: string, expected: MemoryLink[], n: Names, kindOf: (label: string | undefined) => LinkKind | null, pairAny = false): Rewritten {
  // one scan of the text: the links are found once, then the text is put together again only
  // when one of them changes (a String.replace with the same pattern made a second scan and a
  // new string of every memory's body; consolidation repairs all 10,000 of them each night)
  const links = [...text.matchAll(WIKILINK)];
  if (links.length === 0) return { text, rewrites: [], found: [] };
  const reached = new Set<string>();
  const seen: Array<{ base: string; id: string | null; resolves: boolean }> = [];
  for (const m of links) {
    const base = baseOf(m[1]!);
    const lower = base.toLowerCase();
    const id = isMemoryId(base) && n.nameOf.has(base) ? base : (n.byName.get(lower) ?? null);
    const resolves = n.byName.has(lower) || (isMemoryId(base) && n.nameOf.has(base));
    if (id) reached.add(id);
    seen.push({ base, id, resolves });
  }
  const waiting = expected.filter((l) => !reached.has(l.target) && n.nameOf.has(l.target));
  const rewrites: Rewritten['rewrites'] = [];
  const found: MemoryLink[] = [];
  const rewrite = (i: number, link: string, target: string, sub: string | undefined, label: string | undefined): string => {
    const { id, resolves } = seen[i]!;
    const kind = kindOf(label);
    let to = id;
    if (!resolves) {
      const at = waiting.findIndex((l) => (kind === null ? pairAny : l.kind === kind));
      if (at < 0) return link; // a note outside the memory folder, or a memory gone: left as written
      to = waiting.splice(at, 1)[0]!.target;
    }
    if (!to) return link;
    if (kind) found.push({ target: to, kind });
    const name = n.nameOf.get(to)!;
    if (target === name) return link;
    const next = `[[${name}${sub ?? ''}${label !== undefined ? `|${label}` : ''}]]`;
    rewrites.push({ from: link, to: next });
    return next;
  };
  let out = '';
  let last = 0;
  links.forEach((m, i) => {
    const next = rewrite(i, m[0], m[1]!, m[2], m[3]);
    if (next === m[0]) return;
    out += text.slice(last, m.index) + next;
    last = m.index + m[0].length;
  });
  return { text: last === 0 ? text : out + text.slice(last), rewrites, found };
}

const memoryKind = (label: string | undefined): LinkKind | null => {
  const l = (label ?? '').trim();
  return (LINK_KINDS as readonly string[]).includes(l) ? (l as LinkKind) : null;
};

/**
 * Repair the links of every memory, conflict note and review note (dry run unless `apply`).
 * `renamed` gives names files will have (a migration's dry run); `rewritesOnly` leaves notes
 * whose links all resolve as they are (doctor, consolidation).
 */
export async function repairLinks(vault: Vault, options: { apply: boolean; renamed?: Map<string, string>; rewritesOnly?: boolean } & LinkRepairInput): Promise<LinkReport> {
  const n = await names(vault, options.renamed ?? new Map<string, string>(), options);
  const report: LinkReport = { rewritten: [], recorded: [], written: [], skipped: [] };
  const { memories } = options.loaded ?? (await vault.loadAll());
  const read = options.loaded?.read;
  for (const memory of memories) await repairMemory(vault, memory, n, options.apply, report, options.rewritesOnly ?? false, read?.get(memory.path)?.text);
  for (const folder of [LAYOUT.conflicts, 'review']) {
    for (const path of await listMemoryPaths(vault.ports.files, [folder])) await repairNote(vault, path, n, options.apply, report);
  }
  return report;
}

/**
 * Whether every link of a memory stands as written, known from its body and fields without
 * rewriteLinks' objects: each wikilink of the body (and of a `decays_from` property) is written
 * as the exact name of the memory file it resolves to, or resolves to a note holding no
 * memory, and each typed link to a memory is in `link_ids` as `kind id`. Then plan() has
 * nothing to rewrite and no id to record: a repair of rewrites only leaves the memory (and
 * would not have read its text). False: not known so (a link to rewrite, a name that resolves
 * nowhere, a path or `.md` in a link, an id to record): plan() decides, as before. Consolidation
 * asks it of every memory each night: with rewriteLinks' matches, closures and arrays for each
 * memory, the link repair of the bench vault's first run (10,000 memories, all links standing)
 * took 135-190 ms of CPU; with this and names' one pass, 95-125 ms.
 */
export function linksStand(m: Memory, n: Names): boolean {
  const recorded = m.extra[LINK_IDS_FIELD];
  const property = m.extra.decays_from;
  return linkNamesStand(m.body, recorded, n, null) && (typeof property !== 'string' || linkNamesStand(property, recorded, n, 'decays_from'));
}

/** linksStand for one text: `fixed` is the kind of every link in it (a property's), else each link's label tells it (repairMemory's kindOf). */
function linkNamesStand(text: string, recorded: unknown, n: Names, fixed: LinkKind | null): boolean {
  if (!text.includes('[[')) return true;
  // exec on a pattern of its own from the start (matchAll would copy WIKILINK's lastIndex)
  LINK_SCAN.lastIndex = 0;
  for (let m = LINK_SCAN.exec(text); m !== null; m = LINK_SCAN.exec(text)) {
    const target = m[1]!;
    // baseOf(target) is the target itself: nothing to trim, no folder, no .md
    if (target.includes('/') || target.trim() !== target || MD_END.test(target)) return false;
    const lower = target.toLowerCase();
    const byId = isMemoryId(target) && n.nameOf.has(target);
    const id = byId ? target : n.byName.get(lower);
    if (id === undefined) return false; // resolves nowhere: plan() pairs it with a recorded id
    if (id === null) continue; // a note that holds no memory: left as written, nothing found
    if (n.nameOf.get(id) !== target) return false;
    const label = m[3];
    const kind = fixed ?? memoryKind(label) ?? (label === undefined || label.trim() === '' ? 'related' : null);
    if (kind !== null && !(MEMORY_ID.test(id) && Array.isArray(recorded) && recordedAs(recorded, kind, id))) return false;
  }
  return true;
}

/** `recorded.includes(`${kind} ${id}`)` without making that string (linkNamesStand: two links a memory, every memory each night). */
function recordedAs(recorded: unknown[], kind: string, id: string): boolean {
  const length = kind.length + 1 + id.length;
  for (const entry of recorded) {
    if (typeof entry === 'string' && entry.length === length && entry.charCodeAt(kind.length) === 0x20 && entry.startsWith(kind) && entry.endsWith(id)) return true;
  }
  return false;
}

/**
 * `known`: the memory's text as read with it (the plan is made from it; a write reads the file
 * again under the lock); null: the memory came from the memory cache, its text is read only
 * when it has something to repair.
 */
async function repairMemory(vault: Vault, memory: Memory, n: Names, apply: boolean, report: LinkReport, rewritesOnly: boolean, known?: string | null): Promise<void> {
  // a memory given with its text or row, whose links all stand: nothing to plan
  if (rewritesOnly && known !== undefined && linksStand(memory, n)) return;
  // `text` null: only whether there is anything to do (a memory's text always splits)
  const plan = (m: Memory, text: string | null): { text: string; rewrites: LinkRewrite[]; recorded: boolean } | null => {
    const split = text === null ? null : splitFrontmatter(text);
    if (text !== null && !split) return null;
    const recorded = parseLinkIds(m.extra[LINK_IDS_FIELD]);
    const body = rewriteLinks(m.body, recorded, n, (label) => memoryKind(label) ?? (label === undefined || label.trim() === '' ? 'related' : null));
    const fields: Record<string, FieldValue> = {};
    const rewrites = body.rewrites.map((r) => ({ path: m.path, ...r }));
    const property = m.extra.decays_from;
    const found = [...body.found];
    if (typeof property === 'string') {
      const prop = rewriteLinks(property, recorded.filter((l) => l.kind === 'decays_from'), n, () => 'decays_from');
      found.push(...prop.found);
      if (prop.text !== property) {
        fields.decays_from = prop.text;
        rewrites.push(...prop.rewrites.map((r) => ({ path: m.path, ...r })));
      }
    }
    const ids = [...recorded];
    for (const link of found) if (!ids.some((l) => l.target === link.target && l.kind === link.kind)) ids.push(link);
    const grew = ids.length > recorded.length;
    if (grew) fields[LINK_IDS_FIELD] = linkIdsValue(ids);
    if (body.text === m.body && Object.keys(fields).length === 0) return null;
    if (text === null || !split) return { text: '', rewrites, recorded: grew };
    // a body Engram wrote (its hash matches) keeps matching: the repair is not a person's edit
    if (body.text !== m.body && m.content_hash === contentHash(m.body)) fields.content_hash = contentHash(body.text);
    const withBody = body.text === m.body ? text : split.head + split.yaml + split.fence + body.text;
    return { text: Object.keys(fields).length > 0 ? setFrontmatterFields(withBody, fields) : withBody, rewrites, recorded: grew };
  };
  if (known === null) {
    const probe = safePlan(() => plan(memory, null), memory.path, report);
    if (!probe || (rewritesOnly && probe.rewrites.length === 0)) return;
  } else if (known !== undefined && rewritesOnly) {
    // nothing to do (nearly every memory, every night) is known without splitting the text;
    // anything else, even a failure, is planned from the text as before
    let probe: ReturnType<typeof plan> | undefined;
    try {
      probe = plan(memory, null);
    } catch {
      probe = undefined;
    }
    if (probe === null) return;
  }
  const first = known ?? (await vault.readExact(memory.path));
  if (first === null) return;
  const planned = safePlan(() => plan(memory, first), memory.path, report);
  // recording the ids of links that resolve is the migration's (a vault of mem-… links reads as it is)
  if (!planned || (rewritesOnly && planned.rewrites.length === 0)) return;
  report.rewritten.push(...planned.rewrites);
  if (planned.recorded) report.recorded.push(memory.path);
  if (!apply) return;
  try {
    await vault.ports.locks.withLock(memory.id, async () => {
      const text = await vault.readExact(memory.path);
      const current = text === null ? null : await vault.read(memory.path, { stable: true });
      if (text === null || !current || current.memory.id !== memory.id) return;
      const next = plan(current.memory, text);
      if (!next) return;
      await vault.ports.files.write(memory.path, next.text, { expect: text });
      report.written.push(memory.path);
    });
  } catch (error) {
    report.skipped.push({ path: memory.path, reason: error instanceof Error ? error.message : String(error) });
  }
}

function safePlan<T>(make: () => T, path: string, report: LinkReport): T | null {
  try {
    return make();
  } catch (error) {
    report.skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
    return null;
  }
}

/** A conflict or review note: its links to the memories its frontmatter names (`sides`, `memory`). */
async function repairNote(vault: Vault, path: string, n: Names, apply: boolean, report: LinkReport): Promise<void> {
  const text = await vault.readExact(path).catch(() => null);
  const split = text === null ? null : splitFrontmatter(text);
  if (text === null || !split) return;
  let data: Record<string, unknown>;
  try {
    data = (readFrontmatter(split.yaml) ?? {}) as Record<string, unknown>;
  } catch {
    return;
  }
  const ids = [...(Array.isArray(data.sides) ? data.sides.map(String) : []), ...(typeof data.memory === 'string' ? [data.memory] : [])].filter(isMemoryId);
  const body = rewriteLinks(split.body, ids.map((target) => ({ target, kind: 'related' })), n, () => null, true);
  if (body.rewrites.length === 0) return;
  report.rewritten.push(...body.rewrites.map((r) => ({ path, ...r })));
  if (!apply) return;
  try {
    await vault.ports.files.write(path, split.head + split.yaml + split.fence + body.text, { expect: text });
    report.written.push(path);
  } catch (error) {
    report.skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
  }
}

export interface MigrationReport {
  /** Memories named by their id, and the readable name each gets. */
  renamed: Array<{ id: string; from: string; to: string }>;
  links: LinkReport;
  /**
   * The person's own notes elsewhere in the Obsidian vault the memory folder sits in (paths
   * relative to that vault): their `[[mem-…]]` links pointed at the new names. Null when the
   * memory folder is in no Obsidian vault (or is one itself).
   */
  outside: LinkReport | null;
  applied: boolean;
}

/**
 * The Obsidian vault around the memory folder: a file store rooted at the vault, where the
 * memory folder is inside it (`memory`, `Areas/memory`), and the person's notes outside the
 * memory folder (`.md`, dot-folders left out), listed by the shell.
 */
export interface ObsidianVaultAround {
  files: FileStore;
  memoryFolder: string;
  notes: string[];
}

/**
 * A person's note outside the memory folder: each wikilink to a memory by its id (`[[mem-…]]`,
 * `[[memory/episodic/mem-….md#Part|words]]`, `![[mem-…]]`), where the file holding that id is
 * no longer named by it, is pointed at the file's name (with the file's path when the link had
 * a path). Only the link target changes: the heading, the alias, every other byte stay. In the
 * frontmatter a name with a `'` is left (YAML quoting would change): reported as skipped.
 */
function rewriteOutside(text: string, nameOf: Map<string, string>, pathOf: Map<string, string>): { text: string; rewrites: Array<{ from: string; to: string }>; unquotable: string[] } {
  const rewrites: Array<{ from: string; to: string }> = [];
  const unquotable: string[] = [];
  const split = splitFrontmatter(text);
  const headEnd = split ? split.head.length + split.yaml.length : 0;
  const out = text.replace(WIKILINK, (link: string, target: string, sub: string | undefined, label: string | undefined, offset: number) => {
    const base = baseOf(target);
    const name = isMemoryId(base) ? nameOf.get(base) : undefined;
    if (!name || name === base) return link;
    const md = /\.md$/i.test(target.trim());
    const to = `${target.includes('/') ? pathOf.get(base)! : name}${md ? '.md' : ''}`;
    if (offset < headEnd && to.includes("'")) {
      unquotable.push(link);
      return link;
    }
    const next = `[[${to}${sub ?? ''}${label !== undefined ? `|${label}` : ''}]]`;
    rewrites.push({ from: link, to: next });
    return next;
  });
  return { text: out, rewrites, unquotable };
}

/** Point the `[[mem-…]]` links of the person's notes outside the memory folder at the memories' files. */
async function repairOutside(vault: Vault, around: ObsidianVaultAround, renamed: Map<string, string>, apply: boolean): Promise<LinkReport> {
  const report: LinkReport = { rewritten: [], recorded: [], written: [], skipped: [] };
  const nameOf = new Map<string, string>();
  const pathOf = new Map<string, string>();
  for (const [id, paths] of await vault.idPaths()) {
    const path = preferredPath(paths);
    const name = renamed.get(id) ?? noteName(path);
    nameOf.set(id, name);
    pathOf.set(id, `${around.memoryFolder}/${path.slice(0, path.lastIndexOf('/') + 1)}${name}`);
  }
  for (const path of around.notes) {
    let text: string | null;
    try {
      const bytes = await around.files.read(path);
      text = bytes === null ? null : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (error) {
      report.skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
      continue;
    }
    if (text === null || !text.includes('[[')) continue;
    const next = rewriteOutside(text, nameOf, pathOf);
    for (const link of next.unquotable) report.skipped.push({ path, reason: `${link} is in a property and the new name needs YAML quoting: edit it by hand` });
    if (next.rewrites.length === 0) continue;
    report.rewritten.push(...next.rewrites.map((r) => ({ path, ...r })));
    if (!apply) continue;
    try {
      // compare-and-swap: a note the person saved meanwhile is left as it is (the next run does it)
      await around.files.write(path, next.text, { expect: text });
      report.written.push(path);
    } catch (error) {
      report.skipped.push({ path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return report;
}

/**
 * `engram migrate`: every memory whose file is named by its id (`mem-….md`, the layout before
 * ADR 0005) gets its title for a name, in the same folder, and every link to it follows (dry
 * run unless `apply`). Idempotent: a second run finds nothing named by an id and no link to fix.
 */
export async function migrateNames(vault: Vault, options: { apply: boolean; around?: ObsidianVaultAround | null }): Promise<MigrationReport> {
  const { memories, problems } = await vault.loadAll();
  const around = options.around ?? null;
  // names unique in the whole Obsidian vault, so that `[[Name]]` resolves to the memory from any note
  const outside = around ? around.notes : [];
  const taken = takenNames([...memories.map((m) => m.path), ...problems.map((p) => p.path), ...(await listMemoryPaths(vault.ports.files, [LAYOUT.conflicts, 'review', LAYOUT.daily])), ...outside]);
  const renamed: MigrationReport['renamed'] = [];
  for (const memory of memories) {
    if (noteName(memory.path) !== memory.id) continue;
    // a pattern is named after the episode it quotes, as consolidation names new ones
    const text = memoryText(memory);
    const title = memory.source === 'consolidation' ? memoryTitle(patternExample(text) ?? text, PATTERN_TITLE_CHARS) : memoryTitle(text);
    const name = claimFileName(memory.source === 'consolidation' && title ? `${title} (pattern)` : title, memory.id, taken);
    if (name === memory.id) continue;
    const folder = memory.path.slice(0, memory.path.lastIndexOf('/'));
    renamed.push({ id: memory.id, from: memory.path, to: `${folder}/${name}.md` });
  }
  if (!options.apply) {
    const names = new Map(renamed.map((r) => [r.id, noteName(r.to)]));
    const links = await repairLinks(vault, { apply: false, renamed: names });
    return { renamed, links, outside: around ? await repairOutside(vault, around, names, false) : null, applied: false };
  }
  const done: MigrationReport['renamed'] = [];
  for (const move of renamed) {
    await vault.ports.locks.withLock(move.id, async () => {
      if ((await vault.locate(move.id)) !== move.from || (await vault.ports.files.stat(move.to))) return;
      await vault.ports.files.move(move.from, move.to);
      done.push(move);
    });
  }
  const links = await repairLinks(vault, { apply: true });
  return { renamed: done, links, outside: around ? await repairOutside(vault, around, new Map(), true) : null, applied: true };
}
