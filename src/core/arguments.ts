import { UsageError } from './errors';

/**
 * The numeric arguments the CLI and the MCP server both take, with one rule and one message
 * for each: `engram recall --limit 0` and the MCP recall tool's `limit: 0` are refused the same
 * way (the CLI names the option `--limit`, MCP the argument `limit`).
 */
export interface WholeRange {
  min: number;
  max: number;
}

export const ARGUMENT_RANGES = {
  /** recall: how many results. */
  recallLimit: { min: 1, max: 100 },
  /** context: the AGENT MEMORY block's token budget (below 50 not even one entry fits). */
  contextBudget: { min: 50, max: 100_000 },
  /** list: at most this many memories. */
  listLimit: { min: 1, max: 100_000 },
  /** creative: how many memories to draw. */
  creativeCount: { min: 1, max: 50 },
  /** history, revert: a version number (whether it exists is another question: exit 1). */
  version: { min: 1, max: Number.MAX_SAFE_INTEGER },
} as const satisfies Record<string, WholeRange>;

/** What a range accepts, in words: "a whole number from 1 to 100", "a whole number of at least 1". */
export function describeRange(range: WholeRange): string {
  return range.max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${range.min}` : `a whole number from ${range.min} to ${range.max}`;
}

/**
 * `value` (a command-line string or a JSON number) as a whole number inside `range`, or a
 * UsageError naming the argument, the rule and what was given.
 */
export function wholeNumberIn(value: string | number, range: WholeRange, name: string): number {
  const n = typeof value === 'number' ? value : /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    const given = typeof value === 'number' || /^-?\d+(\.\d+)?$/.test(value) ? String(value) : JSON.stringify(value);
    throw new UsageError(`${name}: expected ${describeRange(range)}, got ${given}`);
  }
  return n;
}

/** Tags given as a list, or as one comma-separated string as `engram remember --tags a,b` takes them; blanks dropped. */
export function tagList(value: string | string[]): string[] {
  return (typeof value === 'string' ? value.split(',') : value).map((t) => t.trim()).filter((t) => t !== '');
}

/**
 * The longest query recall and context take, in characters: 64 KiB, about 16,000 tokens, far more
 * than an embedder reads (a few hundred tokens) or than lexical ranking gains from. Recall's cost
 * grows with the query's length; the limit keeps one request from holding the MCP server (a 1 MB
 * query took 20-36 s before the entity scan was made linear, and 2.4 s after).
 */
export const MAX_QUERY_CHARS = 64 * 1024;

/** `query` unchanged, or a UsageError naming the limit (`what` names the argument: "query", "batch.jsonl:3: query"). */
export function checkQuery(query: string, what = 'query'): string {
  if (query.length > MAX_QUERY_CHARS) {
    throw new UsageError(`${what}: ${query.length} characters, over the ${MAX_QUERY_CHARS}-character limit for a query (ask with the words that matter)`);
  }
  return query;
}
