import { analyze } from '../analyzer';
import { checkQuery } from '../arguments';
import { effectiveHalfLife, strengthAfter } from '../decay';
import type { EngramSettings, RecallSettings, Tier } from '../settings';
import { RADIUS_TIERS, tierFor, type Radius } from '../tiers';
import { ShardedMap } from '../sharded-map';
import { MS_PER_DAY } from '../time';
import { AssociationIndex, type EdgeKind } from './associations';
import { Bm25ArraysBuilder, Bm25Index, topDocs, type Bm25Params } from './bm25';
import type { RecallDoc } from './catalog';
import { docAt, LINK_KIND_CODES, reserveList, roomLeft, tableFromDocs, tableFromDocsInSlices, type DocTable } from './doc-table';
import { activationBonus, decayFactor, protectRelevance, SUPERSEDED_WEIGHT } from './ranking';
import { spreadActivation } from './spreading-activation';
import { queryEntityTerms } from './entities';
import { queryTime, TIME_SAID } from './time-terms';

/**
 * Recall (SPEC §7): lexical (and vector) seeds, episode context, spreading activation over
 * the association graph, then ranking by strength, confidence and ACT-R activation. The
 * engine is built once from the catalog and answers many queries.
 *
 * Cost per query: the postings of the query's terms, then work on a bounded candidate pool
 * (the best `POOL` lexical matches in the radius, plus what spreading reaches), so a query
 * does not grow with the vault beyond its postings.
 */

export interface RecallOptions {
  limit: number;
  /**
   * A radius searches exactly its tiers. Without one (plain recall) every tier is searched
   * and ranked like the default radius: an older memory joins the results only when it
   * outscores the near ones (SPEC §4).
   */
  radius?: Radius;
  /** Vector seeds (cosine by id) from an embedder, fused with the lexical ones (RRF). */
  vectorSeeds?: ReadonlyMap<string, number>;
}

export interface RecallExplanation {
  lexical: number;
  lexical_rank: number | null;
  vector: number | null;
  episode: { session: string; boost: number } | null;
  /** Activation received along links (after the cap: `capped` when the cap cut it). */
  spread: { amount: number; from: string; kinds: EdgeKind[]; path: string[]; capped: boolean } | null;
  role_boost: number;
  relevance: number;
  strength: number;
  decay_factor: number;
  confidence_weight: number;
  activation: number;
  activation_bonus: number;
  /** Plain recall only: why a result from beyond the default radius is here; null inside it. */
  widened: string | null;
  /** The memory that supersedes this one (ranked above it, ADR 0004); null when none. */
  superseded_by: string | null;
  /** A successor's relevance taken from the memory it supersedes, when that was higher: [from, relevance]. */
  inherited: [string, number] | null;
  /** The score the factors gave, when relevance protection lifted it above far less relevant matches (ranking.ts). */
  lifted: number | null;
}

export interface RecallHit {
  doc: RecallDoc;
  score: number;
  strength: number;
  tier: Tier;
  /** Plain recall: the result comes from beyond the default radius (cold or archive). */
  widened: boolean;
  /** A pattern standing for its episodes: the members that matched, collapsed under it (best first). */
  collapsed: string[];
  explain: RecallExplanation;
}

/** What plain recall did beyond the default radius (null for an explicit radius). */
export interface Widening {
  widened: boolean;
  /** Tiers beyond the default radius that results came from. */
  tiers: Tier[];
  results: number;
  /** Best relevance among the candidates inside the default radius, and beyond it. */
  near_best: number;
  wider_best: number;
}

export interface RecallSearch {
  hits: RecallHit[];
  widening: Widening | null;
}

const EMPTY_EXPLAIN: RecallExplanation = {
  lexical: 0,
  lexical_rank: null,
  vector: null,
  episode: null,
  spread: null,
  role_boost: 1,
  relevance: 0,
  strength: 0,
  decay_factor: 0,
  confidence_weight: 0,
  activation: 0,
  activation_bonus: 0,
  widened: null,
  superseded_by: null,
  inherited: null,
  lifted: null,
};

/**
 * Query expansion: adds to (or reweighs) a query's weighted terms before matching. `known`
 * tells whether any memory has a term. None by default; benchmarks use it to measure
 * expansions from outside resources (scripts/locomo-expansion.mjs) without changing recall.
 */
export type QueryExpansion = (query: string, terms: Map<string, number>, known: (term: string) => boolean) => void;

/**
 * Facet terms that order matches but never make one: a "when" question lifts the memories that
 * name a time among those that share a word with it, not a memory whose only match is "last year".
 */
const QUALIFIERS: ReadonlySet<string> = new Set([TIME_SAID]);

/** Reciprocal rank fusion constant (Cormack et al. 2009). */
const RRF_K = 60;
/** Lexical candidates kept per query, besides what spreading reaches. */
const POOL = 200;

