import { PLAN_PATH } from './consolidation/consolidate';
import { repairLinks } from './link-repair';
import { pruneVerdict, degreeOf } from './consolidation/prune';
import { forgottenMemories } from './curation';
import { contentHash } from './ids';
import { readConflictNote } from './consolidation/conflicts';
import { loadVectors } from './embeddings/store';
import { frontmatterId, listMemoryPaths, revivedPath } from './memory-files';
import { ARCHIVE_FOLDER, decodeNote, memoryText, parseMemory, type Memory } from './memory';
import { mergeMemoryText, type TextMerger } from './merge/memory-merge';
import { CLASH_FIELD } from './merge/fields';
import { COPIES_FOLDER, copyKind, findDuplicates, mergeDuplicates } from './merge/sync-copies';
import { findSameText, mergeSameText, MERGED_FOLDER } from './merge/same-text';
import { staleCatalogRows, CATALOG_PATH } from './recall/catalog';
import { SNAPSHOT_PATH } from './recall/snapshot';
import { setFrontmatterFields, splitFrontmatter } from './frontmatter';
import { damagedRecords, versionedIds } from './versions';
import { LAYOUT, MEMORY_FOLDERS, type Vault } from './vault';

/**
 * `engram doctor` (issue 14): what would confuse Engram or Obsidian in a vault, and, with
 * `--fix`, the repairs that lose nothing: files sharing an id merged (sync-copies.ts), conflict
 * markers in a frontmatter resolved by the merge rules, memories a merge left in archive/ while
 * alive moved back, caches that contradict the notes dropped (they are rebuilt). What needs a
 * person is only reported: a file that does not parse, conflict markers in a text, a clash of
 * two people's edits, links to memories that exist nowhere.
 */
export type Check =
  | 'duplicate-id'
  | 'conflict-markers'
  | 'unreadable'
  | 'merge-clash'
  | 'archived-alive'
  /** a memory remembered again while the one holding its text could not be read (same_text_as) */
  | 'same-text'
  | 'missing-link'
  | 'renamed-link'
  | 'interrupted-consolidation'
  | 'stale-cache'
  | 'stale-lock'
  | 'temp-file'
  | 'git-setup'
  /** a memory file git left unmerged without markers (the merge driver did not run) */
  | 'unmerged'
  /** a record of a memory's earlier text that does not read back (finding 13 of issue 22) */
  | 'damaged-version';

export interface Finding {
  check: Check;
  path: string;
  problem: string;
  /** What --fix does; absent when a person must decide. */
  fix?: string;
  /** Set by --fix. */
  fixed?: boolean;
}

export interface DoctorOptions {
  fix: boolean;
  /** A three-way line merge, for conflict markers that carry their base (diff3 style). */
  mergeText?: TextMerger;
  /** The versions of a conflicted file as the version control system holds them (git's index stages), when it does. */
  versions?: (path: string) => { base: string | null; ours: string; theirs: string } | null;
  /** Called when a conflicted file was resolved (git: staged). */
  resolved?: (path: string) => void;
}

const MARKER_OPEN = /^<{7}(?:[ \t]|\r?\n|$)/;
const MARKER_BASE = /^\|{7}(?:[ \t]|\r?\n|$)/;
const MARKER_SPLIT = /^={7}\r?\n?$/;
const MARKER_CLOSE = /^>{7}(?:[ \t]|\r?\n|$)/;

/** The two (or three) versions a text with conflict markers holds; null when it has none or they do not close. */
export function splitConflict(text: string): { ours: string; theirs: string; base: string | null } | null {
  const parts = { ours: '', theirs: '', base: '' };
  let state: 'out' | 'ours' | 'base' | 'theirs' = 'out';
  let blocks = 0;
  let withBase = false;
  for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    if (state === 'out' && MARKER_OPEN.test(line)) {
      state = 'ours';
      blocks++;
    } else if (state === 'ours' && MARKER_BASE.test(line)) {
      state = 'base';
      withBase = true;
    } else if ((state === 'ours' || state === 'base') && MARKER_SPLIT.test(line)) state = 'theirs';
    else if (state === 'theirs' && MARKER_CLOSE.test(line)) state = 'out';
    else if (state === 'out') {
      parts.ours += line;
      parts.theirs += line;
      parts.base += line;
    } else parts[state] += line;
  }
  if (blocks === 0 || state !== 'out') return null;
  return { ours: parts.ours, theirs: parts.theirs, base: withBase ? parts.base : null };
}

