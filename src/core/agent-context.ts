import { readConflictNote } from './consolidation/conflicts';
import { buildContextBlock, type ContextEntry } from './context-block';
import type { RecallDoc } from './recall/catalog';
import { alwaysKnown, prominent, type RecallEngine } from './recall/recall';
import { hydrate, toResult } from './recall/results';
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
  /** Left out because a newer memory supersedes them (ADR 0004): [id, by]. */
  superseded: Array<[string, string]>;
}

/**
 * STATE.md and the AGENT MEMORY block (SPEC §9, §11) for a query (plain recall: the default
 * radius, widened by itself to older tiers holding clearly better matches), or without one what
 * the agent knows best: the prominent memories of the default radius, and every core memory
 * and verified decision whatever its tier (in the block, or in `omitted` when the budget is
 * spent). A superseded memory is never injected; a side of an open conflict comes with the
 * other side, both marked DISPUTED, the newer first.
 *
 * Injection is not use (SPEC §9): nothing shown is touched or linked by co-access, so that
 * what was injected once is not injected again for having been injected. What the agent uses
 * it touches or cites. (`peek` is accepted and changes nothing.)
 * Shared by `engram context` and the plugin's "insert the AGENT MEMORY block" command.
 */
export async function agentContext(vault: Vault, engine: RecallEngine, query: string, options: { budget: number; peek?: boolean; vectorSeeds?: Map<string, number> }): Promise<AgentContext> {
  const now = vault.now();
  let hits = query === '' ? prominent(engine, CONTEXT_CANDIDATES, 'default', now) : engine.recall(query, { limit: CONTEXT_CANDIDATES, vectorSeeds: options.vectorSeeds }, now);
  if (query === '') hits = [...hits, ...engine.rankAll('default', now, () => 1, alwaysKnown).filter((h) => alwaysKnown(h.doc) && !hits.some((k) => k.doc.id === h.doc.id))];
  const superseded: Array<[string, string]> = [];
  hits = hits.filter((h) => {
    if (!h.doc.superseded_by) return true;
    superseded.push([h.doc.id, h.doc.superseded_by]);
    return false;
  });
  const conflicts = await openConflictSides(vault);
  // both sides of an open conflict, or neither: a side the query did not reach joins its partner
  for (const hit of [...hits]) {
    const partner = conflicts.get(hit.doc.id)?.other;
    if (partner === undefined || hits.some((h) => h.doc.id === partner)) continue;
    const other = engine.hitFor(partner, hit.explain.relevance, now);
    if (other && !other.doc.superseded_by) hits.push(other);
  }
  const entries: ContextEntry[] = (await hydrate(vault, hits)).map((h) => {
    const conflict = conflicts.get(h.doc.id);
    const partner = conflict && hits.some((k) => k.doc.id === conflict.other) ? conflict.other : null;
    return {
      result: toResult(h, false),
      recalls: h.doc.recall_count ?? 0,
      group: semanticGroup(h.doc),
      disputed: conflict?.path ?? null,
      partner,
    };
  });
  const block = buildContextBlock(entries, options.budget, vault.ports.tokens);
  const state = (await vault.readText(LAYOUT.state)) ?? '';
  const disputed = block.included.filter((id) => conflicts.has(id)).map((id): [string, string] => [id, conflicts.get(id)!.path]);
  return { state, block: block.text, tokens: block.tokens, included: block.included, omitted: block.omitted, covered: block.covered, disputed, superseded };
}

/** A semantic memory stands for itself; an episode for the semantic memory it decays into. */
function semanticGroup(doc: RecallDoc): string | null {
  if (doc.category === 'semantic') return doc.id;
  return doc.links.find((l) => l.kind === 'decays_from')?.target ?? null;
}

/** Every memory that is a side of an open conflict, with its conflict note's path and the other side. */
export async function openConflictSides(vault: Vault): Promise<Map<string, { path: string; other: string }>> {
  const sides = new Map<string, { path: string; other: string }>();
  for (const name of (await vault.ports.files.list(LAYOUT.conflicts)).sort()) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    const text = await vault.readText(path);
    const note = text ? readConflictNote(path, text) : null;
    if (note?.status !== 'open') continue;
    const [a, b] = note.sides;
    if (a === undefined || b === undefined) continue;
    if (!sides.has(a)) sides.set(a, { path, other: b });
    if (!sides.has(b)) sides.set(b, { path, other: a });
  }
  return sides;
}

export function formatAgentContext(context: AgentContext): string {
  return `${context.state.trimEnd()}\n\n${context.block.trimEnd()}`;
}