const TIER_CODE: Record<Tier, number> = { core: 0, active: 1, warm: 2, cold: 3, archive: 4 };
const TIER_OF: Tier[] = ['core', 'active', 'warm', 'cold', 'archive'];

/** What an engine is made of: documents in columns, and the lexical and episode indexes. */
export interface EngineParts {
  table: DocTable;
  lexical: Bm25Index;
  episodes: Bm25Index;
  /** Episode number of each document (-1: none), and each episode's name. */
  episodeOf: Int32Array;
  episodeNames: string[];
  /**
   * No two rows hold the same id (the snapshot says so: snapshot.ts): a hit's row is then the row
   * of its id, and an engine made from these parts makes its map of ids only when it is asked for
   * an id. Absent: not known. Read by the engine when it is made, not after.
   */
  uniqueIds?: boolean;
}

export function bm25Params(settings: EngramSettings): { lexical: Bm25Params; episodes: Bm25Params } {
  const r = settings.recall;
  return { lexical: { k1: r.k1, b: r.b, delta: r.delta }, episodes: { k1: 1.2, b: 0.75, delta: r.delta } };
}

/**
 * Build the engine's parts from documents (their terms are indexed here), with room for `rows`
 * rows in every per-row array (a live index's additions: tableRows; the same answers).
 */
export function partsFromDocs(docs: readonly RecallDoc[], settings: EngramSettings, rows = docs.length): EngineParts {
  const lexical = lexicalFromDocs(docs, settings);
  const room = lexical.reserve(rows);
  while (rows > docs.length && !room.next().done);
  return { table: tableFromDocs(docs, rows), lexical, ...episodesFromDocs(docs, settings, undefined, rows) };
}

/**
 * partsFromDocs with read-only indexes, as a snapshot opens them (what a rebuild that writes the
 * snapshot and answers from it needs): their arrays made at once (Bm25ArraysBuilder), without
 * the posting lists that toArrays would copy them from. The parts answer as partsFromDocs'
 * do, and encode to the same snapshot. A tf past 16 bits (which the snapshot clamps) takes
 * partsFromDocs.
 */
export function frozenPartsFromDocs(docs: readonly RecallDoc[], settings: EngramSettings): EngineParts {
  const params = bm25Params(settings);
  // each index has at most one entry per term given: room for all of them at once
  let room = 0;
  for (const doc of docs) room += doc.terms.length + (doc.facets?.length ?? 0);
  const lexical = new Bm25ArraysBuilder(room);
  for (const doc of docs) lexical.addLists(doc.facets ? [doc.terms, doc.facets] : [doc.terms], doc.terms.length);
  // episodes as episodeSteps numbers them (in the order of their first member), each the group
  // of its members' entries in the lexical builder: their words and facets, counted there
  const episodeOf = new Int32Array(docs.length).fill(-1);
  const numbers = new Map<string, number>();
  const episodeNames: string[] = [];
  const members: number[][] = [];
  const lengths: number[] = [];
  for (let i = 0; i < docs.length; i++) {
    const session = docs[i]!.session;
    if (session === null) continue;
    let e = numbers.get(session);
    if (e === undefined) {
      e = episodeNames.length;
      numbers.set(session, e);
      episodeNames.push(session);
      members.push([]);
      lengths.push(0);
    }
    members[e]!.push(i);
    lengths[e]! += docs[i]!.terms.length;
    episodeOf[i] = e;
  }
  const episodes = lexical.grouped(members, lengths);
  const lexicalArrays = lexical.toArrays();
  const episodeArrays = episodes.toArrays();
  if (lexical.clamped || episodes.clamped) return partsFromDocs(docs, settings);
  const table = tableFromDocs(docs);
  return {
    table,
    lexical: Bm25Index.fromArrays(params.lexical, lexicalArrays),
    episodes: Bm25Index.fromArrays(params.episodes, episodeArrays),
    episodeOf,
    episodeNames,
    // said, as the snapshot written from these parts says it: an engine made from them then
    // makes no map of every id for a search that needs none (the engine of a first recall at
    // 10k made one, 10,000 ids hashed in JavaScript, ~10-15 ms of its profile)
    uniqueIds: new Set(table.ids).size === table.n,
  };
}

/**
 * partsFromDocs in slices: `tick` is awaited after each document (and each episode) and pauses
 * when a slice is spent (slicer.ts); the parts are exactly partsFromDocs'.
 */
export async function partsFromDocsInSlices(docs: readonly RecallDoc[], settings: EngramSettings, tick: () => Promise<void>, rows = docs.length): Promise<EngineParts> {
  const table = await tableFromDocsInSlices(docs, tick, rows);
  const lexical = new Bm25Index(bm25Params(settings).lexical);
  for (const doc of docs) {
    addToLexical(lexical, doc);
    await tick();
  }
  const room = lexical.reserve(rows);
  while (rows > docs.length && !room.next().done) await tick();
  return { table, lexical, ...(await episodesFromDocs(docs, settings, tick, rows)) };
}

