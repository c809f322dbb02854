import type { EngramSettings } from '../settings';
import { ShardedMap } from '../sharded-map';
import { Bm25Index } from './bm25';
import type { RecallDoc } from './catalog';
import { appendRow, listWithRoom, reserveList, reserveRows, roomFor, roomLeft, setSparseRows, sparseRow, type SparseRow } from './doc-table';
import { patchRow, sameWords } from './engine-update';
import { bm25Params, partsFromDocs, partsFromDocsInSlices, RecallEngine, type EngineParts } from './recall';

/**
 * The recall engine of a long-lived process (`engram mcp`, the plugin), following the memories
 * as they are edited, added and removed, without building its indexes again.
 *
 * Each document keeps its row (its number in the table and in the word index) for as long as
 * it lives: an edit re-indexes its row in place (postings out, postings in at their place), a
 * new memory takes the next row, a removed one leaves its row empty (no postings, not ranked).
 * Statistics count live rows only (bm25.ts), so every score is the one an engine built from the
 * live documents alone would give; ties look at row order only, which a row's staying put, an
 * empty row and a row added last all keep. So the engine answers exactly as
 * `new RecallEngine(liveDocs())` does, where liveDocs are the documents in row order.
 *
 * With `order` (the MCP server keeps its documents in path order, as a cold recall reads them),
 * a new memory whose path sorts before the last live one cannot take the next row and keep the
 * order: then, as for an id held by two files, a change of a memory's id, or once empty rows
 * reach an eighth of the table, everything is built again from the live documents.
 *
 * Links, co-access and `superseded_by` name memories by id: a row that names an id that comes
 * or goes is resolved again (`refsTo`). Episodes (one document per session in the episode
 * index) follow their members; when the episodes' order (by first member) would change, the
 * episode index alone is built again.
 */
export class LiveIndex {
  private rows: Array<RecallDoc | null> = [];
  private slotOfPath = new ShardedMap<number>();
  private slotOfId = new ShardedMap<number>();
  /**
   * Rows beyond the first that hold an id (sync copies), for the ids held by more than one:
   * a memory's id is in slotOfId while some row holds it. Not a count per id: a map of every
   * id would be one more map of the whole table to grow (a rehash of 65,536 entries: 24 ms).
   */
  private extraIds = new Map<string, number>();
  /** The live rows that name each id (links, co-access, superseded_by). */
  private refsTo = new Map<string, Set<number>>();
  /** Each session's live rows, ascending. */
  private members = new Map<string, number[]>();
  private episodeNo = new Map<string, number>();
  /** Each episode's first member row; -1 for an episode whose members are all gone. */
  private firstOf: number[] = [];
  private empty = 0;
  private partsValue!: EngineParts;
  private engineValue!: RecallEngine;
  readonly stats = { built: 0, updated: 0 };

  constructor(
    docs: readonly RecallDoc[],
    private readonly settings: EngramSettings,
    private readonly order: ((a: string, b: string) => number) | null = null,
    /** Parts already built from `docs` (a preload built them in slices). */
    parts?: EngineParts,
  ) {
    this.build(docs, parts);
  }

  /** A live index built in slices (`tick` after each document: slicer.ts), for a process that answers requests meanwhile. */
  static async inSlices(docs: readonly RecallDoc[], settings: EngramSettings, order: ((a: string, b: string) => number) | null, tick: () => Promise<void>): Promise<LiveIndex> {
    const parts = await partsFromDocsInSlices(docs, settings, tick, rowsAhead(docs.length));
    const engine = await RecallEngine.inSlices(parts, settings, tick);
    const live = new LiveIndex([], settings, order);
    live.stats.built = 0;
    live.rows = listWithRoom(docs, rowsAhead(docs.length));
    await tick();
    live.partsValue = parts;
    live.engineValue = engine;
    // the two maps of the whole table in passes of their own: a map's growth past 65,536
    // entries rehashes it in one step (24 ms), and no step should hold two
    for (let slot = 0; slot < docs.length; slot++) {
      live.slotOfPath.set(docs[slot]!.path, slot);
      await tick();
    }
    for (let slot = 0; slot < docs.length; slot++) {
      live.enter(docs[slot]!, slot, false);
      await tick();
    }
    live.indexEpisodes();
    live.stats.built++;
    return live;
  }

