import { NotFoundError, UsageError, WriteConflictError } from './errors';
import { claimFileName, takenNames, takenNamesOf } from './file-names';
import { namedLinks, noteName } from './links';
import { memoryTitle } from './title';
import { deriveMemoryId, isMemoryId } from './ids';
import { loadVectors, type StoredVectors } from './embeddings/store';
import { searchVectors } from './embeddings/vector-search';
import { bodyText, CATEGORY_FOLDERS, memoryText, type Memory } from './memory';
import type { Embedder } from './ports';
import { renderMemoryFile, type NewMemory } from './memory-file';
import { openConflict } from './conflicts';
import { supersededBy } from './supersession';
import { AnalysedText, ResonanceIndex, reinforcedAmplitude, type Resonance } from './resonance';
import { CATEGORIES, CONFIDENCES, DEFAULT_SETTINGS, type Category, type Confidence, type EngramSettings } from './settings';
import { formatTimestamp, parseTimestamp } from './time';
import type { FieldValue } from './frontmatter';
import { rememberedAgain, useMemories } from './touch';
import type { Vault } from './vault';
import { WriteIndex, type WriteMemory } from './write-index';

/** What a caller asks to remember (the `remember` command, one `import` line, the plugin). */
export interface RememberInput {
  text: string;
  category?: Category;
  created_at?: string;
  confidence?: Confidence;
  tags?: string[];
  is_error?: boolean;
  related_paths?: string[];
  agent_role?: string | null;
  source?: string | null;
  session?: string | null;
  /**
   * The id of a memory this text corrects or replaces: the new text is written as a memory of
   * its own with a `[[id|supersedes]]` link, and the old one becomes stale (never injected,
   * ranked down), as the loser of a resolved conflict does.
   */
  supersedes?: string | null;
}

export interface RememberResult {
  id: string;
  path: string;
  action: 'created' | 'reinforced' | 'conflict';
  /** With action "reinforced": the memory was archived and came back out of archive/. */
  revived?: boolean;
  /** With action "conflict": the memory it contradicts and the conflict note. */
  conflict_with?: string;
  conflict_path?: string;
  /**
   * The memory this one replaces (`supersedes`, or a change found in its words: ADR 0004), now
   * marked `superseded_by` this one; `supersedes` lists them all when there are several.
   */
  superseded?: string;
  supersedes?: string[];
  /**
   * A memory file that holds the same text but cannot be read (a person broke its frontmatter):
   * this memory was created beside it; once the file is repaired, consolidation (or doctor
   * --fix) merges the two into the older (merge/same-text.ts).
   */
  same_text_unreadable?: string;
}

/** Room left for the frontmatter: a memory's text may fill its file up to this much less than the limit. */
export const FRONTMATTER_ALLOWANCE = 8 * 1024;

/**
 * Check and complete an input; throws UsageError naming the field. What the reader would
 * refuse is refused here, at the door: a text too large for a memory file (`maxFileBytes`),
 * and NUL bytes in any field.
 */
export function normaliseInput(input: RememberInput, now: number, maxFileBytes = DEFAULT_SETTINGS.maxFileBytes, checked: CheckedInput = checkInput(input, maxFileBytes)): NewMemory {
  const { text, category, confidence, createdMs } = checked;
  return {
    text,
    category,
    created_at: createdMs === null ? formatTimestamp(now) : typeof input.created_at === 'string' && isFormattedTimestamp(input.created_at) ? input.created_at : formatTimestamp(createdMs),
    confidence,
    tags: normaliseTags(input.tags ?? []),
    is_error: input.is_error ?? false,
    related_paths: input.related_paths === undefined || input.related_paths.length === 0 ? [] : uniqueStrings(input.related_paths),
    agent_role: input.agent_role ?? null,
    source: input.source ?? null,
    session: input.session ?? null,
    links: [],
  };
}

/**
 * Whether a timestamp that parseTimestamp read is written as formatTimestamp writes its instant
 * (`YYYY-MM-DDTHH:MM:SSZ`, or with milliseconds other than `.000`): then it is its own
 * formatting, and an import line's created_at (what agents write, Date.toISOString's form) is
 * kept as it is instead of going through a Date (~10 µs a line). Exported for tests, which
 * compare it with formatTimestamp over every form parseTimestamp reads.
 */