/** The word index of documents, one entry per document in order. */
export function lexicalFromDocs(docs: readonly RecallDoc[], settings: EngramSettings): Bm25Index {
  const lexical = new Bm25Index(bm25Params(settings).lexical);
  for (const doc of docs) addToLexical(lexical, doc);
  return lexical;
}

function addToLexical(lexical: Bm25Index, doc: RecallDoc): void {
  // facets (time, entities) are indexed beside the words but left out of length normalisation
  lexical.addLists(doc.facets ? [doc.terms, doc.facets] : [doc.terms], doc.terms.length);
}

/**
 * The episode index (each session's members as one document) and each document's episode
 * (`episodeOf`, with room for `rows` rows: -1 past the documents).
 */
export function episodesFromDocs(docs: readonly RecallDoc[], settings: EngramSettings, tick?: undefined, rows?: number): Pick<EngineParts, 'episodes' | 'episodeOf' | 'episodeNames'>;
/** The same in slices (`tick` after each document, twice, and each episode). */
export function episodesFromDocs(docs: readonly RecallDoc[], settings: EngramSettings, tick: () => Promise<void>, rows?: number): Promise<Pick<EngineParts, 'episodes' | 'episodeOf' | 'episodeNames'>>;
export function episodesFromDocs(docs: readonly RecallDoc[], settings: EngramSettings, tick?: () => Promise<void>, rows = docs.length): Pick<EngineParts, 'episodes' | 'episodeOf' | 'episodeNames'> | Promise<Pick<EngineParts, 'episodes' | 'episodeOf' | 'episodeNames'>> {
  const episodes = new Bm25Index(bm25Params(settings).episodes);
  const steps = episodeSteps(docs, episodes, rows);
  if (!tick) {
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return { episodes, ...step.value };
  }
  return (async () => {
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return { episodes, ...step.value };
      await tick();
    }
  })();
}

/** episodesFromDocs as steps: a yield per document (twice: members, then episode numbers) and per episode. */
function* episodeSteps(docs: readonly RecallDoc[], episodes: Pick<Bm25Index, 'addLists'>, rows: number): Generator<void, Pick<EngineParts, 'episodeOf' | 'episodeNames'>> {
  const episodeOf = new Int32Array(Math.max(docs.length, rows)).fill(-1);
  const episodeTerms = new Map<string, { words: string[][]; facets: string[][] }>();
  for (const doc of docs) {
    yield;
    if (doc.session === null) continue;
    let parts = episodeTerms.get(doc.session);
    if (!parts) episodeTerms.set(doc.session, (parts = { words: [], facets: [] }));
    parts.words.push(doc.terms);
    if (doc.facets) parts.facets.push(doc.facets);
  }
  const episodeNames: string[] = [];
  const episodeIndex = new Map<string, number>();
  for (const [name, parts] of episodeTerms) {
    let length = 0;
    for (const words of parts.words) length += words.length;
    episodeIndex.set(name, episodes.addLists([...parts.words, ...parts.facets], length));
    episodeNames.push(name);
    yield;
  }
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    if (doc.session !== null) episodeOf[i] = episodeIndex.get(doc.session)!;
    yield;
  }
  return { episodeOf, episodeNames };
}

/** Placeholder until inSlices puts the engine's association index in (no engine answers before). */
const NO_ASSOCIATIONS = new AssociationIndex(tableFromDocs([]));

export class RecallEngine {
  readonly table: DocTable;
  /** Each id's row (the last row holding it), made at its first use (`indexOf`). */
  private idRows: ShardedMap<number> | null = null;
  /**
   * Whether each row's id is held by no other row (EngineParts.uniqueIds), until rows change
   * (followRows): a search then finds a hit's row from its document (`rowOf`) and makes no map of
   * 10,000 ids to read the rows of a dozen hits.
   */
  private uniqueIds: boolean;
  /** The row of each document `doc` made, while ids are unique (rowOf). */
  private readonly docRows = new Map<RecallDoc, number>();
  private halfLives: Float64Array;
  private readonly lexical: Bm25Index;
  private episodes: Bm25Index;
  private episodeNames: string[];
  private episodeOf: Int32Array;
  private readonly roleOf: Array<string | null>;
  private readonly roles = new Map<string, RegExp>();
  /** How many live documents have each role (a role leaves `roles` with its last memory). */
  private readonly roleCount = new Map<string, number>();
  private associations: AssociationIndex;
  private readonly materialised = new Map<number, RecallDoc>();
  /** Rows emptied by a remove (live-index.ts): in no index, never ranked. */
  private readonly removed = new Set<number>();

