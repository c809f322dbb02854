import type { WarmVault } from '../../headless/mcp/warm-vault';
import { openVault } from '../../headless/runtime';
import { openRecall } from '../../src/core/recall/results';

/**
 * The two answers a WarmVault test compares: the ids a warm engine returns for a query, and
 * those of an engine opened afresh from the vault's files at the same instant. `where` is read
 * at each call (the suites make a new vault in beforeEach).
 */
export function warmQueries(where: () => { vault: string; dir: string }, now: string) {
  const ids = async (warm: WarmVault, query: string) => (await warm.engine()).search(query, { limit: 5 }, Date.parse(now)).hits.map((h) => h.doc.id);
  const fresh = async (query: string) => {
    const { vault, dir } = where();
    const { vault: v } = openVault({ vault, now, cwd: dir, env: {} });
    return (await openRecall(v)).search(query, { limit: 5 }, Date.parse(now)).hits.map((h) => h.doc.id);
  };
  return { ids, fresh };
}
