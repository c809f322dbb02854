import { openConflict } from './conflicts';
import { forgottenMemories } from './curation';
import { EngramError, NotFoundError, WriteConflictError } from './errors';
import { claimFileName } from './file-names';
import { setFrontmatterFields } from './frontmatter';
import { deriveMemoryId, sha256Hex } from './ids';
import { namedLinks, noteName, type MemoryLink } from './links';
import { CATEGORY_FOLDERS, bodyText, memoryText, type Memory } from './memory';
import { renderMemoryFile, type NewMemory } from './memory-file';
import type { Embedder } from './ports';
import { checkInput, loadWriteContext, type CheckedInput, normaliseInput, noteSameTextUnreadable, planChanges, reinforcementFields, vectorMatches, type RememberInput, type RememberResult, type WriteContext } from './remember';
import { COUNTED_BY, machineId } from './machine';
import { DEFAULT_SETTINGS } from './settings';
import { isArchived, reviveFromArchive, touchFields } from './touch';
import { AnalysedText } from './resonance';
import { supersededBy } from './supersession';
import type { WriteIndex } from './write-index';
import { parseTimestamp } from './time';
import { memoryTitle } from './title';
import { memoryHistory } from './versions';
import { assertWritable, type Vault } from './vault';

/**
 * Bulk remember (SPEC §14 `import`): one JSON object a line.
 *
 * - Every line is checked before anything is written, and every bad line is reported (line
 *   number and reason) in the same run: a person fixes the file in one pass.
 * - Importing the same lines again changes nothing. Each line has an identity: its id is
 *   derived from its text and its `created_at` (or, without one, the line's whole content and
 *   its occurrence in the file), so a memory a line created is found again; a line that
 *   reinforced an existing memory leaves its key in that memory's `import_keys` in the same
 *   write. A run killed half-way and run again writes only what is missing, and counts
 *   nothing twice. `reinforceRepeats` counts lines already imported as reinforcement instead.
 * - Written as it goes: lines are planned a batch at a time (IMPORT_BATCH_LINES) and each
 *   batch is written before the next is planned, so a run killed at any point keeps every
 *   batch it wrote (and the writes of the batch it was in), and running it again completes it
 *   with the same decisions. Ids are chosen clear of every file in the memory folders
 *   (unreadable ones included). A write that fails undoes the writes of the run before the
 *   error is reported (all or nothing for an error; a kill cannot undo).
 * - Lines that share a `session` are one episode: each memory is linked to its neighbours in
 *   that session as `related`.
 */

const WRITE_CONCURRENCY = 16;
/** How many import keys a memory keeps (the most recent): enough for any re-run of recent imports. */
export const MAX_IMPORT_KEYS = 50;

const FIELDS = new Set(['text', 'category', 'created_at', 'tags', 'source', 'session', 'confidence', 'is_error', 'related_paths', 'agent_role']);

export interface ImportLine extends RememberInput {
  session?: string;
  /** 1-based line number in the file (for messages). */
  line?: number;
}

export interface ImportProblem {
  line: number;
  reason: string;
}

/** Bad lines in an import file: every one, with its reason. Nothing was written. */
export class ImportError extends EngramError {
  override name = 'ImportError';
  constructor(
    readonly file: string,
    readonly problems: ImportProblem[],
    total: number,
  ) {
    super(
      `${problems.map((p) => `${file}:${p.line}: ${p.reason}`).join('\n')}\n` +
        `${problems.length} bad ${problems.length === 1 ? 'line' : 'lines'} of ${total}: nothing imported (fix ${problems.length === 1 ? 'it' : 'them'} and run the same command again)`,
    );
  }
}

