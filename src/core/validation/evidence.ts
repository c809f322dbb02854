import { memoryText, type Memory } from '../memory';
import type { ValidationSettings } from '../settings';
import type { Vault } from '../vault';
import type { ValidationRun } from './runs';

/**
 * Evidence for validating a memory (SPEC §10, the self-maintaining-memory design), gathered
 * deterministically and read-only: the memory itself with its source, the memories it links
 * to and is most co-accessed with, earlier validation runs, the recent git history of its
 * related paths and their current content. Each item has an id (E1, E2, …) that a verdict
 * must cite; a verdict citing any other id is rejected. Bounded by the validation settings.
 */
export interface EvidenceItem {
  id: string;
  kind: 'memory' | 'related_memory' | 'earlier_run' | 'commit' | 'file';
  /** What it is: a memory id, a run id, a commit hash, a path. */
  ref: string;
  text: string;
}

export interface Commit {
  hash: string;
  /** ISO-8601 date of the commit. */
  date: string;
  subject: string;
  files: string[];
}

/** The project repository, read-only: what validation may look at. */
export interface ProjectHistory {
  /** Commits touching any of `paths`, newest first, at most `limit`. */
  commits(paths: string[], limit: number): Promise<Commit[]>;
  /** A file's current content (at most `maxBytes`), or null when it does not exist. */
  read(path: string, maxBytes: number): Promise<string | null>;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… [cut at ${max} characters]` : text);

export async function gatherEvidence(vault: Vault, memory: Memory, earlierRuns: ValidationRun[], history: ProjectHistory | null): Promise<EvidenceItem[]> {
  const limits: ValidationSettings = vault.settings.validation;
  const items: EvidenceItem[] = [];
  const add = (kind: EvidenceItem['kind'], ref: string, text: string) => items.push({ id: `E${items.length + 1}`, kind, ref, text });

  const described = [
    `Memory ${memory.id} (${memory.category}, confidence ${memory.confidence}, created ${memory.created_at}${memory.agent_role ? `, by ${memory.agent_role}` : ''}${memory.source ? `, source ${memory.source}` : ''}):`,
    memoryText(memory),
    ...(memory.related_paths.length > 0 ? [`Related paths: ${memory.related_paths.join(', ')}`] : []),
    ...(memory.tags.length > 0 ? [`Tags: ${memory.tags.join(', ')}`] : []),
  ];
  add('memory', memory.id, described.join('\n'));

  for (const related of await relatedMemories(vault, memory, limits.maxRelated)) {
    add('related_memory', related.memory.id, `${related.why} ${related.memory.id} (${related.memory.category}, ${related.memory.confidence}, created ${related.memory.created_at}): ${clip(memoryText(related.memory), 600)}`);
  }

  for (const run of earlierRuns.slice(-3)) {
    add('earlier_run', run.run, `Earlier validation ${run.run} at ${run.at}: ${run.outcome}${run.verdict ? `, verdict ${run.verdict}` : ''}${run.confidence !== undefined ? ` (confidence ${run.confidence})` : ''}${run.reason ? `: ${clip(run.reason, 300)}` : ''}`);
  }

  if (history && memory.related_paths.length > 0) {
    for (const commit of await history.commits(memory.related_paths, limits.maxCommits)) {
      add('commit', commit.hash, `Commit ${commit.hash.slice(0, 12)} (${commit.date}): ${clip(commit.subject, 200)}\nFiles: ${commit.files.slice(0, 20).join(', ')}`);
    }
    for (const path of memory.related_paths) {
      const content = await history.read(path, limits.maxFileBytes);
      add('file', path, content === null ? `File ${path}: does not exist in the repository now.` : `File ${path} now:\n${content}`);
    }
  }
  return items;
}

/**
 * The memories a memory links to (in the order of its links), then its most co-accessed
 * partners (by count, then id), each once, at most `max`. Links to missing or unreadable
 * memories are skipped.
 */
async function relatedMemories(vault: Vault, memory: Memory, max: number): Promise<Array<{ memory: Memory; why: string }>> {
  const wanted: Array<{ id: string; why: string }> = [];
  const seen = new Set<string>([memory.id]);
  for (const link of memory.links) {
    if (seen.has(link.target)) continue;
    seen.add(link.target);
    wanted.push({ id: link.target, why: link.kind === 'decays_from' ? 'Pattern this memory belongs to:' : `Linked (${link.kind}):` });
  }
  const partners = Object.entries(memory.co_access).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  for (const [id, count] of partners) {
    if (seen.has(id)) continue;
    seen.add(id);
    wanted.push({ id, why: `Used together ${count} times:` });
  }
  const out: Array<{ memory: Memory; why: string }> = [];
  for (const { id, why } of wanted) {
    if (out.length >= max) break;
    try {
      out.push({ memory: await vault.resolve(id), why });
    } catch {
      // a link to a memory that is gone or unreadable is no evidence
    }
  }
  return out;
}

/** The evidence as the model reads it: one block per item, headed by its id. */
export function formatEvidence(items: EvidenceItem[]): string {
  return items.map((e) => `[${e.id}] (${e.kind.replace('_', ' ')})\n${e.text}`).join('\n\n');
}
