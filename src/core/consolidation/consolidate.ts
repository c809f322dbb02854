import { loadVectors, updateVectorsFrom, type EmbedSource, type LoadResult } from '../embeddings/store';
import { renderMemoryFile, type NewMemory } from '../memory-file';
import { PATTERN_TITLE_CHARS, planClusters, type ClusterAction, type ClusterMemo } from './semantic';
import type { AbstractiveReport } from './abstractive';
import { loadSketches, saveSketches } from './sketch-cache';
import { loadClusterMemo, saveClusterMemo } from './cluster-memo';
import { LockError, MemoryParseError, NotFoundError, WriteConflictError } from '../errors';
import { setFrontmatterFields, type FieldValue } from '../frontmatter';
import { ARCHIVE_FOLDER, CATEGORY_FOLDERS, decodeNote, memoryText, parseMemory, type Memory } from '../memory';
import { isMemoryId } from '../ids';
import type { Embedder, FileVersion, Git, HeldLock } from '../ports';
import { invalidated } from './git-invalidation';
import { volatilityUpdates } from '../validation/volatility';
import { decideConflict, readConflictNote, resolvedNote, type ConflictDecision, type ConflictNote } from './conflicts';
import { formatTimestamp, parseTimestamp } from '../time';
import { frontmatterId, freePath } from '../memory-files';
import { claimFileName, takenNames } from '../file-names';
import { addLinkId, LINK_IDS_FIELD, linkIdsValue, noteName } from '../links';
import { memoryTitle } from '../title';
import { repairLinks } from '../link-repair';
import type { MemoryCache } from '../memory-cache';
import { assertWritable, LAYOUT, tempFolders, type LoadedVault, type ReadNote, type Vault, type WrittenMemory } from '../vault';
import { buildPlan, planChanges, type ConsolidationPlan } from './plan';
import { COPIES_FOLDER, findDuplicates, mergeAllDuplicates } from '../merge/sync-copies';
import { findSameText, mergeAllSameText, MERGED_FOLDER } from '../merge/same-text';

/**
 * Sleep (SPEC §8): `engram consolidate`. Holds a lock so two runs never overlap, writes its
 * plan before acting, applies it idempotently, and logs one line per run. A run that finds a
 * plan left by a killed run completes that plan first.
 *
 * All eight steps of SPEC §8 run, in order; each is reported with its count and time.
 */
export const PLAN_PATH = '.engram/consolidation-plan.json';

export interface StepReport {
  step: 'copies' | 'links' | 'same-text' | 'prune' | 'git' | 'embed' | 'cluster' | 'strengthen' | 'conflicts' | 'tiers' | 'log';
  count: number;
  total?: number;
  ms: number;
  note?: string;
  /** With `listChanges`: the memories this step changes (or would, in a dry run), and how. */
  changes?: Array<{ id: string; change: string }>;
}

/** A memory or note one step could not handle: reported and skipped, the run goes on. */
export interface SkippedItem {
  step: StepReport['step'] | 'read' | 'copies';
  path: string;
  reason: string;
}

export interface ConsolidationReport {
  started_at: string;
  duration_ms: number;
  dry_run: boolean;
  resumed: boolean;
  steps: StepReport[];
  /** Files that could not be read or changed: each reported once, none stops the run. */
  skipped: SkippedItem[];
  /** Temp files left by killed writers, removed at the start of the run. */
  temp_removed: number;
}

export interface ConsolidateOptions {
  dryRun: boolean;
  embedder?: Embedder | null;
  /** Who is running, for the lock's holder line. */
  holder: string;
  /** A monotonic clock in ms for step timings (the vault clock may be fixed by --now). */
  elapsed: () => number;
  /** The project repository, for git invalidation; null: none. */
  git?: Git | null;
  /** List the memories each step changes in its report (`--verbose`, `--json`). */
  listChanges?: boolean;
  /** Called at named points of a run (fault injection: the kill tests stop the process there). */
  checkpoint?: (point: string) => void;
  /**
   * Abstractive summaries (consolidation.abstractive with a chat endpoint): given by the runner
   * (headless: abstractive.ts over its chat model); absent, texts are extractive only. Injected
   * so that the plugin's bundle does not carry what it never runs.
   */
  abstractive?: ((actions: ClusterAction[], memories: Memory[], dryRun: boolean) => Promise<AbstractiveReport>) | null;
  /**
   * The memory cache (memory-cache.ts: MemoryCache.load), given by a runner whose file store
   * tells versions (headless): files unchanged since the last run are taken from their rows.
   * Injected, so that the plugin's bundle does not carry what its store cannot use.
   */
  memoryCache?: ((vault: Vault) => Promise<MemoryCache>) | null;
  /** LONG_RUN_FILES (the tests lower it). */
  longRunFiles?: number;
}


export async function consolidate(vault: Vault, options: ConsolidateOptions): Promise<ConsolidationReport> {
  const lock = await vault.ports.locks.tryLock('consolidate', options.holder);
  if ('heldBy' in lock) throw new LockError(`another consolidation is running: ${lock.heldBy}`);
  try {
    return await run(vault, options, lock);
  } finally {
    await lock.release();
  }
}

/**
 * Memories (files listed) above which a run's pieces between two `still()` may take longer than
 * the lock's stale time on a slow or loaded machine, so the lock is kept fresh without the run
 * (HeldLock.long: a worker thread, ~150 ms of CPU to start). Measured at 10,000 on this project's
 * 2-core VM, quiet: the longest pieces of a lexical run, repairLinks' plan, buildPlan and
 * planClusters, take 60-100 ms each (the stale time is 10 s); a holder blocked for over 10 s was
 * seen at 40,000 (consolidate-lock-starved.sh).
 */