function checkLine(raw: string, maxFileBytes: number | undefined, lineNumber: number): ImportLine | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return `not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'expected a JSON object';
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let unknown: string[] | null = null;
  for (const key of keys) if (!FIELDS.has(key)) (unknown ??= []).push(key);
  if (unknown !== null) return `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`;
  if (typeof record.text !== 'string') return 'field "text" must be a string';
  for (const key of ['source', 'agent_role', 'category', 'confidence', 'created_at'] as const) {
    if (record[key] !== undefined && typeof record[key] !== 'string') return `field "${key}" must be a string`;
  }
  if (record.is_error !== undefined && typeof record.is_error !== 'boolean') return 'field "is_error" must be true or false';
  if (record.session !== undefined && typeof record.session !== 'string' && typeof record.session !== 'number') return 'field "session" must be a string or a number';
  // the parsed object itself, its keys in the same order as a copy of it with `session` (as a
  // string, appended when missing) and `line` would have: no second object a line
  if (record.session !== undefined) record.session = String(record.session);
  else record.session = undefined;
  record.line = lineNumber;
  const line = record as unknown as ImportLine;
  let checked: CheckedInput;
  try {
    checked = checkInput(line, maxFileBytes);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  // what the check found is kept for importLines, which normalises the line without checking it
  // again: frozen, the line cannot change in between (its lists too)
  if (Array.isArray(line.tags)) Object.freeze(line.tags);
  if (Array.isArray(line.related_paths)) Object.freeze(line.related_paths);
  CHECKED.set(Object.freeze(line), { maxFileBytes, checked });
  return line;
}

/**
 * The check of each line parseImport returned (checkInput's result, for the file-size limit it
 * was checked against): importLines normalises such a line without running the check again
 * (every line was checked twice). A line made otherwise is checked by normaliseInput.
 */
const CHECKED = new WeakMap<ImportLine, { maxFileBytes: number | undefined; checked: CheckedInput }>();

/** checkInput's result for `line` when parseImport checked it against `maxFileBytes` (undefined: check it). Exported for tests. */
export function checkedBefore(line: ImportLine, maxFileBytes: number): CheckedInput | undefined {
  const known = CHECKED.get(line);
  return known !== undefined && (known.maxFileBytes ?? DEFAULT_SETTINGS.maxFileBytes) === maxFileBytes ? known.checked : undefined;
}

/** Parse and check JSONL. Throws ImportError listing every bad line; nothing is decided before all are good. */
export function parseImport(jsonl: string, name: string, maxFileBytes?: number): ImportLine[] {
  const lines: ImportLine[] = [];
  const problems: ImportProblem[] = [];
  let total = 0;
  jsonl.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    total++;
    const checked = checkLine(raw, maxFileBytes, index + 1);
    if (typeof checked === 'string') problems.push({ line: index + 1, reason: checked });
    else lines.push(checked);
  });
  if (problems.length > 0) throw new ImportError(name, problems, total);
  return lines;
}

export type ImportAction = RememberResult['action'] | 'unchanged';

export interface ImportResult {
  id: string;
  path: string;
  action: ImportAction;
  conflict_with?: string;
  conflict_path?: string;
  /** The older memories this line's memory supersedes (ADR 0004), now marked `superseded_by` it. */
  supersedes?: string[];
}

export interface ImportSummary {
  lines: number;
  created: number;
  reinforced: number;
  conflicts: number;
  /** Older memories the lines' memories supersede (ADR 0004), each counted once; a dry run counts those it would mark. */
  superseded: number;
  /** Lines already imported (nothing written for them). */
  unchanged: number;
  dry_run: boolean;
  results: ImportResult[];
}

export interface ImportOptions {
  embedder?: Embedder | null;
  /** Decide and report, write nothing. */
  dryRun?: boolean;
  /** Lines already imported reinforce their memory again (a repeat counted as an event). */
  reinforceRepeats?: boolean;
  /** Lines planned before their writes are made (IMPORT_BATCH_LINES). */
  batchLines?: number;
}

/** A memory already in the vault (or forgotten), as the import looks it up by id; `memory` when it was read. */
interface Known {
  id: string;
  path: string;
  category: Memory['category'];
  memory?: Memory;
}

/** What the import will do with one line. */
type Plan =
  | { kind: 'unchanged'; id: string; path: string }
  | { kind: 'create'; id: string; path: string; memory: NewMemory; conflictWith: string | null; reason?: string; analysis: AnalysedText; title: string }
  | { kind: 'reinforce'; id: string; path: string; similarity: number; key: string | null; memory: NewMemory };

/** The JSON text that tells one line's memory from another's (a line's identity, with its occurrence). */
function canonicalLine(line: ImportLine, memory: NewMemory): string {
  return JSON.stringify([memory.text, memory.category, line.created_at ?? null, memory.tags, memory.source, memory.session, memory.confidence, memory.is_error, memory.related_paths, memory.agent_role]);
}

/**
 * Each line's anchor: what its id is derived from besides its text (its created_at, or a hash
 * of its canonical form), with `#n` for the n-th earlier line of the same canonical form. A
 * line whose text no earlier line has is the first of its form: its canonical form is made
 * only when its anchor is a hash of it or a later line has its text (most lines: none).
 * `anchorsByCanonical` is the reference (test/core/import-anchors.test.ts compares both).
 */
