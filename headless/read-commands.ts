import type { Command, CommandContext } from './command';
import { count, oneOf, print, readInput, openRecallCounting, warnUnreadable } from './command-kit';
import { createEmbedder } from './embedders';
import { openVault, type Runtime } from './runtime';
import { agentContext, formatAgentContext } from '../src/core/agent-context';
import { ARGUMENT_RANGES, checkQuery } from '../src/core/arguments';
import { loadVectors } from '../src/core/embeddings/store';
import { searchVectors } from '../src/core/embeddings/vector-search';
import { EngramError, UsageError } from '../src/core/errors';
import type { Widening } from '../src/core/recall/recall';
import { hydrate, openRecall, toResult, touchResults, type RecallResult } from '../src/core/recall/results';
import type { Radius } from '../src/core/tiers';

/**
 * recall and context: the commands an agent's hooks run cold before each prompt. Apart from the
 * other commands (headless/commands.ts) because they are also built alone (dist/engram-read.js,
 * headless/bundles.ts): what this file imports is what a cold recall or context loads.
 */

/** `recall --batch` input: one {"id", "query"} a line; errors name the line. */
function parseBatch(jsonl: string, name: string): Array<{ id: unknown; query: string }> {
  const out: Array<{ id: unknown; query: string }> = [];
  jsonl.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new EngramError(`${name}:${i + 1}: not valid JSON`);
    }
    const record = value as { id?: unknown; query?: unknown };
    if (typeof value !== 'object' || value === null || typeof record.query !== 'string' || record.query.trim() === '') {
      throw new EngramError(`${name}:${i + 1}: expected {"id", "query"} with a non-empty query`);
    }
    out.push({ id: record.id ?? i + 1, query: checkQuery(record.query, `${name}:${i + 1}: query`) });
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

/** The prompt of a Claude Code hook payload on standard input (none for SessionStart: no query). */
function hookPrompt(context: CommandContext): string {
  if (context.args.length > 0) throw new UsageError('context --hook: the query comes from the hook payload; give no QUERY');
  const text = context.io.stdinIsTTY ? '' : context.io.readStdin().trim();
  if (text === '') return '';
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new UsageError('context --hook: standard input is not a hook payload (JSON)');
  }
  const prompt = payload && typeof payload === 'object' ? (payload as { prompt?: unknown }).prompt : undefined;
  return typeof prompt === 'string' ? prompt.trim() : '';
}

/** --explain of plain recall: whether it reached beyond the default radius, and why. */
export function formatWidening(w: Widening): string {
  const best = (x: number) => x.toFixed(3);
  if (w.widened) {
    return `widened to ${w.tiers.join(' and ')}: ${w.results} result${w.results === 1 ? '' : 's'} from beyond core, active and warm scored above the near matches they displaced (best relevance beyond ${best(w.wider_best)}, inside ${best(w.near_best)})`;
  }
  if (w.wider_best > 0) {
    // scores weigh relevance by strength: equally relevant older matches rank below because they are weaker
    if (best(w.wider_best) === best(w.near_best)) return `not widened: matches in cold or archive are as relevant as the near results (best relevance ${best(w.near_best)} both) but weaker, so they scored below them`;
    return `not widened: matches in cold or archive (best relevance ${best(w.wider_best)}) scored below the near results (best ${best(w.near_best)})`;
  }
  return 'not widened: nothing in cold or archive matches';
}


