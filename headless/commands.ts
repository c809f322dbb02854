import { mkdirSync } from 'node:fs';
import * as nodePath from 'node:path';
import { contextBudget } from '../src/core/budget';
import { consolidate, type ConsolidateOptions, type ConsolidationReport, type StepReport } from '../src/core/consolidation/consolidate';
import { MemoryCache } from '../src/core/memory-cache';
import { LAYOUT } from '../src/core/vault';
import { creativeDraw } from '../src/core/creative';
import { appendDaily } from '../src/core/daily';
import { memoryStrength } from '../src/core/decay';
import { UsageError } from '../src/core/errors';
import { importLines, parseImport } from '../src/core/import';
import { memoryText } from '../src/core/memory';
import { remember, type RememberInput } from '../src/core/remember';
import type { Category, Confidence } from '../src/core/settings';
import { describeMemory } from '../src/core/show';
import { vaultStats } from '../src/core/stats';
import { currentTier } from '../src/core/tiers';
import type { Command, CommandContext } from './command';
import { count, oneOf, print, readInput, textArgument, memoryRef } from './command-kit';
import { touchCommand, useCommand } from './use-commands';
import { changesBefore, noteChange } from './recall-changes';
import { contextCommand, recallCommand } from './read-commands';
import { refreshVectors } from '../src/core/embeddings/store';
import { loadCatalog } from '../src/core/recall/catalog';
import { createEmbedder, requireEmbedder } from './embedders';
import { captureCommand } from './capture-command';
import { exportCommand } from './export-command';
import { citedOutputs } from '../src/core/loop-outcomes';
import { loopsCommand } from './loops-command';
import { reviewCommand, validateCommand } from './review-commands';
import { createChatModel } from './openai-chat';
import { abstractiveSummaries } from '../src/core/consolidation/abstractive';
import { GitCli } from './git';
import { engramCommand, formatGitSetup, setupGit } from './git-setup';
import { CURATION_COMMANDS } from './curation-commands';
import { MCP_COMMANDS } from './mcp-command';
import { SERVE_COMMANDS } from './serve-command';
import { MERGE_COMMANDS } from './merge-commands';
import { DOCTOR_COMMANDS } from './doctor';
import { MIGRATE_COMMANDS } from './migrate-command';
import { PRUNE_STRENGTH } from '../src/core/consolidation/prune';
import { ARGUMENT_RANGES } from '../src/core/arguments';
import { insideObsidianVault, openVault, vaultRoot, type Runtime } from './runtime';

/** Record a migrated model in .engram/config.json (machine data; memory files are untouched), through the file port: never through a planted link. */
async function saveEmbedderModel(runtime: Runtime, model: string): Promise<void> {
  const text = await runtime.vault.readText(LAYOUT.config);
  const config = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  const embedder = (config.embedder ?? {}) as Record<string, unknown>;
  config.embedder = { ...embedder, model };
  await runtime.files.write(LAYOUT.config, `${JSON.stringify(config, null, 2)}\n`);
}

/** consolidate's exit status when the run went through but skipped files: cron hears of them. */
export const EXIT_SKIPPED = 3;

function skippedWarning(report: ConsolidationReport): string {
  const n = report.skipped.length;
  const lines = [`engram: consolidate ${report.dry_run ? 'would skip' : 'skipped'} ${n} ${n === 1 ? 'file' : 'files'} it could not read or change (exit ${EXIT_SKIPPED}):`];
  for (const item of report.skipped) lines.push(`  ${item.path} (${item.step}): ${item.reason}`);
  lines.push('fix or remove them (engram doctor says what is wrong with each); the next consolidation tries them again');
  return `${lines.join('\n')}\n`;
}