  /**
   * Whether the row columns are near full (room for fewer rows than a quarter of the table):
   * a long-lived process then calls `reserve` while no request waits.
   */
  get wantsRoom(): boolean {
    return !this.reserving && roomLeft(this.partsValue.table) < Math.max(16, this.partsValue.table.n >> 2);
  }

  private reserving = false;

  /**
   * Room for half as many rows again (at least 64) in every per-row array (the table's
   * columns, the episode numbers, the word index's lengths and scratch, the engine's derived
   * values, the rows), made one array per `tick`, ahead of the additions: an addition then
   * copies no array of the whole table (doc-table.ts `reserveRows`). The answers do not
   * change: room is never read. An addition that finds no room (a burst between two
   * reserves) still grows what it needs itself.
   */
  async reserve(tick: () => Promise<void>): Promise<void> {
    if (this.reserving) return;
    this.reserving = true;
    try {
      const table = this.partsValue.table;
      const rows = rowsAhead(table.n);
      await stepThrough(reserveRows(table, rows), tick);
      const episodeOf = this.partsValue.episodeOf;
      if (episodeOf.length < rows && this.partsValue.table === table) {
        // the engine keeps the array it has until the next change hands it this one (followRows): equal up to n
        this.partsValue.episodeOf = roomFor(episodeOf, rows, rows).fill(-1, episodeOf.length);
      }
      await tick();
      await stepThrough(this.partsValue.lexical.reserve(rows), tick);
      await stepThrough(this.engineValue.reserve(rows), tick);
      reserveList(this.rows, rows);
      await tick();
    } finally {
      this.reserving = false;
    }
  }

  get engine(): RecallEngine {
    return this.engineValue;
  }

  get parts(): EngineParts {
    return this.partsValue;
  }

  /** The live documents in row order (what the engine answers as if built from). */
  liveDocs(): RecallDoc[] {
    return this.rows.filter((d): d is RecallDoc => d !== null);
  }

  /** The live document at a path. */
  at(path: string): RecallDoc | undefined {
    const slot = this.slotOfPath.get(path);
    return slot === undefined ? undefined : this.rows[slot]!;
  }

  /**
   * Built with room for half as many rows again (rowsAhead) in every per-row array, as a
   * reserve would make it: the first additions after a build copy no array of the whole table
   * (no reserve is under way then, and none is needed until the room runs low).
   */
  private build(docs: readonly RecallDoc[], parts?: EngineParts): void {
    this.rows = listWithRoom(docs, rowsAhead(docs.length));
    this.partsValue = parts ?? partsFromDocs(docs, this.settings, rowsAhead(docs.length));
    // rows change in place here before the engine follows them: its map of ids is made at once (no uniqueIds)
    this.partsValue.uniqueIds = undefined;
    this.engineValue = new RecallEngine(this.partsValue, this.settings);
    this.slotOfPath = new ShardedMap();
    this.slotOfId = new ShardedMap();
    this.extraIds = new Map();
    this.refsTo = new Map();
    this.members = new Map();
    this.empty = 0;
    docs.forEach((doc, slot) => this.enter(doc, slot));
    this.indexEpisodes();
    this.stats.built++;
  }

  /** Episode numbers and first members, from the parts (numbered by first member, as episodesFromDocs does). */
  private indexEpisodes(): void {
    const names = this.partsValue.episodeNames;
    this.episodeNo = new Map(names.map((name, e) => [name, e]));
    this.firstOf = names.map((name) => this.members.get(name)?.[0] ?? -1);
  }

  /** Record a live document's row in the maps (not the indexes). */
  private enter(doc: RecallDoc, slot: number, path = true): void {
    if (path) this.slotOfPath.set(doc.path, slot);
    if (this.slotOfId.has(doc.id)) this.extraIds.set(doc.id, (this.extraIds.get(doc.id) ?? 0) + 1);
    this.slotOfId.set(doc.id, slot);
    if (doc.links.length > 0 || doc.superseded_by || hasKeys(doc.co_access)) for (const id of namedIds(doc)) {
      let rows = this.refsTo.get(id);
      if (!rows) this.refsTo.set(id, (rows = new Set()));
      rows.add(slot);
    }
    if (doc.session !== null) {
      const rows = this.members.get(doc.session);
      if (!rows) this.members.set(doc.session, [slot]);
      else insertSorted(rows, slot);
    }
  }