function formatResults(results: RecallResult[], explain: boolean): string {
  if (results.length === 0) return 'no memories match';
  return results
    .map((r) => {
      const superseded = r.superseded_by ? ` · superseded by ${r.superseded_by}` : '';
      const head = `${r.score.toFixed(3)}  [${r.tier}${r.widened ? ' (widened)' : ''} · ${r.confidence} · ${r.category}${superseded}]  ${r.id}`;
      const lines = [head, `  ${r.text.length > 200 ? `${r.text.slice(0, 197)}...` : r.text}`];
      if (r.collapsed.length > 0) lines.push(`  collapsed under it: ${r.collapsed.length} matching episode${r.collapsed.length === 1 ? '' : 's'} (${r.collapsed.join(', ')})`);
      if (explain && r.explain) {
        const e = r.explain;
        const parts = [`lexical ${e.lexical.toFixed(3)}${e.lexical_rank ? ` (#${e.lexical_rank})` : ''}`];
        if (e.vector !== null) parts.push(`vector ${e.vector.toFixed(3)}`);
        if (e.episode) parts.push(`episode ${e.episode.session} +${e.episode.boost.toFixed(3)}`);
        if (e.spread) parts.push(`spread +${e.spread.amount.toFixed(3)} from ${e.spread.from} via ${e.spread.kinds.join('+')}${e.spread.capped ? ' (capped at its seed)' : ''}`);
        if (e.role_boost !== 1) parts.push(`role x${e.role_boost}`);
        if (e.inherited) parts.push(`relevance of ${e.inherited[0]}, which it supersedes`);
        parts.push(`relevance ${e.relevance.toFixed(3)}`, `strength ${e.strength.toFixed(3)} -> decay x${e.decay_factor.toFixed(3)}`, `confidence x${e.confidence_weight}`, `activation ${e.activation.toFixed(2)} -> x${(1 + e.activation_bonus).toFixed(3)}`);
        if (e.superseded_by) parts.push(`superseded by ${e.superseded_by}: x0.5, held below it`);
        if (e.lifted !== null) parts.push(`lifted from ${e.lifted.toFixed(3)}: more than 1.5x as relevant as matches scored above it`);
        lines.push(`  explain: ${parts.join('; ')}`);
        if (e.widened) lines.push(`  widened: ${e.widened}`);
      }
      return lines.join('\n');
    })
    .join('\n');
}

export const recallCommand: Command = {
  group: 'read',
  args: 'QUERY',
  arity: [0, Infinity],
  takesText: true,
  summary: 'the memories that best answer a query, ranked',
  details:
    'BM25+ seeds (fused with vector seeds when an embedder is configured), episode context, spreading\n' +
    'activation, then relevance x decay x confidence x (1 + ACT-R bonus). Without --radius, plain recall starts\n' +
    'from the default radius and widens by itself: a cold or archived memory joins when it scores above the near\n' +
    'ones (results say "widened"; --explain says why). An explicit --radius is strict. Plain recall writes nothing.\n' +
    'json: [{"id", "path", "score", "strength", "tier", "confidence", "category", "source", "text", "tags", "created_at",\n' +
    '        "last_accessed_at", "is_error", "related_paths", "agent_role", "widened"}] (+ "explain"); with --touch,\n' +
    '        "path" is where the file is after the touch (a result found in archive/ has moved back)',
  options: {
    limit: { type: 'string', value: 'N', help: `how many results, ${ARGUMENT_RANGES.recallLimit.min} to ${ARGUMENT_RANGES.recallLimit.max} (12)` },
    radius: { type: 'string', value: 'default|deep|all', help: 'only these tiers: default core/active/warm, deep + cold, all + archive (without it: widens by itself)' },
    touch: { type: 'boolean', help: 'the results were used: touch them and link the top 5 by co-access' },
    explain: { type: 'boolean', help: 'show how each score was made' },
    batch: { type: 'string', value: 'FILE.jsonl', help: 'one {"id", "query"} a line (- for stdin); one {"id", "results"} line out per query' },
  },
  async run(context) {
    const o = context.options;
    const limit = count(o.limit as string | undefined, 12, ARGUMENT_RANGES.recallLimit, '--limit');
    // no --radius: plain recall, which widens beyond the default radius by itself (SPEC §4)
    const radius = oneOf<Radius>(o.radius, ['default', 'deep', 'all'], 'radius');
    const explain = Boolean(o.explain);
    if (o.batch !== undefined) {
      if (context.args.length > 0) throw new UsageError('recall: give a QUERY or --batch FILE, not both');
      const queries = parseBatch(readInput(context, o.batch as string, 'recall --batch'), o.batch as string);
      const runtime = openVault(context.runtime);
      const engine = await openRecall(runtime.vault);
      const now = runtime.vault.now();
      const seeds = await queryVectors(runtime, context, queries.map((q) => q.query));
      for (const [k, { id, query }] of queries.entries()) {
        const found = (await hydrate(runtime.vault, engine.recall(query, { limit, radius, vectorSeeds: seeds[k] }, now))).map((h) => toResult(h, explain));
        const results = o.touch ? await touchResults(runtime.vault, found) : found;
        context.io.stdout(`${JSON.stringify({ id, results })}\n`);
      }
      return 0;
    }
    const query = checkQuery(context.args.join(' ').trim());
    if (query === '') throw new UsageError('recall: give a query (or --batch FILE.jsonl)');
    const runtime = openVault(context.runtime);
    const warm = (await context.io.warm?.engine(runtime.root)) ?? null;
    const { engine, unreadable } = warm ?? (await openRecallCounting(runtime.vault));
    warnUnreadable(context, unreadable);
    const [vectorSeeds] = warm ? await context.io.warm!.vectorSeeds([query]) : await queryVectors(runtime, context, [query]);
    const search = engine.search(query, { limit, radius, vectorSeeds }, runtime.vault.now());
    const found = (await hydrate(runtime.vault, search.hits)).map((h) => toResult(h, explain));
    const results = o.touch ? await touchResults(runtime.vault, found) : found;
    return print(context, results, () => `${explain && search.widening ? `${formatWidening(search.widening)}\n` : ''}${formatResults(results, explain)}`);
  },
};

export const contextCommand: Command = {
  group: 'read',
  args: '[QUERY]',
  arity: [0, Infinity],
  takesText: true,
  summary: 'STATE.md and the AGENT MEMORY block for a task',
  details:
    'Recalled memories (or, without a query, what the agent knows best), ordered by confidence then\n' +
    'score, cut to the budget with whole entries, never stale or superseded; both sides of an open conflict\n' +
    'together, marked DISPUTED. Without a query every verified decision is in the block or in "omitted".\n' +
    'Injection is not use: nothing shown is touched (touch or cite what you use).\n' +
    'json: {"state", "block", "tokens", "included": [ids], "omitted": [ids], "covered", "disputed", "superseded": [[id, by]]}',
  options: {
    budget: { type: 'string', value: 'TOKENS', help: `token budget of the block, ${ARGUMENT_RANGES.contextBudget.min} to ${ARGUMENT_RANGES.contextBudget.max} (2000, cl100k)` },
    peek: { type: 'boolean', help: 'accepted for compatibility: context never touches what it shows' },
    hook: { type: 'boolean', help: "read a Claude Code hook's payload on standard input; its prompt (UserPromptSubmit) is the query" },
  },
  async run(context) {
    const runtime = openVault(context.runtime);
    const { vault } = runtime;
    const budget = count(context.options.budget as string | undefined, vault.settings.tokenBudget, ARGUMENT_RANGES.contextBudget, '--budget');
    const query = checkQuery(context.options.hook ? hookPrompt(context) : context.args.join(' ').trim());
    const warm = (await context.io.warm?.engine(runtime.root)) ?? null;
    const { engine, unreadable } = warm ?? (await openRecallCounting(vault));
    warnUnreadable(context, unreadable);
    const [vectorSeeds] = query === '' ? [undefined] : warm ? await context.io.warm!.vectorSeeds([query]) : await queryVectors(runtime, context, [query]);
    const result = await agentContext(vault, engine, query, { budget, peek: Boolean(context.options.peek), vectorSeeds });
    return print(context, result, () => formatAgentContext(result));
  },
};
