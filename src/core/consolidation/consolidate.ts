import { loadVectors, updateVectors } from '../embeddings/store';
import { renderMemoryFile, type NewMemory } from '../memory-file';
import { planClusters, type ClusterMemo } from './semantic';
import { LockError, MemoryParseError, NotFoundError, WriteConflictError } from '../errors';
import type { FieldValue } from '../frontmatter';
import { CATEGORY_FOLDERS, memoryText, type Memory } from '../memory';
import type { Embedder, Git } from '../ports';
import { invalidated } from './git-invalidation';
import { decideConflict, readConflictNote, resolvedNote, type ConflictDecision, type ConflictNote } from './conflicts';
import { formatTimestamp, parseTimestamp } from '../time';
import { LAYOUT, type Vault } from '../vault';
import { buildPlan, planChanges, type ConsolidationPlan } from './plan';
import { COPIES_FOLDER, findDuplicates, mergeAllDuplicates } from '../merge/sync-copies';

/**
 * Sleep (SPEC §8): `engram consolidate`. Holds a lock so two runs never overlap, writes its
 * plan before acting, applies it idempotently, and logs one line per run. A run that finds a
 * plan left by a killed run completes that plan first.
 *
 * All eight steps of SPEC §8 run, in order; each is reported with its count and time.
 */
export const PLAN_PATH = '.engram/consolidation-plan.json';

export interface StepReport {
  step: 'copies' | 'prune' | 'git' | 'embed' | 'cluster' | 'strengthen' | 'conflicts' | 'tiers' | 'log';
  count: number;
  total?: number;
  ms: number;
  note?: string;
  /** With `listChanges`: the memories this step changes (or would, in a dry run), and how. */
  changes?: Array<{ id: string; change: string }>;
}

export interface ConsolidationReport {
  started_at: string;
  duration_ms: number;
  dry_run: boolean;
  resumed: boolean;
  steps: StepReport[];
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
}


export async function consolidate(vault: Vault, options: ConsolidateOptions): Promise<ConsolidationReport> {
  const lock = await vault.ports.locks.tryLock('consolidate', options.holder);
  if ('heldBy' in lock) throw new LockError(`another consolidation is running: ${lock.heldBy}`);
  try {
    return await run(vault, options);
  } finally {
    await lock.release();
  }
}

