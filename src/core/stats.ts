import { degreeOf, pruneVerdict } from './consolidation/prune';
import { dailyDate } from './daily';
import { ARCHIVE_FOLDER } from './memory';
import { CATEGORIES, CONFIDENCES, TIERS, type Category, type Confidence, type Tier } from './settings';
import { currentTier } from './tiers';
import { LAYOUT, type Vault } from './vault';

/** Counts by category, tier and confidence; sizes; files that could not be read (SPEC §14 `stats`). */
export interface VaultStats {
  memories: number;
  /** Files in archive/ (whatever their tier). */
  archived: number;
  /** Memories outside archive/ that the next consolidation moves there (strength under the prune threshold, not protected). */
  archive_due: number;
  /** By the tier each memory is in now (the one written, demoted to what its strength implies): "archive" is a tier, not the folder. */
  by_category: Record<Category, number>;
  by_tier: Record<Tier, number>;
  by_confidence: Record<Confidence, number>;
  errors: number;
  bytes: number;
  daily_files: number;
  daily_over_limit: string[];
  open_conflicts: number;
  invalid: Array<{ path: string; reason: string }>;
}

const zero = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export async function vaultStats(vault: Vault): Promise<VaultStats> {
  const now = vault.now();
  const { memories, problems } = await vault.loadAll();
  const stats: VaultStats = {
    memories: memories.length,
    archived: 0,
    archive_due: 0,
    by_category: zero(CATEGORIES),
    by_tier: zero(TIERS),
    by_confidence: zero(CONFIDENCES),
    errors: 0,
    bytes: 0,
    daily_files: 0,
    daily_over_limit: [],
    open_conflicts: 0,
    invalid: problems.map((p) => ({ path: p.path, reason: p.reason })),
  };
  const encoder = new TextEncoder();
  const degree = degreeOf(memories);
  for (const memory of memories) {
    if (memory.path.startsWith(`${ARCHIVE_FOLDER}/`)) stats.archived++;
    else if (pruneVerdict(memory, degree.get(memory.id) ?? 0, now, vault.settings) === 'prune') stats.archive_due++;
    stats.by_category[memory.category]++;
    stats.by_tier[currentTier(memory, now, vault.settings)]++;
    stats.by_confidence[memory.confidence]++;
    if (memory.is_error) stats.errors++;
    stats.bytes += encoder.encode(memory.body).length;
  }
  // a note that cannot be read (a FIFO, a link to nothing, a folder named like a note) is
  // listed among the invalid files; it never stops the count
  for (const name of await vault.ports.files.list(LAYOUT.daily)) {
    if (!dailyDate(name)) continue;
    const path = `${LAYOUT.daily}/${name}`;
    const stat = await vault.ports.files.stat(path).catch(() => null);
    if (!stat || !(await readable(vault, path, stats))) continue;
    stats.daily_files++;
    if (stat.size > vault.settings.dailyCompressBytes) stats.daily_over_limit.push(path);
  }
  for (const name of await vault.ports.files.list(LAYOUT.conflicts)) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    const text = await vault.readText(path).catch((error: unknown) => void invalid(stats, path, error));
    if (text && /^status:\s*["']?open/m.test(text)) stats.open_conflicts++;
  }
  return stats;
}

/** Whether a note opens as a regular file; if not, it is listed as invalid with the reason. */
async function readable(vault: Vault, path: string, stats: VaultStats): Promise<boolean> {
  try {
    return (await vault.ports.files.read(path)) !== null;
  } catch (error) {
    invalid(stats, path, error);
    return false;
  }
}

function invalid(stats: VaultStats, path: string, error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  stats.invalid.push({ path, reason: reason.startsWith(`${path}: `) ? reason.slice(path.length + 2) : reason });
}