export const LONG_RUN_FILES = 20_000;

async function run(vault: Vault, options: ConsolidateOptions, lock: HeldLock): Promise<ConsolidationReport> {
  const t0 = options.elapsed();
  // the lock stays fresh: the run says it is alive between its pieces of work
  const still = (): void => lock.still?.();
  const now = vault.now();
  const startedAt = formatTimestamp(now);
  const steps: StepReport[] = [];
  const skipped = new Skipped();
  let resumed = false;
  let tempRemoved = 0;
  if (!options.dryRun) {
    const left = await readPlan(vault);
    if (left) {
      lock.long?.(); // a plan completed as it was left: no piece of it says it is alive
      // A run killed after its plan was written: complete it, then log it as a run, so
      // that what it did (strengthening what was used before it) is not planned again.
      const t = options.elapsed();
      await applyPlan(vault, left, skipped);
      await appendRun(vault, { started_at: left.started_at, duration_ms: Math.round(options.elapsed() - t), resumed: true, counts: planCounts(left), skipped: skipped.items.length }, left.git_head);
      await vault.ports.files.remove(PLAN_PATH);
      resumed = true;
    }
  }
  // The vault is read once, here: the copies and links steps, the plan and the moves and writes
  // that follow it work from what was read (each write compares the file with it first). A step
  // that changes files before the plan has it read again. The id index learns each file's id.
  // Files unchanged since the last run come from the memory cache's rows, unread.
  const cache = options.memoryCache ? await options.memoryCache(vault) : undefined;
  let loaded: LoadedVault | null = await vault.loadAll({ keep: true, cache, progress: still });
  // The temp files killed writers left are swept from the memory folders' listing the load just
  // read (listing episodic/ again cost a first consolidation at 10k ~10-16 ms). A temp file
  // made since that listing is missed, and would have been left anyway: it is a minute too new
  // to be swept (writers mark their temp files with the time they write them), and the next
  // run sweeps it. A name listed and gone since is looked at and passed, as before.
  if (!options.dryRun) tempRemoved = await sweepTemp(vault, loaded.hidden);
  if (options.embedder || loaded.memories.length + loaded.problems.length > (options.longRunFiles ?? LONG_RUN_FILES)) lock.long?.();
  let ids: Map<string, string[]> | null = null;
  // copies of one memory (sync tools, a move cut short) are merged first (issue 14's rules)
  try {
    ids = loaded.ids ?? (await vault.idPaths());
    const copies = await mergeSyncCopies(vault, options, ids);
    if (copies) {
      steps.push(copies);
      if (!options.dryRun) [loaded, ids] = [null, null];
    }
  } catch (error) {
    skipped.add('copies', 'memory folders', reasonOf(error));
    [loaded, ids] = [null, null];
  }
  // links whose memory was renamed outside Obsidian point at its file again (ADR 0005)
  try {
    const t = options.elapsed();
    const given = loaded?.paths && loaded.read ? { loaded: { memories: loaded.memories, paths: loaded.paths, read: loaded.read }, ...(ids ? { ids } : {}) } : {};
    const links = await repairLinks(vault, { apply: !options.dryRun, rewritesOnly: true, ...given });
    for (const item of links.skipped) skipped.add('links', item.path, item.reason);
    if (links.rewritten.length > 0) {
      steps.push({ step: 'links', count: links.rewritten.length, ms: round1(options.elapsed() - t), note: `in ${new Set(links.rewritten.map((r) => r.path)).size} notes, pointed at the files their memories have now${options.dryRun ? ': dry run' : ''}` });
    }
    if (links.written.length > 0) loaded = null;
  } catch (error) {
    skipped.add('links', 'memory folders', reasonOf(error));
  }
  still();
  loaded ??= await vault.loadAll({ keep: true, cache, progress: still });
  // a memory remembered again while the one holding its text could not be read: merged into
  // it once it is readable, as that reinforcement would have done (issue 24)
  try {
    const sameText = await mergeSameTextStep(vault, loaded.memories, options);
    if (sameText) {
      steps.push(sameText);
      if (!options.dryRun) loaded = await vault.loadAll({ keep: true, cache, progress: still });
    }
  } catch (error) {
    skipped.add('same-text', 'memory folders', reasonOf(error));
  }
  const { memories, problems, duplicates } = loaded;
  const known = knownMemories(memories, loaded.read);
  for (const problem of problems) if (!duplicates.some((d) => d.other === problem.path)) skipped.add('read', problem.path, problem.reason);
  still();
  const previous = await lastRun(vault);
  const plan = buildPlan(memories, now, startedAt, vault.settings);
  still();
  let gitNote: string | undefined;
  let t = options.elapsed();
  if (options.git) {
    plan.git_head = await options.git.head();
    if (!previous?.gitHead) gitNote = plan.git_head ? `first run with this repository: recorded ${plan.git_head.slice(0, 12)}` : 'the repository has no commit yet';
    else if (plan.git_head) {
      const changed = await options.git.changedSince(previous.gitHead);
      plan.stale = invalidated(memories, changed);
      plan.volatility = volatilityUpdates(memories, changed, vault.settings.validation.volatilitySmoothing);
    }
  } else {
    gitNote = 'the memory folder is in no git repository: nothing to compare related_paths with (pass --repo DIR to watch a project elsewhere)';
  }
  const gitMs = options.elapsed() - t;
  const pruned = new Set(plan.prune.map((p) => p.id));
  const live = memories.filter((m) => !pruned.has(m.id) && !m.path.startsWith('archive/'));

  // Embedding comes before the plan is saved: clusters are planned on the fresh vectors.
  t = options.elapsed();
  let embedStep: StepReport;
  // the vectors as this run wrote them (what a load reads back), for the clusters and the update after them
  let vectorsNow: LoadResult | null = null;
  // the content hash of each live memory's text (in live's order), for the update after clustering
  let liveHashes: string[] = [];
  if (options.embedder && !options.dryRun) {
    try {
      const { report, stored, hashes } = await updateVectorsFrom(vault, null, live.map((m) => ({ id: m.id, text: memoryText(m) })), options.embedder);
      vectorsNow = stored;
      liveHashes = hashes;
      embedStep = { step: 'embed', count: report.embedded, total: report.total, ms: round1(options.elapsed() - t), ...(report.rebuilt ? { note: report.rebuilt } : {}) };
    } catch (error) {
      // an embedder that fails tonight (a server down) leaves the vectors as they were
      embedStep = { step: 'embed', count: 0, ms: round1(options.elapsed() - t), note: `failed: ${reasonOf(error)}` };
    }
  } else {
    embedStep = { step: 'embed', count: 0, ms: 0, note: options.embedder ? 'dry run' : 'no embedder configured' };
  }
  t = options.elapsed();
  const stored = options.embedder ? (vectorsNow ?? (await loadVectors(vault))).vectors : null;
  const vectors = stored && stored.model === options.embedder?.model ? stored : null;
  // the groups of the last run, valid for the same similarity (the vector model, or words) and threshold
  const basis = vectors ? { model: vectors.model, threshold: vault.settings.consolidation.clusterThreshold } : { model: 'lexical', threshold: vault.settings.consolidation.lexicalClusterThreshold };
  const memo: ClusterMemo = { previous: await loadClusterMemo(vault, basis), ...(vectors ? { sketches: await loadSketches(vault) } : {}) };
  still();
  plan.clusters = planClusters(memories, live, vectors, vault.settings, memo);
  still();
  nameNewPatterns(plan.clusters, memories, problems.map((p) => p.path));
  const abstractive = options.abstractive ? await options.abstractive(plan.clusters, memories, options.dryRun) : null;
  if (memo.next && !options.dryRun) await saveClusterMemo(vault, basis, memo.next);
  if (memo.nextSketches && !options.dryRun) await saveSketches(vault, memo.nextSketches);
  const clusterPlanMs = options.elapsed() - t;
  plan.conflicts = await planConflicts(vault, memories, skipped);
  if (!options.dryRun) await vault.ports.files.write(PLAN_PATH, `${JSON.stringify(plan)}\n`);
  const at = (point: string): void => {
    still();
    options.checkpoint?.(point);
  };
  at('plan-written');

  t = options.elapsed();
  // what the next steps write before strengthen and tiers: read again there
  const writtenLater = new Set([...plan.stale.map((s) => s.id), ...(plan.volatility ?? []).map((v) => v.id), ...plan.clusters.flatMap((c) => [c.id, ...c.new_members]), ...plan.conflicts.map((c) => c.loser)]);
  // memories archived with their new tier in the move (none of the steps between writes them)
  const tiered = new Set<string>();
  if (!options.dryRun) await applyMoves(vault, plan, skipped, at, known, cache, { writtenLater, tiered });
  for (const id of writtenLater) known.delete(id);
  at('pruned');
  const revived = plan.revive?.length ?? 0;
  steps.push({ step: 'prune', count: plan.prune.length, ms: round1(options.elapsed() - t), ...(revived > 0 ? { note: `${revived} brought back from archive/ (touched since it was archived)` } : {}) });
  t = options.elapsed();
  if (!options.dryRun) await applyStale(vault, plan, skipped);
  steps.push({ step: 'git', count: plan.stale.length, ms: round1(gitMs + options.elapsed() - t), ...(gitNote ? { note: gitNote } : {}) });
  steps.push(embedStep);

  t = options.elapsed();
  // the ids every listed file held at the load (none of a new pattern's, or the plan would reinforce it)
  const idsAtLoad = loaded.ids;
  if (!options.dryRun) await applyClusters(vault, plan, skipped, at, idsAtLoad ? (id) => !idsAtLoad.has(id) : undefined);
  at('clustered');
  // what clustering wrote is embedded tonight, not by the next run: a second run the same night changes nothing
  if (options.embedder && !options.dryRun && plan.clusters.length > 0 && !embedStep.note?.startsWith('failed')) {
    // the live memories' texts as the first update hashed them (made again only to be embedded), then what clustering wrote
    const sources = new Map<string, EmbedSource>(live.map((m, i) => [m.id, new HashedSource(m, liveHashes[i]!)]));
    for (const cluster of plan.clusters) {
      const written = await vault.resolve(cluster.id).catch(() => null);
      if (written) sources.set(cluster.id, { id: cluster.id, text: memoryText(written) });
    }
    try {
      const { report } = await updateVectorsFrom(vault, vectorsNow, [...sources.values()], options.embedder);
      embedStep.count += report.embedded;
      embedStep.total = report.total;
    } catch (error) {
      embedStep.note = `the new semantic memories were not embedded: ${reasonOf(error)}`;
    }
  }
  const created = plan.clusters.filter((c) => c.action === 'create').length;
  steps.push({
    step: 'cluster',
    count: plan.clusters.length,
    ms: round1(clusterPlanMs + options.elapsed() - t),
    note:
      `${created} new semantic, ${plan.clusters.length - created} reinforced (${plan.clusters[0]?.similarity ?? (stored ? 'vector' : 'lexical')} similarity)` +
      (abstractive ? `; abstractive: ${abstractive.written} written, ${abstractive.queued} queued for review, ${abstractive.failed} failed` : ''),
  });

  t = options.elapsed();
  if (!options.dryRun) await applyFields(vault, plan, 'strengthen', skipped, known, cache, undefined, still);
  steps.push({ step: 'strengthen', count: plan.strengthen.length, ms: round1(options.elapsed() - t) });
  t = options.elapsed();
  if (!options.dryRun) await applyConflicts(vault, plan, skipped);
  const open = (await openConflictCount(vault)) - (options.dryRun ? plan.conflicts.filter((c) => c.by === 'consolidation').length : 0);
  steps.push({ step: 'conflicts', count: plan.conflicts.length, ms: round1(options.elapsed() - t), note: `${open} left open for a person` });

  t = options.elapsed();
  if (!options.dryRun) await applyFields(vault, plan, 'tiers', skipped, known, cache, tiered, still);
  at('tiers-written');
  steps.push({ step: 'tiers', count: plan.tiers.length, ms: round1(options.elapsed() - t) });

  const report: ConsolidationReport = { started_at: startedAt, duration_ms: 0, dry_run: options.dryRun, resumed, steps, skipped: skipped.items, temp_removed: tempRemoved };
  report.duration_ms = Math.round(options.elapsed() - t0);
  if (!options.dryRun) {
    await cache?.save(vault);
    await appendRun(vault, { started_at: startedAt, duration_ms: report.duration_ms, resumed, counts: Object.fromEntries(steps.map((s) => [s.step, s.count])), skipped: skipped.items.length }, plan.git_head);
    at('logged');
    await vault.ports.files.remove(PLAN_PATH);
    steps.push({ step: 'log', count: 1, ms: 0 });
  }
  // the id index's rows learned at the load (written after the moves, where there were any)
  await vault.saveIndex();
  if (options.listChanges) for (const step of steps) if (step.changes === undefined) step.changes = planChanges(plan, step.step);
  return report;
}

