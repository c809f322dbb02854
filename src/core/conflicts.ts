import { renderFieldValue } from './frontmatter';
import { sha256Hex } from './ids';
import { noteName } from './links';
import { memoryText, type Memory } from './memory';
import { formatTimestamp } from './time';
import { LAYOUT, type Vault } from './vault';

/**
 * Destructive interference (SPEC §6, §8): a new memory contradicts an existing one on the
 * same subject. Both are kept; a note in `conflicts/` links them and says what differs, for
 * consolidation or a person (who sets `status: resolved` and `winner:` in Obsidian).
 */
export interface ConflictSide {
  id: string;
  text: string;
  /** The side's file, when known: the note links to it by file name (ADR 0005); `sides` keeps the ids. */
  path?: string;
}

const sideLink = (side: ConflictSide) => `[[${side.path ? noteName(side.path) : side.id}|contradicts]]`;

export function conflictId(a: string, b: string): string {
  const [x, y] = [a, b].sort();
  return `conflict-${sha256Hex(`${x}|${y}`).slice(0, 12)}`;
}

export function renderConflictNote(existing: ConflictSide, incoming: ConflictSide, reason: string, now: number): string {
  const id = conflictId(existing.id, incoming.id);
  const fields = [
    `id: ${id}`,
    `status: open`,
    `created_at: ${renderFieldValue(formatTimestamp(now))}`,
    `sides: ${renderFieldValue([existing.id, incoming.id])}`,
    `reason: ${renderFieldValue(reason)}`,
  ];
  const quote = (text: string) => (text.length > 300 ? `${text.slice(0, 297)}...` : text);
  return `---\n${fields.join('\n')}\n---\n# Conflict\n\n` +
    `- Existing: ${sideLink(existing)}\n  > ${quote(existing.text)}\n` +
    `- New: ${sideLink(incoming)}\n  > ${quote(incoming.text)}\n\n` +
    `What differs: ${reason}.\n\n` +
    'To resolve, set `status: resolved` and `winner:` to the id that holds.\n';
}

/** Open a conflict note between two memories (idempotent: one note per pair). */
export async function openConflict(vault: Vault, existing: Memory, incoming: ConflictSide, reason: string): Promise<string> {
  const path = `${LAYOUT.conflicts}/${conflictId(existing.id, incoming.id)}.md`;
  if (await vault.ports.files.stat(path)) return path;
  const text = renderConflictNote({ id: existing.id, text: memoryText(existing), path: existing.path }, incoming, reason, vault.now());
  await vault.createFile(path, text).catch(() => undefined);
  return path;
}