export function isFormattedTimestamp(value: string): boolean {
  const n = value.length;
  if (n === 24) {
    if (value[19] !== '.' || value[23] !== 'Z' || (value[20] === '0' && value[21] === '0' && value[22] === '0')) return false;
  } else if (n !== 20 || value[19] !== 'Z') return false;
  return value[4] === '-' && value[7] === '-' && value[10] === 'T' && value[13] === ':' && value[16] === ':';
}

/** What checkInput found: the trimmed text and the fields normaliseInput completes. */
export interface CheckedInput {
  text: string;
  category: Category;
  confidence: Confidence;
  createdMs: number | null;
}

/**
 * normaliseInput's checks, in its order, with the same errors, and nothing built: `import`
 * checks every line before it plans any (parseImport), then normalises each line once, with
 * what this check found.
 */

export function checkInput(input: RememberInput, maxFileBytes = DEFAULT_SETTINGS.maxFileBytes): CheckedInput {
  const text = typeof input.text === 'string' ? input.text.trim() : '';
  if (text === '') throw new UsageError('text: nothing to remember (empty text)');
  const textLimit = maxFileBytes - FRONTMATTER_ALLOWANCE;
  const textBytes = text.length * 3 <= textLimit ? text.length : new TextEncoder().encode(text).length;
  if (textBytes > textLimit) {
    throw new UsageError(`text: ${textBytes} bytes, over the ${textLimit}-byte limit for a memory's text (a memory file holds at most ${maxFileBytes} bytes)`);
  }
  // each field in the input's order (the first one named); a copy of the input and an array per field cost ~2 % of an import
  const fields = input as unknown as Record<string, unknown>;
  for (const field of Object.keys(fields)) {
    const value = field === 'text' ? text : fields[field];
    if (typeof value === 'string' ? value.includes('\0') : Array.isArray(value) && value.some((v) => typeof v === 'string' && v.includes('\0'))) throw new UsageError(`${field}: contains a NUL byte`);
  }
  const category = input.category ?? 'episodic';
  if (!CATEGORIES.includes(category)) throw new UsageError(`category: expected one of ${CATEGORIES.join(', ')}, got ${JSON.stringify(category)}`);
  const confidence = input.confidence ?? 'observed';
  if (!CONFIDENCES.includes(confidence) || confidence === 'stale') {
    throw new UsageError(`confidence: expected verified, observed or inferred, got ${JSON.stringify(confidence)}`);
  }
  let createdMs: number | null = null;
  if (input.created_at !== undefined) {
    createdMs = typeof input.created_at === 'string' ? parseTimestamp(input.created_at) : null;
    if (createdMs === null) throw new UsageError(`created_at: expected an ISO-8601 date-time, got ${JSON.stringify(input.created_at)}`);
  }
  checkStrings(input.tags ?? [], 'tags');
  checkStrings(input.related_paths ?? [], 'related_paths');
  return { text, category, confidence, createdMs };
}

/**
 * A tag as Obsidian reads it: no leading `#`, no spaces (a space ends an Obsidian tag, so
 * "code review" becomes "code-review"), nothing Obsidian refuses in tags.
 */
export function normaliseTag(tag: string): string {
  // letters, digits and underscores of ASCII (most tags): nothing below changes them, five replaces spared
  if (PLAIN_TAG.test(tag)) return tag;
  return normaliseTagByPattern(tag);
}

const PLAIN_TAG = /^[A-Za-z0-9_]+$/;

/**
 * A list of tags checkStrings took, each normalised, each once, empty ones left out. None or
 * one (most inputs) without the copies and sets a longer list goes through (five arrays and
 * two sets an import line).
 */
export function normaliseTags(tags: string[]): string[] {
  if (tags.length === 0) return [];
  if (tags.length === 1) {
    const tag = normaliseTag(tags[0]!.trim());
    return tag === '' ? [] : [tag];
  }
  return [...new Set(uniqueStrings(tags).map(normaliseTag).filter((t) => t !== ''))];
}

/** normaliseTag without its shortcut (test/core/tags.test.ts compares both). */
export function normaliseTagByPattern(tag: string): string {
  return tag
    .trim()
    .replace(/^#+/, '')
    .replace(/\s+/g, '-')
    .replace(/[^\p{L}\p{N}_/-]/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^[-/]+|[-/]+$/g, '');
}

function checkStrings(values: unknown, field: string): void {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string' && v.trim() !== '')) {
    throw new UsageError(`${field}: expected a list of non-empty strings`);
  }
}