  private leave(doc: RecallDoc, slot: number): void {
    if (this.slotOfPath.get(doc.path) === slot) this.slotOfPath.delete(doc.path);
    const extra = this.extraIds.get(doc.id) ?? 0;
    if (extra > 1) this.extraIds.set(doc.id, extra - 1);
    else if (extra === 1) this.extraIds.delete(doc.id);
    else this.slotOfId.delete(doc.id);
    if (doc.links.length > 0 || doc.superseded_by || hasKeys(doc.co_access)) for (const id of namedIds(doc)) this.refsTo.get(id)?.delete(slot);
    if (doc.session !== null) {
      const rows = this.members.get(doc.session)!;
      rows.splice(rows.indexOf(slot), 1);
      if (rows.length === 0) this.members.delete(doc.session);
    }
  }

  /**
   * Apply changed documents: `upserts` replace the document at their path or are new,
   * `removed` are paths gone. Returns whether the indexes followed in place (false: built again).
   */
  apply(upserts: readonly RecallDoc[], removed: readonly string[]): boolean {
    const replaced = new Map<number, RecallDoc>();
    const added: RecallDoc[] = [];
    const gone = new Set<number>();
    for (const path of removed) {
      const slot = this.slotOfPath.get(path);
      if (slot !== undefined) gone.add(slot);
    }
    for (const doc of upserts) {
      const slot = this.slotOfPath.get(doc.path);
      if (slot !== undefined && !gone.has(slot)) replaced.set(slot, doc);
      else added.push(doc);
    }
    if (replaced.size === 0 && added.length === 0 && gone.size === 0) return true;
    if (this.order) added.sort((a, b) => this.order!(a.path, b.path));
    if (!this.canFollow(replaced, added, gone)) {
      const next: RecallDoc[] = [];
      this.rows.forEach((doc, slot) => {
        if (doc && !gone.has(slot)) next.push(replaced.get(slot) ?? doc);
      });
      next.push(...added);
      if (this.order) next.sort((a, b) => this.order!(a.path, b.path));
      this.build(next);
      return false;
    }
    this.follow(replaced, added, gone);
    this.stats.updated++;
    return true;
  }

  /** Whether the change can be followed in place with the same answers as a build (see the class comment). */
  private canFollow(replaced: ReadonlyMap<number, RecallDoc>, added: readonly RecallDoc[], gone: ReadonlySet<number>): boolean {
    const count = (id: string) => (this.slotOfId.has(id) ? 1 + (this.extraIds.get(id) ?? 0) : 0);
    const shared = (id: string) => count(id) > 1;
    for (const [slot, doc] of replaced) if (doc.id !== this.rows[slot]!.id || shared(doc.id)) return false;
    for (const slot of gone) if (shared(this.rows[slot]!.id)) return false;
    // an added id must be held by no other live row once the removed ones are gone (a move: gone, then added)
    const leaving = new Map<string, number>();
    for (const slot of gone) leaving.set(this.rows[slot]!.id, (leaving.get(this.rows[slot]!.id) ?? 0) + 1);
    const newIds = new Set<string>();
    for (const doc of added) {
      if (count(doc.id) - (leaving.get(doc.id) ?? 0) > 0 || newIds.has(doc.id)) return false;
      newIds.add(doc.id);
    }
    if (this.empty + gone.size > Math.max(64, this.rows.length / 8)) return false;
    if (this.order && added.length > 0) {
      let last = this.rows.length - 1;
      while (last >= 0 && (this.rows[last] === null || gone.has(last))) last--;
      let previous = last >= 0 ? this.rows[last]!.path : null;
      for (const doc of added) {
        if (previous !== null && this.order(previous, doc.path) >= 0) return false;
        previous = doc.path;
      }
    }
    return true;
  }

