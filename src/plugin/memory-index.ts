import { MemoryParseError } from '../core/errors';
import { ARCHIVE_FOLDER, parseMemory } from '../core/memory';
import { preferredPath } from '../core/memory-files';
import { loadCatalog, toRecallDoc, type RecallDoc } from '../core/recall/catalog';
import { LiveIndex } from '../core/recall/live-index';
import type { RecallEngine } from '../core/recall/recall';
import { Slicer } from '../core/slicer';
import { OrderedShardedMap, ShardedMap } from '../core/sharded-map';
import type { Vault } from '../core/vault';

/** What changed in the index: the memory before and after (null: added, or removed). */
export interface IndexChange {
  id: string;
  before: RecallDoc | null;
  after: RecallDoc | null;
}

/**
 * Every memory of the vault, kept in memory while Obsidian runs: loaded once from the catalog
 * (`.engram/cache/catalog.json`, re-parsing only files whose size or mtime changed), then
 * updated per changed note from the events Obsidian already sends (the metadata cache's
 * `changed` with the note's text; the vault's `rename` and `delete`), so nothing re-reads the
 * vault after a change. The status bar, the graph, the sidebar and recall read from here.
 * The recall engine is a LiveIndex (src/core/recall/live-index.ts): built once, in slices of a
 * few milliseconds with a turn of the event loop between them, soon after the index loads
 * (`buildInSlices`), then following each change in place (an edit re-indexes its row, a new
 * memory takes the next row, a deleted one leaves its row empty): well under a millisecond at
 * 10,000 memories (`npm run bench:warm`), answers exactly those of an engine built afresh.
 */
export class MemoryIndex {
  /** Sharded (sharded-map.ts): a Map of every memory rehashes them all in the one step past 65,536 (30-40 ms at 100k). */
  private docs = new OrderedShardedMap<RecallDoc>();
  private idByPath = new ShardedMap<string>();
  /**
   * Second files of an id (a sync conflict copy, a duplicate made in a file manager), by path:
   * the memory is the file `preferredPath` picks, as in the core; consolidation merges the copies.
   */
  readonly copies = new Map<string, string>();
  private readonly listeners = new Set<(changes: IndexChange[]) => void>();
  private live: LiveIndex | null = null;
  /** The engine being built in slices, and the changes that came meanwhile (applied when it is done). */
  private building: Promise<void> | null = null;
  private queued: IndexChange[][] = [];
  private loading: Promise<void> | null = null;
  loaded = false;
  /** Files that could not be read as memories, by path. */
  readonly problems = new Map<string, string>();

  constructor(
    private readonly vault: () => Vault,
    /** A turn of the event loop between two slices of work (the plugin: a timer); default none. */
    private readonly yieldTurn: () => Promise<void> = () => Promise.resolve(),
    /** Documents per slice (tests); default: SLICE_MS of work. */
    private readonly sliceUnits: number | null = null,
  ) {}

  private slicer(): Slicer {
    return new Slicer(this.sliceUnits, () => performance.now(), this.yieldTurn);
  }