/** A list checkStrings took, each string trimmed, each once. */
function uniqueStrings(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()))];
}

/** What writing needs to know of the vault: a resonance index of live memories, and every id taken. */
export interface WriteContext {
  index: ResonanceIndex;
  taken: Set<string>;
  /** Category of every live memory, for vector resonance. */
  categoryOf: Map<string, Category>;
  /** Stored vectors of the configured model, with the embedder that made them. */
  vectors?: { stored: StoredVectors; embedder: Embedder };
  /** Every live memory (archived ones too), as the write index knows it: its file, category, import keys. */
  memories: WriteMemory[];
  /** The file names in the memory folders (file-names.ts' keys): a new memory's name is not one of them. */
  names: Set<string>;
  /** Each memory file that cannot be read: its text (the body as an agent reads it) and its id, when one can be found. */
  unreadable?: Map<string, { text: string; id: string | null }>;
  /** The persisted index the context came from: the files written are added to it, and it is saved after (write-index.ts). */
  writeIndex?: WriteIndex;
}

/**
 * Vector resonance (SPEC §6): the stored memory of the same category closest to `vector`,
 * when its cosine reaches the threshold (0.95).
 */
export function vectorResonance(context: WriteContext, vector: Float32Array, category: Category, threshold: number): { id: string; similarity: number } | null {
  if (!context.vectors) return null;
  const [best] = searchVectors(context.vectors.stored, vector, 1, (id) => context.categoryOf.get(id) === category);
  if (!best || best[1] < threshold) return null;
  return { id: best[0], similarity: Math.round(best[1] * 1e4) / 1e4 };
}

/**
 * Build the write context from the write index (write-index.ts: every memory file's analysis,
 * read again only where a file changed). Archived memories resonate too: remembering one again
 * reinforces it and brings it back (never a duplicate), but they open no conflicts.
 * `focus`: the one text this context is for (a remember): its resonance index then holds only
 * the postings that text looks up (ResonanceIndex's focus), unless stored vectors are used.
 */
export async function loadWriteContext(vault: Vault, embedder?: Embedder | null, focus?: AnalysedText): Promise<WriteContext> {
  const taken = new Set<string>();
  const categoryOf = new Map<string, Category>();
  const writeIndex = await WriteIndex.load(vault);
  const { problems } = writeIndex;
  // an unreadable file still holds its id (and a name a memory's id may be): a new memory takes neither
  const unreadable = new Map<string, { text: string; id: string | null }>();
  for (const problem of problems) {
    if (problem.id) taken.add(problem.id);
    if (problem.text !== null) unreadable.set(problem.path, { text: problem.text, id: problem.id });
    const name = problem.path.slice(problem.path.lastIndexOf('/') + 1, -3);
    if (isMemoryId(name)) taken.add(name);
  }
  let vectors: WriteContext['vectors'];
  if (embedder) {
    const stored = (await loadVectors(vault)).vectors;
    if (stored && stored.model === embedder.model) vectors = { stored, embedder };
  }
  let index: ResonanceIndex;
  if (focus && !vectors) {
    // one text: only the postings of the words it looks up (resonance.ts), from the rows' term strings
    const terms = new Set([...focus.polarity.terms, ...focus.polarity.negated, ...focus.signals.rejected]);
    index = new ResonanceIndex(vault.settings, terms);
    writeIndex.indexFocused(index, terms, taken);
  } else {
    index = new ResonanceIndex(vault.settings);
    for (const memory of writeIndex.memories) {
      taken.add(memory.id);
      index.add(memory.id, memory.analysis, memory.category, {
        archived: memory.archived,
        confidence: memory.confidence,
        createdMs: memory.createdMs,
        superseded: memory.superseded,
      });
      categoryOf.set(memory.id, memory.category);
    }
  }
  // one text (a remember) claims one name: looked up in the paths as a string, not a key a file
  const names = focus ? takenNamesOf(writeIndex.paths) : takenNames(writeIndex.paths);
  const context: WriteContext = {
    index,
    taken,
    categoryOf,
    get memories() {
      return writeIndex.memories;
    },
    names,
    unreadable,
    writeIndex,
  };
  if (vectors) context.vectors = vectors;
  return context;
}

