import { lstatSync, readdirSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { opendir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { EMBEDDINGS_INDEX, loadVectors, type StoredVectors } from '../../src/core/embeddings/store';
import { searchVectors } from '../../src/core/embeddings/vector-search';
import { ARCHIVE_FOLDER, decodeNote, parseMemory } from '../../src/core/memory';
import type { Embedder } from '../../src/core/ports';
import { CATALOG_PATH, listMemoryFiles, loadCatalog, toRecallDoc, type RecallDoc } from '../../src/core/recall/catalog';
import { LiveIndex } from '../../src/core/recall/live-index';
import type { RecallEngine } from '../../src/core/recall/recall';
import { Slicer, sortInSlices } from '../../src/core/slicer';
import { ShardedMap } from '../../src/core/sharded-map';
import { openRecall } from '../../src/core/recall/results';
import type { FileStore } from '../../src/core/ports';
import { LAYOUT, MEMORY_FOLDERS, type Vault } from '../../src/core/vault';
import { scanMemoryFiles } from '../../src/core/memory-files';
import { createEmbedder } from '../embedders';
import { openVault, type Runtime, type RuntimeOptions } from '../runtime';

/**
 * The vault as a long-lived process holds it (`engram mcp`): the recall engine, the stored
 * vectors and the embedder stay in memory between requests, and follow the vault on disk
 * (Obsidian, cron, another agent, or this process) without being rebuilt from scratch.
 *
 * Changes are seen by a file-system watch on each memory folder and each of its sub-folders (a
 * person files memories in folders of their own, ADR 0005), which names the file (every create,
 * rename, delete and in-place save); a sub-folder that appears is watched from then on. As a
 * safety net, the folders' mtimes (a create, rename or delete that no event reported makes the
 * next request compare the whole listing). One watch per folder rather than `recursive: true`:
 * on Linux, Node 20 builds a recursive watch in JavaScript from a scan of the tree, and events
 * just after it starts, or in a folder created meanwhile, can be missed. Before each request
 * the event loop turns once, so a save that happened before the request arrived has been seen.
 *
 * The engine opens from the recall snapshot. The documents are loaded (the catalog cache, only
 * changed files parsed) in the background soon after (`preload`), in slices of at most
 * PRELOAD_SLICE_MS with a turn of the event loop between them, or at the first change if that
 * comes first. From then on a LiveIndex (src/core/recall/live-index.ts) follows each change in
 * place: an edit re-indexes its row, a new memory takes the next row (whatever its name: remember
 * names files by their title), a deleted one leaves its row empty, with answers exactly those of
 * an engine built afresh from the documents in row order (the catalog's path order, new memories
 * after it; two memories with exactly equal scores may come in another order than in a cold
 * recall, which reads them in path order, as the earlier append did). A shared id or a memory
 * whose id changes builds the indexes again from the documents in memory.
 * Settings (.engram/config.json) are re-read when their mtime changes.
 */

interface Known {
  size: number;
  mtimeMs: number;
  /**
   * The inode and the change time, when a stat gave them (a listing gives size and mtime only):
   * a file replaced by a rename, or rewritten with its size and mtime kept (a copy that keeps
   * times, doctor --fix), changes one of them, and neither can be set back by a program.
   */
  ino?: number;
  ctimeMs?: number;
}

/** Whether a file is the one known: size, mtime, and the inode and change time when known (else it is read again). */
const same = (known: Known | undefined, stat: Known): boolean =>
  known !== undefined && known.size === stat.size && known.mtimeMs === stat.mtimeMs && known.ino === stat.ino && known.ctimeMs === stat.ctimeMs;

export interface WarmStats {
  /** Engines opened from the snapshot; documents loaded (and indexed); changes followed in place; changes that built the indexes again. */
  opened: number;
  loaded: number;
  followed: number;
  rebuilt: number;
}

export class WarmVault {
  private current: Runtime | null = null;
  private configStamp = '';
  private engineValue: RecallEngine | null = null;
  private pending: Promise<RecallEngine> | null = null;
  /** The documents loading in the background (preloadNow), null when not. */
  private background: Promise<void> | null = null;
  private live: LiveIndex | null = null;
  /** Sharded: a JS Map of every file rehashes them all in the one step that takes it past 65,536 or 131,072 (sharded-map.ts). */
  private known = new ShardedMap<Known>();
  /**
   * Entries named *.md in the memory folders that are no regular file (a symbolic link loop, a
   * FIFO, a folder): a command's own process counts them among the files it could not read
   * (scanMemoryFiles' others), and so does unreadable().
   */
  private others = new Set<string>();
  private changed = new Set<string>();
  private folderStamps = '';
  /** One watch per folder, by vault-relative path. */
  private watchers = new Map<string, FSWatcher>();
  private watchRoot: string | null = null;
  private watching = false;
  private watchFailed = false;
  /** A sub-folder appeared since the last request: its files are found by listing. */
  private newFolders = false;
  /** The preload's slicer while it runs. */
  private slicer: Slicer | null = null;
  /** Requests being answered (serve): the preload runs no slice meanwhile. */
  private serving = 0;
  /** The preload waiting for the requests being answered to end: woken by the last one, or by a hurry. */
  private waiting: Array<() => void> = [];
  /** Units of work (files, documents) in each slice of the last preload. */
  preloadSlices: number[] = [];
  private vectorsValue: { stamp: string; vectors: StoredVectors | null } | null = null;
  private embedderValue: { key: string; embedder: Embedder | null } | null = null;
  readonly stats: WarmStats = { opened: 0, loaded: 0, followed: 0, rebuilt: 0 };

  constructor(
    private readonly options: RuntimeOptions,
    private readonly warn: (message: string) => void = () => undefined,
    /** Load the documents soon after the engine opens, while the process waits for requests. */
    private readonly preload = false,
    /** Documents per preload slice (tests); default: slices of PRELOAD_SLICE_MS of work. */
    private readonly preloadSlice: number | null = null,
  ) {}

  /** The vault with its current settings (opened once, again when config.json changes). */
  runtime(): Runtime {
    const root = this.current?.root;
    const stamp = root ? stampOf(nodePath.join(root, LAYOUT.config)) : '';
    if (!this.current || stamp !== this.configStamp) {
      this.current = openVault(this.options);
      this.configStamp = stampOf(nodePath.join(this.current.root, LAYOUT.config));
      this.engineValue = null;
      this.live = null;
      this.embedderValue = null;
      this.startWatching(this.current.root);
    }
    return this.current;
  }

  private startWatching(root: string): void {
    if (this.watching) return;
    this.watching = true;
    this.watchRoot = root;
    for (const folder of MEMORY_FOLDERS) this.watchTree(folder);
  }

  /** Watch a folder (vault-relative) and every sub-folder under it not yet watched (dot-folders skipped). */
  private watchTree(folder: string): void {
    const root = this.watchRoot;
    if (root === null || this.watchers.has(folder)) return;
    try {
      const watcher = watch(nodePath.join(root, folder), { persistent: false }, (_event, name) => {
        if (name === null) {
          this.watchFailed = true;
          return;
        }
        const path = `${folder}/${String(name)}`;
        if (path.endsWith('.md')) this.changed.add(path);
        else if (!String(name).startsWith('.') && isFolder(nodePath.join(root, path))) {
          // a sub-folder made or moved in: watch it, and list it (the files it came with)
          this.watchTree(path);
          this.newFolders = true;
        }
      });
      watcher.on('error', () => {
        this.watchFailed = true;
      });
      this.watchers.set(folder, watcher);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && folder.includes('/')) return; // a sub-folder gone before its watch started
      this.watchFailed = true;
      this.warn(`cannot watch ${folder}/ (${code ?? String(error)}): edits saved in place by other programs are seen only with the next create, rename or delete`);
      return;
    }
    let entries: string[] = [];
    try {
      entries = readdirSync(nodePath.join(root, folder), { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
        .map((e) => e.name);
    } catch {
      return;
    }
    for (const name of entries.sort()) this.watchTree(`${folder}/${name}`);
  }

  /** The mtimes of every watched folder (a folder gone since is dropped with its watch). */
  private folderStamp(root: string): string {
    const stamps: string[] = [];
    for (const folder of [...new Set([...MEMORY_FOLDERS, ...this.watchers.keys()])].sort()) {
      const stamp = stampOf(nodePath.join(root, folder));
      if (stamp === 'none' && !(MEMORY_FOLDERS as readonly string[]).includes(folder)) {
        this.watchers.get(folder)?.close();
        this.watchers.delete(folder);
      }
      stamps.push(`${folder}=${stamp}`);
    }
    return stamps.join('|');
  }

  /** The recall engine over the vault as it is now. One refresh at a time. */
  async engine(): Promise<RecallEngine> {
    // Let the watch events already queued (a save that happened before this request arrived)
    // run first: they come in the same turn of the event loop as the request, in any order.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending) await this.pending.catch(() => undefined);
    const { vault, root } = this.runtime();
    const stamps = this.folderStamp(root);
    // nothing changed: the engine as it is, even while the documents load in the background
    if (this.engineValue && this.changed.size === 0 && stamps === this.folderStamps && !this.newFolders) return this.engineValue;
    // a change needs the documents: a load under way finishes now, without pausing
    this.hurryPreload();
    while (this.background) await this.background;
    const rescan = (stamps !== this.folderStamps && (this.changed.size === 0 || this.watchFailed)) || this.newFolders;
    this.newFolders = false;
    this.folderStamps = stamps;
    this.pending = this.refresh(vault, rescan);
    try {
      return await this.pending;
    } finally {
      this.pending = null;
    }
  }

  private async refresh(vault: Vault, rescan: boolean): Promise<RecallEngine> {
    if (!this.engineValue) {
      this.changed.clear();
      this.engineValue = await openRecall(vault);
      this.stats.opened++;
      if (this.preload) setTimeout(() => void this.preloadNow(), 20).unref();
      return this.engineValue;
    }
    if (!this.live) return this.loadDocs(vault);
    const paths = new Set(this.changed);
    this.changed.clear();
    if (rescan) {
      const listing = await listMemoryFiles(vault);
      const present = new Set<string>();
      for (const [path, size, mtimeMs] of listing) {
        present.add(path);
        const known = this.known.get(path);
        if (!known || known.size !== size || known.mtimeMs !== mtimeMs) paths.add(path);
      }
      for (const path of this.known.keys()) if (!present.has(path)) paths.add(path);
      for (const path of this.others) paths.add(path);
    }
    return this.apply(vault, [...paths].sort());
  }

  /**
   * What the first change would do, done while no request waits, in slices of at most
   * PRELOAD_SLICE_MS (or `preloadSlice` documents, for tests) with a turn of the event loop
   * between them: a request that needs nothing changed is answered between two slices; one
   * that brings a change finishes the load at once, without pausing (it needs the documents).
   */
  async preloadNow(): Promise<void> {
    if (this.pending || this.background || this.live || !this.current) return;
    const { vault, root } = this.current;
    const engine = this.engineValue;
    // between two slices: a turn of the event loop, then no slice while a request is answered
    // (until the preload is hurried: then a request waits for it)
    const pause = async (): Promise<void> => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.serving > 0 && !slicer.isHurried) await new Promise<void>((resolve) => this.waiting.push(resolve));
    };
    const slicer = new Slicer(this.preloadSlice, () => performance.now(), pause);
    this.slicer = slicer;
    this.preloadSlices = slicer.slices;
    this.background = (async () => {
      try {
        const others: string[] = [];
        const sliced = slicedVault(vault, root, slicer.tick, others);
        const listing = await listMemoryFiles(sliced, slicer.tick);
        const catalog = await loadCatalog(sliced, { listing, pause: slicer.tick });
        const live = await LiveIndex.inSlices(catalog.docs, vault.settings, null, slicer.tick);
        const known = new ShardedMap<Known>();
        for (const [path, size, mtimeMs] of listing) {
          known.set(path, { size, mtimeMs });
          await slicer.tick();
        }
        if (this.engineValue !== engine || this.current?.vault !== vault) return; // the vault was reopened meanwhile
        this.known = known;
        this.others = new Set(others);
        this.live = live;
        this.stats.loaded++;
        this.engineValue = live.engine;
        this.roomAhead();
      } catch {
        this.live = null; // the next change loads them
      } finally {
        this.background = null;
        this.slicer = null;
      }
    })();
    await this.background;
  }

  /** The documents of every memory (the catalog cache; changed files parsed), and indexes over them. */
  private async loadDocs(vault: Vault): Promise<RecallEngine> {
    this.changed.clear();
    const scan = await scanMemoryFiles(vault.ports.files, MEMORY_FOLDERS);
    const listing = scan.files;
    this.others = new Set(scan.others);
    const catalog = await loadCatalog(vault, { listing });
    const known = new ShardedMap<Known>();
    for (const [path, size, mtimeMs] of listing) known.set(path, { size, mtimeMs });
    this.known = known;
    this.live = new LiveIndex(catalog.docs, vault.settings, null);
    this.stats.loaded++;
    this.engineValue = this.live.engine;
    this.roomAhead();
    return this.engineValue;
  }

  /**
   * Room for the next additions made while no request waits (LiveIndex.reserve, one array per
   * turn of the event loop), so that no addition copies an array of the whole table.
   */
  private roomAhead(): void {
    const live = this.live;
    if (!live?.wantsRoom) return;
    const slicer = new Slicer(null, () => performance.now(), () => new Promise<void>((resolve) => setImmediate(resolve)));
    void live.reserve(slicer.tick);
  }

  /** Apply changed files to the index (LiveIndex: in place, or built again when it must be). */
  private async apply(vault: Vault, paths: string[]): Promise<RecallEngine> {
    const live = this.live!;
    const upserts: RecallDoc[] = [];
    const removed: string[] = [];
    for (const path of paths) {
      const stat = statOf(nodePath.join(this.current!.root, path));
      if (!stat && path.endsWith('.md') && lstatOf(nodePath.join(this.current!.root, path))) this.others.add(path);
      else this.others.delete(path);
      if (stat && same(this.known.get(path), stat)) continue;
      const doc = stat ? await readDoc(vault, path) : null;
      if (stat) this.known.set(path, stat);
      else this.known.delete(path);
      if (doc) upserts.push(doc);
      else if (live.at(path)) removed.push(path);
    }
    if (upserts.length === 0 && removed.length === 0) return this.engineValue!;
    if (live.apply(upserts, removed)) this.stats.followed++;
    else this.stats.rebuilt++;
    this.engineValue = live.engine;
    this.roomAhead();
    return this.engineValue;
  }

  /**
   * Answer one request: while any is answered, the background preload runs no slice, so a request
   * pays at most the slice under way when it came (PRELOAD_SLICE_MS). Before, every turn of the
   * event loop a request awaited (engine()'s, the texts' reads) let one more slice run: a recall
   * took 20-27 ms p50 while the documents preloaded, 4-7 ms after (bench-mcp, 10k and 100k).
   */
  async serve<T>(answer: () => Promise<T>): Promise<T> {
    this.serving++;
    try {
      return await answer();
    } finally {
      if (--this.serving === 0) this.wake();
    }
  }

  /** Whether the preload is waiting for the requests being answered to end (tests, diagnostics). */
  get preloadWaiting(): boolean {
    return this.waiting.length > 0;
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** The preload under way finishes at once: no more pauses, nor waits for requests (one may be waiting for it). */
  private hurryPreload(): void {
    if (!this.slicer) return;
    this.slicer.hurry();
    this.wake();
  }

  /** The documents loaded and indexed now, at once (what the preload does in slices): from then on unreadable() counts. */
  async loadNow(): Promise<void> {
    if (this.live) return;
    await this.engine();
    // at once: a request being answered (serve) may be what waits for them
    this.hurryPreload();
    while (this.background) await this.background;
    if (this.live || !this.current) return;
    this.pending = this.loadDocs(this.current.vault);
    try {
      await this.pending;
    } finally {
      this.pending = null;
    }
  }

  /**
   * Memory files listed that the engine holds no document for (they could not be read as
   * memories), once the documents are loaded (loadNow, the preload, a change); 0 before.
   */
  unreadable(): number {
    return this.live && this.engineValue ? Math.max(0, this.known.size + this.others.size - this.engineValue.size) : 0;
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
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

/**
 * The vault as the preload reads it: its file store's listStats with the folder read off the
 * event loop, its names sorted in slices, and a tick after each file's stat (the store's own,
 * one stat a file, done here between ticks: the same listing, in the order listMemoryStats
 * sorts it in, which then finds it sorted); the catalog cache read and written off the event
 * loop (a large file, 34 MB at 100,000 memories, which the store reads and writes at once).
 * Everything else is the vault's own.
 */
function slicedVault(vault: Vault, root: string, tick: () => Promise<void>, others: string[]): Vault {
  const files = vault.ports.files;
  const store = Object.create(files) as FileStore;
  // each folder read a batch of entries at a time (a listing of 100,000 names made at once is a
  // block of 40-150 ms), its sub-folders kept for `folders`, which the walk asks for next
  const folders = new Map<string, string[]>();
  store.listStats = async (rel) => {
    const dir = nodePath.join(root, rel);
    const names: string[] = [];
    const subs: string[] = [];
    try {
      for await (const entry of await opendir(dir, { bufferSize: 256 })) {
        if (entry.isDirectory()) {
          subs.push(entry.name);
          if (entry.name.endsWith('.md')) others.push(`${rel}/${entry.name}`);
        } else names.push(entry.name);
        await tick();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    folders.set(rel, subs);
    const out: Array<{ name: string; size: number; mtimeMs: number }> = [];
    for (const name of await sortInSlices(names, (a, b) => (a < b ? -1 : a > b ? 1 : 0), tick)) {
      await tick();
      let s: Stats | undefined;
      try {
        s = statSync(nodePath.join(dir, name), { throwIfNoEntry: false });
      } catch {
        s = undefined; // a link loop
      }
      if (s?.isFile()) out.push({ name, size: s.size, mtimeMs: s.mtimeMs });
      else if (name.endsWith('.md')) others.push(`${rel}/${name}`);
    }
    return out;
  };
  store.folders = async (rel) => {
    const known = folders.get(rel);
    folders.delete(rel);
    return known ?? (files.folders ? files.folders(rel) : []);
  };
  store.read = async (rel, options) => {
    if (rel !== CATALOG_PATH) return files.read(rel, options);
    try {
      const bytes = await readFile(nodePath.join(root, rel));
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length); // not copied
    } catch {
      return null;
    }
  };
  store.write = async (rel, data, options) => {
    if (rel !== CATALOG_PATH || options?.expect !== undefined) return files.write(rel, data, options);
    // machine data, replaced whole: a temporary file renamed over it, as the store writes
    const full = nodePath.join(root, rel);
    const temp = `${full}.${process.pid}.preload.tmp`;
    try {
      await writeFile(temp, data);
      await rename(temp, full);
    } finally {
      await rm(temp, { force: true });
    }
    const s = statSync(full);
    return { size: s.size, mtimeMs: s.mtimeMs };
  };
  const sliced = Object.create(vault) as Vault & { ports: Vault['ports'] };
  Object.defineProperty(sliced, 'ports', { value: { ...vault.ports, files: store } });
  return sliced;
}

/** A memory file as a recall document; null when it is gone or cannot be read as a memory. */
async function readDoc(vault: Vault, path: string): Promise<RecallDoc | null> {
  try {
    const bytes = await vault.ports.files.read(path);
    if (!bytes) return null;
    const memory = parseMemory(path, decodeNote(path, bytes, vault.settings.maxFileBytes), vault.settings);
    return toRecallDoc(memory, path.startsWith(`${ARCHIVE_FOLDER}/`));
  } catch {
    return null;
  }
}

/** Whether anything is at the path, without following a link. */
function lstatOf(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function statOf(path: string): Known | null {
  try {
    const s = statSync(path);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ctimeMs: s.ctimeMs } : null;
  } catch {
    return null;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
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