function hasMarkers(text: string): boolean {
  const lines = text.split('\n');
  return lines.some((l) => MARKER_OPEN.test(l)) && lines.some((l) => MARKER_CLOSE.test(l));
}

/** Examine a vault (and repair with `fix`). Findings in a fixed order: by check, then path. */
export async function examineVault(vault: Vault, options: DoctorOptions): Promise<Finding[]> {
  const findings: Finding[] = [];
  const { files } = vault.ports;

  // 1. files that share an id
  const copyPaths = new Set<string>();
  for (const group of await findDuplicates(vault)) {
    const kinds = group.copies.map((c) => `${c} (${copyKind(c.split('/').pop()!)})`);
    const finding: Finding = {
      check: 'duplicate-id',
      path: group.keep,
      problem: `${group.copies.length + 1} files hold ${group.id}: ${kinds.join(', ')}`,
      fix: `merge them into ${group.keep} (no-base rules) and move the copies to ${COPIES_FOLDER}/`,
    };
    if (options.fix) {
      const merged = await mergeDuplicates(vault, group);
      finding.fixed = merged.moved.length === group.copies.length;
      if (merged.body_conflicts > 0) finding.problem += `; the texts differed: both are in ${group.keep} between conflict markers`;
    }
    if (!finding.fixed) for (const c of group.copies) copyPaths.add(c);
    findings.push(finding);
  }

  // 2. every memory file: readable, markers, clashes, archived while alive
  const memories: Memory[] = [];
  const known = new Set<string>();
  {
    for (const path of await listMemoryPaths(files, MEMORY_FOLDERS)) {
      if (path.slice(path.lastIndexOf('/') + 1).startsWith('.')) continue;
      if (copyPaths.has(path)) continue;
      let bytes: Uint8Array | null;
      let text: string;
      try {
        bytes = await files.read(path);
        if (!bytes) continue;
        text = decodeNote(path, bytes, vault.settings.maxFileBytes);
      } catch (error) {
        findings.push({ check: 'unreadable', path, problem: (error as Error).message.replace(`${path}: `, '') });
        continue;
      }
      const id = frontmatterId(text);
      if (id) known.add(id);
      let memory: Memory;
      try {
        memory = parseMemory(path, text, vault.settings);
      } catch (error) {
        const reason = (error as Error).message.replace(`${path}: `, '');
        const split = splitFrontmatter(text);
        if (hasMarkers(split ? split.yaml : text)) {
          findings.push(await resolveMarkers(vault, path, text, options));
        } else {
          findings.push({ check: 'unreadable', path, problem: reason });
        }
        continue;
      }
      memories.push(memory);
      try {
        // what every touch writes: a frontmatter Engram cannot edit without changing other fields
        // (a key named __proto__, an indented top-level mapping) makes touches and cites fail
        setFrontmatterFields(text, { access_count: memory.access_count + 1, last_accessed_at: memory.last_accessed_at, activation: memory.activation, counted_by: 'm-000000000000' });
      } catch (error) {
        findings.push({ check: 'unreadable', path, problem: `Engram cannot record a use of it: ${(error as Error).message.split('\n')[0]}` });
      }
      if (hasMarkers(memory.body)) {
        findings.push({ check: 'conflict-markers', path, problem: 'conflict markers in the text: both sides changed the same lines; keep the right words and remove the <<<<<<< ======= >>>>>>> lines' });
      }
      const clash = memory.extra[CLASH_FIELD];
      if (Array.isArray(clash) && clash.length > 0) {
        findings.push({ check: 'merge-clash', path, problem: `two people changed the same field differently: ${clash.join('; ')}; set the value you want and remove ${CLASH_FIELD}` });
      }
    }
  }
  await archivedAlive(vault, memories, options, findings);
  await sameText(vault, memories, options, findings);

  // 3. links to memories that exist nowhere (not even in archive/, nor among the forgotten:
  // engram forget keeps those recoverable, and their links stand)
  for (const forgotten of await forgottenMemories(vault)) known.add(forgotten.id);
  for (const memory of memories) {
    const targets = new Set([...memory.links.map((l) => l.target), ...Object.keys(memory.co_access)]);
    const missing = [...targets].filter((id) => id !== memory.id && !known.has(id)).sort();
    if (missing.length > 0) findings.push({ check: 'missing-link', path: memory.path, problem: `links to ${missing.join(', ')}, which no file holds` });
  }
  for (const name of (await files.list(LAYOUT.conflicts)).sort()) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    const text = await vault.readText(path);
    const note = text ? readConflictNote(path, text) : null;
    const missing = note ? note.sides.filter((id) => !known.has(id)) : [];
    if (missing.length > 0) findings.push({ check: 'missing-link', path, problem: `a conflict between memories that no file holds: ${missing.join(', ')}` });
  }

  // 3b. links to a memory renamed outside Obsidian: pointed at its file again (ADR 0005)
  const links = await repairLinks(vault, { apply: options.fix, rewritesOnly: true });
  const byNote = new Map<string, string[]>();
  for (const r of links.rewritten) byNote.set(r.path, [...(byNote.get(r.path) ?? []), `${r.from} -> ${r.to}`]);
  for (const [path, changes] of byNote) {
    const finding: Finding = { check: 'renamed-link', path, problem: `${changes.length === 1 ? 'a link names' : `${changes.length} links name`} a file that was renamed or moved: ${changes.join(', ')}`, fix: 'point them at the file that holds the memory now' };
    if (options.fix) finding.fixed = links.written.includes(path);
    findings.push(finding);
  }

  // 3c. version records that do not read back: history shows them in place, a person decides
  // (the record is never rewritten; restore it from a backup or the other clone, or remove it)
  for (const id of await versionedIds(vault)) {
    for (const damaged of await damagedRecords(vault, id)) {
      findings.push({ check: 'damaged-version', path: damaged.path, problem: `a version of ${id} cannot be read: ${damaged.problem}; engram history ${id} shows it in its place (restore the file from a backup or another clone)` });
    }
  }

  // 4. an interrupted consolidation, caches that contradict the notes
  if (await files.stat(PLAN_PATH)) {
    findings.push({ check: 'interrupted-consolidation', path: PLAN_PATH, problem: 'a consolidation stopped before it finished; the next engram consolidate completes its plan' });
  }
  await staleCaches(vault, memories, options, findings);
  return findings;
}