function formatConsolidation(report: ConsolidationReport): string {
  const lines = [`${report.dry_run ? 'consolidation plan (dry run: nothing written)' : 'consolidation'} at ${report.started_at}${report.resumed ? ' (completed a run that was interrupted)' : ''}`];
  const verb: Record<string, (s: StepReport) => string> = {
    copies: (s) => `merged ${s.count} sync-conflict copies`,
    links: (s) => `repaired ${s.count} ${s.count === 1 ? 'link' : 'links'}`,
    'same-text': (s) => `merged ${s.count} ${s.count === 1 ? 'memory' : 'memories'} into the one holding the same text`,
    prune: (s) => `pruned ${s.count} (strength under ${PRUNE_STRENGTH}: moved to archive/)`,
    git: (s) => `downgraded ${s.count} → stale`,
    embed: (s) => (s.total !== undefined ? `embedded ${s.count}/${s.total}` : 'embedding'),
    cluster: (s) => `merged ${s.count} episodic clusters`,
    strengthen: (s) => `strengthened ${s.count}`,
    conflicts: (s) => `resolved ${s.count} conflicts`,
    tiers: (s) => `tiers: ${s.count} demoted (tier written in the file -> new tier; engram list shows the tier each memory is in now)`,
    log: () => 'logged to .engram/runs.jsonl',
  };
  for (const step of report.steps) {
    if (step.note && step.count === 0 && step.step !== 'cluster') lines.push(`- ${verb[step.step]!(step)}: ${step.note}`);
    else lines.push(`✓ ${verb[step.step]!(step)}${step.note ? ` (${step.note})` : ''}`);
    for (const change of step.changes ?? []) lines.push(`    ${change.id}  ${change.change}`);
  }
  if (report.temp_removed > 0) lines.push(`✓ removed ${report.temp_removed} temp files left by killed writers`);
  // what could not be done is listed, not fatal: the rest of the night went on
  for (const item of report.skipped.slice(0, 20)) lines.push(`⚠ skipped ${item.path} (${item.step}): ${item.reason}`);
  if (report.skipped.length > 20) lines.push(`⚠ and ${report.skipped.length - 20} more skipped (--json lists them all)`);
  lines.push(`consolidation ${report.dry_run ? 'planned' : 'complete'} in ${(report.duration_ms / 1000).toFixed(1)}s`);
  return lines.join('\n');
}

/** Abstractive summaries for consolidate, when configured (consolidation.abstractive and a chat endpoint). */
function abstractiveFor(runtime: Runtime, context: CommandContext): ConsolidateOptions['abstractive'] {
  const { vault } = runtime;
  if (!vault.settings.consolidation.abstractive) return null;
  const chat = createChatModel(vault.settings.chat, context.io.env);
  return chat ? (actions, memories, dryRun) => abstractiveSummaries(vault, actions, memories, chat, dryRun) : null;
}

