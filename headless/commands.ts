import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { contextBudget } from '../src/core/budget';
import { consolidate, type ConsolidationReport, type StepReport } from '../src/core/consolidation/consolidate';
import { agentContext, formatAgentContext } from '../src/core/agent-context';
import { hydrate, openRecall, toResult, useRecalled, type RecallResult } from '../src/core/recall/results';
import type { Radius } from '../src/core/tiers';
import { LAYOUT } from '../src/core/vault';
import { creativeDraw } from '../src/core/creative';
import { appendDaily } from '../src/core/daily';
import { memoryStrength } from '../src/core/decay';
import { EngramError, UsageError } from '../src/core/errors';
import { isMemoryId, safeRelativePath } from '../src/core/ids';
import { importLines, parseImport } from '../src/core/import';
import { memoryText } from '../src/core/memory';
import { remember, type RememberInput } from '../src/core/remember';
import type { Category, Confidence } from '../src/core/settings';
import { describeMemory } from '../src/core/show';
import { vaultStats } from '../src/core/stats';
import { currentTier } from '../src/core/tiers';
import { useMemories, type UseOptions, type UseResult } from '../src/core/touch';
import type { CliIO } from './cli';
import { loadVectors, updateVectors } from '../src/core/embeddings/store';
import { searchVectors } from '../src/core/embeddings/vector-search';
import { createEmbedder, requireEmbedder } from './embedders';
import { GitCli } from './git';
import { engramCommand, formatGitSetup, setupGit } from './git-setup';
import { MERGE_COMMANDS } from './merge-commands';
import { insideObsidianVault, openVault, vaultRoot, type Runtime, type RuntimeOptions } from './runtime';

export interface CommandContext {
  io: CliIO;
  json: boolean;
  options: Record<string, unknown>;
  args: string[];
  runtime: RuntimeOptions;
}

export interface Command {
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(context: CommandContext): Promise<number>;
}

function print(context: CommandContext, value: unknown, human: () => string): number {
  context.io.stdout(context.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  return 0;
}

/** TEXT from the arguments, or standard input for `-` (or no argument on a pipe). */
function textArgument(context: CommandContext, command: string): string {
  const arg = context.args.join(' ');
  if (arg === '-' || (arg === '' && !context.io.stdinIsTTY)) return context.io.readStdin();
  if (arg === '') throw new UsageError(`${command}: give the text as an argument, or - to read standard input`);
  return arg;
}

/** A memory reference from the command line: an id, or a file path (cwd- or vault-relative). */
export function memoryRef(runtime: Runtime, cwd: string, ref: string): string {
  if (isMemoryId(ref)) return ref;
  const absolute = nodePath.resolve(cwd, ref);
  const relative = nodePath.relative(runtime.root, absolute);
  if (!relative.startsWith('..') && !nodePath.isAbsolute(relative) && existsSync(absolute)) return safeRelativePath(relative);
  if (nodePath.isAbsolute(ref)) throw new UsageError(`${ref}: not inside the vault ${runtime.root}`);
  return safeRelativePath(ref);
}

async function resolveIds(runtime: Runtime, context: CommandContext, command: string): Promise<string[]> {
  if (context.args.length === 0) throw new UsageError(`${command}: give at least one memory id or path`);
  const ids: string[] = [];
  for (const ref of context.args) ids.push((await runtime.vault.resolve(memoryRef(runtime, context.io.cwd, ref))).id);
  return ids;
}

function formatUse(results: UseResult[]): string {
  return results
    .map((r) => {
      const tier = r.tier_before === r.tier ? r.tier : `${r.tier_before} -> ${r.tier}`;
      const spread = Object.keys(r.spread).length > 0 ? `  spread to ${Object.keys(r.spread).length}` : '';
      const due = r.due_for_validation ? '  due for validation' : '';
      return `${r.id}  ${tier}  access_count ${r.access_count}  activation ${r.activation}${spread}${due}`;
    })
    .join('\n');
}

const oneOf = <T extends string>(value: unknown, allowed: readonly T[], option: string): T | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${option}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
};

