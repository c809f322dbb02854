import type { Category, Confidence, Tier } from '../settings';
import { formatTimestamp } from '../time';
import { useMemories, type UseResult } from '../touch';
import type { Vault } from '../vault';
import { MemoryParseError } from '../errors';
import { catalogFingerprint, listMemoryFiles, loadCatalog, loadTexts, parseFile, type RecallDoc } from './catalog';
import { withSparseRows } from './doc-table';
import { indexSignature, patchRow } from './engine-update';
import { bm25Params, frozenPartsFromDocs, type EngineParts } from './recall';
import { spliceSnapshot, unresolvedNames } from './snapshot-splice';
import { decodeSnapshot, headerOf, joinPieces, openSnapshot, piecesOf, SNAPSHOT_PATH, snapshotPieces, type ListedFile, type Snapshot } from './snapshot';
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
  /** The memory that replaced this one (ADR 0004): it ranks above it; null when none. */
  superseded_by: string | null;
  /** A pattern standing for its episodes: the episodes that matched too, collapsed under it. */
  collapsed: string[];
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
    superseded_by: hit.doc.superseded_by ?? null,
    collapsed: hit.collapsed,
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
      inherited: e.inherited && [e.inherited[0], round(e.inherited[1])],
      lifted: e.lifted === null ? null : round(e.lifted),
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
 * a vault whose files changed only in their fields (touches, marks, reinforcements: the same
 * words, dates and episode) patches the snapshot's rows from those files; otherwise the
 * catalog re-parses what changed and every index is built again. The snapshot is written
 * again after either. `listed`: the memory files as listMemoryFiles gives them, when the
 * caller has listed them already (scanMemoryFiles).
 *
 * A few files added, changed or removed since the snapshot (a remember, a touch, an edit, a
 * forget) splice it (snapshot-splice.ts): only those files are parsed, and the catalog is
 * neither read nor written (its rows for them are read again by the next load that uses it).
 * `rebuild`: from the catalog, whatever the snapshot (a purge: the memory's words leave the
 * catalog's rows too, which only a load of the catalog writes again).
 */
export async function openRecall(vault: Vault, listed?: ListedFile[], options: { rebuild?: boolean } = {}): Promise<RecallEngine> {
  const { files } = vault.ports;
  const listing = listed ?? (await listMemoryFiles(vault));
  const fingerprint = catalogFingerprint(vault.settings);
  const params = bm25Params(vault.settings);
  const bytes = await files.read(SNAPSHOT_PATH).catch(() => null);
  const snapshot = bytes ? decodeSnapshot(bytes) : null;
  if (snapshot && snapshot.fingerprint === fingerprint && options.rebuild !== true) {
    if (snapshot.matches(listing)) return new RecallEngine(snapshot.parts(params), vault.settings);
    // a few files added, changed or removed (a remember, a touch, an edit): the snapshot spliced
    const spliced = await spliceSnapshot(snapshot.raw, listing, (path) => parseFile(vault, path, true), Math.max(16, listing.length * PATCH_MAX_SHARE));
    if (spliced) {
      // opened from the arrays made, as from the file they are written to (no copy joins them)
      const { fields, arrays, texts } = spliced;
      const next = openSnapshot(headerOf(fields, arrays), (name) => arrays[name]!, texts);
      await saveSnapshot(vault, piecesOf(fields, arrays));
      return new RecallEngine(next.parts(params), vault.settings);
    }
    const patched = await patchSnapshot(vault, snapshot, listing, params);
    if (patched) {
      await saveSnapshot(vault, snapshotPieces(patched, listing, fingerprint, snapshot.signatures!));
      return new RecallEngine(patched, vault.settings);
    }
  }
  // lean: the engine keeps no texts (results read theirs, as from the snapshot), so the load keeps none
  const catalog = await loadCatalog(vault, { listing, lean: true });
  // read-only indexes, as the snapshot written here opens them: built as arrays, without posting lists
  const parts = frozenPartsFromDocs(catalog.docs, vault.settings);
  await saveSnapshot(vault, snapshotPieces(parts, listing, fingerprint, catalog.signatures(), unresolvedNames(catalog.docs)));
  return new RecallEngine(parts, vault.settings);
}

/** Past this share of the vault changed, parsing the changed files costs about what a rebuild does. */
const PATCH_MAX_SHARE = 0.05;

/**
 * The snapshot's parts with the rows of changed files written from the files, when every
 * changed file indexes exactly as before (same signature) and none was added or removed;
 * null otherwise (the caller rebuilds). The result is what a rebuild would give.
 */
async function patchSnapshot(vault: Vault, snapshot: Snapshot, listing: ListedFile[], params: ReturnType<typeof bm25Params>): Promise<EngineParts | null> {
  const changed = snapshot.changedFiles(listing);
  const signatures = snapshot.signatures;
  if (!changed || !signatures || changed.length > Math.max(16, listing.length * PATCH_MAX_SHARE)) return null;
  const parts = snapshot.parts(params);
  const rowOf = new Map(parts.table.paths.map((path, i) => [path, i]));
  const rows = new Map<number, RecallDoc>();
  for (const path of changed) {
    const at = rowOf.get(path);
    if (at === undefined) return null; // a file that was not a memory (unparsable) may be one now
    const doc = await parseFile(vault, path);
    if (doc instanceof MemoryParseError || doc.id !== parts.table.ids[at] || indexSignature(doc) !== signatures[at]) return null;
    rows.set(at, doc);
  }
  for (const [at, doc] of rows) patchRow(parts.table, at, doc);
  return { ...parts, table: withSparseRows(parts.table, rows) };
}

/** The snapshot written from its pieces (snapshotPieces): as they are where the store takes pieces, joined otherwise. */
async function saveSnapshot(vault: Vault, pieces: Uint8Array[]): Promise<void> {
  try {
    const files = vault.ports.files;
    await files.mkdir('.engram/cache');
    if (files.writeChunks) await files.writeChunks(SNAPSHOT_PATH, pieces);
    else await files.write(SNAPSHOT_PATH, joinPieces(pieces));
  } catch {
    // an optimisation only: a read-only vault still answers
  }
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