export function lineAnchors(lines: ImportLine[], memories: NewMemory[]): string[] {
  // per text: the first line that has it, then the count of each canonical form among its lines
  const byText = new Map<string, number | Map<string, number>>();
  const made: (string | undefined)[] = [];
  const canonical = (i: number): string => (made[i] ??= canonicalLine(lines[i]!, memories[i]!));
  const anchors = new Array<string>(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const memory = memories[i]!;
    const line = lines[i]!;
    const earlier = byText.get(memory.text);
    let occurrence = 0;
    if (earlier === undefined) byText.set(memory.text, i);
    else {
      let counts = earlier;
      if (typeof counts === 'number') byText.set(memory.text, (counts = new Map([[canonical(earlier as number), 1]])));
      const form = canonical(i);
      occurrence = counts.get(form) ?? 0;
      counts.set(form, occurrence + 1);
    }
    const base = line.created_at !== undefined ? memory.created_at : `import:${sha256Hex(canonical(i)).slice(0, 16)}`;
    anchors[i] = occurrence === 0 ? base : `${base}#${occurrence}`;
  }
  return anchors;
}

/** lineAnchors made the plain way: every line's canonical form counted. Exported for tests. */
export function anchorsByCanonical(lines: ImportLine[], memories: NewMemory[]): string[] {
  const seen = new Map<string, number>();
  return lines.map((line, i) => {
    const memory = memories[i]!;
    const canonical = canonicalLine(line, memory);
    const occurrence = seen.get(canonical) ?? 0;
    seen.set(canonical, occurrence + 1);
    const base = line.created_at !== undefined ? memory.created_at : `import:${sha256Hex(canonical).slice(0, 16)}`;
    return occurrence === 0 ? base : `${base}#${occurrence}`;
  });
}

/** How many lines are planned before their writes are made (an import writes as it goes, SPEC §14). */
export const IMPORT_BATCH_LINES = 1000;