  /** An engine over parts with its per-row values and association index made in slices (`tick` after each row: slicer.ts). */
  static async inSlices(parts: EngineParts, settings: EngramSettings, tick: () => Promise<void>): Promise<RecallEngine> {
    const engine = new RecallEngine(parts, settings, null, false);
    const idRows = new ShardedMap<number>();
    engine.idRows = idRows;
    await tick();
    for (let i = 0; i < parts.table.n; i++) {
      idRows.set(parts.table.ids[i]!, i);
      engine.deriveRow(i);
      await tick();
    }
    engine.associations = await AssociationIndex.inSlices(parts.table, tick);
    return engine;
  }

  constructor(
    docsOrParts: RecallDoc[] | EngineParts,
    private readonly settings: EngramSettings,
    private readonly expansion: QueryExpansion | null = null,
    /** false: the rows and the association index are made by inSlices. */
    deriveRows = true,
  ) {
    const parts = Array.isArray(docsOrParts) ? partsFromDocs(docsOrParts, settings) : docsOrParts;
    const table = parts.table;
    this.table = table;
    this.lexical = parts.lexical;
    this.episodes = parts.episodes;
    this.episodeOf = parts.episodeOf;
    this.episodeNames = parts.episodeNames;
    // with the room the table has for rows to come (a live index's: tableRows), so an addition copies neither
    const room = table.n + roomLeft(table);
    this.halfLives = new Float64Array(room);
    this.roleOf = new Array<string | null>(room).fill(null);
    this.uniqueIds = parts.uniqueIds === true;
    for (let i = 0; deriveRows && i < table.n; i++) this.deriveRow(i);
    // made now unless ids are unique: then a search needs none, and the table does not change
    // before it is made (a live index, whose rows change in place, gives no uniqueIds)
    if (deriveRows && !this.uniqueIds) this.idRows = this.rowsOfIds();
    this.associations = deriveRows ? new AssociationIndex(table) : NO_ASSOCIATIONS;
  }

  /** Each id's row, the last row holding it (as a map filled row after row gives). */
  private get indexOf(): ShardedMap<number> {
    return (this.idRows ??= this.rowsOfIds());
  }

  private rowsOfIds(): ShardedMap<number> {
    const rows = new ShardedMap<number>();
    for (let i = 0; i < this.table.n; i++) rows.set(this.table.ids[i]!, i);
    return rows;
  }

  /** The row of a hit's id (indexOf): while no two rows share an id, the row its document was made from. */
  private rowOf(hit: RecallHit): number {
    return (this.uniqueIds ? this.docRows.get(hit.doc) : undefined) ?? this.indexOf.get(hit.doc.id)!;
  }

  /** A row's half-life and role, from the table. */
  private deriveRow(i: number): void {
    const table = this.table;
    this.halfLives[i] = effectiveHalfLife(table.halfLifeDays[i]!, table.accessCount[i]!, table.isError[i] === 1, this.settings);
    const role = table.role[i]?.trim().toLowerCase() || null;
    this.roleOf[i] = role;
    if (role === null) return;
    this.roleCount.set(role, (this.roleCount.get(role) ?? 0) + 1);
    if (!this.roles.has(role)) this.roles.set(role, rolePattern(role));
  }

  private forgetRole(i: number): void {
    const role = this.roleOf[i];
    if (role === null || role === undefined) return;
    this.roleOf[i] = null;
    const left = (this.roleCount.get(role) ?? 1) - 1;
    if (left > 0) this.roleCount.set(role, left);
    else {
      this.roleCount.delete(role);
      this.roles.delete(role);
    }
  }

  /**
   * Follow rows that changed in place in the parts this engine was built from (live-index.ts):
   * rows rewritten or appended (`rows`, by number), rows emptied (`removed`), and the parts'
   * arrays that were replaced (episodes rebuilt, episodeOf grown). `links`: the table's link
   * columns changed, so the reverse links are built again. Every per-row value is derived as
   * the constructor derives it, so the engine answers as one built from the parts would.
   */
  followRows(parts: EngineParts, rows: Iterable<number>, removed: Iterable<number>, links: boolean): void {
    const table = this.table;
    // the map of ids as it was, before rows change it (made now if no search made it)
    const indexOf = this.indexOf;
    this.uniqueIds = false;
    this.docRows.clear();
    this.episodes = parts.episodes;
    this.episodeOf = parts.episodeOf;
    this.episodeNames = parts.episodeNames;
    if (this.halfLives.length < table.n) {
      const grown = new Float64Array(Math.max(table.n, this.halfLives.length * 2));
      grown.set(this.halfLives);
      this.halfLives = grown;
    }
    for (const i of removed) {
      if (indexOf.get(table.ids[i]!) === i) indexOf.delete(table.ids[i]!);
      this.forgetRole(i);
      this.removed.add(i);
      this.materialised.delete(i);
    }
    for (const i of rows) {
      this.removed.delete(i);
      this.forgetRole(i);
      indexOf.set(table.ids[i]!, i);
      this.deriveRow(i);
      this.materialised.delete(i);
    }
    if (links) {
      this.associations = this.associations.rebuilt(table);
      this.materialised.clear(); // results show links by id
    } else this.associations.clearCache(); // an edge's weight reads both ends' rows
  }