export const COMMANDS: Record<string, Command> = {
  init: {
    group: 'setup',
    summary: 'create the memory folder layout (idempotent)',
    details:
      'Creates episodic/, semantic/, decisions/, daily/, conflicts/, archive/, STATE.md and .engram/,\n' +
      'and an .obsidian/ folder with one graph colour group per tier when the folder is not already\n' +
      'inside an Obsidian vault. Running it again creates only what is missing.\n' +
      'json: {"vault", "created": [paths]} (+ "git" with --git)',
    options: {
      git: { type: 'boolean', help: "merge memory files field by field in this folder's git repository (git init when there is none)" },
    },
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
    group: 'write',
    args: '[TEXT | -]',
    arity: [0, Infinity],
    takesText: true,
    summary: 'remember one text (- or a pipe: standard input)',
    details:
      'Near-identical text (same category) reinforces the existing memory instead of writing a\n' +
      'duplicate; the same subject negated opens a conflict note; otherwise a new memory is written.\n' +
      'A near-identical text that adds words (a negation, "stop", a number) is never folded in: it is written.\n' +
      'A text that changes what an older memory says (a new value for the same subject, or a reversal in\n' +
      'plain words: "no longer", "instead of", "switched from ... to") supersedes it: the new memory links\n' +
      '[[OLD|supersedes]], OLD gets superseded_by: NEW (kept, ranked below NEW, never injected). An older\n' +
      'verified decision reversed by an unverified text opens a conflict instead. --supersedes OLD says it\n' +
      'explicitly. Undo: engram mark OLD --not-superseded. For a memory simply wrong now: engram mark OLD --stale.\n' +
      'json: {"id", "path", "action": "created"|"reinforced"|"conflict"} (+ "conflict_with", "conflict_path", "superseded", "supersedes")',
    options: {
      category: { type: 'string', value: 'episodic|semantic|decision', help: 'the kind of memory (episodic)' },
      tags: { type: 'string', value: 'a,b', help: 'comma-separated tags' },
      confidence: { type: 'string', value: 'verified|observed|inferred', help: 'how sure (observed)' },
      error: { type: 'boolean', help: 'the memory is about an error: it lasts twice as long' },
      path: { type: 'string', value: 'P', multiple: true, help: 'a project file it is about (related_paths; git invalidation)' },
      role: { type: 'string', value: 'R', help: 'the agent role that remembers it (agent_role)' },
      source: { type: 'string', value: 'S', help: 'where it comes from: a PR, a ticket, a turn id' },
      supersedes: { type: 'string', value: 'ID', help: 'the memory this text corrects: linked as supersedes, marked superseded_by' },
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
        supersedes: (o.supersedes as string | undefined) ?? null,
      };
      const runtime = openVault(context.runtime);
      const before = changesBefore(runtime.root);
      const result = await remember(runtime.vault, input, null, createEmbedder(runtime.vault.settings.embedder, runtime.root));
      noteChange(runtime.root, before);
      return print(context, result, () => {
        const line = `${result.action} ${result.id}  ${result.path}${result.revived ? '  (back out of archive/)' : ''}`;
        const replaced = (result.supersedes ?? []).map((old) => `\n  supersedes ${old} (kept, ranked below it, no longer injected; undo: engram mark ${old} --not-superseded)`).join('');
        const unreadable = result.same_text_unreadable
          ? `\n  the same text is in ${result.same_text_unreadable}, which Engram cannot read (engram doctor says why): once it is repaired, engram consolidate (or doctor --fix) merges the two`
          : '';
        return (result.action === 'conflict' ? `${line}\n  contradicts ${result.conflict_with}: see ${result.conflict_path}` : line) + replaced + unreadable;
      });
    },
  },

  import: {
    group: 'write',
    args: 'FILE.jsonl | -',
    arity: [1, 1],
    summary: 'bulk remember: one JSON object a line; importing the same lines again changes nothing',
    details:
      'Each line: {"text", "category"?, "created_at"?, "tags"?, "source"?, "session"?, "confidence"?,\n' +
      '"is_error"?, "related_paths"?, "agent_role"?}. Every line is checked first and every bad line is\n' +
      'reported (file:line: reason), with nothing written. Lines already imported (by an earlier run,\n' +
      'or a run that was killed) are left as they are; a write that fails undoes the run. Lines that\n' +
      'share a "session" are one episode: each is linked to its neighbours as related.\n' +
      'json: {"lines", "created", "reinforced", "conflicts", "superseded", "unchanged", "dry_run", "results": [{"id", "path", "action", "supersedes"?}]}',
    options: {
      'dry-run': { type: 'boolean', help: 'check and decide every line, write nothing' },
      reinforce: { type: 'boolean', help: 'lines already imported reinforce their memory again (count repeats)' },
    },
    async run(context) {
      const file = context.args[0]!;
      const jsonl = readInput(context, file, 'import');
      const runtime = openVault(context.runtime);
      const lines = parseImport(jsonl, file, runtime.vault.settings.maxFileBytes);
      const summary = await importLines(runtime.vault, lines, {
        embedder: createEmbedder(runtime.vault.settings.embedder, runtime.root),
        dryRun: Boolean(context.options['dry-run']),
        reinforceRepeats: Boolean(context.options.reinforce),
      });
      return print(context, summary, () =>
        `${summary.dry_run ? 'would import' : 'imported'} ${summary.lines} lines: ${summary.created} created, ${summary.reinforced} reinforced, ${summary.conflicts} conflicts, ${summary.superseded} superseded, ${summary.unchanged} already imported${summary.dry_run ? ' (dry run: nothing written)' : ''}`,
      );
    },
  },


  touch: touchCommand,

  cite: useCommand(
    'cite',
    'citation boost: the memories were cited in an answer',
    'Activation + 1.5 (and its spread to linked memories); no tier change. json: as touch',
    { use: 'cited', touch: false, coAccess: true },
    async (vault, ids) => {
      await citedOutputs(vault, await Promise.all(ids.map((id) => vault.resolve(id))));
    },
  ),

  show: {
    group: 'read',
    args: 'ID|PATH',
    arity: [1, 1],
    summary: 'one memory: frontmatter plus computed strength, half-life, tier, activation',
    details:
      'Every frontmatter field under its own name (unknown fields too), the text and links, and\n' +
      'strength, effective_half_life_days, activation_now, tier_now, tier_by_days, days_since_access,\n' +
      'due_for_validation. Reading with show is not a touch.',
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
    group: 'read',
    summary: 'counts by category, tier and confidence; sizes; unreadable files',
    details:
      '"archived": files in archive/; "archive_due": memories the next consolidation moves there; "by_tier": the\n' +
      'tier each memory is in now (its "archive" is a tier, not the folder).\n' +
      'json: {"memories", "archived", "archive_due", "by_category", "by_tier", "by_confidence", "errors", "bytes",\n' +
      '"daily_files", "daily_over_limit", "open_conflicts", "invalid": [{"path", "reason"}]}',
    options: {},
    async run(context) {
      const runtime = openVault(context.runtime);
      const stats = await vaultStats(runtime.vault);
      const row = (label: string, counts: Record<string, number>) =>
        `${label.padEnd(11)} ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join('  ')}`;
      print(context, stats, () =>
        [
          `memories    ${stats.memories} (${stats.archived} in archive/, ${stats.archive_due} due to move there at the next consolidation, ${stats.errors} errors, ${stats.bytes} bytes of text)`,
          row('category', stats.by_category),
          row('tier now', stats.by_tier),
          row('confidence', stats.by_confidence),
          `daily       ${stats.daily_files} ${stats.daily_files === 1 ? 'file' : 'files'}${stats.daily_over_limit.length ? `, over 20 KB: ${stats.daily_over_limit.join(', ')}` : ''}`,
          `conflicts   ${stats.open_conflicts} open`,
          ...(stats.invalid.length ? [`unreadable  ${stats.invalid.length}`, ...stats.invalid.map((p) => `  ${p.path}: ${p.reason}`)] : []),
        ].join('\n'),
      );
      return 0;
    },
  },

  creative: {
    group: 'read',
    args: '[N]',
    arity: [0, 1],
    summary: 'N (5, at most 50) random memories from every tier, favouring forgotten ones',
    details: 'Weight 1 - strength + 0.05. Each line: [TIER · strength S] (S: how much is left, 1 fresh, 0 forgotten).\njson: [{"id", "path", "category", "tier", "strength", "text"}]',
    options: { seed: { type: 'string', value: 'S', help: 'make the draw reproducible' } },
    async run(context) {
      const n = count(context.args[0], 5, ARGUMENT_RANGES.creativeCount, 'creative N');
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
        drawn.map((d) => `[${d.tier.toUpperCase()} · strength ${d.strength.toFixed(2)}] ${d.text}  [[${d.id}]]`).join('\n'),
      );
    },
  },

  log: {
    group: 'write',
    args: 'TEXT | -',
    arity: [0, Infinity],
    takesText: true,
    summary: "append a line to today's daily file (daily/YYYY-MM-DD.md, UTC)",
    details: 'json: {"path", "bytes", "over_limit"}',
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
    group: 'read',
    summary: 'bytes and tokens of the always-loaded context against the targets',
    details:
      'STATE.md (target 4 KB), the daily files of the last 7 days and alwaysLoaded files (all under 25 KB).\n' +
      'json: {"files": [{"path", "bytes", "tokens", "note"?}], "total_bytes", "total_tokens", "over": [messages], ...}',
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

  recall: recallCommand,
  context: contextCommand,
  consolidate: {
    group: 'maintain',
    summary: 'sleep: prune, git invalidation, embed, cluster, strengthen, conflicts, tiers, log',
    details:
      'Prune (strength < 0.05 -> archive/, never deleted), git invalidation, embed, cluster repeated\n' +
      'episodes into semantic memories, strengthen what was used, resolve dominated conflicts, demote\n' +
      'tiers, log to .engram/runs.jsonl. One run at a time; a killed run is completed by the next.\n' +
      'json: {"started_at", "duration_ms", "dry_run", "resumed", "steps": [{"step", "count", "total"?, "ms", "note"?,\n' +
      '"changes": [{"id", "change"}]}], "skipped": [{"step", "path", "reason"}] (files a step could not read or change),\n' +
      '"temp_removed" (temp files of killed writers removed), "exit_status"}\n' +
      `Exit ${EXIT_SKIPPED} when the run went through but skipped files (listed on stderr too): fix or remove them\n` +
      '(engram doctor names what is wrong with each); the next run tries them again.',
    options: {
      'dry-run': { type: 'boolean', help: 'plan and report, write nothing' },
      verbose: { type: 'boolean', short: 'v', help: 'list the memories each step changes (--json always lists them)' },
      repo: { type: 'string', value: 'DIR', help: 'the project repository for git invalidation (else the one around the vault)' },
    },
    async run(context) {
      const runtime = openVault(context.runtime);
      const dryRun = Boolean(context.options['dry-run']);
      const repoOption = context.options.repo as string | undefined;
      const git = repoOption ? GitCli.enclosing(nodePath.resolve(context.io.cwd, repoOption)) : GitCli.enclosing(runtime.root);
      if (repoOption && !git) throw new UsageError(`--repo: ${repoOption} is not inside a git repository`);
      // read once: process.env is looked up in the environment at each read, and the run
      // passes a checkpoint at each of its moves (9,249 at the first run of the 10k bench vault)
      const crashAt = context.io.env.ENGRAM_CRASH_AT;
      const report = await consolidate(runtime.vault, {
        git,
        abstractive: abstractiveFor(runtime, context),
        dryRun,
        embedder: createEmbedder(runtime.vault.settings.embedder, runtime.root),
        holder: `engram consolidate started ${new Date().toISOString()}`,
        // Fault injection for the kill tests: ENGRAM_CRASH_AT=<point> stops the process there with SIGKILL.
        checkpoint: (point) => {
          if (crashAt === point) process.kill(process.pid, 'SIGKILL');
        },
        elapsed: () => performance.now(),
        memoryCache: MemoryCache.load,
        listChanges: context.json || Boolean(context.options.verbose),
      });
      const status = report.skipped.length > 0 ? EXIT_SKIPPED : 0;
      print(context, { ...report, exit_status: status }, () => formatConsolidation(report));
      if (status !== 0) context.io.stderr(skippedWarning(report));
      return status;
    },
  },
  reembed: {
    group: 'maintain',
    summary: 'embed every memory whose text changed, with the configured embedder',
    details:
      'Reads only the memories whose text changed since their vector was made (the catalog keeps the hash of each text).\n' +
      'json: {"model", "dimensions", "total", "embedded", "kept", "removed", "rebuilt", "read" (memory files read), "seconds"}',
    options: { model: { type: 'string', value: 'ID', help: 'migrate to another model: re-embed everything, record it in .engram/config.json' } },
    async run(context) {
      const runtime = openVault(context.runtime);
      const { vault } = runtime;
      const model = context.options.model as string | undefined;
      const settings = { ...vault.settings.embedder, ...(model ? { model } : {}) };
      const embedder = requireEmbedder(settings, runtime.root);
      const started = Date.now();
      // the catalog (cache: only changed files parsed) says which texts changed; only those are read
      const { docs } = await loadCatalog(vault);
      const report = await refreshVectors(vault, docs, embedder, {
        force: model !== undefined && model !== vault.settings.embedder.model,
      });
      if (model && model !== vault.settings.embedder.model) await saveEmbedderModel(runtime, model);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (report.rebuilt) context.io.stderr(`engram: ${report.rebuilt}\n`);
      return print(context, { ...report, seconds: Number(seconds) }, () =>
        `embedded ${report.embedded}/${report.total} with ${report.model} (${report.dimensions} dimensions), kept ${report.kept}, removed ${report.removed} in ${seconds}s`,
      );
    },
  },
  capture: captureCommand,
  ...CURATION_COMMANDS,
  ...MCP_COMMANDS,
  ...SERVE_COMMANDS,
  export: exportCommand,
  loops: loopsCommand,
  validate: validateCommand,
  review: reviewCommand,
  ...MERGE_COMMANDS,
  ...DOCTOR_COMMANDS,
  ...MIGRATE_COMMANDS,
};