export async function importLines(vault: Vault, lines: ImportLine[], options: ImportOptions | Embedder | null = {}): Promise<ImportSummary> {
  const opts: ImportOptions = options && 'embed' in options ? { embedder: options } : ((options) ?? {});
  const context = await loadWriteContext(vault, opts.embedder);
  const now = vault.now();
  const maxFileBytes = vault.settings.maxFileBytes;
  const memories = lines.map((line) => normaliseInput(line, now, maxFileBytes, checkedBefore(line, maxFileBytes)));
  // a text an unreadable memory holds: the new memory names it, to be merged once it is repaired
  for (const memory of memories) noteSameTextUnreadable(context, memory);
  const planner = await importPlanner(vault, context, lines, memories, opts);
  const batch = Math.max(1, Math.floor(opts.batchLines ?? IMPORT_BATCH_LINES));
  // the files this run writes and the memories the write index saw: finding them needs no refresh of the id index
  const known = context.writeIndex?.locator();
  const located = known ? vault.withLocator((id) => known(id) ?? planner.plannedPath(id)) : vault;
  const results: ImportResult[] = [];
  const undo: Undo[] = [];
  // Plan a batch, write it, go on: a killed run keeps every batch it wrote, and a re-run finds
  // those lines imported. A batch is written once the session neighbours of its lines are
  // planned (a line links to the next line of its session, which may be further on).
  // With more than one batch, a store that can create files in a thread of its own does so: a
  // batch of new memories is then written while the next batch is planned (an import of 10,000
  // lines spent ~0.5 s of its 1.25 s in the creates' system calls, after the planning, on a
  // machine with a second core mostly idle). A batch that changes existing files (a
  // reinforcement, a supersession, a conflict) is written whole before the next is planned, as
  // before; planning reads no file this run creates, so the decisions are the same.
  const background = !opts.dryRun && lines.length > batch ? (vault.ports.files.createInBackground?.() ?? null) : null;
  let writing: Promise<void> | null = null;
  let written = 0;
  try {
    while (written < lines.length) {
      const planned = planner.plans.length;
      if (planned < lines.length) {
        try {
          await planner.planUpTo(Math.min(lines.length, planned + batch));
        } catch (error) {
          // the batch being written stands (or, failed, is undone and its error is the one reported)
          if (writing) await writing;
          throw error;
        }
      }
      const upTo = planner.writableUpTo(written);
      if (upTo === written) continue; // a session runs on: plan further before writing
      if (writing) {
        await writing;
        writing = null;
      }
      const plans = planner.plans.slice(written, upTo);
      linkSessions(planner, written, upTo);
      // links found by supersession or a conflict name their target's file, like the others (ADR 0005)
      // (a list whose links all have their name is kept as it is: namedLinks would copy it into an
      // array of another kind, and the code that reads links was optimised again for it)
      for (const plan of plans) if (plan.kind === 'create' && !allNamed(plan.memory.links)) plan.memory.links = namedLinks(plan.memory.links, planner.pathOf);
      if (opts.dryRun) results.push(...plans.map((plan) => dryResult(plan)));
      else {
        const step = applyImport(located, plans, undo, context.writeIndex, background !== null).then((done) => {
          results.push(...done);
        });
        if (background !== null && createsOnly(plans)) {
          writing = step;
          step.catch(() => undefined); // its error is reported where it is awaited
        } else await step;
      }
      written = upTo;
    }
    if (writing) await writing;
  } finally {
    await background?.stop();
  }
  // Archived memories a line reinforced come back out of archive/ once the run stands (a move
  // is not rolled back; one cut short here is completed by the next consolidation).
  if (!opts.dryRun) {
    for (const result of results) {
      if (result.action === 'reinforced' && isArchived(result.path)) result.path = await reviveFromArchive(located, result.id);
    }
  }
  await context.writeIndex?.save(vault);
  return {
    lines: lines.length,
    created: results.filter((r) => r.action === 'created').length,
    reinforced: results.filter((r) => r.action === 'reinforced').length,
    conflicts: results.filter((r) => r.action === 'conflict').length,
    superseded: new Set(results.flatMap((r) => r.supersedes ?? [])).size,
    unchanged: results.filter((r) => r.action === 'unchanged').length,
    dry_run: Boolean(opts.dryRun),
    results,
  };
}

/** Plans made in input order, a range at a time, with everything earlier lines decided carried over. */
interface ImportPlanner {
  lines: ImportLine[];
  plans: Plan[];
  /** Plan the lines up to (not including) `end`. */
  planUpTo(end: number): Promise<void>;
  /** The end of the longest run of planned lines from `from` whose session neighbours are all planned. */
  writableUpTo(from: number): number;
  /** Each line's previous and next line of the same session (-1: none). */
  previous: number[];
  next: number[];
  /** The file of a memory planned by this import or already in the vault. */
  pathOf: (id: string) => string | undefined;
  /** The file of a memory planned by this import (null: none). */
  plannedPath: (id: string) => string | null;
}