  /** Room for `rows` rows in the per-row values (live-index.ts `reserve`), one array per step. */
  *reserve(rows: number): Generator<void> {
    if (this.halfLives.length < rows) {
      const grown = new Float64Array(rows);
      grown.set(this.halfLives);
      this.halfLives = grown;
    }
    yield;
    reserveList(this.roleOf, rows);
    yield;
  }

  /** Live documents. */
  get size(): number {
    return this.table.n - this.removed.size;
  }

  /** The ids of the live documents, in row order. */
  ids(): string[] {
    return this.removed.size === 0 ? this.table.ids.slice(0, this.table.n) : this.table.ids.filter((_, i) => i < this.table.n && !this.removed.has(i));
  }

  /** Document i as a RecallDoc (kept, so texts loaded later stay with it). */
  doc(i: number): RecallDoc {
    let doc = this.materialised.get(i);
    if (!doc) {
      this.materialised.set(i, (doc = docAt(this.table, i)));
      if (this.uniqueIds) this.docRows.set(doc, i);
    }
    return doc;
  }

  private tierCode(i: number, now: number): number {
    const t = this.table;
    if (t.archived[i] === 1) return TIER_CODE.archive;
    const tier = t.tier[i];
    if (tier === 'core') return TIER_CODE.core;
    const implied = TIER_CODE[tierFor((now - t.accessMs[i]!) / MS_PER_DAY, this.halfLives[i]!, this.settings)];
    return tier ? Math.max(TIER_CODE[tier], implied) : implied;
  }

  private strength(i: number, now: number): number {
    if (this.table.tier[i] === 'core') return 1;
    return strengthAfter((now - this.table.accessMs[i]!) / MS_PER_DAY, this.halfLives[i]!);
  }

  private hit(i: number, relevance: number, radius: Radius, now: number, parts: Partial<RecallExplanation>): RecallHit {
    const t = this.table;
    const strength = this.strength(i, now);
    const decay = decayFactor(strength, radius, this.settings);
    const weight = this.settings.confidenceWeights[t.confidence[i]!];
    const activation = t.activation[i]! * Math.pow(0.5, Math.max(0, now - t.activationMs[i]!) / MS_PER_DAY / this.settings.activation.halfLifeDays);
    const bonus = activationBonus(activation, this.settings);
    const successor = t.successor[i]!;
    return {
      doc: this.doc(i),
      score: relevance * decay * weight * (1 + bonus) * (successor >= 0 ? SUPERSEDED_WEIGHT : 1),
      strength,
      tier: TIER_OF[this.tierCode(i, now)]!,
      widened: false,
      collapsed: [],
      explain: {
        ...EMPTY_EXPLAIN,
        ...parts,
        relevance,
        strength,
        decay_factor: decay,
        confidence_weight: weight,
        activation,
        activation_bonus: bonus,
        superseded_by: successor >= 0 ? t.ids[successor]! : null,
      },
    };
  }

  /** The pattern (semantic memory) document i was consolidated into: itself for a semantic memory, its decays_from target, or -1. */
  private patternOf(i: number): number {
    if (this.table.category[i] === 'semantic') return i;
    for (let k = this.table.linkOffsets[i]!; k < this.table.linkOffsets[i + 1]!; k++) {
      if (this.table.linkKinds[k] === LINK_KIND_CODES.decays_from && this.table.category[this.table.linkTargets[k]!] === 'semantic') return this.table.linkTargets[k]!;
    }
    return -1;
  }

  /**
   * Paraphrases consolidated into one pattern come back as the pattern, not side by side (issue
   * 20): when two or more matches belong to one pattern (its episodes, or the pattern and an
   * episode), the pattern takes the place of the best of them, with its score, and the others
   * are collapsed under it (`collapsed`). A lone episode of a pattern stays itself.
   */
  private collapsePatterns(hits: RecallHit[], radius: Radius, now: number): RecallHit[] {
    const groupOf = hits.map((h) => this.patternOf(this.rowOf(h)));
    const size = new Map<number, number>();
    for (const g of groupOf) if (g >= 0) size.set(g, (size.get(g) ?? 0) + 1);
    const out: RecallHit[] = [];
    const standing = new Map<number, RecallHit>();
    hits.forEach((hit, k) => {
      const g = groupOf[k]!;
      if (g < 0 || size.get(g)! < 2) return void out.push(hit);
      const representative = standing.get(g);
      if (representative) {
        if (representative.doc.id !== hit.doc.id) representative.collapsed.push(hit.doc.id);
        return;
      }
      const isPattern = this.rowOf(hit) === g;
      const pattern = isPattern ? hit : this.hit(g, hit.explain.relevance, radius, now, {});
      if (!isPattern) {
        pattern.score = hit.score;
        pattern.collapsed.push(hit.doc.id);
      }
      standing.set(g, pattern);
      out.push(pattern);
    });
    return out;
  }