/**
 * Files that share a memory's id (sync tools' conflict copies, issue 14) are merged into the one
 * named by the id and moved to `.engram/sync-copies/` before anything is planned, so that the
 * run sees one memory each. A step of the report only when there were some.
 */
async function mergeSyncCopies(vault: Vault, options: ConsolidateOptions, ids: Map<string, string[]>): Promise<StepReport | null> {
  const t = options.elapsed();
  const groups = await findDuplicates(vault, ids);
  if (groups.length === 0) return null;
  const found = groups.reduce((n, g) => n + g.copies.length, 0);
  if (options.dryRun) return { step: 'copies', count: found, ms: round1(options.elapsed() - t), note: `${groups.length} memories have copies: dry run` };
  const merged = await mergeAllDuplicates(vault);
  const moved = merged.reduce((n, m) => n + m.moved.length, 0);
  const skipped = merged.reduce((n, m) => n + m.skipped.length, 0);
  const note = `of ${merged.length} memories, moved to ${COPIES_FOLDER}/${skipped > 0 ? `; ${skipped} unreadable left in place` : ''}`;
  return { step: 'copies', count: moved, ms: round1(options.elapsed() - t), note };
}

async function mergeSameTextStep(vault: Vault, memories: Memory[], options: ConsolidateOptions): Promise<StepReport | null> {
  const t = options.elapsed();
  const groups = findSameText(memories);
  if (groups.length === 0) return null;
  const found = groups.reduce((n, g) => n + g.others.length, 0);
  if (options.dryRun) return { step: 'same-text', count: found, ms: round1(options.elapsed() - t), note: `${found} remembered again while the memory holding their text could not be read: dry run` };
  const merged = await mergeAllSameText(vault, memories);
  const changes = merged.flatMap((m) => m.merged.map((o) => ({ id: m.kept, change: `merged ${o.id} (same text), moved to ${o.to}` })));
  return {
    step: 'same-text',
    count: changes.length,
    ms: round1(options.elapsed() - t),
    note: `remembered again while the memory holding their text could not be read: merged into it, moved to ${MERGED_FOLDER}/`,
    ...(options.listChanges ? { changes } : {}),
  };
}