async function importPlanner(vault: Vault, context: WriteContext, lines: ImportLine[], memories: NewMemory[], options: ImportOptions): Promise<ImportPlanner> {
  const byId = new Map<string, Known>(context.memories.map((m) => [m.id, m]));
  for (const m of await forgottenMemories(vault)) {
    byId.set(m.id, { id: m.id, path: m.path, category: m.category, memory: m }); // a forgotten memory was imported: importing again does not bring it back
    context.taken.add(m.id);
  }
  const keyOwner = new Map<string, Known>();
  for (const m of context.memories) for (const key of m.importKeys) keyOwner.set(key, m);
  const anchorOf = lineAnchors(lines, memories);
  const previous = lines.map(() => -1);
  const next = lines.map(() => -1);
  const last = new Map<string, number>();
  lines.forEach((line, i) => {
    if (line.session === undefined) return;
    const before = last.get(line.session);
    if (before !== undefined) {
      previous[i] = before;
      next[before] = i;
    }
    last.set(line.session, i);
  });
  const plans: Plan[] = [];

  async function planUpTo(end: number): Promise<void> {
    const start = plans.length;
    const range = memories.slice(start, end);
    // most lines take their first id, found without a promise; the others are looked up together
    // (plain loops: the arrays that map and filter made changed kind between batches, and this
    // function, which inlines the planning, was optimised again for each)
    const looked: Array<Found | Promise<Found>> = [];
    let waiting = false;
    for (let k = 0; k < range.length; k++) {
      const f = findImported(vault, byId, context.taken, range[k]!, anchorOf[start + k]!);
      if (f instanceof Promise) waiting = true;
      looked.push(f);
    }
    const found = waiting ? await Promise.all(looked.map(async (f) => f)) : (looked as Found[]);
    const fresh: number[] = [];
    for (let k = 0; k < range.length; k++) if (!found[k]!.memory && !keyOwner.has(found[k]!.key)) fresh.push(k);
    const matches = await vectorMatches(context, fresh.map((k) => range[k]!), vault.settings.resonance.vectorThreshold);
    const vectorMatchOf = new Map(fresh.map((k, j) => [k, matches[j]]));
    for (const [k, memory] of range.entries()) {
      const i = start + k;
      const { memory: existing, key, freeId } = found[k]!;
      const previousMemory = existing ?? keyOwner.get(key);
      if (previousMemory) {
        plans.push(options.reinforceRepeats ? { kind: 'reinforce', id: previousMemory.id, path: previousMemory.path, similarity: 1, key: null, memory } : { kind: 'unchanged', id: previousMemory.id, path: previousMemory.path });
        continue;
      }
      const vector = vectorMatchOf.get(k);
      const analysis = new AnalysedText(memory.text);
      let resonance = context.index.resonate(analysis, memory.category, vector);
      if (resonance.kind === 'reinforce') {
        const target = byId.get(resonance.id);
        plans.push({ kind: 'reinforce', id: resonance.id, path: target?.path ?? pathOf(resonance.id) ?? (await vault.locate(resonance.id)) ?? resonance.id, similarity: resonance.similarity, key, memory });
        continue;
      }
      // free when found; taken meanwhile only if two lines of this file derive the same id
      let id = freeId;
      for (let attempt = 1; context.taken.has(id); attempt++) id = deriveMemoryId(memory.text, anchorOf[i]!, attempt);
      context.taken.add(id);
      const planned = planChanges(context.index, memory, resonance, analysis);
      resonance = planned.resonance;
      if (resonance.kind === 'conflict') memory.links.push({ target: resonance.id, kind: 'contradicts' });
      context.index.add(id, analysis, memory.category, { confidence: memory.confidence, createdMs: parseTimestamp(memory.created_at) ?? 0 });
      for (const link of memory.links) if (link.kind === 'supersedes') context.index.markSuperseded(link.target);
      const title = memoryTitle(memory.text);
      const path = `${CATEGORY_FOLDERS[memory.category]}/${claimFileName(title, id, context.names)}.md`;
      plans.push({ kind: 'create', id, path, memory, conflictWith: resonance.kind === 'conflict' ? resonance.id : null, analysis, title, ...(planned.reason ? { reason: planned.reason } : {}) });
    }
  }

  function writableUpTo(from: number): number {
    let upTo = from;
    while (upTo < plans.length && next[upTo]! < plans.length) upTo++;
    return upTo;
  }

  // a planned memory's file, or an existing one's
  const plannedPaths = new Map<string, string>();
  let seen = 0;
  function pathOf(id: string): string | undefined {
    for (; seen < plans.length; seen++) {
      const plan = plans[seen]!;
      if (plan.kind === 'create') plannedPaths.set(plan.id, plan.path);
    }
    return plannedPaths.get(id) ?? byId.get(id)?.path;
  }

  function plannedPath(id: string): string | null {
    pathOf(id);
    return plannedPaths.get(id) ?? null;
  }

  return { lines, plans, planUpTo, writableUpTo, previous, next, pathOf, plannedPath };
}

/**
 * Whether a line's memory is in the vault: the files at the ids its identity derives to
 * (attempt 0, 1, …) are checked in turn; one that holds the line's text (now, or as its first
 * version when it was edited since) or its created_at is it. Unreadable files and other
 * memories are stepped over. Returns the free id a new memory would take, and the line's key.
 */