  /** The memory that finally supersedes document i (following superseded_by to its end), or -1. */
  private latest(i: number): number {
    let at = i;
    for (let hops = 0; hops < 16; hops++) {
      const next = this.table.successor[at]!;
      if (next < 0 || next === i) break;
      at = next;
    }
    return at === i ? -1 : at;
  }

  /**
   * A superseded memory never ranks above its successor (ADR 0004): its score is held just
   * below its successor's (whose own score may be held below its successor's in turn).
   */
  private belowSuccessors(hits: RecallHit[]): RecallHit[] {
    const t = this.table;
    const byDoc = new Map<number, RecallHit>();
    for (const hit of hits) byDoc.set(this.rowOf(hit), hit);
    // an open conflict's newer side (it links [[older|contradicts]]) ranks first meanwhile, while neither lost (stale)
    const disputedBy = new Map<number, number[]>();
    for (const i of byDoc.keys()) {
      if (t.confidence[i] === 'stale') continue;
      for (let k = t.linkOffsets[i]!; k < t.linkOffsets[i + 1]!; k++) {
        const older = t.linkTargets[k]!;
        if (t.linkKinds[k] !== LINK_KIND_CODES.contradicts || !byDoc.has(older) || t.confidence[older] === 'stale' || t.createdMs[older]! > t.createdMs[i]!) continue;
        disputedBy.set(older, [...(disputedBy.get(older) ?? []), i]);
      }
    }
    const settled = new Set<number>();
    const settle = (i: number, depth: number): number => {
      const hit = byDoc.get(i)!;
      if (settled.has(i) || depth > 16) return hit.score;
      settled.add(i);
      const s = t.successor[i]!;
      for (const above of [...(s >= 0 && byDoc.has(s) ? [s] : []), ...(disputedBy.get(i) ?? [])]) hit.score = Math.min(hit.score, settle(above, depth + 1) * SUCCESSOR_GAP);
      return hit.score;
    };
    for (const i of byDoc.keys()) settle(i, 0);
    return hits.sort(byScore);
  }

  /**
   * Every memory in the radius ranked with a relevance computed from the memory alone;
   * `alwaysEligible` memories are ranked too whatever their tier.
   */
  rankAll(radius: Radius, now: number, relevanceOf: (amplitude: number) => number, alwaysEligible: (doc: Pick<RecallDoc, 'category' | 'confidence' | 'tier'>) => boolean = () => false): RecallHit[] {
    const allowed = radiusCodes(radius);
    const t = this.table;
    const hits: RecallHit[] = [];
    for (let i = 0; i < t.n; i++) {
      if (this.removed.has(i)) continue;
      const eligible = allowed.has(this.tierCode(i, now)) || alwaysEligible({ category: t.category[i]!, confidence: t.confidence[i]!, tier: t.tier[i]! });
      if (eligible) hits.push(this.hit(i, relevanceOf(t.amplitude[i]!), radius, now, {}));
    }
    return this.belowSuccessors(hits);
  }

  /** One memory ranked at a given relevance (a conflict's other side joining the context), or null when it is not in the engine. */
  hitFor(id: string, relevance: number, now: number): RecallHit | null {
    const i = this.indexOf.get(id);
    return i === undefined ? null : this.hit(i, relevance, 'default', now, {});
  }

  recall(query: string, options: RecallOptions, now: number): RecallHit[] {
    return this.search(query, options, now).hits;
  }