  private follow(replaced: ReadonlyMap<number, RecallDoc>, added: readonly RecallDoc[], gone: ReadonlySet<number>): void {
    const parts = this.partsValue;
    const table = parts.table;
    const lexical = parts.lexical;
    // sessions whose episode changes, with the terms their episode document holds now
    const sessions = new Set<string>();
    for (const [slot, doc] of replaced) {
      const before = this.rows[slot]!;
      if (before.session !== doc.session || !sameWords(before, doc)) {
        if (before.session !== null) sessions.add(before.session);
        if (doc.session !== null) sessions.add(doc.session);
      }
    }
    for (const slot of gone) {
      const session = this.rows[slot]!.session;
      if (session !== null) sessions.add(session);
    }
    for (const doc of added) if (doc.session !== null) sessions.add(doc.session);
    const oldEpisodeTerms = new Map<string, string[]>();
    for (const session of sessions) if (this.episodeNo.has(session)) oldEpisodeTerms.set(session, this.episodeTerms(session).terms);

    // ids that appear or disappear: the rows naming them are resolved again
    const comingOrGoing = new Set<string>();
    const sparse = new Set<number>();
    for (const slot of gone) {
      const doc = this.rows[slot]!;
      lexical.remove(slot, lexicalTerms(doc));
      this.leave(doc, slot);
      this.rows[slot] = null;
      this.empty++;
      comingOrGoing.add(doc.id);
      parts.episodeOf[slot] = -1;
    }
    const rewritten: number[] = [];
    for (const [slot, doc] of replaced) {
      const before = this.rows[slot]!;
      if (!sameWords(before, doc)) lexical.update(slot, lexicalTerms(before), lexicalTerms(doc), doc.terms.length);
      this.leave(before, slot);
      this.enter(doc, slot);
      this.rows[slot] = doc;
      patchRow(table, slot, doc);
      sparse.add(slot);
      rewritten.push(slot);
    }
    if (added.length > 0 && parts.episodeOf.length < table.n + added.length) {
      const before = parts.episodeOf.length;
      parts.episodeOf = roomFor(parts.episodeOf, table.n + added.length).fill(-1, before);
    }
    for (const doc of added) {
      const slot = appendRow(table, doc);
      lexical.add(lexicalTerms(doc), doc.terms.length);
      this.rows.push(doc);
      this.enter(doc, slot);
      comingOrGoing.add(doc.id);
      sparse.add(slot);
      rewritten.push(slot);
    }
    for (const id of comingOrGoing) for (const slot of this.refsTo.get(id) ?? []) sparse.add(slot);

    // links, co-access and successors of the rows that may resolve differently now
    const changedRows = new Map<number, SparseRow>();
    for (const slot of gone) changedRows.set(slot, { links: [], co: [], successor: -1 });
    for (const slot of sparse) {
      const doc = this.rows[slot];
      if (doc) changedRows.set(slot, sparseRow(doc, slot, this.slotOfId));
    }
    // the reverse links are built again only when links change (co-access, a touch's, is read from the table)
    const links = [...changedRows].some(([slot, row]) => !samePairs(table.linkOffsets, table.linkTargets, table.linkKinds, slot, row.links));
    if (links || [...changedRows].some(([slot, row]) => !samePairs(table.coOffsets, table.coTargets, table.coCounts, slot, row.co))) setSparseRows(table, changedRows);
    else for (const [slot, row] of changedRows) table.successor[slot] = row.successor;

    this.followEpisodes(sessions, oldEpisodeTerms);
    for (const slot of rewritten) if (this.rows[slot]!.session === null) this.partsValue.episodeOf[slot] = -1;
    const touched = new Set([...rewritten, ...changedRows.keys()].filter((slot) => !gone.has(slot)));
    this.engineValue.followRows(this.partsValue, touched, gone, links);
  }

  /** An episode document's terms (its members' words, then their facets) and its length (words). */
  private episodeTerms(session: string): { terms: string[]; length: number } {
    const words: string[] = [];
    const facets: string[] = [];
    for (const slot of this.members.get(session) ?? []) {
      const doc = this.rows[slot]!;
      words.push(...doc.terms);
      if (doc.facets) facets.push(...doc.facets);
    }
    return { terms: [...words, ...facets], length: words.length };
  }