function findImported(vault: Vault, byId: Map<string, Known>, taken: Set<string>, memory: NewMemory, anchor: string): Found | Promise<Found> {
  const key = deriveMemoryId(memory.text, anchor, 0);
  return taken.has(key) ? findTaken(vault, byId, taken, memory, anchor, key) : { memory: null, key, freeId: key };
}

/** What findImported found: the line's memory in the vault (null: none), its key, the free id a new memory would take. */
interface Found {
  memory: Known | null;
  key: string;
  freeId: string;
}

/** findImported for a line whose first id is taken. */
async function findTaken(vault: Vault, byId: Map<string, Known>, taken: Set<string>, memory: NewMemory, anchor: string, key: string): Promise<Found> {
  let text: string | undefined; // worked out only for a taken id (a line imported before): most lines take their first id
  for (let attempt = 0; ; attempt++) {
    const id = attempt === 0 ? key : deriveMemoryId(memory.text, anchor, attempt);
    if (!taken.has(id)) return { memory: null, key, freeId: id };
    const known = byId.get(id);
    if (!known || known.category !== memory.category) continue;
    // the memory at this id is read now (the write index keeps no texts): only lines imported before get here
    const existing = known.memory ?? (await vault.read(known.path).catch(() => null))?.memory;
    if (!existing) continue;
    text ??= bodyText(memory.text);
    if (memoryText(existing) === text || existing.created_at === memory.created_at) return { memory: known, key, freeId: id };
    const first = (await memoryHistory(vault, id).catch(() => []))[0];
    if (first && !first.damaged && bodyText(first.body) === text) return { memory: known, key, freeId: id };
  }
}

/** The older memories a line's memory supersedes: its `supersedes` links' targets, in order. */
function supersededIds(memory: { links: ReadonlyArray<{ target: string; kind: string }> }): string[] {
  return memory.links.filter((link) => link.kind === 'supersedes').map((link) => link.target);
}

function dryResult(plan: Plan): ImportResult {
  if (plan.kind === 'unchanged') return { id: plan.id, path: plan.path, action: 'unchanged' };
  if (plan.kind === 'reinforce') return { id: plan.id, path: plan.path, action: 'reinforced' };
  const path = plan.path;
  const replaced = supersededIds(plan.memory);
  const result: ImportResult = plan.conflictWith ? { id: plan.id, path, action: 'conflict', conflict_with: plan.conflictWith } : { id: plan.id, path, action: 'created' };
  return replaced.length > 0 ? { ...result, supersedes: replaced } : result;
}

/**
 * A file this run wrote, to be put back if a later write fails: `before` null for a file it
 * created. `after` is what it wrote; a created file's text is rendered again from its plan when
 * a roll-back needs it (keeping 10,000 rendered texts, ~8 MB, was a tenth of an import's heap
 * and of its garbage collectors' copying).
 */
interface Undo {
  path: string;
  before: string | null;
  /** What this run wrote; null for a created file, whose text is rendered again from `plan` at `now`. */
  after: string | null;
  plan?: Extract<Plan, { kind: 'create' }>;
  now?: number;
}

/**
 * Write one batch's plans. A write that fails undoes every write of the run (this batch's and
 * the ones before) before the error is reported: all or nothing for an error. A killed run
 * cannot undo: it keeps the batches it wrote, and running it again completes it.
 */
