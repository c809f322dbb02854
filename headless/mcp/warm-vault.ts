import { watch, statSync, type FSWatcher } from 'node:fs';
import * as nodePath from 'node:path';
import { EMBEDDINGS_INDEX, loadVectors, type StoredVectors } from '../../src/core/embeddings/store';
import { searchVectors } from '../../src/core/embeddings/vector-search';
import type { Embedder } from '../../src/core/ports';
import type { RecallEngine } from '../../src/core/recall/recall';
import { openRecall } from '../../src/core/recall/results';
import { LAYOUT, MEMORY_FOLDERS } from '../../src/core/vault';
import { createEmbedder } from '../embedders';
import { openVault, type Runtime, type RuntimeOptions } from '../runtime';

/**
 * The vault as a long-lived process holds it (`engram mcp`): the recall engine, the stored
 * vectors and the embedder stay in memory between requests, and are rebuilt only when the
 * vault changed on disk (Obsidian, cron, another agent, or this process).
 *
 * Changes are seen two ways: a file-system watch on each memory folder (every create,
 * rename, delete and in-place save), and, at each request, the folders' mtimes (every
 * create, rename and delete, which is every write Engram makes: a temp file renamed into
 * place), so a change that lands just before a request is not missed while its watch event
 * is still queued. Settings (.engram/config.json) are re-read when their mtime changes.
 */
export class WarmVault {
  private current: Runtime | null = null;
  private configStamp = '';
  private engineValue: Promise<RecallEngine> | null = null;
  private dirty = true;
  private folderStamps = '';
  private watchers: FSWatcher[] = [];
  private watching = false;
  private vectorsValue: { stamp: string; vectors: StoredVectors | null } | null = null;
  private embedderValue: { key: string; embedder: Embedder | null } | null = null;
  /** How many times the engine was (re)built: for tests and the benchmark. */
  builds = 0;

  constructor(
    private readonly options: RuntimeOptions,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  /** The vault with its current settings (opened once, again when config.json changes). */
  runtime(): Runtime {
    const root = this.current?.root;
    const stamp = root ? stampOf(nodePath.join(root, LAYOUT.config)) : '';
    if (!this.current || stamp !== this.configStamp) {
      this.current = openVault(this.options);
      this.configStamp = stampOf(nodePath.join(this.current.root, LAYOUT.config));
      this.engineValue = null;
      this.embedderValue = null;
      this.startWatching(this.current.root);
    }
    return this.current;
  }

  private startWatching(root: string): void {
    if (this.watching) return;
    this.watching = true;
    for (const folder of MEMORY_FOLDERS) {
      try {
        const watcher = watch(nodePath.join(root, folder), { persistent: false }, () => {
          this.dirty = true;
        });
        watcher.on('error', () => {
          this.dirty = true;
        });
        this.watchers.push(watcher);
      } catch (error) {
        // no watch (a missing folder, inotify limits): the folder mtimes still catch Engram's own writes
        this.warn(`cannot watch ${folder}/ (${(error as NodeJS.ErrnoException).code ?? String(error)}): edits saved in place by other programs are seen only with the next create, rename or delete`);
      }
    }
  }

  private folderStamp(root: string): string {
    return MEMORY_FOLDERS.map((folder) => stampOf(nodePath.join(root, folder))).join('|');
  }

  /** Mark the engine stale (after this process wrote). */
  invalidate(): void {
    this.dirty = true;
  }

  /** The recall engine over the vault as it is now. */
  async engine(): Promise<RecallEngine> {
    // Let the watch events already queued (a save that happened before this request arrived)
    // run first: they come in the same poll of the event loop as the request, in any order.
    await new Promise((resolve) => setImmediate(resolve));
    const { vault, root } = this.runtime();
    const stamps = this.folderStamp(root);
    if (this.dirty || stamps !== this.folderStamps || !this.engineValue) {
      this.dirty = false;
      this.folderStamps = stamps;
      this.builds++;
      const building = openRecall(vault);
      this.engineValue = building;
      building.catch(() => {
        if (this.engineValue === building) this.engineValue = null;
      });
    }
    return this.engineValue!;
  }

  /** The configured embedder (kept: loading a model is slow), or null. */
  embedder(): Embedder | null {
    const { vault, root } = this.runtime();
    const key = JSON.stringify(vault.settings.embedder);
    if (!this.embedderValue || this.embedderValue.key !== key) this.embedderValue = { key, embedder: createEmbedder(vault.settings.embedder, root) };
    return this.embedderValue.embedder;
  }

  /** Vector seeds for queries, when an embedder and current vectors exist; lexical otherwise. */
  async vectorSeeds(queries: string[]): Promise<Array<Map<string, number> | undefined>> {
    const none = queries.map(() => undefined);
    const embedder = this.embedder();
    if (!embedder) return none;
    const { vault, root } = this.runtime();
    const stamp = stampOf(nodePath.join(root, EMBEDDINGS_INDEX));
    if (!this.vectorsValue || this.vectorsValue.stamp !== stamp) this.vectorsValue = { stamp, vectors: (await loadVectors(vault)).vectors };
    const vectors = this.vectorsValue.vectors;
    if (!vectors || vectors.model !== embedder.model) return none;
    try {
      const embedded = await embedder.embed(queries);
      return embedded.map((q) => searchVectors(vectors, q, vault.settings.recall.seeds));
    } catch (error) {
      this.warn(`${error instanceof Error ? error.message : String(error)}; recalling with lexical seeds only`);
      return none;
    }
  }

  close(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }
}

function stampOf(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'none';
  }
}