const count = (value: string | undefined, fallback: number, what: string): number => {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`${what}: expected a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
};


function readInput(context: CommandContext, file: string, what: string): string {
  if (file === '-') return context.io.readStdin();
  try {
    return readFileSync(nodePath.resolve(context.io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`${what}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** `recall --batch` input: one {"id", "query"} a line; errors name the line. */
function parseBatch(jsonl: string, name: string): Array<{ id: unknown; query: string }> {
  const out: Array<{ id: unknown; query: string }> = [];
  jsonl.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new UsageError(`${name}:${i + 1}: not valid JSON`);
    }
    const record = value as { id?: unknown; query?: unknown };
    if (typeof value !== 'object' || value === null || typeof record.query !== 'string' || record.query.trim() === '') {
      throw new UsageError(`${name}:${i + 1}: expected {"id", "query"} with a non-empty query`);
    }
    out.push({ id: record.id ?? i + 1, query: record.query });
  });
  return out;
}

/** Vector seeds for queries when an embedder and current vectors exist; lexical otherwise. */
async function queryVectors(runtime: Runtime, context: CommandContext, queries: string[]): Promise<Array<Map<string, number> | undefined>> {
  const none = queries.map(() => undefined);
  const { vault } = runtime;
  const embedder = createEmbedder(vault.settings.embedder, runtime.root);
  if (!embedder) return none;
  const { vectors } = await loadVectors(vault);
  if (!vectors || vectors.model !== embedder.model) return none;
  try {
    const embedded = await embedder.embed(queries);
    return embedded.map((q) => searchVectors(vectors, q, vault.settings.recall.seeds));
  } catch (error) {
    context.io.stderr(`engram: ${error instanceof Error ? error.message : String(error)}; recalling with lexical seeds only\n`);
    return none;
  }
}