async function applyImport(vault: Vault, plans: Plan[], undo: Undo[], writeIndex: WriteIndex | undefined, background: boolean): Promise<ImportResult[]> {
  const results: ImportResult[] = new Array<ImportResult>(plans.length);
  try {
    // New files are independent: a few at a time. Reinforcements and conflicts touch
    // existing files and run after, in input order.
    // (all of them at once when the store creates in the background: its thread makes them one
    // after the other while this one renders the next and plans the next batch)
    const creates = plans.flatMap((plan, i) => (plan.kind === 'create' ? [i] : []));
    const window = background ? Math.max(1, creates.length) : WRITE_CONCURRENCY;
    for (let start = 0; start < creates.length; start += window) {
      const batch = creates.slice(start, start + window);
      const settled = await Promise.allSettled(batch.map((i) => createMemory(vault, plans[i] as Extract<Plan, { kind: 'create' }>, undo, writeIndex)));
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw (failed).reason;
      batch.forEach((i, j) => (results[i] = (settled[j] as PromiseFulfilledResult<ImportResult>).value));
    }
    for (const [i, plan] of plans.entries()) {
      if (plan.kind === 'unchanged') results[i] = { id: plan.id, path: plan.path, action: 'unchanged' };
      else if (plan.kind === 'reinforce') results[i] = await reinforce(vault, plan, undo);
      else {
        const replaced = supersededIds(plan.memory);
        for (const old of replaced) await supersede(vault, old, plan.id, undo);
        if (replaced.length > 0) results[i] = { ...results[i]!, supersedes: replaced };
        if (plan.conflictWith) results[i] = await conflict(vault, plan, results[i]!, undo);
      }
    }
  } catch (error) {
    const undone = await rollBack(vault, undo);
    const reason = error instanceof Error ? error.message : String(error);
    throw new EngramError(`import stopped: ${reason}; nothing imported (${undone} ${undone === 1 ? 'write' : 'writes'} of this run undone)`);
  }
  return results;
}

async function createMemory(vault: Vault, plan: Extract<Plan, { kind: 'create' }>, undo: Undo[], writeIndex?: WriteIndex): Promise<ImportResult> {
  const path = plan.path;
  const now = vault.now();
  const text = renderMemoryFile(plan.id, plan.memory, vault.settings, now, plan.title);
  try {
    // a plain new memory's row is made from its plan; one with further fields is parsed back
    const plain = writeIndex !== undefined && plan.memory.extra === undefined;
    const created = await vault.createFile(path, text, { parse: !plain });
    if (plain) writeIndex.created(path, plan.id, plan.memory, text, created.stat, plan.analysis);
    else if (created.memory) writeIndex?.wrote(created.memory, created.stat, plan.analysis);
  } catch (error) {
    if (error instanceof WriteConflictError) throw new WriteConflictError(`${path} (a file with this name appeared meanwhile)`);
    throw error;
  }
  // the plan is not changed once written (its links were named before): the same text again
  // (the plan and the time kept, not a closure: an import kept 10,000 closures with their names)
  undo.push({ path, before: null, after: null, plan, now });
  return { id: plan.id, path, action: 'created' };
}

/**
 * Reinforce an existing memory (SPEC §6), recording the line's key in the same write so that
 * the line is never counted twice. Under the memory's lock, with compare-and-swap; the texts
 * before and after are kept for a roll-back.
 */
async function reinforce(vault: Vault, plan: Extract<Plan, { kind: 'reinforce' }>, undo: Undo[]): Promise<ImportResult> {
  return vault.ports.locks.withLock(plan.id, async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const path = await vault.locate(plan.id);
      if (!path) throw new NotFoundError(`no memory with id ${plan.id} (it was to be reinforced)`);
      const loaded = await vault.read(path, { stable: true });
      if (!loaded) continue;
      const { memory, text } = loaded;
      const keys = Array.isArray(memory.extra.import_keys) ? memory.extra.import_keys.filter((k): k is string => typeof k === 'string') : [];
      if (plan.key && keys.includes(plan.key)) return { id: plan.id, path, action: 'unchanged' }; // another run of the same import got here first
      // as remember's reinforcement: a touch, with what the line adds merged (remember.ts)
      const machine = await machineId(vault);
      const next = setFrontmatterFields(text, {
        ...touchFields(memory, vault.now(), vault.settings, machine),
        [COUNTED_BY]: machine,
        ...reinforcementFields(memory, plan.memory, plan.similarity, vault.settings),
        ...(plan.key ? { import_keys: [...keys, plan.key].slice(-MAX_IMPORT_KEYS) } : {}),
      });
      assertWritable(path, next, vault.settings.maxFileBytes, memory.body);
      try {
        await vault.ports.files.write(path, next, { expect: text });
      } catch (error) {
        if (error instanceof WriteConflictError) continue;
        throw error;
      }
      undo.push({ path, before: text, after: next });
      return { id: plan.id, path, action: 'reinforced' };
    }
    throw new WriteConflictError(plan.id);
  });
}