  /**
   * Recall with what the search did: with a radius, exactly its tiers; without one (plain
   * recall), every tier ranked like the default radius, so a memory from cold or archive
   * joins the results only when it outscores the near ones it displaces (SPEC §4).
   */
  search(query: string, options: RecallOptions, now: number): RecallSearch {
    const r = this.settings.recall;
    const plain = options.radius === undefined;
    const ranking: Radius = options.radius ?? 'default';
    const allowed = radiusCodes(options.radius ?? 'all');
    const near = radiusCodes('default');
    const inRadius = plain ? () => true : (i: number) => allowed.has(this.tierCode(i, now));
    const known = (term: string) => this.lexical.df(term) > 0;
    const terms = queryTerms(checkQuery(query), now, r, known);
    this.expansion?.(query, terms, known);

    // 1. Lexical relevance in the radius, normalised to the best match, plus episode context:
    //    members of the episodes that match the query best are lifted (by up to
    //    episodeWeight). The candidate pool is the best POOL of these.
    const scored = this.lexical.score(terms, QUALIFIERS);
    let best = 0;
    for (let k = 0; k < scored.count; k++) {
      const doc = scored.docs[k]!;
      if (scored.scores[doc]! > best && inRadius(doc)) best = scored.scores[doc]!;
    }
    const lift = new Map<number, number>();
    if (r.episodeWeight > 0 && this.episodes.size > 0 && best > 0) {
      const e = this.episodes.score(terms, QUALIFIERS);
      const ranked = topDocs(e.docs, e.count, (d) => e.scores[d]!, r.episodes);
      const top = ranked[0]?.[1] ?? 0;
      for (const [episode, score] of ranked) lift.set(episode, (r.episodeWeight * score) / top);
    }
    const lexicalOf = (doc: number) => (best > 0 ? scored.scores[doc]! / best : 0);
    const pool = topDocs(scored.docs, scored.count, (d) => lexicalOf(d) + (lift.get(this.episodeOf[d]!) ?? 0), POOL, inRadius);
    const lexical = new Map<number, number>(pool.map(([doc]) => [doc, scored.scores[doc]!]));
    const lexicalRank = new Map([...lexical].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([doc], rank) => [doc, rank + 1]));
    const relevance = new Map<number, number>(pool.map(([doc]) => [doc, lexicalOf(doc)]));
    const vectors = new Map<number, number>();
    for (const [id, cosine] of options.vectorSeeds ?? []) {
      const i = this.indexOf.get(id);
      if (i !== undefined && inRadius(i)) vectors.set(i, cosine);
    }
    if (vectors.size > 0) {
      const vectorRank = new Map([...vectors].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([doc], rank) => [doc, rank + 1]));
      relevance.clear();
      let top = 0;
      for (const doc of new Set([...lexicalRank.keys(), ...vectorRank.keys()])) {
        const a = lexicalRank.get(doc);
        const b = vectorRank.get(doc);
        const fused = (a ? 1 / (RRF_K + a) : 0) + (b ? 1 / (RRF_K + b) : 0);
        relevance.set(doc, fused);
        top = Math.max(top, fused);
      }
      for (const [doc, v] of relevance) relevance.set(doc, v / top);
    }

    // 2. Episode context (see 1) on top of lexical or fused relevance.
    const episodeBoost = new Map<number, number>();
    for (const [doc, value] of relevance) {
      const boost = lift.get(this.episodeOf[doc]!);
      if (boost === undefined) continue;
      relevance.set(doc, value + boost);
      episodeBoost.set(doc, boost);
    }

    // 3. Spreading activation from the strongest seeds. What a memory receives lifts it at
    //    most to the relevance of the strongest seed it received from: association brings a
    //    memory up beside what it is associated with, never above it.
    const seeds = new Map(topDocs([...relevance.keys()], relevance.size, (d) => relevance.get(d)!, r.seeds));
    const spread = spreadActivation((node) => this.associations.edges(node), seeds, r.gamma, r.depth);
    const spreadAdded = new Map<number, number>();
    for (const [doc, amount] of spread.received) {
      if (!inRadius(doc)) continue;
      const before = relevance.get(doc) ?? 0;
      const after = r.capAssociation ? Math.min(before + amount, Math.max(before, spread.strongestSeed.get(doc)!)) : before + amount;
      relevance.set(doc, after);
      spreadAdded.set(doc, after - before);
    }

    // 3b. A superseded match brings its latest successor with it, as relevant as itself: what
    //     replaced a fact answers the question the old wording matches (ADR 0004).
    const inherited = new Map<number, [string, number]>();
    for (const [doc, rel] of [...relevance]) {
      const latest = this.latest(doc);
      if (latest < 0 || !inRadius(latest) || (relevance.get(latest) ?? 0) >= rel) continue;
      relevance.set(latest, rel);
      inherited.set(latest, [this.table.ids[doc]!, rel]);
    }

    // 4. A query that names exactly one agent role lifts that role's memories.
    const lowered = query.toLowerCase();
    const named = [...this.roles].filter(([, pattern]) => pattern.test(lowered)).map(([role]) => role);
    const boostedRole = named.length === 1 ? named[0]! : null;

    // 5. Ranking.
    const hits: RecallHit[] = [];
    for (const [doc, rel] of relevance) {
      const roleBoost = boostedRole !== null && this.roleOf[doc] === boostedRole ? r.roleBoost : 1;
      const via = spread.via.get(doc);
      const episode = this.episodeOf[doc]!;
      const added = spreadAdded.get(doc);
      hits.push(
        this.hit(doc, rel * roleBoost, ranking, now, {
          lexical: lexical.get(doc) ?? 0,
          lexical_rank: lexicalRank.get(doc) ?? null,
          vector: vectors.get(doc) ?? null,
          episode: episodeBoost.has(doc) ? { session: this.episodeNames[episode]!, boost: episodeBoost.get(doc)! } : null,
          spread:
            via && added !== undefined
              ? { amount: added, from: this.table.ids[via.from]!, kinds: via.kinds, path: via.path.map((p) => this.table.ids[p]!), capped: added < spread.received.get(doc)! }
              : null,
          role_boost: roleBoost,
          inherited: inherited.get(doc) ?? null,
        }),
      );
    }
    // relevance protected from the priors together: never below a match 1.5x less relevant
    const protectable = hits.map((hit) => ({ hit, relevance: hit.explain.relevance, score: hit.score, liftable: hit.doc.confidence !== 'stale' && !hit.explain.superseded_by, lifted: undefined as number | undefined }));
    for (const p of protectRelevance(protectable)) {
      if (p.lifted === undefined) continue;
      p.hit.score = p.score;
      p.hit.explain.lifted = p.lifted;
    }
    this.belowSuccessors(hits);
    const collapsedHits = this.collapsePatterns(hits, ranking, now);
    hits.length = 0;
    hits.push(...collapsedHits);

    // 6. Widening: which results come from beyond the default radius, and why.
    let nearBest = 0;
    let widerBest = 0;
    for (const hit of hits) {
      const value = hit.explain.relevance;
      if (near.has(TIER_CODE[hit.tier])) nearBest = Math.max(nearBest, value);
      else widerBest = Math.max(widerBest, value);
    }
    const results = hits.slice(0, Math.max(0, options.limit));
    const widenedTo = new Set<Tier>();
    results.forEach((hit, rank) => {
      if (!plain || near.has(TIER_CODE[hit.tier])) return;
      hit.widened = true;
      widenedTo.add(hit.tier);
      // the near match it displaced: the first one ranked below it
      const displaced = hits.slice(rank + 1).find((h) => near.has(TIER_CODE[h.tier]));
      const own = `relevance ${round3(hit.explain.relevance)} at strength ${round3(hit.strength)}`;
      hit.explain.widened = displaced
        ? `${hit.tier}: ${own} scores above ${displaced.doc.id} in ${displaced.tier} (relevance ${round3(displaced.explain.relevance)} at strength ${round3(displaced.strength)})`
        : `${hit.tier}: ${own}; core, active and warm hold no further match`;
    });
    const widening: Widening | null = plain
      ? {
          widened: widenedTo.size > 0,
          tiers: TIER_OF.filter((t) => widenedTo.has(t)),
          results: results.filter((h) => h.widened).length,
          near_best: nearBest,
          wider_best: widerBest,
        }
      : null;
    return { hits: results, widening };
  }
}

