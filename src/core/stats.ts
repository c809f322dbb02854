import { dailyDate } from './daily';
import { CATEGORIES, CONFIDENCES, TIERS, type Category, type Confidence, type Tier } from './settings';
import { currentTier } from './tiers';
import { LAYOUT, type Vault } from './vault';

/** Counts by category, tier and confidence; sizes; files that could not be read (SPEC §14 `stats`). */
export interface VaultStats {
  memories: number;
  archived: number;
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
  for (const memory of memories) {
    if (memory.path.startsWith('archive/')) stats.archived++;
    stats.by_category[memory.category]++;
    stats.by_tier[currentTier(memory, now, vault.settings)]++;
    stats.by_confidence[memory.confidence]++;
    if (memory.is_error) stats.errors++;
    stats.bytes += encoder.encode(memory.body).length;
  }
  for (const name of await vault.ports.files.list(LAYOUT.daily)) {
    if (!dailyDate(name)) continue;
    stats.daily_files++;
    const stat = await vault.ports.files.stat(`${LAYOUT.daily}/${name}`);
    if (stat && stat.size > vault.settings.dailyCompressBytes) stats.daily_over_limit.push(`${LAYOUT.daily}/${name}`);
  }
  for (const name of await vault.ports.files.list(LAYOUT.conflicts)) {
    const text = name.endsWith('.md') ? await vault.readText(`${LAYOUT.conflicts}/${name}`) : null;
    if (text && /^status:\s*["']?open/m.test(text)) stats.open_conflicts++;
  }
  return stats;
}
