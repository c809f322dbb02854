import { MemoryParseError } from '../core/errors';
import { ARCHIVE_FOLDER, parseMemory } from '../core/memory';
import { loadCatalog, toRecallDoc, type RecallDoc } from '../core/recall/catalog';
import { partsFromDocs, RecallEngine } from '../core/recall/recall';
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
 * The recall engine is rebuilt from these documents when something changed and it is asked
 * for (a few hundred milliseconds at 10,000 memories, measured by `npm run bench:plugin`),
 * or in the background shortly after a change.
 */
export class MemoryIndex {
  private readonly docs = new Map<string, RecallDoc>();
  private readonly idByPath = new Map<string, string>();
  private readonly listeners = new Set<(changes: IndexChange[]) => void>();
  private engineCache: RecallEngine | null = null;
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
      this.engineCache = null;
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
    this.problems.clear();
    this.engineCache = null;
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

  /** Listen to changes; returns the function that stops listening. */
  subscribe(fn: (changes: IndexChange[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(changes: IndexChange[]): void {
    if (changes.length === 0) return;
    this.engineCache = null;
    for (const fn of [...this.listeners]) fn(changes);
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
    if (before) {
      this.docs.delete(before.id);
      this.idByPath.delete(before.path);
    }
    if (after) this.put(after);
    const id = after?.id ?? before?.id;
    if (id) this.emit([{ id, before, after }]);
  }

  /** A memory note moved (to archive/, or renamed): its path changes, and whether it is archived. */
  renamed(oldPath: string, newPath: string | null): void {
    const id = this.idByPath.get(oldPath);
    this.problems.delete(oldPath);
    if (!id) return;
    const before = this.docs.get(id)!;
    this.docs.delete(id);
    this.idByPath.delete(oldPath);
    let after: RecallDoc | null = null;
    if (newPath !== null && newPath.replace(/^.*\//, '') === oldPath.replace(/^.*\//, '')) {
      after = { ...before, path: newPath, archived: newPath.startsWith(`${ARCHIVE_FOLDER}/`) };
      this.put(after);
    }
    this.emit([{ id, before, after }]);
  }

  /** A memory note was deleted. */
  removed(path: string): void {
    this.renamed(path, null);
  }

  /** The recall engine over the current documents (built again after changes). */
  engine(): RecallEngine {
    const settings = this.vault().settings;
    this.engineCache ??= new RecallEngine(partsFromDocs([...this.docs.values()], settings), settings);
    return this.engineCache;
  }

  /** Whether `engine()` would answer without building. */
  get engineReady(): boolean {
    return this.engineCache !== null;
  }
}