/**
 * Without a query: what the agent knows best right now (the seeds' reboot protocol):
 * memories in the radius ranked by the same formula with relevance 1 + ln(amplitude), so
 * reinforced memories come first among equally strong ones. Core memories and verified
 * decisions are what the agent knows for sure: eligible whatever their tier.
 */
export function prominent(engine: RecallEngine, limit: number, radius: Radius, now: number): RecallHit[] {
  return engine.rankAll(radius, now, (amplitude) => 1 + Math.log(Math.max(1, amplitude)), alwaysKnown).slice(0, limit);
}

/** Core memories and verified decisions: kept by prune, eligible for the context whatever their tier. */
export function alwaysKnown(doc: Pick<RecallDoc, 'category' | 'confidence' | 'tier'>): boolean {
  return doc.tier === 'core' || (doc.category === 'decision' && doc.confidence === 'verified');
}

/**
 * A query's terms and their weights: its words, its dates as time terms, for a "when"
 * question the term of memories that name a time (time-terms.ts), and the entities it names
 * among those memories name (`known`, entities.ts).
 */
export function queryTerms(query: string, now: number, r: RecallSettings, known: (term: string) => boolean): Map<string, number> {
  const terms = new Map<string, number>();
  for (const term of analyze(query).terms) terms.set(term, (terms.get(term) ?? 0) + 1);
  const time = r.dateWeight > 0 || r.whenWeight > 0 ? queryTime(query, now) : null;
  if (time && r.dateWeight > 0) for (const t of time.terms) terms.set(t, r.dateWeight);
  if (time?.asksWhen && r.whenWeight > 0) terms.set(TIME_SAID, r.whenWeight);
  if (r.entityWeight > 0) for (const e of queryEntityTerms(query, known)) terms.set(e, r.entityWeight);
  return terms;
}

function radiusCodes(radius: Radius): Set<number> {
  return new Set(RADIUS_TIERS[radius].map((t) => TIER_CODE[t]));
}

/** How far below its successor a superseded memory's score is held. */
const SUCCESSOR_GAP = 0.999;

const round3 = (x: number) => (Math.round(x * 1000) / 1000).toFixed(3);

function byScore(a: RecallHit, b: RecallHit): number {
  return b.score - a.score || (a.doc.id < b.doc.id ? -1 : 1);
}

/** A role named as words in a query: "code-reviewer" matches "code reviewer". */
function rolePattern(role: string): RegExp {
  const words = role.split(/[\s_-]+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(^|[^\\p{L}\\p{N}])${words.join('[\\s_-]+')}($|[^\\p{L}\\p{N}])`, 'iu');
}