/** Conflict markers in a frontmatter: both versions merged by the field rules (with their base when the markers carry it). */
async function resolveMarkers(vault: Vault, path: string, text: string, options: DoctorOptions): Promise<Finding> {
  const finding: Finding = {
    check: 'conflict-markers',
    path,
    problem: 'conflict markers in the frontmatter (a merge without the Engram driver): Engram and Obsidian cannot read it',
    fix: 'merge the two versions field by field, as the merge driver would',
  };
  const staged = options.versions?.(path) ?? null;
  const versions = staged ?? splitConflict(text);
  const merged = versions ? mergeMemoryText(options.mergeText ? versions.base : null, versions.ours, versions.theirs, { settings: vault.settings, mergeText: options.mergeText, path }) : null;
  let parsed = false;
  if (merged) {
    try {
      parseMemory(path, merged.text, vault.settings);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  if (!merged || !parsed) {
    delete finding.fix;
    finding.problem += '; the two versions cannot be told apart: edit the file by hand';
    return finding;
  }
  if (staged) finding.fix += ' from the three versions in the index, and stage it';
  if (options.fix) {
    await vault.ports.files.write(path, merged.text, { expect: text });
    if (staged) options.resolved?.(path);
    finding.fixed = true;
    if (merged.bodyConflicts > 0) finding.problem += '; the texts differ too: both are kept between conflict markers in the body';
  }
  return finding;
}

/** A memory in archive/ whose tier says it lives (a touch merged in): back to its folder, as consolidation would. */
async function archivedAlive(vault: Vault, memories: Memory[], options: DoctorOptions, findings: Finding[]): Promise<void> {
  const degree = degreeOf(memories);
  const now = vault.now();
  for (const memory of memories) {
    if (!memory.path.startsWith(`${ARCHIVE_FOLDER}/`) || memory.tier === null || memory.tier === 'archive') continue;
    if (pruneVerdict(memory, degree.get(memory.id) ?? 0, now, vault.settings) === 'prune') continue;
    const to = revivedPath(memory.path, memory.category);
    const finding: Finding = { check: 'archived-alive', path: memory.path, problem: `archived, yet its tier is ${memory.tier} (used on another machine after it was archived)`, fix: `move it back to ${to}` };
    if (options.fix && !(await vault.ports.files.stat(to))) {
      await vault.ports.files.move(memory.path, to);
      finding.fixed = true;
    }
    findings.push(finding);
  }
}

/** A memory remembered again while the one holding its text could not be read (merge/same-text.ts): merged, as consolidation does. */
async function sameText(vault: Vault, memories: Memory[], options: DoctorOptions, findings: Finding[]): Promise<void> {
  for (const group of findSameText(memories)) {
    const others = group.others.map((m) => `${m.id} (${m.path})`).join(', ');
    const finding: Finding = {
      check: 'same-text',
      path: group.keep.path,
      problem: `${group.keep.id} and ${others} hold the same text: remembered again while ${group.keep.id} could not be read`,
      fix: `merge them into ${group.keep.id} (counts added, tags, sources and links kept) and move the others to ${MERGED_FOLDER}/`,
    };
    if (options.fix) {
      const merged = await mergeSameText(vault, group, memories);
      finding.fixed = merged.merged.length === group.others.length;
    }
    findings.push(finding);
  }
}

/**
 * Caches that contradict the notes in a way they do not repair themselves: catalog rows the
 * catalog trusts (same size and mtime as the file) that say something else than the file
 * (files replaced with their times kept, by a sync tool or a restore); stored vectors of
 * memories that changed or are gone (the next reembed or consolidation with an embedder
 * brings them up to date).
 */
async function staleCaches(vault: Vault, memories: Memory[], options: DoctorOptions, findings: Finding[]): Promise<void> {
  const { files } = vault.ports;
  if (await files.stat(CATALOG_PATH)) {
    const wrong = (await staleCatalogRows(vault)).length;
    if (wrong > 0) {
      const finding: Finding = { check: 'stale-cache', path: CATALOG_PATH, problem: `${wrong} catalog rows disagree with their files (replaced with their times kept)`, fix: 'remove the catalog and the recall snapshot: rebuilt at the next recall' };
      if (options.fix) {
        await files.remove(CATALOG_PATH);
        await files.remove(SNAPSHOT_PATH);
        finding.fixed = true;
      }
      findings.push(finding);
    }
  }
  const { vectors, problem } = await loadVectors(vault);
  if (problem) findings.push({ check: 'stale-cache', path: '.engram/embeddings.index.json', problem });
  if (vectors) {
    const live = new Map(memories.map((m) => [m.id, m]));
    let gone = 0;
    let changed = 0;
    vectors.ids.forEach((id, row) => {
      const memory = live.get(id);
      if (!memory) gone++;
      else if (contentHash(memoryText(memory)) !== vectors.hashes[row]) changed++;
    });
    if (gone + changed > 0) {
      findings.push({ check: 'stale-cache', path: '.engram/embeddings.index.json', problem: `${changed} memories changed since they were embedded, ${gone} vectors belong to memories that are gone: engram reembed (or the next consolidation) brings them up to date` });
    }
  }
}
