import { readConflictNote } from './consolidation/conflicts';
import { buildContextBlock, type ContextEntry } from './context-block';
import type { RecallDoc } from './recall/catalog';
import { prominent, type RecallEngine } from './recall/recall';
import { hydrate, toResult, useRecalled } from './recall/results';
import { LAYOUT, type Vault } from './vault';

/** Memories considered for the context block before the token budget cuts. */
export const CONTEXT_CANDIDATES = 40;

export interface AgentContext {
  state: string;
  block: string;
  tokens: number;
  included: string[];
  omitted: string[];
  /** Left out because the semantic memory they were consolidated into (or one of its episodes) is in: [id, by]. */
  covered: Array<[string, string]>;
  /** Included memories that are a side of an open conflict, with the conflict note. */
  disputed: Array<[string, string]>;
}

/**
 * STATE.md and the AGENT MEMORY block (SPEC §9, §11) for a query (plain recall: the default
 * radius, widened by itself to older tiers holding clearly better matches), or without one what
 * the agent knows best: the prominent memories of the default radius, and core memories and
 * verified decisions whatever their tier. The memories injected are touched unless `peek`.
 * Shared by `engram context` and the plugin's "insert the AGENT MEMORY block" command.
 */
export async function agentContext(vault: Vault, engine: RecallEngine, query: string, options: { budget: number; peek: boolean; vectorSeeds?: Map<string, number> }): Promise<AgentContext> {
  const now = vault.now();
  const hits = query === '' ? prominent(engine, CONTEXT_CANDIDATES, 'default', now) : engine.recall(query, { limit: CONTEXT_CANDIDATES, vectorSeeds: options.vectorSeeds }, now);
  const conflicts = await openConflictSides(vault);
  const entries: ContextEntry[] = (await hydrate(vault, hits)).map((h) => ({
    result: toResult(h, false),
    recalls: h.doc.recall_count ?? 0,
    group: semanticGroup(h.doc),
    disputed: conflicts.get(h.doc.id) ?? null,
  }));
  const block = buildContextBlock(entries, options.budget, vault.ports.tokens);
  const state = (await vault.readText(LAYOUT.state)) ?? '';
  if (!options.peek) await useRecalled(vault, block.included);
  const disputed = block.included.filter((id) => conflicts.has(id)).map((id): [string, string] => [id, conflicts.get(id)!]);
  return { state, block: block.text, tokens: block.tokens, included: block.included, omitted: block.omitted, covered: block.covered, disputed };
}

/** A semantic memory stands for itself; an episode for the semantic memory it decays into. */
function semanticGroup(doc: RecallDoc): string | null {
  if (doc.category === 'semantic') return doc.id;
  return doc.links.find((l) => l.kind === 'decays_from')?.target ?? null;
}

/** Every memory that is a side of an open conflict, with its conflict note's path. */
export async function openConflictSides(vault: Vault): Promise<Map<string, string>> {
  const sides = new Map<string, string>();
  for (const name of (await vault.ports.files.list(LAYOUT.conflicts)).sort()) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    const text = await vault.readText(path);
    const note = text ? readConflictNote(path, text) : null;
    if (note?.status !== 'open') continue;
    for (const id of note.sides) if (!sides.has(id)) sides.set(id, path);
  }
  return sides;
}

export function formatAgentContext(context: AgentContext): string {
  return `${context.state.trimEnd()}\n\n${context.block.trimEnd()}`;
}
