import { buildContextBlock } from './context-block';
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
}

/**
 * STATE.md and the AGENT MEMORY block (SPEC §11) for a query, or without one the most
 * prominent memories of the default radius; the memories injected are touched unless `peek`.
 * Shared by `engram context` and the plugin's "insert the AGENT MEMORY block" command.
 */
export async function agentContext(vault: Vault, engine: RecallEngine, query: string, options: { budget: number; peek: boolean; vectorSeeds?: Map<string, number> }): Promise<AgentContext> {
  const now = vault.now();
  const hits = query === '' ? prominent(engine, CONTEXT_CANDIDATES, 'default', now) : engine.recall(query, { limit: CONTEXT_CANDIDATES, radius: 'default', vectorSeeds: options.vectorSeeds }, now);
  const entries = (await hydrate(vault, hits)).map((h) => ({ result: toResult(h, false), access_count: h.doc.access_count }));
  const block = buildContextBlock(entries, options.budget, vault.ports.tokens);
  const state = (await vault.readText(LAYOUT.state)) ?? '';
  if (!options.peek) await useRecalled(vault, block.included);
  return { state, block: block.text, tokens: block.tokens, included: block.included, omitted: block.omitted };
}

export function formatAgentContext(context: AgentContext): string {
  return `${context.state.trimEnd()}\n\n${context.block.trimEnd()}`;
}