async function run(vault: Vault, options: ConsolidateOptions): Promise<ConsolidationReport> {
  const t0 = options.elapsed();
  const now = vault.now();
  const startedAt = formatTimestamp(now);
  const steps: StepReport[] = [];
  let resumed = false;
  if (!options.dryRun) {
    const left = await readPlan(vault);
    if (left) {
      await applyPlan(vault, left);
      await vault.ports.files.remove(PLAN_PATH);
      resumed = true;
    }
  }
  const copies = await mergeSyncCopies(vault, options);
  if (copies) steps.push(copies);
  const { memories } = await vault.loadAll();
  const previous = await lastRun(vault);
  const plan = buildPlan(memories, now, startedAt, vault.settings);
  let gitNote: string | undefined;
  let t = options.elapsed();
  if (options.git) {
    plan.git_head = await options.git.head();
    if (!previous?.gitHead) gitNote = plan.git_head ? `first run with this repository: recorded ${plan.git_head.slice(0, 12)}` : 'the repository has no commit yet';
    else if (plan.git_head) plan.stale = invalidated(memories, await options.git.changedSince(previous.gitHead));
  } else {
    gitNote = 'no project repository (run inside one or pass --repo DIR)';
  }
  const gitMs = options.elapsed() - t;
  const pruned = new Set(plan.prune.map((p) => p.id));
  const live = memories.filter((m) => !pruned.has(m.id) && !m.path.startsWith('archive/'));

  // Embedding comes before the plan is saved: clusters are planned on the fresh vectors.
  t = options.elapsed();
  let embedStep: StepReport;
  if (options.embedder && !options.dryRun) {
    const report = await updateVectors(vault, live.map((m) => ({ id: m.id, text: memoryText(m) })), options.embedder);
    embedStep = { step: 'embed', count: report.embedded, total: report.total, ms: round1(options.elapsed() - t), ...(report.rebuilt ? { note: report.rebuilt } : {}) };
  } else {
    embedStep = { step: 'embed', count: 0, ms: 0, note: options.embedder ? 'dry run' : 'no embedder configured' };
  }
  t = options.elapsed();
  const stored = options.embedder ? (await loadVectors(vault)).vectors : null;
  const vectors = stored && stored.model === options.embedder?.model ? stored : null;
  // the groups of the last run, valid for the same similarity (the vector model, or words) and threshold
  const basis = vectors ? { model: vectors.model, threshold: vault.settings.consolidation.clusterThreshold } : { model: 'lexical', threshold: vault.settings.consolidation.lexicalClusterThreshold };
  const memo: ClusterMemo = { previous: await loadClusterMemo(vault, basis) };
  plan.clusters = planClusters(memories, live, vectors, vault.settings, memo);
  if (memo.next && !options.dryRun) await saveClusterMemo(vault, basis, memo.next);
  const clusterPlanMs = options.elapsed() - t;
  plan.conflicts = await planConflicts(vault, memories);
  if (!options.dryRun) await vault.ports.files.write(PLAN_PATH, `${JSON.stringify(plan)}\n`);
  const at = (point: string) => options.checkpoint?.(point);
  at('plan-written');

  t = options.elapsed();
  if (!options.dryRun) await applyMoves(vault, plan, at);
  at('pruned');
  const revived = plan.revive?.length ?? 0;
  steps.push({ step: 'prune', count: plan.prune.length, ms: round1(options.elapsed() - t), ...(revived > 0 ? { note: `${revived} brought back from archive/ (touched since it was archived)` } : {}) });
  t = options.elapsed();
  if (!options.dryRun) await applyStale(vault, plan);
  steps.push({ step: 'git', count: plan.stale.length, ms: round1(gitMs + options.elapsed() - t), ...(gitNote ? { note: gitNote } : {}) });
  steps.push(embedStep);

  t = options.elapsed();
  if (!options.dryRun) await applyClusters(vault, plan, at);
  at('clustered');
  const created = plan.clusters.filter((c) => c.action === 'create').length;
  steps.push({
    step: 'cluster',
    count: plan.clusters.length,
    ms: round1(clusterPlanMs + options.elapsed() - t),
    note: `${created} new semantic, ${plan.clusters.length - created} reinforced (${plan.clusters[0]?.similarity ?? (stored ? 'vector' : 'lexical')} similarity)`,
  });

  t = options.elapsed();
  if (!options.dryRun) await applyFields(vault, plan, 'strengthen');
  steps.push({ step: 'strengthen', count: plan.strengthen.length, ms: round1(options.elapsed() - t) });
  t = options.elapsed();
  if (!options.dryRun) await applyConflicts(vault, plan);
  const open = (await openConflictCount(vault)) - (options.dryRun ? plan.conflicts.filter((c) => c.by === 'consolidation').length : 0);
  steps.push({ step: 'conflicts', count: plan.conflicts.length, ms: round1(options.elapsed() - t), note: `${open} left open for a person` });

  t = options.elapsed();
  if (!options.dryRun) await applyFields(vault, plan, 'tiers');
  at('tiers-written');
  steps.push({ step: 'tiers', count: plan.tiers.length, ms: round1(options.elapsed() - t) });

  const report: ConsolidationReport = { started_at: startedAt, duration_ms: 0, dry_run: options.dryRun, resumed, steps };
  report.duration_ms = Math.round(options.elapsed() - t0);
  if (!options.dryRun) {
    await appendRun(vault, report, plan.git_head);
    at('logged');
    await vault.ports.files.remove(PLAN_PATH);
    steps.push({ step: 'log', count: 1, ms: 0 });
  }
  if (options.listChanges) for (const step of steps) step.changes = planChanges(plan, step.step);
  return report;
}

/**
 * Files that share a memory's id (sync tools' conflict copies, issue 14) are merged into the one
 * named by the id and moved to `.engram/sync-copies/` before anything is planned, so that the
 * run sees one memory each. A step of the report only when there were some.
 */
async function mergeSyncCopies(vault: Vault, options: ConsolidateOptions): Promise<StepReport | null> {
  const t = options.elapsed();
  const groups = await findDuplicates(vault);
  if (groups.length === 0) return null;
  const found = groups.reduce((n, g) => n + g.copies.length, 0);
  if (options.dryRun) return { step: 'copies', count: found, ms: round1(options.elapsed() - t), note: `${groups.length} memories have copies: dry run` };
  const merged = await mergeAllDuplicates(vault);
  const moved = merged.reduce((n, m) => n + m.moved.length, 0);
  const skipped = merged.reduce((n, m) => n + m.skipped.length, 0);
  const note = `of ${merged.length} memories, moved to ${COPIES_FOLDER}/${skipped > 0 ? `; ${skipped} unreadable left in place` : ''}`;
  return { step: 'copies', count: moved, ms: round1(options.elapsed() - t), note };
}

