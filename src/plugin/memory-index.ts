import { MemoryParseError } from '../core/errors';
import { ARCHIVE_FOLDER, parseMemory } from '../core/memory';
import { preferredPath } from '../core/memory-files';
import { loadCatalog, toRecallDoc, type RecallDoc } from '../core/recall/catalog';
import { tableFromDocs } from '../core/recall/doc-table';
import { patchRow, sameLinks, sameWords } from '../core/recall/engine-update';
import { episodesFromDocs, lexicalFromDocs, partsFromDocs, RecallEngine, type EngineParts } from '../core/recall/recall';
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
 * The recall engine follows the changes with the least work each needs (`npm run bench:plugin`
 * measures them at 10,000 memories): a touch, a mark or consolidation's writes change fields,
 * written into the document table's row; changed links, co-access or a move rebuild the table;
 * a new memory is appended to the word index (and the episode index is built again if it has
 * an episode); changed words rebuild the word index (and the episode index, for a member of an
 * episode); only a delete indexes everything again. What rebuilds an index the plugin does in
 * the background soon after (`engineReady` is false until then).
 */
export class MemoryIndex {
  private readonly docs = new Map<string, RecallDoc>();
  private readonly idByPath = new Map<string, string>();
  /**
   * Second files of an id (a sync conflict copy, a duplicate made in a file manager), by path:
   * the memory is the file `preferredPath` picks, as in the core; consolidation merges the copies.
   */
  readonly copies = new Map<string, string>();
  private readonly listeners = new Set<(changes: IndexChange[]) => void>();
  private engineCache: RecallEngine | null = null;
  /** The engine's parts and its documents by row, while they follow the changes. */
  private parts: EngineParts | null = null;
  private rows: RecallDoc[] = [];
  private rowOf = new Map<string, number>();
  /** What `engine()` builds again from `rows` before answering. */
  private stale = { table: false, lexical: false, episodes: false };
  private loading: Promise<void> | null = null;
  loaded = false;
  /** Files that could not be read as memories, by path. */
  readonly problems = new Map<string, string>();

  constructor(private readonly vault: () => Vault) {}

  /** Load (once) from the catalog. */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const { docs, problems } = await loadCatalog(this.vault());
      this.docs.clear();
      this.idByPath.clear();
      for (const doc of docs) this.put(doc);
      for (const p of problems) this.problems.set(p.path, p.reason);
      this.loaded = true;
      this.dropEngine();
      this.emit(docs.map((doc) => ({ id: doc.id, before: null, after: doc })));
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
    this.engineCache = null;
    this.parts = null;
    this.rows = [];
    this.rowOf.clear();
    this.stale = { table: false, lexical: false, episodes: false };
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

  /** Carry the engine's parts over the changes (or give them up: the next `engine()` rebuilds). */
  private follow(changes: IndexChange[]): void {
    this.engineCache = null;
    const parts = this.parts;
    if (!parts) return;
    const stale = this.stale;
    for (const { id, before, after } of changes) {
      const row = this.rowOf.get(id);
      if (before && after && row !== undefined) {
        // the same memory changed: a touch, a mark, new co-access, an edit, a move to archive/
        this.rows[row] = after;
        const words = !sameWords(before, after);
        stale.lexical ||= words;
        stale.episodes ||= before.session !== after.session || (words && after.session !== null);
        if (!words && before.session === after.session && before.path === after.path && sameLinks(before, after) && !stale.table) patchRow(parts.table, row, after);
        else stale.table = true;
      } else if (!before && after && row === undefined) {
        // a new memory: a new row at the end
        if (!stale.lexical) parts.lexical.add(after.facets ? [...after.terms, ...after.facets] : after.terms, after.terms.length);
        this.rowOf.set(id, this.rows.length);
        this.rows.push(after);
        stale.table = true;
        stale.episodes ||= after.session !== null;
      } else {
        // a delete (or a change the index did not see the start of): rows would move
        this.dropEngine();
        return;
      }
    }
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

  /** The recall engine over the current documents. */
  engine(): RecallEngine {
    if (this.engineCache) return this.engineCache;
    const settings = this.vault().settings;
    if (!this.parts) {
      this.rows = [...this.docs.values()];
      this.rowOf = new Map(this.rows.map((d, i) => [d.id, i]));
      this.parts = partsFromDocs(this.rows, settings);
      this.stale = { table: false, lexical: false, episodes: false };
    } else if (this.stale.table || this.stale.lexical || this.stale.episodes) {
      const { table, lexical, episodes } = this.stale;
      let next: EngineParts = { ...this.parts };
      if (lexical) next.lexical = lexicalFromDocs(this.rows, settings);
      if (episodes) next = { ...next, ...episodesFromDocs(this.rows, settings) };
      else if (next.episodeOf.length < this.rows.length) {
        next.episodeOf = new Int32Array(this.rows.length).fill(-1);
        next.episodeOf.set(this.parts.episodeOf);
      }
      if (table || lexical || episodes) next.table = tableFromDocs(this.rows);
      this.parts = next;
      this.stale = { table: false, lexical: false, episodes: false };
    }
    this.engineCache = new RecallEngine(this.parts, settings);
    return this.engineCache;
  }

  /**
   * Whether `engine()` answers without indexing words again: at most the document table is
   * rebuilt (under 20 ms at 10,000 memories). After new words (an edit, a new member of an
   * episode) it rebuilds the word or episode index (60-130 ms), after a delete everything
   * (0.1-0.4 s): the plugin does that in the background when the app is idle.
   */
  get engineReady(): boolean {
    return this.loaded && this.parts !== null && !this.stale.lexical && !this.stale.episodes;
  }
}
