import { readFrontmatter, setFrontmatterFields, splitFrontmatter } from '../frontmatter';
import type { Memory } from '../memory';
import type { EngramSettings } from '../settings';

/**
 * Conflict resolution (SPEC §8 step 6, destructive interference settled during sleep). An
 * open conflict note whose one side clearly dominates (confidence weight × amplitude at
 * least twice the other's) is resolved in its favour: the note records the winner and why,
 * and the other side becomes stale (kept, findable, never injected). Notes a person resolved
 * in Obsidian (`status: resolved`, `winner: mem-…`) are carried out the same way. The rest
 * stay open for a person.
 */
export const DOMINANCE = 2;

export interface ConflictNote {
  path: string;
  status: string;
  sides: string[];
  winner: string | null;
}

export function readConflictNote(path: string, text: string): ConflictNote | null {
  const split = splitFrontmatter(text);
  if (!split) return null;
  try {
    const data = readFrontmatter(split.yaml) as Record<string, unknown> | null;
    if (!data || !Array.isArray(data.sides) || data.sides.length !== 2) return null;
    return {
      path,
      status: typeof data.status === 'string' ? data.status : 'open',
      sides: data.sides.map(String),
      winner: typeof data.winner === 'string' ? data.winner : null,
    };
  } catch {
    return null;
  }
}

export interface ConflictDecision {
  path: string;
  winner: string;
  loser: string;
  /** 'consolidation' when decided now; 'person' when a person had resolved the note. */
  by: 'consolidation' | 'person';
  reason: string;
}

export function decideConflict(note: ConflictNote, byId: Map<string, Memory>, settings: EngramSettings): ConflictDecision | null {
  const [a, b] = note.sides as [string, string];
  if (note.status === 'resolved') {
    if (!note.winner || !note.sides.includes(note.winner)) return null;
    const loser = note.winner === a ? b : a;
    if (byId.get(loser)?.confidence === 'stale') return null;
    return { path: note.path, winner: note.winner, loser, by: 'person', reason: 'resolved in the note' };
  }
  if (note.status !== 'open') return null;
  const ma = byId.get(a);
  const mb = byId.get(b);
  if (!ma || !mb) return null;
  const weight = (m: Memory) => settings.confidenceWeights[m.confidence] * m.amplitude;
  const [wa, wb] = [weight(ma), weight(mb)];
  if (wa >= DOMINANCE * wb) return { path: note.path, winner: a, loser: b, by: 'consolidation', reason: `${ma.confidence} × amplitude ${ma.amplitude} outweighs ${mb.confidence} × amplitude ${mb.amplitude}` };
  if (wb >= DOMINANCE * wa) return { path: note.path, winner: b, loser: a, by: 'consolidation', reason: `${mb.confidence} × amplitude ${mb.amplitude} outweighs ${ma.confidence} × amplitude ${ma.amplitude}` };
  return null;
}

/** The note's frontmatter after a decision (body untouched). */
export function resolvedNote(text: string, decision: ConflictDecision, at: string): string {
  if (decision.by === 'person') return text;
  return setFrontmatterFields(text, { status: 'resolved', winner: decision.winner, resolved_at: at, resolution: `consolidation: ${decision.reason}` });
}