async function readPlan(vault: Vault): Promise<ConsolidationPlan | null> {
  const text = await vault.readText(PLAN_PATH);
  if (!text) return null;
  try {
    const plan = JSON.parse(text) as ConsolidationPlan;
    if (plan.format !== 1 || typeof plan.started_at !== 'string' || parseTimestamp(plan.started_at) === null) return null;
    for (const key of ['prune', 'strengthen', 'tiers', 'clusters', 'stale', 'conflicts'] as const) if (!Array.isArray(plan[key] ?? [])) return null;
    return plan;
  } catch {
    return null; // a plan cut short was never acted on: the write is atomic, so this is damage
  }
}

async function applyPlan(vault: Vault, plan: ConsolidationPlan, skipped: Skipped): Promise<void> {
  await applyMoves(vault, plan, skipped);
  await applyStale(vault, plan, skipped);
  await applyConflicts(vault, plan, skipped);
  await applyClusters(vault, plan, skipped);
  await applyFields(vault, plan, 'strengthen', skipped);
  await applyFields(vault, plan, 'tiers', skipped);
}

function planCounts(plan: ConsolidationPlan): Record<string, number> {
  return { prune: plan.prune.length, git: (plan.stale ?? []).length, cluster: (plan.clusters ?? []).length, strengthen: plan.strengthen.length, conflicts: (plan.conflicts ?? []).length, tiers: plan.tiers.length };
}

/**
 * What one step could not do, memory by memory: an unreadable file, a typo in a person's
 * note, a memory deleted meanwhile. Each is recorded once and skipped; none stops the night
 * (and none is replayed: the plan is completed around it).
 */
class Skipped {
  readonly items: SkippedItem[] = [];
  private readonly seen = new Set<string>();