  /** Load (once) from the catalog. */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const slicer = this.slicer();
      const { docs, problems } = await loadCatalog(this.vault(), { pause: slicer.tick });
      // the maps filled in slices, and put in place together: the index is empty until loaded
      const byId = new OrderedShardedMap<RecallDoc>();
      const changes: IndexChange[] = [];
      for (const doc of docs) {
        byId.set(doc.id, doc);
        changes.push({ id: doc.id, before: null, after: doc });
        await slicer.tick();
      }
      const idByPath = new ShardedMap<string>();
      for (const doc of docs) {
        idByPath.set(doc.path, doc.id);
        await slicer.tick();
      }
      this.docs = byId;
      this.idByPath = idByPath;
      for (const p of problems) this.problems.set(p.path, p.reason);
      this.loaded = true;
      this.dropEngine();
      this.emit(changes);
    })();
    return this.loading;
  }

  /** Forget everything (another memory folder, other settings): the next `load` reads again. */
  reset(): void {
    this.loading = null;
    this.loaded = false;
    this.docs.clear();
    this.idByPath.clear();
    this.copies.clear();
    this.problems.clear();
    this.dropEngine();
  }

  private dropEngine(): void {
    this.live = null;
    this.building = null;
    this.queued = [];
  }

  private put(doc: RecallDoc): void {
    this.docs.set(doc.id, doc);
    this.idByPath.set(doc.path, doc.id);
  }

  all(): IterableIterator<RecallDoc> {
    return this.docs.values();
  }

  get size(): number {
    return this.docs.size;
  }

  get(id: string): RecallDoc | undefined {
    return this.docs.get(id);
  }

  idAt(path: string): string | undefined {
    return this.idByPath.get(path);
  }

  /** Whether the index holds the file at `path` (a memory or a copy of one). */
  knows(path: string): boolean {
    return this.idByPath.has(path) || this.copies.has(path);
  }

  /** Listen to changes; returns the function that stops listening. */
  subscribe(fn: (changes: IndexChange[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(changes: IndexChange[]): void {
    if (changes.length === 0) return;
    this.follow(changes);
    for (const fn of [...this.listeners]) fn(changes);
  }

  /** Carry the engine over the changes (queued while it is being built). */
  private follow(changes: IndexChange[]): void {
    if (this.building) this.queued.push(changes);
    if (!this.live) return;
    const upserts: RecallDoc[] = [];
    const removed: string[] = [];
    for (const { before, after } of changes) {
      if (before && (!after || before.path !== after.path)) removed.push(before.path);
      if (after) upserts.push(after);
    }
    this.live.apply(upserts, removed);
    this.roomAhead();
  }

  /**
   * Room for the next additions made in slices while the app is idle (LiveIndex.reserve), so
   * that no addition copies an array of the whole table.
   */
  private roomAhead(): void {
    if (this.live?.wantsRoom) void this.live.reserve(this.slicer().tick);
  }

  /** A memory note's text changed (or it was created): parse it again. */
  changed(path: string, text: string): void {
    if (!this.loaded) return;
    const before = this.docs.get(this.idByPath.get(path) ?? '') ?? null;
    let after: RecallDoc | null = null;
    try {
      after = toRecallDoc(parseMemory(path, text, this.vault().settings), path.startsWith(`${ARCHIVE_FOLDER}/`));
      this.problems.delete(path);
    } catch (error) {
      // being edited, or broken: it leaves the index until it parses again
      this.problems.set(path, error instanceof MemoryParseError ? error.reason : String(error));
    }
    this.copies.delete(path);
    // a second file of an id already indexed elsewhere: the preferred one is the memory
    const other = after ? this.docs.get(after.id) : undefined;
    if (after && other && other.path !== path) {
      if (preferredPath([other.path, path]) === other.path) {
        this.copies.set(path, after.id);
        if (before) this.drop(before);
        if (before) this.emit([{ id: before.id, before, after: null }]);
        return;
      }
      this.copies.set(other.path, other.id);
      this.idByPath.delete(other.path);
    }
    const previous = other && other.path !== path ? other : before;
    if (before) this.drop(before);
    if (after) this.put(after);
    if (before && after && before.id !== after.id) {
      this.emit([{ id: before.id, before, after: null }, { id: after.id, before: previous === before ? null : previous ?? null, after }]);
      return;
    }
    const id = after?.id ?? before?.id;
    if (id) this.emit([{ id, before: previous ?? null, after }]);
  }

  private drop(doc: RecallDoc): void {
    if (this.docs.get(doc.id) === doc) this.docs.delete(doc.id);
    this.idByPath.delete(doc.path);
  }

  /**
   * A memory note was renamed or moved (by the person, to archive/, into a sub-folder): the
   * memory is the same (its identity is the frontmatter id), at a new path; out of the memory
   * folders (`newPath` null) it leaves the index.
   */
  renamed(oldPath: string, newPath: string | null): void {
    this.problems.delete(oldPath);
    const copyId = this.copies.get(oldPath);
    if (copyId !== undefined) {
      this.copies.delete(oldPath);
      if (newPath !== null) this.copies.set(newPath, copyId);
      return;
    }
    const id = this.idByPath.get(oldPath);
    if (!id) return;
    const before = this.docs.get(id)!;
    this.docs.delete(id);
    this.idByPath.delete(oldPath);
    let after: RecallDoc | null = null;
    if (newPath !== null) {
      after = { ...before, path: newPath, archived: newPath.startsWith(`${ARCHIVE_FOLDER}/`) };
      this.put(after);
    } else {
      // the memory's file is gone: a copy of it, if there is one, is the memory now (read again by the shell)
      for (const [path, copy] of this.copies) if (copy === id) this.orphans.push(path);
    }
    this.emit([{ id, before, after }]);
  }

  /** Copies whose memory file went away: the shell reads them again (`changed`). */
  readonly orphans: string[] = [];

  /** A memory note was deleted. */
  removed(path: string): void {
    this.renamed(path, null);
  }

  /** The recall engine over the current documents (built now if `buildInSlices` has not built it yet). */
  engine(): RecallEngine {
    if (!this.live) {
      this.building = null; // a build in slices under way is overtaken by this one
      this.queued = [];
      this.live = new LiveIndex(this.docs.valuesArray(), this.vault().settings);
      this.roomAhead();
    }
    return this.live.engine;
  }

  /**
   * Build the engine in slices of SLICE_MS with a turn of the event loop between them, so the
   * app stays responsive; changes that come meanwhile are applied when it is done.
   */
  buildInSlices(): Promise<void> {
    if (this.live) return Promise.resolve();
    if (this.building) return this.building;
    const docs = this.docs.valuesArray();
    let building: Promise<void> | null = null;
    building = (async () => {
      const live = await LiveIndex.inSlices(docs, this.vault().settings, null, this.slicer().tick);
      if (this.building !== building) return; // reset, or overtaken by engine()
      this.building = null;
      this.live = live;
      for (const changes of this.queued) this.follow(changes);
      this.queued = [];
      this.roomAhead();
    })();
    this.building = building;
    return building;
  }

  /** Whether `engine()` answers without building anything. */
  get engineReady(): boolean {
    return this.loaded && this.live !== null;
  }
}
