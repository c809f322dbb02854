import type { Category, Confidence, Tier } from '../settings';
import { formatTimestamp } from '../time';
import { useMemories, type UseResult } from '../touch';
import type { Vault } from '../vault';
import { catalogFingerprint, listMemoryFiles, loadCatalog, loadTexts } from './catalog';
import { bm25Params, partsFromDocs } from './recall';
import { decodeSnapshot, encodeSnapshot, SNAPSHOT_PATH } from './snapshot';
import { RecallEngine, type RecallExplanation, type RecallHit } from './recall';

/** A recall result as the runner prints it (SPEC §14), with what an agent needs to judge it. */
export interface RecallResult {
  id: string;
  path: string;
  score: number;
  strength: number;
  tier: Tier;
  confidence: Confidence;
  category: Category;
  source: string | null;
  text: string;
  tags: string[];
  created_at: string;
  last_accessed_at: string;
  is_error: boolean;
  related_paths: string[];
  agent_role: string | null;
  /** Plain recall reached beyond the default radius (cold, archive) for this result. */
  widened: boolean;
  explain?: RecallExplanation;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

export function toResult(hit: RecallHit, explain: boolean): RecallResult {
  const result: RecallResult = {
    id: hit.doc.id,
    path: hit.doc.path,
    score: round(hit.score),
    strength: round(hit.strength),
    tier: hit.tier,
    confidence: hit.doc.confidence,
    category: hit.doc.category,
    source: hit.doc.source,
    text: hit.doc.text ?? '',
    tags: hit.doc.tags ?? [],
    created_at: formatTimestamp(hit.doc.createdMs),
    last_accessed_at: formatTimestamp(hit.doc.accessMs),
    is_error: hit.doc.is_error,
    related_paths: hit.doc.related_paths ?? [],
    agent_role: hit.doc.agent_role,
    widened: hit.widened,
  };
  if (explain) {
    const e = hit.explain;
    result.explain = {
      ...e,
      lexical: round(e.lexical),
      relevance: round(e.relevance),
      strength: round(e.strength),
      decay_factor: round(e.decay_factor),
      activation: round(e.activation),
      activation_bonus: round(e.activation_bonus),
      episode: e.episode && { session: e.episode.session, boost: round(e.episode.boost) },
      spread: e.spread && { ...e.spread, amount: round(e.spread.amount) },
      widened: e.widened,
    };
  }
  return result;
}

/** Results with their text, tags and related paths: documents from the catalog cache read their files. */
export async function hydrate(vault: Vault, hits: RecallHit[]): Promise<RecallHit[]> {
  await loadTexts(vault, hits.map((h) => h.doc));
  return hits;
}

/**
 * The engine over the vault's current memories. An unchanged vault opens from the snapshot;
 * otherwise the catalog re-parses what changed, and the snapshot is written again.
 */
export async function openRecall(vault: Vault): Promise<RecallEngine> {
  const { files } = vault.ports;
  const listing = await listMemoryFiles(vault);
  const fingerprint = catalogFingerprint(vault.settings);
  const params = bm25Params(vault.settings);
  const bytes = await files.read(SNAPSHOT_PATH).catch(() => null);
  const snapshot = bytes ? decodeSnapshot(bytes) : null;
  if (snapshot && snapshot.fingerprint === fingerprint && snapshot.matches(listing)) {
    return new RecallEngine(snapshot.parts(params), vault.settings);
  }
  const catalog = await loadCatalog(vault, { listing });
  const parts = partsFromDocs(catalog.docs, vault.settings);
  try {
    await files.mkdir('.engram/cache');
    await files.write(SNAPSHOT_PATH, encodeSnapshot(parts, listing, fingerprint));
  } catch {
    // an optimisation only: a read-only vault still answers
  }
  return new RecallEngine(parts, vault.settings);
}


/**
 * Results that were used (injected into a context, or `--touch`): each is touched with the
 * "returned" boost (SPEC §5), and the top ones are linked by co-access (Hebb).
 */
export async function useRecalled(vault: Vault, ids: string[]): Promise<UseResult[]> {
  const top = ids.slice(0, vault.settings.recall.coAccessTop);
  const rest = ids.slice(top.length);
  const linked = await useMemories(vault, top, { use: 'returned', touch: true, coAccess: true });
  const alone = await useMemories(vault, rest, { use: 'returned', touch: true, coAccess: false });
  return [...linked, ...alone];
}

/**
 * `recall --touch` (and the MCP tool's touch): the results were used, so they are touched
 * (useRecalled), and each result's `path` says where its file is after the touch: a memory
 * recall reached in archive/ has just moved back to its category folder. The other fields
 * describe the memory as recall found it (its tier there, whether plain recall widened).
 */
export async function touchResults(vault: Vault, results: RecallResult[]): Promise<RecallResult[]> {
  const used = await useRecalled(vault, results.map((r) => r.id));
  const paths = new Map(used.map((u) => [u.id, u.path]));
  return results.map((r) => ({ ...r, path: paths.get(r.id) ?? r.path }));
}
