import { readConflictNote } from './consolidation/conflicts';
import { forgottenMemories } from './curation';
import { contentHash } from './ids';
import { memoryHistory } from './versions';
import type { Memory } from './memory';
import { recordDecision, type DecisionInput, type LoopDecision } from './procedural-utility';
import { readFrontmatter, splitFrontmatter } from './frontmatter';
import { LAYOUT, type Vault } from './vault';

/**
 * What people did with the output of consolidation's loops, read from the vault and recorded
 * as decisions (procedural-utility.ts), each once per subject:
 *
 * - clustering: a semantic memory consolidation wrote that a person marked verified is an
 *   approval; one whose text a person edited (in Obsidian, or with `engram edit`) is an
 *   approval that needed editing; one a person forgot (`engram forget`) is a rejection.
 * - conflicts: a conflict consolidation resolved by dominance whose winner a person marked
 *   verified is an approval; one where a person undid the resolution (the loser is no longer
 *   stale, or the winner became stale) is a rejection.
 *
 * Citations (+0.5) are recorded by `cite` itself (see citedOutputs).
 */
export async function observeLoopOutcomes(vault: Vault, memories: Memory[]): Promise<LoopDecision[]> {
  const recorded: LoopDecision[] = [];
  const record = async (input: Omit<DecisionInput, 'once' | 'by'>) => {
    const line = await recordDecision(vault, { ...input, by: 'curation', once: true });
    if (line) recorded.push(line);
  };
  for (const m of memories) {
    if (!producedByClustering(m)) continue;
    if (m.confidence === 'verified') await record({ loop: 'clustering', decision: 'approved', subject: m.id, reason: 'marked verified' });
    if (await editedByPerson(vault, m)) await record({ loop: 'clustering', decision: 'approved_edited', subject: m.id, reason: 'text edited by a person' });
  }
  for (const m of await forgottenMemories(vault)) {
    if (producedByClustering(m)) await record({ loop: 'clustering', decision: 'rejected', subject: m.id, reason: 'forgotten by a person' });
  }
  const byId = new Map(memories.map((m) => [m.id, m]));
  for (const name of (await vault.ports.files.list(LAYOUT.conflicts)).sort()) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    const text = await vault.readText(path);
    if (!text || !resolvedByConsolidation(text)) continue;
    const note = readConflictNote(path, text);
    if (!note || !note.winner || !note.sides.includes(note.winner)) continue;
    const winner = byId.get(note.winner);
    const loser = byId.get(note.sides.find((s) => s !== note.winner)!);
    if (!winner || !loser) continue;
    if (loser.confidence !== 'stale' || winner.confidence === 'stale') await record({ loop: 'conflicts', decision: 'rejected', subject: path, reason: 'a person undid the resolution' });
    else if (winner.confidence === 'verified') await record({ loop: 'conflicts', decision: 'approved', subject: path, reason: 'winner marked verified' });
  }
  return recorded;
}

/**
 * Whether a person changed the text: in Obsidian (the body no longer matches its content hash)
 * or through `engram edit` (a version after the first that neither review nor validation made).
 */
async function editedByPerson(vault: Vault, m: Memory): Promise<boolean> {
  if (m.content_hash && contentHash(m.body) !== m.content_hash) return true;
  const history = await memoryHistory(vault, m.id).catch(() => []);
  return history.slice(1).some((v) => v.by !== 'review' && v.by !== 'validation');
}

/** A semantic memory written by consolidation's clustering. */
export function producedByClustering(m: Pick<Memory, 'category' | 'source'>): boolean {
  return m.category === 'semantic' && m.source === 'consolidation';
}

function resolvedByConsolidation(text: string): boolean {
  const split = splitFrontmatter(text);
  if (!split) return false;
  try {
    const data = readFrontmatter(split.yaml) as Record<string, unknown> | null;
    return data?.status === 'resolved' && typeof data.resolution === 'string' && data.resolution.startsWith('consolidation:');
  } catch {
    return false;
  }
}

/** The delayed bonus: a loop's output cited in an answer (+0.5, once per memory). */
export async function citedOutputs(vault: Vault, cited: Memory[]): Promise<LoopDecision[]> {
  const recorded: LoopDecision[] = [];
  for (const m of cited) {
    if (!producedByClustering(m)) continue;
    const line = await recordDecision(vault, { loop: 'clustering', decision: 'cited', subject: m.id, by: 'cite', once: true });
    if (line) recorded.push(line);
  }
  return recorded;
}