async function readPlan(vault: Vault): Promise<ConsolidationPlan | null> {
  const text = await vault.readText(PLAN_PATH);
  if (!text) return null;
  try {
    const plan = JSON.parse(text) as ConsolidationPlan;
    return plan.format === 1 ? plan : null;
  } catch {
    return null; // a plan cut short was never acted on: the write is atomic, so this is damage
  }
}

async function applyPlan(vault: Vault, plan: ConsolidationPlan): Promise<void> {
  await applyMoves(vault, plan);
  await applyStale(vault, plan);
  await applyConflicts(vault, plan);
  await applyClusters(vault, plan);
  await applyFields(vault, plan, 'strengthen');
  await applyFields(vault, plan, 'tiers');
}

/** Moves to archive/, idempotent: a move already done is skipped. */
async function applyMoves(vault: Vault, plan: ConsolidationPlan, at?: (point: string) => void): Promise<void> {
  const { files } = vault.ports;
  for (const move of [...(plan.revive ?? []), ...plan.prune]) {
    if (!(await files.stat(move.from))) continue;
    if (await files.stat(move.to)) {
      // a run killed between link and unlink left both names: the archive copy is the move
      if ((await vault.readText(move.to)) === (await vault.readText(move.from))) await files.remove(move.from);
      continue;
    }
    try {
      await files.move(move.from, move.to);
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
    }
    at?.('moved-one');
  }
}

async function conflictNotes(vault: Vault): Promise<Array<{ note: ConflictNote; text: string }>> {
  const out: Array<{ note: ConflictNote; text: string }> = [];
  for (const name of (await vault.ports.files.list(LAYOUT.conflicts)).sort()) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    const text = await vault.readText(path);
    const note = text ? readConflictNote(path, text) : null;
    if (note && text) out.push({ note, text });
  }
  return out;
}

async function planConflicts(vault: Vault, memories: Memory[]): Promise<ConflictDecision[]> {
  const byId = new Map(memories.map((m) => [m.id, m]));
  return (await conflictNotes(vault)).flatMap(({ note }) => decideConflict(note, byId, vault.settings) ?? []);
}

async function openConflictCount(vault: Vault): Promise<number> {
  return (await conflictNotes(vault)).filter(({ note }) => note.status === 'open').length;
}

/** Conflicts: the note records the decision (compare-and-swap), the losing side becomes stale. */
async function applyConflicts(vault: Vault, plan: ConsolidationPlan): Promise<void> {
  for (const decision of plan.conflicts ?? []) {
    await vault.ports.locks.withLock(`conflict-${decision.path.replace(/[^a-z0-9-]/gi, '')}`, async () => {
      const text = await vault.readText(decision.path);
      if (text === null) return;
      const next = resolvedNote(text, decision, plan.started_at);
      if (next !== text) await vault.ports.files.write(decision.path, next, { expect: text }).catch((e: unknown) => {
        if (!(e instanceof WriteConflictError)) throw e; // a person edited it meanwhile: theirs stands
      });
    });
    try {
      await vault.update(decision.loser, (m) => (m.confidence === 'stale' ? null : { confidence: 'stale' }));
    } catch (error) {
      if (!(error instanceof NotFoundError) && !(error instanceof MemoryParseError)) throw error;
    }
  }
}

/** Git invalidation: confidence becomes stale (idempotent). */
async function applyStale(vault: Vault, plan: ConsolidationPlan): Promise<void> {
  for (const { id } of plan.stale ?? []) {
    try {
      await vault.update(id, (m) => (m.confidence === 'stale' ? null : { confidence: 'stale' }));
    } catch (error) {
      if (!(error instanceof NotFoundError) && !(error instanceof MemoryParseError)) throw error;
    }
  }
}

/**
 * Semantic memories: created once (the id comes from the members, so a resumed run finds the
 * file it already wrote), reinforced with absolute values, members linked by a property.
 */