/** Record a migrated model in .engram/config.json (machine data; memory files are untouched). */
function saveEmbedderModel(root: string, model: string): void {
  const file = nodePath.join(root, LAYOUT.config);
  const config = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const embedder = (config.embedder ?? {}) as Record<string, unknown>;
  config.embedder = { ...embedder, model };
  writeFileSync(`${file}.tmp`, `${JSON.stringify(config, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

function formatConsolidation(report: ConsolidationReport): string {
  const lines = [`${report.dry_run ? 'consolidation plan (dry run: nothing written)' : 'consolidation'} at ${report.started_at}${report.resumed ? ' (completed a run that was interrupted)' : ''}`];
  const verb: Record<string, (s: StepReport) => string> = {
    prune: (s) => `pruned ${s.count} (moved to archive/)`,
    git: (s) => `downgraded ${s.count} → stale`,
    embed: (s) => (s.total !== undefined ? `embedded ${s.count}/${s.total}` : 'embedding'),
    cluster: (s) => `merged ${s.count} episodic clusters`,
    strengthen: (s) => `strengthened ${s.count}`,
    conflicts: (s) => `resolved ${s.count} conflicts`,
    tiers: (s) => `tiers: ${s.count} demoted`,
    log: () => 'logged to .engram/runs.jsonl',
  };
  for (const step of report.steps) {
    if (step.note && step.count === 0 && step.step !== 'cluster') lines.push(`- ${verb[step.step]!(step)}: ${step.note}`);
    else lines.push(`✓ ${verb[step.step]!(step)}${step.note ? ` (${step.note})` : ''}`);
  }
  lines.push(`consolidation ${report.dry_run ? 'planned' : 'complete'} in ${(report.duration_ms / 1000).toFixed(1)}s`);
  return lines.join('\n');
}

function formatResults(results: RecallResult[], explain: boolean): string {
  if (results.length === 0) return 'no memories match';
  return results
    .map((r) => {
      const head = `${r.score.toFixed(3)}  [${r.tier} · ${r.confidence} · ${r.category}]  ${r.id}`;
      const lines = [head, `  ${r.text.length > 200 ? `${r.text.slice(0, 197)}...` : r.text}`];
      if (explain && r.explain) {
        const e = r.explain;
        const parts = [`lexical ${e.lexical.toFixed(3)}${e.lexical_rank ? ` (#${e.lexical_rank})` : ''}`];
        if (e.vector !== null) parts.push(`vector ${e.vector.toFixed(3)}`);
        if (e.episode) parts.push(`episode ${e.episode.session} +${e.episode.boost.toFixed(3)}`);
        if (e.spread) parts.push(`spread +${e.spread.amount.toFixed(3)} from ${e.spread.from} via ${e.spread.kinds.join('+')}`);
        if (e.role_boost !== 1) parts.push(`role x${e.role_boost}`);
        parts.push(`relevance ${e.relevance.toFixed(3)}`, `strength ${e.strength.toFixed(3)} -> decay x${e.decay_factor.toFixed(3)}`, `confidence x${e.confidence_weight}`, `activation ${e.activation.toFixed(2)} -> x${(1 + e.activation_bonus).toFixed(3)}`);
        lines.push(`  explain: ${parts.join('; ')}`);
      }
      return lines.join('\n');
    })
    .join('\n');
}

/** touch and cite: memories used together, reinforced the way `use` says. */
function useCommand(name: string, usage: string, use: UseOptions): Command {
  return {
    usage,
    options: {},
    async run(context) {
      const runtime = openVault(context.runtime);
      const ids = await resolveIds(runtime, context, name);
      const results = await useMemories(runtime.vault, ids, use);
      return print(context, results, () => formatUse(results));
    },
  };
}

const unavailable = (name: string): Command => ({
  usage: `engram ${name}: not available in this build yet`,
  options: {},
  run: async () => {
    throw new EngramError(`${name} is not available in this build yet`);
  },
});

export const COMMANDS: Record<string, Command> = {
  init: {
    usage:
      'engram [--vault DIR] init [--git]\n  create the memory folder layout (idempotent); adds .obsidian/ when the folder is not inside a vault\n' +
      '  --git: merge memory files field by field in this folder\'s git repository (git init when there is none)',
    options: { git: { type: 'boolean' } },
    async run(context) {
      const root = vaultRoot(context.runtime);
      mkdirSync(root, { recursive: true });
      const runtime = openVault(context.runtime, false);
      const created = await runtime.vault.init({ obsidianConfigDir: insideObsidianVault(root) ? null : '.obsidian' });
      const git = context.options.git ? setupGit(root, engramCommand(context.io.env)) : undefined;
      return print(context, { vault: root, created, ...(git ? { git } : {}) }, () =>
        (created.length > 0 ? `initialised ${root}\n${created.map((p) => `  created ${p}`).join('\n')}` : `${root} is already an Engram vault`) +
        (git ? `\n${formatGitSetup(git)}` : ''),
      );
    },
  },

  remember: {
    usage:
      'engram remember [TEXT | -] [--category episodic|semantic|decision] [--tags a,b] [--confidence verified|observed|inferred]\n' +
      '                [--error] [--path P]... [--role R] [--source S]',
    options: {
      category: { type: 'string' },
      tags: { type: 'string' },
      confidence: { type: 'string' },
      error: { type: 'boolean' },
      path: { type: 'string', multiple: true },
      role: { type: 'string' },
      source: { type: 'string' },
    },
    async run(context) {
      const o = context.options;
      const input: RememberInput = {
        text: textArgument(context, 'remember'),
        category: oneOf<Category>(o.category, ['episodic', 'semantic', 'decision'], 'category'),
        confidence: oneOf<Confidence>(o.confidence, ['verified', 'observed', 'inferred'], 'confidence'),
        tags: typeof o.tags === 'string' ? o.tags.split(',').map((t) => t.trim()).filter((t) => t !== '') : [],
        is_error: Boolean(o.error),
        related_paths: (o.path as string[] | undefined) ?? [],
        agent_role: (o.role as string | undefined) ?? null,
        source: (o.source as string | undefined) ?? null,
      };
      const runtime = openVault(context.runtime);
      const result = await remember(runtime.vault, input, null, createEmbedder(runtime.vault.settings.embedder, runtime.root));
      return print(context, result, () => {
        const line = `${result.action} ${result.id}  ${result.path}`;
        return result.action === 'conflict' ? `${line}\n  contradicts ${result.conflict_with}: see ${result.conflict_path}` : line;
      });
    },
  },

  import: {
    usage: 'engram import FILE.jsonl   (- reads standard input)\n  one {"text", "category"?, "created_at"?, "tags"?, "source"?, "session"?, ...} a line',
    options: {},
    async run(context) {
      if (context.args.length !== 1) throw new UsageError('import: give one JSONL file (or - for standard input)');
      const file = context.args[0]!;
      let jsonl: string;
      if (file === '-') jsonl = context.io.readStdin();
      else {
        jsonl = readInput(context, file, 'import');
      }
      const lines = parseImport(jsonl, file);
      const runtime = openVault(context.runtime);
      const summary = await importLines(runtime.vault, lines, createEmbedder(runtime.vault.settings.embedder, runtime.root));
      return print(context, summary, () => `imported ${summary.lines} lines: ${summary.created} created, ${summary.reinforced} reinforced, ${summary.conflicts} conflicts`);
    },
  },

  touch: useCommand('touch', 'engram touch ID|PATH ...\n  the touch protocol: one tier up, access_count + 1, read boost; memories touched together are co-accessed', {
    use: 'read',
    touch: true,
    coAccess: true,
  }),

  cite: useCommand('cite', 'engram cite ID ...\n  citation boost: the memories were cited in an answer', { use: 'cited', touch: false, coAccess: true }),

  show: {
    usage: 'engram show ID|PATH\n  frontmatter plus computed strength, effective half-life, tier and activation',
    options: {},
    async run(context) {
      if (context.args.length !== 1) throw new UsageError('show: give one memory id or path');
      const runtime = openVault(context.runtime);
      const memory = await runtime.vault.resolve(memoryRef(runtime, context.io.cwd, context.args[0]!));
      const view = describeMemory(memory, runtime.vault.now(), runtime.vault.settings);
      return print(context, view, () => {
        const { text, links, ...fields } = view;
        const lines = Object.entries(fields).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
        const linkLines = (links as Array<{ target: string; kind: string }>).map((l) => `  ${l.kind} -> ${l.target}`);
        return [...lines, ...(linkLines.length ? ['links:', ...linkLines] : []), '', String(text)].join('\n');
      });
    },
  },

  stats: {
    usage: 'engram stats\n  counts by category, tier and confidence; sizes; files that could not be read',
    options: {},
    async run(context) {
      const runtime = openVault(context.runtime);
      const stats = await vaultStats(runtime.vault);
      const row = (label: string, counts: Record<string, number>) =>
        `${label.padEnd(11)} ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join('  ')}`;
      print(context, stats, () =>
        [
          `memories    ${stats.memories} (${stats.archived} archived, ${stats.errors} errors, ${stats.bytes} bytes of text)`,
          row('category', stats.by_category),
          row('tier', stats.by_tier),
          row('confidence', stats.by_confidence),
          `daily       ${stats.daily_files} files${stats.daily_over_limit.length ? `, over 20 KB: ${stats.daily_over_limit.join(', ')}` : ''}`,
          `conflicts   ${stats.open_conflicts} open`,
          ...(stats.invalid.length ? [`unreadable  ${stats.invalid.length}`, ...stats.invalid.map((p) => `  ${p.path}: ${p.reason}`)] : []),
        ].join('\n'),
      );
      return 0;
    },
  },

  creative: {
    usage: 'engram creative [N] [--seed S]\n  N (default 5) random memories from every tier, favouring forgotten ones',
    options: { seed: { type: 'string' } },
    async run(context) {
      const n = count(context.args[0], 5, 'creative N');
      const runtime = openVault({ ...context.runtime, seed: context.options.seed as string | undefined });
      const { vault } = runtime;
      const now = vault.now();
      const { memories } = await vault.loadAll();
      const drawn = creativeDraw(memories, n, now, vault.ports.random, vault.settings).map((m) => ({
        id: m.id,
        path: m.path,
        category: m.category,
        tier: currentTier(m, now, vault.settings),
        strength: Math.round(memoryStrength(m, now, vault.settings) * 1000) / 1000,
        text: memoryText(m),
      }));
      return print(context, drawn, () =>
        drawn.map((d) => `[${d.tier.toUpperCase()} · ${d.strength.toFixed(2)}] ${d.text}  [[${d.id}]]`).join('\n'),
      );
    },
  },

  log: {
    usage: "engram log TEXT   (- reads standard input)\n  append a line to today's daily file",
    options: {},
    async run(context) {
      const text = textArgument(context, 'log');
      if (text.trim() === '') throw new UsageError('log: nothing to log (empty text)');
      const runtime = openVault(context.runtime);
      const result = await appendDaily(runtime.vault, text);
      return print(context, result, () =>
        `appended to ${result.path} (${result.bytes} bytes)${result.over_limit ? ': over 20 KB, compress it into memories' : ''}`,
      );
    },
  },

  budget: {
    usage: 'engram budget\n  bytes and tokens of the always-loaded context against the targets',
    options: {},
    async run(context) {
      const runtime = openVault(context.runtime);
      const report = await contextBudget(runtime.vault);
      print(context, report, () =>
        [
          ...report.files.map((f) => `${f.path.padEnd(28)} ${String(f.bytes).padStart(7)} B ${String(f.tokens).padStart(6)} tok${f.note ? `  (${f.note})` : ''}`),
          `${'total'.padEnd(28)} ${String(report.total_bytes).padStart(7)} B ${String(report.total_tokens).padStart(6)} tok`,
          `targets: STATE.md under ${report.state_target_bytes} B, everything under ${report.total_target_bytes} B`,
          ...(report.over.length ? report.over.map((o) => `OVER: ${o}`) : ['within budget']),
        ].join('\n'),
      );
      return 0;
    },
  },

  recall: {
    usage:
      'engram recall QUERY [--limit N] [--radius default|deep|all] [--touch] [--explain]\n' +
      'engram recall --batch FILE.jsonl   one {"id", "query"} a line in, one {"id", "results"} line out',
    options: {
      limit: { type: 'string' },
      radius: { type: 'string' },
      touch: { type: 'boolean' },
      explain: { type: 'boolean' },
      batch: { type: 'string' },
    },
    async run(context) {
      const o = context.options;
      const limit = count(o.limit as string | undefined, 12, '--limit');
      const radius = oneOf<Radius>(o.radius, ['default', 'deep', 'all'], 'radius') ?? 'default';
      const explain = Boolean(o.explain);
      if (o.batch !== undefined) {
        if (context.args.length > 0) throw new UsageError('recall: give a QUERY or --batch FILE, not both');
        const queries = parseBatch(readInput(context, o.batch as string, 'recall --batch'), o.batch as string);
        const runtime = openVault(context.runtime);
        const engine = await openRecall(runtime.vault);
        const now = runtime.vault.now();
        const seeds = await queryVectors(runtime, context, queries.map((q) => q.query));
        for (const [k, { id, query }] of queries.entries()) {
          const results = (await hydrate(runtime.vault, engine.recall(query, { limit, radius, vectorSeeds: seeds[k] }, now))).map((h) => toResult(h, explain));
          context.io.stdout(`${JSON.stringify({ id, results })}\n`);
          if (o.touch) await useRecalled(runtime.vault, results.map((r) => r.id));
        }
        return 0;
      }
      const query = context.args.join(' ').trim();
      if (query === '') throw new UsageError('recall: give a query (or --batch FILE.jsonl)');
      const runtime = openVault(context.runtime);
      const engine = await openRecall(runtime.vault);
      const [vectorSeeds] = await queryVectors(runtime, context, [query]);
      const results = (await hydrate(runtime.vault, engine.recall(query, { limit, radius, vectorSeeds }, runtime.vault.now()))).map((h) => toResult(h, explain));
      if (o.touch) await useRecalled(runtime.vault, results.map((r) => r.id));
      return print(context, results, () => formatResults(results, explain));
    },
  },

  context: {
    usage: 'engram context [QUERY] [--budget TOKENS] [--peek]\n  STATE.md and the AGENT MEMORY block; the memories injected are touched (--peek: not)',
    options: { budget: { type: 'string' }, peek: { type: 'boolean' } },
    async run(context) {
      const runtime = openVault(context.runtime);
      const { vault } = runtime;
      const budget = count(context.options.budget as string | undefined, vault.settings.tokenBudget, '--budget');
      const query = context.args.join(' ').trim();
      const engine = await openRecall(vault);
      const [vectorSeeds] = query === '' ? [undefined] : await queryVectors(runtime, context, [query]);
      const result = await agentContext(vault, engine, query, { budget, peek: Boolean(context.options.peek), vectorSeeds });
      return print(context, result, () => formatAgentContext(result));
    },
  },
  consolidate: {
    usage: 'engram consolidate [--dry-run]\n  sleep: prune to archive/, embed, strengthen, demote tiers, log to .engram/runs.jsonl (one run at a time)',
    options: { 'dry-run': { type: 'boolean' }, repo: { type: 'string' } },
    async run(context) {
      const runtime = openVault(context.runtime);
      const dryRun = Boolean(context.options['dry-run']);
      const repoOption = context.options.repo as string | undefined;
      const git = repoOption ? GitCli.enclosing(nodePath.resolve(context.io.cwd, repoOption)) : GitCli.enclosing(runtime.root);
      if (repoOption && !git) throw new UsageError(`--repo: ${repoOption} is not inside a git repository`);
      const report = await consolidate(runtime.vault, {
        git,
        dryRun,
        embedder: createEmbedder(runtime.vault.settings.embedder, runtime.root),
        holder: `engram consolidate started ${new Date().toISOString()}`,
        // Fault injection for the kill tests: ENGRAM_CRASH_AT=<point> stops the process there with SIGKILL.
        checkpoint: (point) => {
          if (context.io.env.ENGRAM_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
        },
        elapsed: () => performance.now(),
      });
      return print(context, report, () => formatConsolidation(report));
    },
  },
  reembed: {
    usage: 'engram reembed [--model ID]\n  embed every memory whose text changed (all of them for a new model); --model migrates to another model',
    options: { model: { type: 'string' } },
    async run(context) {
      const runtime = openVault(context.runtime);
      const { vault } = runtime;
      const model = context.options.model as string | undefined;
      const settings = { ...vault.settings.embedder, ...(model ? { model } : {}) };
      const embedder = requireEmbedder(settings, runtime.root);
      const { memories } = await vault.loadAll();
      const started = Date.now();
      const report = await updateVectors(vault, memories.map((m) => ({ id: m.id, text: memoryText(m) })), embedder, {
        force: model !== undefined && model !== vault.settings.embedder.model,
      });
      if (model && model !== vault.settings.embedder.model) saveEmbedderModel(runtime.root, model);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (report.rebuilt) context.io.stderr(`engram: ${report.rebuilt}\n`);
      return print(context, { ...report, seconds: Number(seconds) }, () =>
        `embedded ${report.embedded}/${report.total} with ${report.model} (${report.dimensions} dimensions), kept ${report.kept}, removed ${report.removed} in ${seconds}s`,
      );
    },
  },
  export: unavailable('export'),
  ...MERGE_COMMANDS,
};