/** Mark an older memory superseded by a line's memory (ADR 0004), with compare-and-swap and an undo. */
async function supersede(vault: Vault, old: string, by: string, undo: Undo[]): Promise<void> {
  await vault.ports.locks.withLock(old, async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const path = await vault.locate(old);
      if (!path) return; // gone meanwhile: the new memory's link still records the relation
      const loaded = await vault.read(path, { stable: true });
      if (!loaded) continue;
      if (supersededBy(loaded.memory) === by) return;
      const next = setFrontmatterFields(loaded.text, { superseded_by: by });
      assertWritable(path, next, vault.settings.maxFileBytes, loaded.memory.body);
      try {
        await vault.ports.files.write(path, next, { expect: loaded.text });
      } catch (error) {
        if (error instanceof WriteConflictError) continue;
        throw error;
      }
      undo.push({ path, before: loaded.text, after: next });
      return;
    }
    throw new WriteConflictError(old);
  });
}

async function conflict(vault: Vault, plan: Extract<Plan, { kind: 'create' }>, created: ImportResult, undo: Undo[]): Promise<ImportResult> {
  const existing = await vault.resolve(plan.conflictWith!);
  const before = await vault.ports.files.list('conflicts');
  const conflictPath = await openConflict(vault, existing, { id: plan.id, text: plan.memory.text, path: plan.path }, plan.reason ?? 'one negates the other on the same subject');
  if (!before.includes(conflictPath.slice(conflictPath.lastIndexOf('/') + 1))) {
    const text = await vault.readText(conflictPath);
    if (text !== null) undo.push({ path: conflictPath, before: null, after: text });
  }
  return { ...created, action: 'conflict', conflict_with: existing.id, conflict_path: conflictPath };
}

/** Put back what this run wrote, newest first, where nobody changed it since. Returns how many files. */
async function rollBack(vault: Vault, undo: Undo[]): Promise<number> {
  let undone = 0;
  for (const step of undo.reverse()) {
    try {
      const after = step.after ?? renderMemoryFile(step.plan!.id, step.plan!.memory, vault.settings, step.now!, step.plan!.title);
      if ((await vault.readText(step.path)) !== after) continue;
      if (step.before === null) await vault.ports.files.remove(step.path);
      else await vault.ports.files.write(step.path, step.before, { expect: after });
      undone++;
    } catch {
      // best effort: what cannot be put back stays, and the error says the run stopped
    }
  }
  return undone;
}

/** Whether a batch's plans only create files (no existing file is changed, no conflict opened): it may be written while the next is planned. */
function createsOnly(plans: readonly Plan[]): boolean {
  for (const plan of plans) {
    if (plan.kind === 'reinforce' || (plan.kind === 'create' && plan.conflictWith !== null)) return false;
    if (plan.kind === 'create') for (const link of plan.memory.links) if (link.kind === 'supersedes') return false;
  }
  return true;
}

/** Whether every link names its target's file (namedLinks would change none). */
function allNamed(links: MemoryLink[]): boolean {
  for (const link of links) if (link.name === undefined) return false;
  return true;
}

/** Link each new memory of a session in [from, to) to its previous and next neighbours (`related`); both are planned. */
function linkSessions(planner: ImportPlanner, from: number, to: number): void {
  const { plans, previous, next } = planner;
  for (let i = from; i < to; i++) {
    const plan = plans[i]!;
    if (plan.kind !== 'create' || planner.lines[i]!.session === undefined) continue;
    const links: MemoryLink[] = [];
    for (const link of plan.memory.links) if (link.kind === 'supersedes' || link.kind === 'contradicts') links.push(link);
    linkNeighbour(plan, links, plans, previous[i]!);
    linkNeighbour(plan, links, plans, next[i]!);
    plan.memory.links = links;
  }
}

/** A `related` link from a session's memory to its neighbour's (none for -1, itself or a target linked already). */
function linkNeighbour(plan: Plan, links: MemoryLink[], plans: Plan[], neighbour: number): void {
  if (neighbour < 0) return;
  const other = plans[neighbour]!;
  const target = other.id;
  if (target === plan.id) return;
  for (const link of links) if (link.target === target) return;
  // the neighbour's file name is what Obsidian resolves; its id goes to link_ids (ADR 0005)
  links.push({ target, kind: 'related', name: noteName(other.path) });
}
