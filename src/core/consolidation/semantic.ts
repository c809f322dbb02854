import { analyze } from '../analyzer';
import { copyStoredRows, rowIndex, storedArray, type StoredVectors } from '../embeddings/store';
import { contentHash, sha256Hex } from '../ids';
import { memoryText, type Memory } from '../memory';
import type { Confidence, EngramSettings } from '../settings';
import { lexicalClusters, lexicalMedoid, vectorClusters, vectorMedoid, type SketchCache } from './cluster';
import { summarisePattern } from './pattern-summary';
import { memoryTitle } from '../title';

/**
 * From clusters of episodes to semantic memories (SPEC §8 step 4, hippocampal transfer): a
 * cluster becomes a semantic memory (confidence inferred) whose text states the pattern
 * (pattern-summary.ts: what recurs, how often, when, who, the most representative episode
 * quoted), with the tags most members share, the role most of them share, and links to
 * every member; each member gets `decays_from: "[[semantic]]"`. A cluster whose members
 * already decay into a semantic memory reinforces it instead (reinforcement_count + 1; after
 * `confirmations` it becomes observed) when it has members that are new to it; otherwise
 * there is nothing to do, so a second run changes nothing.
 */
export interface ClusterAction {
  id: string;
  action: 'create' | 'reinforce';
  members: string[];
  new_members: string[];
  text: string;
  tags: string[];
  /** Every member's related_paths: the pattern goes stale when that code changes. */
  related_paths: string[];
  reinforcement_count: number;
  confidence: Confidence;
  similarity: 'vector' | 'lexical';
  /** The role most members share (a new semantic memory's agent_role). */
  agent_role?: string | null;
  /** How the text was made, when a model wrote part of it: `abstractive (model)`. */
  summary?: string;
  /**
   * What a new semantic memory's file is named after (ADR 0005): the title of its most
   * representative episode. Its text starts "Recurring pattern in N episodes ...", which would
   * name every pattern alike.
   */
  title?: string;
  /**
   * Where a new semantic memory is written, with its readable name (ADR 0005), decided with the
   * plan so a resumed run writes the same file; absent in plans made before (then `<id>.md`).
   */
  path?: string;
}

/** A pattern's title is cut shorter than a memory's, so that ` (pattern)` fits the name's 60 characters. */
export const PATTERN_TITLE_CHARS = 48;

export function semanticId(members: string[]): string {
  return `mem-${sha256Hex([...members].sort().join('|')).slice(0, 12)}`;
}

/** Vector groups carried from one run to the next (see vectorClusters' `previous`). */
export interface ClusterMemo {
  /** The previous run's groups by `id:content hash`, or null (compare everything). */
  previous: Map<string, string> | null;
  /** Filled with this run's groups when vectors were used. */
  next?: Map<string, string>;
  /** The sketches the last run left (sketch-cache.ts; null: none); absent: none kept between runs. */
  sketches?: SketchCache | null;
  /** Filled with every episode's sketch when `sketches` was given and any was needed. */
  nextSketches?: SketchCache;
}