  private followEpisodes(sessions: ReadonlySet<string>, oldTerms: ReadonlyMap<string, string[]>): void {
    if (sessions.size === 0) return;
    const parts = this.partsValue;
    const episodes = parts.episodes;
    for (const session of [...sessions].sort()) {
      const e = this.episodeNo.get(session);
      const members = this.members.get(session);
      if (!members) {
        if (e !== undefined) {
          episodes.remove(e, oldTerms.get(session)!);
          this.episodeNo.delete(session);
          this.firstOf[e] = -1;
        }
        continue;
      }
      const { terms, length } = this.episodeTerms(session);
      let number = e;
      if (number === undefined) {
        number = episodes.slots;
        this.episodeNo.set(session, number);
        parts.episodeNames.push(session);
        this.firstOf.push(-1);
        episodes.put(number, terms, length);
      } else episodes.update(number, oldTerms.get(session)!, terms, length); // only the terms whose count changed
      this.firstOf[number] = members[0]!;
    }
    // members' episode numbers, and whether the episodes are still numbered by first member
    for (const session of sessions) {
      const e = this.episodeNo.get(session);
      for (const slot of this.members.get(session) ?? []) parts.episodeOf[slot] = e!;
    }
    let previous = -1;
    for (const first of this.firstOf) {
      if (first < 0) continue;
      if (first <= previous) return this.rebuildEpisodes();
      previous = first;
    }
  }

  /** The episode index built again over the live rows (numbers by first member, as episodesFromDocs). */
  private rebuildEpisodes(): void {
    const episodes = new Bm25Index(bm25Params(this.settings).episodes);
    const table = this.partsValue.table;
    const episodeOf = new Int32Array(table.n + roomLeft(table)).fill(-1);
    const names: string[] = [];
    const seen = new Set<string>();
    this.rows.forEach((doc) => {
      if (!doc || doc.session === null || seen.has(doc.session)) return;
      seen.add(doc.session);
      const { terms, length } = this.episodeTerms(doc.session);
      episodes.add(terms, length);
      names.push(doc.session);
    });
    this.partsValue = { ...this.partsValue, episodes, episodeOf, episodeNames: names };
    this.indexEpisodes();
    for (const [session, rows] of this.members) for (const slot of rows) episodeOf[slot] = this.episodeNo.get(session)!;
  }
}

/** The rows a table of n rows is given room for, at a build and at each reserve: half as many again, at least 64 more. */
function rowsAhead(n: number): number {
  return n + Math.max(64, n >> 1);
}

/** Run a generator's steps with a `tick` after each. */
async function stepThrough(steps: Generator<void>, tick: () => Promise<void>): Promise<void> {
  for (let step = steps.next(); !step.done; step = steps.next()) await tick();
}

/** The terms a document puts in the word index: words, then facets (left out of its length). */
function lexicalTerms(doc: RecallDoc): readonly string[] {
  return doc.facets ? [...doc.terms, ...doc.facets] : doc.terms;
}

function hasKeys(record: Record<string, number>): boolean {
  for (const _ in record) return true;
  return false;
}

/** Ids a document names: link targets, co-access partners, its successor. */
function namedIds(doc: RecallDoc): Set<string> {
  const ids = new Set<string>();
  for (const link of doc.links) ids.add(link.target);
  for (const id of Object.keys(doc.co_access)) ids.add(id);
  if (doc.superseded_by) ids.add(doc.superseded_by);
  return ids;
}

/** Whether a row's pairs in a sparse column (links, co-access) are these. */
function samePairs(offsets: Int32Array, targets: Int32Array, second: ArrayLike<number>, slot: number, pairs: ReadonlyArray<[number, number]>): boolean {
  return offsets[slot + 1]! - offsets[slot]! === pairs.length && pairs.every(([t, x], k) => targets[offsets[slot]! + k] === t && second[offsets[slot]! + k] === x);
}

function insertSorted(list: number[], x: number): void {
  let at = list.length;
  while (at > 0 && list[at - 1]! > x) at--;
  list.splice(at, 0, x);
}
