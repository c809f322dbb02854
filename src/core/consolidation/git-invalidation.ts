import { ARCHIVE_FOLDER, type Memory } from '../memory';

/**
 * Git invalidation (SPEC §8 step 2): code moves, memories must follow. A memory whose
 * `related_paths` name a file changed since the last consolidation (or a folder holding
 * one) becomes `stale`: it stays findable, ranks at a tenth, and is never injected into an
 * agent's context until someone confirms it again.
 */
export function pathMatches(related: string, changed: string): boolean {
  const r = related.replace(/^\.\//, '').replace(/\/+$/, '');
  if (r === '') return false;
  return changed === r || changed.startsWith(`${r}/`);
}

export function invalidated(memories: Memory[], changed: string[]): Array<{ id: string; paths: string[] }> {
  if (changed.length === 0) return [];
  const out: Array<{ id: string; paths: string[] }> = [];
  for (const memory of memories) {
    if (memory.confidence === 'stale' || memory.path.startsWith(`${ARCHIVE_FOLDER}/`)) continue;
    const hits = memory.related_paths.filter((r) => changed.some((c) => pathMatches(r, c)));
    if (hits.length > 0) out.push({ id: memory.id, paths: hits });
  }
  return out;
}