async function applyClusters(vault: Vault, plan: ConsolidationPlan, at?: (point: string) => void): Promise<void> {
  for (const cluster of plan.clusters ?? []) {
    if (cluster.action === 'create') {
      const path = `${CATEGORY_FOLDERS.semantic}/${cluster.id}.md`;
      if (!(await vault.ports.files.stat(path))) {
        const memory: NewMemory = {
          text: `${cluster.text}\n\nConsolidated from ${cluster.members.length} episodes: ${cluster.members.map((m) => `[[${m}]]`).join(' ')}`,
          category: 'semantic',
          created_at: plan.started_at,
          confidence: 'inferred',
          tags: cluster.tags,
          is_error: false,
          related_paths: cluster.related_paths ?? [],
          agent_role: null,
          source: 'consolidation',
          session: null,
          links: [],
          extra: { reinforcement_count: 1, cluster_size: cluster.members.length },
        };
        await vault.createFile(path, renderMemoryFile(cluster.id, memory, vault.settings, parseTimestamp(plan.started_at)!)).catch((error: unknown) => {
          if (!(error instanceof WriteConflictError)) throw error;
        });
      }
    } else {
      await vault.update(cluster.id, (m) =>
        m.extra.reinforcement_count === cluster.reinforcement_count && m.confidence === cluster.confidence
          ? null
          : { reinforcement_count: cluster.reinforcement_count, confidence: cluster.confidence, cluster_size: cluster.members.length },
      );
    }
    at?.('semantic-written');
    const link = `[[${cluster.id}]]`;
    for (const member of cluster.new_members) {
      try {
        await vault.update(member, (m) => (m.extra.decays_from === link ? null : { decays_from: link }));
      } catch (error) {
        if (!(error instanceof NotFoundError) && !(error instanceof MemoryParseError)) throw error;
      }
    }
  }
}

/** Field writes, idempotent: each sets an absolute value, and an equal value is not written. */
async function applyFields(vault: Vault, plan: ConsolidationPlan, which: 'strengthen' | 'tiers'): Promise<void> {
  const changes: Array<{ id: string; key: 'half_life_days' | 'tier'; value: FieldValue }> =
    which === 'strengthen'
      ? plan.strengthen.map((s) => ({ id: s.id, key: 'half_life_days', value: s.half_life_days }))
      : plan.tiers.map((t) => ({ id: t.id, key: 'tier', value: t.to }));
  for (const { id, key, value } of changes) {
    try {
      // a strengthening records its run on the memory (plan.ts decides from it, not from this machine's log)
      await vault.update(id, (memory: Memory): Record<string, FieldValue> | null => (memory[key] === value ? null : key === 'half_life_days' ? { [key]: value, strengthened_at: plan.started_at } : { [key]: value }));
    } catch (error) {
      // a memory deleted or made unreadable by a person meanwhile is left alone
      if (!(error instanceof NotFoundError) && !(error instanceof MemoryParseError)) throw error;
    }
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

async function appendRun(vault: Vault, report: ConsolidationReport, gitHead: string | null): Promise<void> {
  const counts = Object.fromEntries(report.steps.map((s) => [s.step, s.count]));
  const line = JSON.stringify({ started_at: report.started_at, duration_ms: report.duration_ms, resumed: report.resumed, git_head: gitHead, ...counts });
  const current = (await vault.readText(LAYOUT.runs)) ?? '';
  await vault.ports.files.write(LAYOUT.runs, `${current}${current && !current.endsWith('\n') ? '\n' : ''}${line}\n`);
}

function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * The groups of the last run (`.engram/cache/clusters.json`), so that a nightly run compares
 * only the new and changed episodes with the rest. A cache: when it is missing, damaged, or
 * was made with another model (or words instead of vectors) or another threshold, everything
 * is compared again.
 */
export const CLUSTER_MEMO_PATH = '.engram/cache/clusters.json';

interface MemoBasis {
  model: string;
  threshold: number;
}

async function loadClusterMemo(vault: Vault, basis: MemoBasis): Promise<Map<string, string> | null> {
  const text = await vault.readText(CLUSTER_MEMO_PATH).catch(() => null);
  if (!text) return null;
  try {
    const memo = JSON.parse(text) as { model?: unknown; threshold?: unknown; labels?: unknown };
    if (memo.model !== basis.model || memo.threshold !== basis.threshold || typeof memo.labels !== 'object' || memo.labels === null) return null;
    return new Map(Object.entries(memo.labels as Record<string, string>));
  } catch {
    return null;
  }
}

async function saveClusterMemo(vault: Vault, basis: MemoBasis, labels: Map<string, string>): Promise<void> {
  await vault.ports.files.mkdir('.engram/cache');
  await vault.ports.files.write(CLUSTER_MEMO_PATH, JSON.stringify({ ...basis, labels: Object.fromEntries(labels) }));
}