  add(step: SkippedItem['step'], path: string, message: string): void {
    const reason = message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message;
    const key = `${path}\u0000${reason}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push({ step, path, reason });
  }

  /** Run one memory's action; a failure is recorded (a memory gone meanwhile is not a failure). */
  async guard(step: SkippedItem['step'], what: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      if (error instanceof NotFoundError) return;
      this.add(step, error instanceof MemoryParseError ? error.path : what, error instanceof MemoryParseError ? error.reason : reasonOf(error));
    }
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Remove the temp files that writers killed mid-write left beside the notes. `listed`: the names
 * starting with '.' of memory folders listed already (LoadedVault.hidden), not listed again.
 */
async function sweepTemp(vault: Vault, listed?: Map<string, string[]>): Promise<number> {
  const sweep = vault.ports.files.sweepTemp?.bind(vault.ports.files);
  if (!sweep) return 0;
  let removed = 0;
  for (const folder of await tempFolders(vault.ports.files, listed)) {
    const names = listed?.get(folder);
    removed += (await (names ? sweep(folder, names) : sweep(folder)).catch(() => [])).length;
  }
  return removed;
}

/**
 * Moves to archive/ and back (revive), each while no other writer can change its memory (its
 * lock, or Locks.alone: a touch waits for the move, then finds the memory where it went), exactly once: a move already done is skipped, and a
 * memory used since the plan was made stays where it is.
 */
async function applyMoves(vault: Vault, plan: ConsolidationPlan, skipped: Skipped, at?: (point: string) => void, known: Map<string, Known> = new Map(), cache?: MemoryCache, tiers?: { writtenLater: Set<string>; tiered: Set<string> }): Promise<void> {
  // the tier each pruned memory gets in archive/ (its tier step's write; the move can carry it)
  const archiveTier = new Map(plan.tiers.filter((t) => t.to === 'archive').map((t) => [t.id, t]));
  const moves = [...(plan.revive ?? []), ...plan.prune];
  // the memories a field step writes after the moves (applyFields reads nothing else of `known`)
  const fieldsLater = new Set([...plan.strengthen.map((s) => s.id), ...plan.tiers.map((t) => t.id)]);
  let next = 0;
  const moveNext = async (locked: boolean): Promise<void> => {
    const move = moves[next++]!;
    const tier = move.from.startsWith(`${ARCHIVE_FOLDER}/`) ? undefined : archiveTier.get(move.id);
    const apply = async (): Promise<void> => {
      const memory = known.get(move.id);
      known.delete(move.id);
      const carried = tiers && tier && tier.seen === move.seen && !tiers.writtenLater.has(move.id) ? tier : undefined;
      const done = memory ? await movedAsPlanned(vault, move, memory, carried) : false;
      if (done) {
        cache?.moved(move.from, move.to);
        if (done !== true) {
          // the tier step's write, done: its row is the file written (as that step would keep)
          tiers!.tiered.add(move.id);
          if (done.written) cache?.keep(done.written.memory, done.written.version, done.written.id);
        }
        // where it went, for the field step that writes it next (a copy of the memory for each
        // of the 9,000 moves of a first run was kept to the end, most of them for nothing)
        if (fieldsLater.has(move.id) && !tiers?.tiered.has(move.id)) known.set(move.id, { ...memory!, memory: { ...memory!.memory, path: move.to } });
      } else await moveOne(vault, move, tier);
    };
    await skipped.guard('prune', move.from, () => (locked ? vault.ports.locks.withLock(move.id, apply) : apply()));
    at?.('moved-one');
  };
  // Alone in the vault (Locks.alone: every other writer waits for these moves), the moves take
  // no lock each: a lock's link and unlink were two of each move's five syscalls. Otherwise,
  // and from the moment that no longer holds, each move holds its memory's lock.
  const { locks } = vault.ports;
  if (moves.length > 1 && locks.alone) {
    await locks.alone(async (still) => {
      while (next < moves.length && still()) await moveNext(false);
    });
  }
  while (next < moves.length) await moveNext(true);
  await vault.saveIndex();
}

/**
 * A memory as the plan saw it: the text it was read from (null: from its row in the memory
 * cache), and the version of the file read (FileStore.readVersioned; null: unknown), so that a
 * step acting on it need not read it again.
 */
interface Known {
  memory: Memory;
  text: string | null;
  version: FileVersion | null;
}

function knownMemories(memories: Memory[], read: Map<string, ReadNote> | undefined): Map<string, Known> {
  const known = new Map<string, Known>();
  if (!read) return known;
  for (const memory of memories) {
    const note = read.get(memory.path);
    if (note) known.set(memory.id, { memory, text: note.text, version: note.version });
  }
  return known;
}

/**
 * moveOne without reading the file: when it is still, unchanged and quiet, the very version the
 * plan was made from (so it holds the `seen` time moveOne would read in it) and nothing is at
 * the target (the move's link fails otherwise, and nothing has happened). False: nothing done,
 * moveOne decides from the files.
 */
async function movedAsPlanned(vault: Vault, move: ConsolidationPlan['prune'][number], known: Known, tier?: ConsolidationPlan['tiers'][number]): Promise<boolean | { written: WrittenMemory | null }> {
  const { files } = vault.ports;
  const { version } = known;
  if (version === null || !files.unchanged || known.memory.path !== move.from || known.memory.last_accessed_at !== move.seen) return false;
  // archived with its new tier: the text the tier step would write, written in the move
  const retier = tier !== undefined && files.moveRewriting !== undefined && known.memory.tier !== tier.to;
  // a memory from its row in the memory cache: its text read here, once, when the file is still
  // the version of the row (the tier step read and parsed it again, then wrote it); null when
  // changed since: moved as it is, or not, as `unchanged` says, and the tier step writes it
  const source = retier && known.text === null ? await sameVersionText(vault, move.from, version) : known.text;
  const text = retier && source !== null ? tieredText({ ...known, text: source }, move.to, tier.to, vault.settings.maxFileBytes) : null;
  if (text !== null) {
    // what parseMemory makes of the text written (the archived file's memory-cache row): the
    // memory read, with its new path and tier, as setFrontmatterFields changed the tier's value
    // alone (an alias of it is replaced by the value it had) and the parse checked it. Parsing
    // the text written cost the 854 rewrites of the bench vault's first consolidation ~15 ms of CPU
    const written = { ...known.memory, path: move.to, tier: tier!.to }; // a text is made for a tier only (retier)
    try {
      return (await vault.moveMemoryRewriting(move.from, move.to, version, text, written)) ?? false;
    } catch (error) {
      if (error instanceof WriteConflictError) return false; // the target exists: moveOne settles it
      throw error;
    }
  }
  if (!(await files.unchanged(move.from, version.tag))) return false;
  try {
    // the id index's row follows with the size and mtime just checked (a link keeps them)
    await vault.moveMemoryFile(move.from, move.to, version);
    return true;
  } catch (error) {
    if (error instanceof WriteConflictError) return false; // the target exists: moveOne settles it
    throw error;
  }
}

/**
 * The text of the file at `path` when it is still the version `version` names (the version its
 * memory-cache row was made from, so the row's memory is what parseMemory makes of this text);
 * null otherwise (changed, gone, not quiet, unreadable).
 */
async function sameVersionText(vault: Vault, path: string, version: FileVersion): Promise<string | null> {
  const got = await vault.ports.files.readVersioned?.(path).catch(() => null);
  if (!got?.version || got.version.tag !== version.tag) return null;
  try {
    return decodeNote(path, got.bytes, vault.settings.maxFileBytes);
  } catch {
    return null;
  }
}

/** The memory's text with `tier` set, as the tier step's write makes it (updateKnown); null when it would refuse it. */
function tieredText(known: Known, path: string, tier: string, maxBytes: number): string | null {
  try {
    const text = setFrontmatterFields(known.text!, { tier });
    assertWritable(path, text, maxBytes, known.memory.body);
    return text === known.text ? null : text;
  } catch {
    return null; // the tier step reports it, from the file as it is then
  }
}

async function moveOne(vault: Vault, move: ConsolidationPlan['prune'][number], tier?: ConsolidationPlan['tiers'][number]): Promise<void> {
  const source = await vault.readExact(move.from);
  if (source === null) return; // done, or gone
  let to = move.to;
  const target = await vault.readExact(to);
  if (target !== null && frontmatterId(target) === move.id) {
    // a move that carried the tier, cut before the source went: the target is the source with
    // that tier and nothing else changed, so the move is completed
    if (tier && carriedTier(source, target, tier.to)) return void (await vault.ports.files.remove(move.from));
    // the copy outside archive/ is the one `locate` finds, where a touch since the cut went
    const [written, other] = move.from.startsWith(`${ARCHIVE_FOLDER}/`) ? [move.to, move.from] : [move.from, move.to];
    return void (await settlePair(vault, move.id, written, other, move.from));
  }
  if (move.seen !== undefined && parseMemory(move.from, source, vault.settings).last_accessed_at !== move.seen) return;
  // another note already has the name there: this one keeps its name with a number after it
  if (target !== null) to = await freePath(to, async (p) => (await vault.ports.files.stat(p)) !== null);
  await vault.moveMemoryFile(move.from, to);
}

/**
 * One id in two files: a move between folders cut between its link and its unlink.
 * - the same bytes: `identicalDrop` goes (for a planned move, its source: the move completes);
 * - otherwise `written` (the copy `locate` finds, where a touch went since the cut) is the
 *   memory, and `other` goes if its body says the same; copies whose bodies differ are both
 *   kept and reported.
 */
function carriedTier(source: string, target: string, tier: string): boolean {
  try {
    return setFrontmatterFields(source, { tier }) === target;
  } catch {
    return false;
  }
}

async function settlePair(vault: Vault, id: string, written: string, other: string, identicalDrop: string): Promise<void> {
  const [a, b] = [await vault.readExact(written), await vault.readExact(other)];
  if (a === null || b === null) return;
  if (a === b) return void (await vault.ports.files.remove(identicalDrop));
  const [ma, mb] = [parseMemory(written, a, vault.settings), parseMemory(other, b, vault.settings)];
  if (ma.id !== id || mb.id !== id || ma.body !== mb.body) {
    throw new MemoryParseError(other, `two different copies of ${id} (${written} and ${other}); both kept: merge them by hand`);
  }
  await vault.ports.files.remove(other);
}

async function conflictNotes(vault: Vault, skipped?: Skipped): Promise<Array<{ note: ConflictNote; text: string }>> {
  const out: Array<{ note: ConflictNote; text: string }> = [];
  for (const name of (await vault.ports.files.list(LAYOUT.conflicts)).sort()) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    try {
      const text = await vault.readText(path);
      const note = text ? readConflictNote(path, text) : null;
      if (note && text) out.push({ note, text });
    } catch (error) {
      skipped?.add('conflicts', path, reasonOf(error));
    }
  }
  return out;
}

/** Decisions on the conflict notes; a note naming something that is not a memory id is reported and left alone. */
async function planConflicts(vault: Vault, memories: Memory[], skipped: Skipped): Promise<ConflictDecision[]> {
  const notes = await conflictNotes(vault, skipped);
  // a map of every memory only for a vault with conflict notes (most nights have none)
  const byId = notes.length > 0 ? new Map(memories.map((m) => [m.id, m])) : new Map<string, Memory>();
  const decisions: ConflictDecision[] = [];
  for (const { note } of notes) {
    const bad = [...note.sides, ...(note.winner ? [note.winner] : [])].find((id) => !isMemoryId(id));
    if (bad !== undefined) {
      skipped.add('conflicts', note.path, `${JSON.stringify(bad)} is not a memory id (mem- and 12 lowercase letters or digits): fix the note`);
      continue;
    }
    const decision = decideConflict(note, byId, vault.settings);
    if (decision) decisions.push(decision);
  }
  return decisions;
}

async function openConflictCount(vault: Vault): Promise<number> {
  return (await conflictNotes(vault)).filter(({ note }) => note.status === 'open').length;
}

/** Conflicts: the note records the decision (compare-and-swap), the losing side becomes stale. */
async function applyConflicts(vault: Vault, plan: ConsolidationPlan, skipped: Skipped): Promise<void> {
  for (const decision of plan.conflicts ?? []) {
    await skipped.guard('conflicts', decision.path, () =>
      vault.ports.locks.withLock(`conflict-${decision.path.replace(/[^a-z0-9-]/gi, '')}`, async () => {
        const text = await vault.readExact(decision.path);
        if (text === null) return;
        const next = resolvedNote(text, decision, plan.started_at);
        if (next !== text) await vault.ports.files.write(decision.path, next, { expect: text }).catch((e: unknown) => {
          if (!(e instanceof WriteConflictError)) throw e; // a person edited it meanwhile: theirs stands
        });
      }),
    );
    if (!isMemoryId(decision.loser)) continue;
    await skipped.guard('conflicts', decision.loser, () => vault.update(decision.loser, (m) => (m.confidence === 'stale' ? null : { confidence: 'stale' })));
  }
}

/** Git invalidation: confidence becomes stale (idempotent); volatility follows the changes (absolute values). */
async function applyStale(vault: Vault, plan: ConsolidationPlan, skipped: Skipped): Promise<void> {
  for (const { id, volatility } of plan.volatility ?? []) {
    await skipped.guard('git', id, () => vault.update(id, (m) => (m.extra.volatility === volatility ? null : { volatility })));
  }
  for (const { id } of plan.stale ?? []) {
    await skipped.guard('git', id, () => vault.update(id, (m) => (m.confidence === 'stale' ? null : { confidence: 'stale' })));
  }
}

/**
 * A live memory's source for the update after clustering: the hash the update before it
 * computed, its text made only if it must be embedded. A class: an object literal with a getter
 * is made through the runtime, ~5 us each (0.5 s for 100,000).
 */
class HashedSource implements EmbedSource {
  readonly id: string;
  constructor(
    private readonly memory: Memory,
    readonly hash: string,
  ) {
    this.id = memory.id;
  }
  get text(): string {
    return memoryText(this.memory);
  }
}

/**
 * How many members a semantic memory lists in its body: a pattern of 15,000 episodes would
 * otherwise write a file over the size limit (every member links to it with `decays_from`,
 * which Obsidian shows as backlinks).
 */
export const LISTED_MEMBERS = 50;
/** How many related paths a semantic memory keeps from its members. */
export const KEPT_PATHS = 100;

/**
 * A readable file name for each semantic memory the plan creates (ADR 0005): the title of its
 * most representative episode and `(pattern)`, so it does not take that episode's name; unique
 * among the memory folders' names. The plan keeps the path (a resumed run writes the same
 * file), not the title.
 */
function nameNewPatterns(clusters: ClusterAction[], memories: Memory[], others: string[]): void {
  // the names of the whole vault, made when a pattern needs a name (none, most nights)
  let taken: Set<string> | null = null;
  for (const cluster of clusters) {
    const title = cluster.title ?? memoryTitle(cluster.text, PATTERN_TITLE_CHARS);
    delete cluster.title;
    if (cluster.action !== 'create' || cluster.path) continue;
    taken ??= takenNames([...memories.map((m) => m.path), ...others]);
    cluster.path = `${CATEGORY_FOLDERS.semantic}/${claimFileName(title ? `${title} (pattern)` : '', cluster.id, taken)}.md`;
  }
}

/** The body of a new semantic memory: the medoid's text, then its first members as links (by file name, `names`). */
export function semanticText(text: string, members: string[], names: Map<string, string> = new Map()): string {
  const listed = members.slice(0, LISTED_MEMBERS).map((m) => `[[${names.get(m) ?? m}]]`).join(' ');
  const more = members.length > LISTED_MEMBERS ? ` and ${members.length - LISTED_MEMBERS} more (each links here with decays_from)` : '';
  return `${text}\n\nConsolidated from ${members.length} episodes: ${listed}${more}`;
}

/**
 * Semantic memories: created once (the id comes from the members, so a resumed run finds the
 * file it already wrote), reinforced with absolute values, members linked by a property.
 * A cluster whose memory cannot be written (too large even so) is reported, its members left.
 */
async function applyClusters(vault: Vault, plan: ConsolidationPlan, skipped: Skipped, at?: (point: string) => void, absentAtLoad?: (id: string) => boolean): Promise<void> {
  const names = new Map<string, string>();
  const nameOf = async (id: string): Promise<string> => {
    if (!names.has(id)) {
      const path = await vault.locate(id);
      names.set(id, path ? noteName(path) : id);
    }
    return names.get(id)!;
  };
  for (const cluster of plan.clusters ?? []) {
    let path = cluster.path ?? `${CATEGORY_FOLDERS.semantic}/${cluster.id}.md`;
    let ready = true;
    if (cluster.action === 'create') {
      await skipped.guard('cluster', path, async () => {
        if (await vault.ports.files.stat(path)) return;
        // Written by the run this one completes: looked up, unless no file held the id when this
        // run read the vault (a run completing a plan never knows). A look-up of an id no file
        // holds lists and stats every memory file and rewrites ids.json after each pattern
        // written: at 100k, 2,000 new patterns took 4-5 s each.
        const located = absentAtLoad?.(cluster.id) ? null : await vault.locate(cluster.id);
        if (located) return void (path = located);
        const listed = cluster.members.slice(0, LISTED_MEMBERS);
        for (const member of listed) await nameOf(member);
        const memory: NewMemory = {
          text: semanticText(cluster.text, cluster.members, names),
          category: 'semantic',
          created_at: plan.started_at,
          confidence: 'inferred',
          tags: cluster.tags,
          is_error: false,
          related_paths: (cluster.related_paths ?? []).slice(0, KEPT_PATHS),
          agent_role: cluster.agent_role ?? null,
          source: 'consolidation',
          session: null,
          links: [],
          extra: {
            reinforcement_count: 1,
            cluster_size: cluster.members.length,
            ...(cluster.summary ? { summary: cluster.summary } : {}),
            // the members listed in the text, by id (their names are in the text for Obsidian)
            [LINK_IDS_FIELD]: linkIdsValue(listed.map((target) => ({ target, kind: 'related' }))),
          },
        };
        try {
          await vault.createFile(path, renderMemoryFile(cluster.id, memory, vault.settings, parseTimestamp(plan.started_at)!), { learn: true });
        } catch (error) {
          if (error instanceof WriteConflictError) return;
          ready = false;
          throw error;
        }
      });
    } else {
      await skipped.guard('cluster', path, () =>
        vault.update(cluster.id, (m) =>
          m.extra.reinforcement_count === cluster.reinforcement_count && m.confidence === cluster.confidence
            ? null
            : { reinforcement_count: cluster.reinforcement_count, confidence: cluster.confidence, cluster_size: cluster.members.length },
        ),
      );
    }
    at?.('semantic-written');
    if (!ready) continue;
    if (cluster.action === 'reinforce') path = (await vault.locate(cluster.id)) ?? path;
    // the pattern by file name for Obsidian, by id in link_ids for Engram (ADR 0005)
    const link = `[[${noteName(path)}]]`;
    for (const member of cluster.new_members) {
      at?.('member-linked');
      await skipped.guard('cluster', member, () =>
        vault.update(member, (m) => {
          const ids = addLinkId(m.extra[LINK_IDS_FIELD], { target: cluster.id, kind: 'decays_from' });
          if (m.extra.decays_from === link && !ids) return null;
          return { decays_from: link, ...(ids ? { [LINK_IDS_FIELD]: ids } : {}) };
        }),
      );
    }
  }
}

/**
 * Field writes, exactly once: each sets an absolute value, an equal value is not written, and
 * a memory used since the plan was made (another last_accessed_at) is left for the next run;
 * a strengthening applies only to the half-life it was computed from.
 */
async function applyFields(vault: Vault, plan: ConsolidationPlan, which: 'strengthen' | 'tiers', skipped: Skipped, known: Map<string, Known> = new Map(), cache?: MemoryCache, done: Set<string> = new Set(), still?: () => void): Promise<void> {
  const changes: Array<{ id: string; key: 'half_life_days' | 'tier'; value: FieldValue; from?: FieldValue; seen?: string }> =
    which === 'strengthen'
      ? plan.strengthen.map((s) => ({ id: s.id, key: 'half_life_days', value: s.half_life_days, from: s.from, seen: s.seen }))
      : plan.tiers.map((t) => ({ id: t.id, key: 'tier', value: t.to, seen: t.seen }));
  for (const { id, key, value, from, seen } of changes) {
    const change = (memory: Memory): Record<string, FieldValue> | null => {
      if (memory[key] === value) return null;
      if (seen !== undefined && memory.last_accessed_at !== seen) return null;
      if (from !== undefined && memory[key] !== from) return null;
      // a strengthening records its run on the memory (plan.ts decides from it, not from this machine's log)
      return key === 'half_life_days' ? { [key]: value, strengthened_at: plan.started_at } : { [key]: value };
    };
    still?.();
    const memory = known.get(id);
    // once written, the text read is no longer the file's
    known.delete(id);
    if (done.has(id)) continue; // written by its move to archive/
    await skipped.guard(which, id, async () => {
      if (!memory) return vault.update(id, change);
      // the file written, as the next run would read it: its row (the next night reads nothing it wrote)
      const written = await vault.updateKnown({ memory: memory.memory, text: memory.text }, change);
      if (written) cache?.keep(written.memory, written.version, written.id);
    });
  }
}

async function lastRun(vault: Vault): Promise<{ started: number; gitHead: string | null } | null> {
  const text = await vault.readText(LAYOUT.runs);
  if (!text) return null;
  const lines = text.trim().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const run = JSON.parse(lines[i]!) as { started_at?: string; git_head?: string | null };
      const started = run.started_at ? parseTimestamp(run.started_at) : null;
      if (started !== null) return { started, gitHead: run.git_head ?? null };
    } catch {
      // a damaged line is skipped
    }
  }
  return null;
}

interface RunLine {
  started_at: string;
  duration_ms: number;
  resumed: boolean;
  counts: Record<string, number>;
  skipped: number;
}

async function appendRun(vault: Vault, run: RunLine, gitHead: string | null): Promise<void> {
  const line = JSON.stringify({ started_at: run.started_at, duration_ms: run.duration_ms, resumed: run.resumed, git_head: gitHead, ...run.counts, ...(run.skipped > 0 ? { skipped: run.skipped } : {}) });
  const current = (await vault.readText(LAYOUT.runs)) ?? '';
  await vault.ports.files.write(LAYOUT.runs, `${current}${current && !current.endsWith('\n') ? '\n' : ''}${line}\n`);
}

function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}