/** A decided write: the id it goes to and what happens there. */
export interface PlannedWrite {
  memory: NewMemory;
  resonance: Resonance;
  id: string;
  /** A new memory's file name (without `.md`), readable (file-names.ts). */
  name?: string;
  /** With a conflict: what differs. */
  reason?: string;
  /** The analysis of the text made while planning: the write index keeps it for the new file. */
  analysis?: AnalysedText;
}


/**
 * Supersession found in the new text's words (ADR 0004): older memories it replaces become
 * `supersedes` links of the new memory; an older verified decision it reverses (the new one
 * not verified) is a conflict instead. Returns the conflict it found, if any.
 */
export function planChanges(index: ResonanceIndex, memory: NewMemory, resonance: Resonance, analysis: AnalysedText = new AnalysedText(memory.text)): { resonance: Resonance; reason?: string } {
  if (resonance.kind === 'reinforce') return { resonance };
  const changes = index.changes(analysis, memory.category, memory.confidence, parseTimestamp(memory.created_at) ?? 0);
  const explicit = memory.links.some((l) => l.kind === 'supersedes');
  let reason: string | undefined;
  for (const change of changes) {
    if (change.outcome === 'supersede' && !explicit) {
      if (!memory.links.some((l) => l.kind === 'supersedes' && l.target === change.id)) memory.links.push({ target: change.id, kind: 'supersedes' });
      if (resonance.kind === 'conflict' && resonance.id === change.id) resonance = { kind: 'new' };
    } else if (change.outcome === 'conflict' && resonance.kind === 'new') {
      resonance = { kind: 'conflict', id: change.id, similarity: change.similarity };
      reason = change.reason;
    }
  }
  return { resonance, reason };
}

/**
 * Decide what remembering `memory` does, and reserve its id in the index. `taken` holds the
 * ids already in the vault (and planned); a file that appears meanwhile is caught by the
 * exclusive create.
 */
export function planRemember(index: ResonanceIndex, memory: NewMemory, taken: Set<string>, vectorMatch?: { id: string; similarity: number } | null, names?: Set<string>, analysis = new AnalysedText(memory.text)): PlannedWrite {
  let resonance = index.resonate(analysis, memory.category, vectorMatch);
  // a correction is a memory of its own: never folded into another, never a conflict with what it replaces
  const replaced = memory.links.find((l) => l.kind === 'supersedes')?.target;
  if (replaced !== undefined && (resonance.kind === 'reinforce' || (resonance.kind === 'conflict' && resonance.id === replaced))) resonance = { kind: 'new' };
  if (resonance.kind === 'reinforce') return { memory, resonance, id: resonance.id };
  const planned = planChanges(index, memory, resonance, analysis);
  resonance = planned.resonance;
  // the newer side of a conflict links the older: recall ranks it first until a person decides
  if (resonance.kind === 'conflict') memory.links.push({ target: resonance.id, kind: 'contradicts' });
  let attempt = 0;
  let id = deriveMemoryId(memory.text, memory.created_at, attempt);
  while (taken.has(id)) id = deriveMemoryId(memory.text, memory.created_at, ++attempt);
  taken.add(id);
  index.add(id, analysis, memory.category, { confidence: memory.confidence, createdMs: parseTimestamp(memory.created_at) ?? 0 });
  for (const link of memory.links) if (link.kind === 'supersedes') index.markSuperseded(link.target);
  return { memory, resonance, id, name: claimFileName(memoryTitle(memory.text), id, names ?? new Set()), analysis, ...(planned.reason ? { reason: planned.reason } : {}) };
}

