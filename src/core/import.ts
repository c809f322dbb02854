import { UsageError } from './errors';
import type { MemoryLink } from './links';
import type { Embedder } from './ports';
import { applyRemember, loadWriteContext, normaliseInput, planRemember, vectorMatches, type PlannedWrite, type RememberInput, type RememberResult } from './remember';
import type { Vault } from './vault';

/**
 * Bulk remember (SPEC §14 `import`): one JSON object a line. Every line is checked before
 * anything is written, so a bad line writes nothing. Lines that share a `session` are one
 * episode: each memory is linked to its neighbours in that session as `related`.
 */

const WRITE_CONCURRENCY = 16;

const FIELDS = new Set(['text', 'category', 'created_at', 'tags', 'source', 'session', 'confidence', 'is_error', 'related_paths', 'agent_role']);

export interface ImportLine extends RememberInput {
  session?: string;
}


/** Parse and check JSONL; errors name the line. */
export function parseImport(jsonl: string, name: string): ImportLine[] {
  const lines: ImportLine[] = [];
  jsonl.split('\n').forEach((raw, index) => {
    const where = `${name}:${index + 1}`;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new UsageError(`${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${where}: expected a JSON object`);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) if (!FIELDS.has(key)) throw new UsageError(`${where}: unknown field "${key}"`);
    if (typeof record.text !== 'string') throw new UsageError(`${where}: field "text" must be a string`);
    for (const key of ['source', 'agent_role', 'category', 'confidence', 'created_at'] as const) {
      if (record[key] !== undefined && typeof record[key] !== 'string') throw new UsageError(`${where}: field "${key}" must be a string`);
    }
    if (record.is_error !== undefined && typeof record.is_error !== 'boolean') throw new UsageError(`${where}: field "is_error" must be true or false`);
    if (record.session !== undefined && typeof record.session !== 'string' && typeof record.session !== 'number') {
      throw new UsageError(`${where}: field "session" must be a string or a number`);
    }
    const line = { ...record, session: record.session === undefined ? undefined : String(record.session) } as ImportLine;
    try {
      normaliseInput(line, 0);
    } catch (error) {
      throw new UsageError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
    lines.push(line);
  });
  return lines;
}

export interface ImportSummary {
  lines: number;
  created: number;
  reinforced: number;
  conflicts: number;
  results: RememberResult[];
}

export async function importLines(vault: Vault, lines: ImportLine[], embedder?: Embedder | null): Promise<ImportSummary> {
  const context = await loadWriteContext(vault, embedder);
  const now = vault.now();
  const memories = lines.map((line) => normaliseInput(line, now));
  const matches = await vectorMatches(context, memories, vault.settings.resonance.vectorThreshold);
  const plans = memories.map((memory, i) => planRemember(context.index, memory, context.taken, matches[i]));
  linkSessions(lines, plans);
  // New files are independent: write them a few at a time. Reinforcements and conflicts
  // touch existing files and run after, in input order.
  const results: RememberResult[] = new Array<RememberResult>(plans.length);
  const creates = plans.flatMap((plan, i) => (plan.resonance.kind === 'new' ? [i] : []));
  for (let start = 0; start < creates.length; start += WRITE_CONCURRENCY) {
    const batch = creates.slice(start, start + WRITE_CONCURRENCY);
    const written = await Promise.all(batch.map((i) => applyRemember(vault, plans[i]!)));
    batch.forEach((i, j) => (results[i] = written[j]!));
  }
  for (let i = 0; i < plans.length; i++) if (!results[i]) results[i] = await applyRemember(vault, plans[i]!);
  return {
    lines: lines.length,
    created: results.filter((r) => r.action === 'created').length,
    reinforced: results.filter((r) => r.action === 'reinforced').length,
    conflicts: results.filter((r) => r.action === 'conflict').length,
    results,
  };
}

/** Link each new memory of a session to its previous and next neighbours (`related`). */
function linkSessions(lines: ImportLine[], plans: PlannedWrite[]): void {
  const sessions = new Map<string, number[]>();
  lines.forEach((line, i) => {
    if (line.session === undefined) return;
    const members = sessions.get(line.session) ?? [];
    members.push(i);
    sessions.set(line.session, members);
  });
  for (const members of sessions.values()) {
    members.forEach((lineIndex, position) => {
      const plan = plans[lineIndex]!;
      if (plan.resonance.kind === 'reinforce') return;
      const links: MemoryLink[] = [];
      for (const neighbour of [members[position - 1], members[position + 1]]) {
        if (neighbour === undefined) continue;
        const target = plans[neighbour]!.id;
        if (target !== plan.id && !links.some((l) => l.target === target)) links.push({ target, kind: 'related' });
      }
      plan.memory.links = links;
    });
  }
}