export function planClusters(all: Memory[], live: Memory[], vectors: StoredVectors | null, settings: EngramSettings, memo: ClusterMemo = { previous: null }): ClusterAction[] {
  const episodes = live.filter((m) => m.category === 'episodic');
  // every memory by id, for the groups' patterns: made at the first group (a Map of all 10,000
  // memories was made for none in the bench vault's first consolidation, which finds no group)
  let byIdMap: Map<string, Memory> | null = null;
  const byId = (): Map<string, Memory> => (byIdMap ??= new Map(all.map((m) => [m.id, m])));
  let kind: 'vector' | 'lexical' = 'lexical';
  let groups: Array<{ group: number[]; medoid: number }>;
  const rowOf = vectors ? rowIndex(vectors) : new Map<string, number>();
  if (vectors && episodes.length > 0 && episodes.every((m) => rowOf.has(m.id))) {
    kind = 'vector';
    const d = vectors.dimensions;
    const rows = Int32Array.from(episodes, (m) => rowOf.get(m.id)!);
    // the episodes' rows where the vectors are (the bin as read and appended to, in one array):
    // not copied out (at 100k a new 147 MB array, about a second of CPU); in pieces: copied
    const whole = storedArray(vectors);
    let packed: Float32Array;
    let at: Int32Array | undefined;
    if (whole) {
      packed = whole.data;
      const binRows = whole.rows;
      at = binRows ? rows.map((row) => binRows[row]!) : rows;
    } else {
      packed = new Float32Array(episodes.length * d);
      copyStoredRows(vectors, packed, episodes.length, (i) => rows[i]!);
    }
    const keys = episodes.map((m, i) => `${m.id}:${vectors.hashes[rows[i]!]}`);
    const { clusters, labels, sketchCache } = vectorClusters(packed, d, settings.consolidation.clusterThreshold, settings.consolidation.minClusterSize, {
      keys,
      previous: memo.previous,
      ...(memo.sketches !== undefined ? { known: memo.sketches } : {}),
      ...(at ? { rows: at } : {}),
    });
    memo.next = labels!;
    if (sketchCache) memo.nextSketches = sketchCache;
    groups = clusters.map((group) => ({ group, medoid: vectorMedoid(packed, d, group, at) }));
  } else {
    const sets = episodes.map((m) => new Set(analyze(memoryText(m)).terms));
    const keys = episodes.map((m) => `${m.id}:${contentHash(memoryText(m))}`);
    const { clusters, labels } = lexicalClusters(sets, settings.consolidation.lexicalClusterThreshold, settings.consolidation.minClusterSize, { keys, previous: memo.previous });
    memo.next = labels!;
    groups = clusters.map((group) => ({ group, medoid: lexicalMedoid(sets, group) }));
  }
  const actions: ClusterAction[] = [];
  for (const { group, medoid } of groups) {
    const members = group.map((i) => episodes[i]!);
    const tagCount = new Map<string, number>();
    for (const m of members) for (const t of new Set(m.tags)) tagCount.set(t, (tagCount.get(t) ?? 0) + 1);
    const tags = [...tagCount].filter(([, c]) => c * 2 >= members.length).map(([t]) => t).sort();
    const ids = members.map((m) => m.id).sort();
    const relatedPaths = [...new Set(members.flatMap((m) => m.related_paths))].sort();
    const existing = mostCommonPattern(members, byId());
    if (existing) {
      const fresh = ids.filter((id) => !byId().get(id)!.links.some((l) => l.kind === 'decays_from' && l.target === existing.id));
      if (fresh.length === 0) continue;
      const count = (typeof existing.extra.reinforcement_count === 'number' ? existing.extra.reinforcement_count : 1) + 1;
      const confidence = existing.confidence === 'inferred' && count >= settings.consolidation.confirmations ? 'observed' : existing.confidence;
      actions.push({ id: existing.id, action: 'reinforce', members: ids, new_members: fresh, text: memoryText(existing), tags, related_paths: relatedPaths, reinforcement_count: count, confidence, similarity: kind });
    } else {
      const summary = summarisePattern(members, episodes[medoid]!, tags);
      const title = memoryTitle(memoryText(episodes[medoid]!), PATTERN_TITLE_CHARS);
      actions.push({ id: semanticId(ids), action: 'create', members: ids, new_members: ids, text: summary.text, tags, related_paths: relatedPaths, reinforcement_count: 1, confidence: 'inferred', similarity: kind, agent_role: summary.agent_role, title });
    }
  }
  return actions;
}

/** The semantic memory most members already decay into, if any. */
function mostCommonPattern(members: Memory[], byId: Map<string, Memory>): Memory | null {
  const votes = new Map<string, number>();
  for (const m of members) {
    for (const l of m.links) if (l.kind === 'decays_from' && byId.get(l.target)?.category === 'semantic') votes.set(l.target, (votes.get(l.target) ?? 0) + 1);
  }
  const best = [...votes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return best ? byId.get(best[0])! : null;
}