/** Carry out a planned write. A new memory's file gets its row in `writeIndex`, when given (saved by the caller). */
export async function applyRemember(vault: Vault, plan: PlannedWrite, writeIndex?: WriteIndex): Promise<RememberResult> {
  const { resonance, id, memory } = plan;
  if (resonance.kind === 'reinforce') {
    // constructive interference, counted as a touch (one tier up, the access counted, the
    // file back out of archive/), merging what the new call adds, in one write
    const [used] = await useMemories(vault, [id], {
      use: 'read',
      touch: true,
      coAccess: false,
      alsoWrite: (existing) => reinforcementFields(existing, memory, resonance.similarity, vault.settings),
    });
    return { id, path: used!.path, action: 'reinforced', ...(used!.revived_from ? { revived: true } : {}) };
  }
  // links found by supersession or a conflict name their target's file, like the others (ADR 0005)
  const paths = new Map<string, string | null>();
  for (const link of memory.links) if (link.name === undefined) paths.set(link.target, await vault.locate(link.target));
  memory.links = namedLinks(memory.links, (target) => paths.get(target));
  const text = renderMemoryFile(id, memory, vault.settings, vault.now());
  let name = plan.name ?? id;
  let path = `${CATEGORY_FOLDERS[memory.category]}/${name}.md`;
  for (let n = 2; ; n++) {
    try {
      const created = await vault.createFile(path, text);
      if (created.memory) writeIndex?.wrote(created.memory, created.stat, plan.analysis);
      break;
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      // The id derives from the text and the time: another writer remembered the same text at
      // the same moment (agents in parallel) and created it first. That is a reinforcement.
      const existing = await vault.read(path, { stable: true }).catch(() => null);
      if (existing && existing.memory.id === id && existing.memory.category === memory.category && memoryText(existing.memory) === memoryText({ body: `${memory.text}\n` })) {
        return applyRemember(vault, { memory, id, resonance: { kind: 'reinforce', id, similarity: 1 } });
      }
      if (existing?.memory.id === id || n > 50) throw new WriteConflictError(`${path} (a memory with this id appeared meanwhile)`);
      // another note took the name meanwhile: the next number
      name = `${plan.name ?? id} ${n}`;
      path = `${CATEGORY_FOLDERS[memory.category]}/${name}.md`;
    }
  }
  const replaced = memory.links.filter((l) => l.kind === 'supersedes').map((l) => l.target);
  // each replaced memory is marked superseded (ADR 0004; not a touch): kept, ranked below its successor, never injected
  for (const old of replaced) await markSuperseded(vault, old, id);
  const superseded = replaced.length > 0 ? { superseded: replaced[0]!, supersedes: replaced } : {};
  if (resonance.kind !== 'conflict') return { id, path, action: 'created', ...superseded };
  const existing = await vault.resolve(resonance.id);
  const conflictPath = await openConflict(vault, existing, { id, text: memory.text, path }, plan.reason ?? 'one negates the other on the same subject');
  return { id, path, action: 'conflict', conflict_with: existing.id, conflict_path: conflictPath, ...superseded };
}

/**
 * Mark `old` superseded by `by` (frontmatter `superseded_by`, ADR 0004). A person undoes it
 * with `engram mark OLD --not-superseded` or by clearing the field in Obsidian. A memory that
 * is gone meanwhile is skipped: the new memory's link still records the relation.
 */
export async function markSuperseded(vault: Vault, old: string, by: string | null): Promise<Memory | null> {
  try {
    return await vault.update(old, (memory) => (supersededBy(memory) === by ? null : { superseded_by: by }));
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/**
 * What a reinforcement writes besides the touch (SPEC §6): amplitude += eventAmplitude ×
 * similarity, one more `remembered_again`, and what the new text's call adds (the merge).
 */
export function reinforcementFields(existing: Memory, incoming: NewMemory, similarity: number, settings: EngramSettings): Record<string, FieldValue> {
  return {
    amplitude: reinforcedAmplitude(existing.amplitude, similarity, settings),
    remembered_again: rememberedAgain(existing) + 1,
    ...reinforcementMerge(existing, incoming),
  };
}

const CONFIDENCE_RANK: Record<Confidence, number> = { stale: 0, inferred: 1, observed: 2, verified: 3 };

/**
 * What remembering a text again adds to the memory it reinforces: new tags and related paths
 * (appended, existing ones kept as written), the new source (`sources` lists every source after
 * the first), a higher confidence (never a lower one), the error flag and the agent role when
 * the memory had none. Only the fields that change.
 */
export function reinforcementMerge(existing: Memory, incoming: NewMemory): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  const union = (have: string[], add: string[], fold: (s: string) => string) => {
    const seen = new Set(have.map(fold));
    const added = add.filter((v) => !seen.has(fold(v)) && seen.add(fold(v)));
    return added.length > 0 ? [...have, ...added] : null;
  };
  const tags = union(existing.tags, incoming.tags, (t) => t.toLowerCase());
  if (tags) fields.tags = tags;
  const paths = union(existing.related_paths, incoming.related_paths, (p) => p);
  if (paths) fields.related_paths = paths;
  if (incoming.source !== null && incoming.source !== existing.source) {
    if (existing.source === null) fields.source = incoming.source;
    else {
      const sources = Array.isArray(existing.extra.sources) ? existing.extra.sources.map(String) : [];
      if (!sources.includes(incoming.source)) fields.sources = [...sources, incoming.source];
    }
  }
  if (CONFIDENCE_RANK[incoming.confidence] > CONFIDENCE_RANK[existing.confidence]) fields.confidence = incoming.confidence;
  if (incoming.is_error && !existing.is_error) fields.is_error = true;
  if (incoming.agent_role !== null && existing.agent_role === null) fields.agent_role = incoming.agent_role;
  return fields;
}

/** SPEC §6: remember one text: reinforce, conflict or create. */
export async function remember(vault: Vault, input: RememberInput, context?: WriteContext | null, embedder?: Embedder | null): Promise<RememberResult> {
  const memory = normaliseInput(input, vault.now(), vault.settings.maxFileBytes);
  if (input.supersedes !== undefined && input.supersedes !== null) {
    if (typeof input.supersedes !== 'string' || !isMemoryId(input.supersedes)) {
      throw new UsageError(`supersedes: expected a memory id (mem- and 12 lowercase letters or digits), got ${JSON.stringify(input.supersedes)}`);
    }
    const old = await vault.resolve(input.supersedes); // missing (or forgotten): NotFoundError, before anything is written
    memory.links = [{ target: input.supersedes, kind: 'supersedes', name: noteName(old.path) }];
  }
  const analysis = new AnalysedText(memory.text);
  // the context of this one text: its resonance index holds only the postings of its own words
  const ctx = context ?? (await loadWriteContext(vault, embedder, analysis));
  const held = noteSameTextUnreadable(ctx, memory);
  const match = await vectorMatches(ctx, [memory], vault.settings.resonance.vectorThreshold);
  const result = await applyRemember(ctx.writeIndex ? vault.withLocator(ctx.writeIndex.locator()) : vault, planRemember(ctx.index, memory, ctx.taken, match[0], ctx.names, analysis), ctx.writeIndex);
  await ctx.writeIndex?.save(vault);
  return held === undefined || result.action === 'reinforced' ? result : { ...result, same_text_unreadable: held };
}

/** The frontmatter field a memory written while an unreadable one held its text names that one by (merge/same-text.ts). */
export const SAME_TEXT_FIELD = 'same_text_as';

/**
 * When an unreadable memory file holds the text of `memory` (a person broke its YAML), the new
 * memory records that memory's id in `same_text_as`, so that consolidation or doctor --fix
 * merges the two once the file is readable again (by id and text). Returns the file's path.
 */
export function noteSameTextUnreadable(context: WriteContext, memory: NewMemory): string | undefined {
  if (!context.unreadable || context.unreadable.size === 0) return undefined; // the usual case: nothing to compare (an import asks for every line)
  const wanted = bodyText(memory.text);
  for (const [path, held] of [...(context.unreadable ?? new Map<string, { text: string; id: string | null }>())].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (held.text !== wanted) continue;
    if (held.id !== null) memory.extra = { ...(memory.extra ?? {}), [SAME_TEXT_FIELD]: held.id };
    return path;
  }
  return undefined;
}

/**
 * Vector resonance for new memories, embedded in one batch; null entries fall back to the
 * lexical resonance. Without stored vectors (or when embedding fails) everything does.
 */
export async function vectorMatches(context: WriteContext, memories: NewMemory[], threshold: number): Promise<Array<{ id: string; similarity: number } | null>> {
  if (!context.vectors || memories.length === 0) return memories.map(() => null);
  let vectors: Float32Array[];
  try {
    vectors = await context.vectors.embedder.embed(memories.map((m) => m.text));
  } catch {
    return memories.map(() => null);
  }
  return memories.map((m, i) => vectorResonance(context, vectors[i]!, m.category, threshold));
}
