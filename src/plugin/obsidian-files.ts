import { normalizePath, TFile, TFolder, type App } from 'obsidian';
import { WriteConflictError } from '../core/errors';
import type { FileStat, FileStore, Locks } from '../core/ports';

/**
 * The core's file port over Obsidian's vault API, rooted at the memory folder. Notes are read
 * with `vault.read` and written with `vault.process` (Obsidian's atomic read-modify-write,
 * which also keeps an open editor in step), created with `vault.create` and moved with
 * `fileManager.renameFile`; the hidden `.engram/` machine files, which Obsidian does not
 * index, go through `vault.adapter`. A write with `expect` is a compare-and-swap: inside
 * `process`, the current text must still be the text the change was computed from.
 */
export class ObsidianFileStore implements FileStore {
  /** Texts this plugin wrote, by vault path, so `modify` events they cause can be told apart. */
  private readonly ownWrites = new Map<string, string>();

  constructor(
    private readonly app: App,
    private root: string,
  ) {}

  /** Another memory folder (the settings changed). */
  setRoot(root: string): void {
    this.root = root;
  }

  full(path: string): string {
    return normalizePath(this.root ? `${this.root}/${path}` : path);
  }

  /** The memory-folder path of a vault path, or null when it lies outside the memory folder. */
  relative(vaultPath: string): string | null {
    if (!this.root) return vaultPath;
    const prefix = `${normalizePath(this.root)}/`;
    return vaultPath.startsWith(prefix) ? vaultPath.slice(prefix.length) : null;
  }

  /** Whether `text` at `vaultPath` is what this plugin last wrote there (and forget it). */
  isOwnWrite(vaultPath: string, text: string): boolean {
    const mine = this.ownWrites.get(vaultPath) === text;
    if (mine) this.ownWrites.delete(vaultPath);
    return mine;
  }

  private file(path: string): TFile | null {
    const found = this.app.vault.getAbstractFileByPath(this.full(path));
    return found instanceof TFile ? found : null;
  }

  async read(path: string): Promise<Uint8Array | null> {
    const file = this.file(path);
    if (file) return new TextEncoder().encode(await this.app.vault.read(file));
    const full = this.full(path);
    if (!(await this.app.vault.adapter.exists(full))) return null;
    return new Uint8Array(await this.app.vault.adapter.readBinary(full));
  }

  async stat(path: string): Promise<FileStat | null> {
    const file = this.file(path);
    if (file) return { size: file.stat.size, mtimeMs: file.stat.mtime };
    const stat = await this.app.vault.adapter.stat(this.full(path));
    return stat && stat.type === 'file' ? { size: stat.size, mtimeMs: stat.mtime } : null;
  }

  async list(dir: string): Promise<string[]> {
    return (await this.listStats(dir)).map((entry) => entry.name);
  }

  /** Names of the folders directly inside `dir` (the core walks sub-folders of the memory folders). */
  async folders(dir: string): Promise<string[]> {
    const folder = this.app.vault.getAbstractFileByPath(this.full(dir));
    if (folder instanceof TFolder) return folder.children.filter((child): child is TFolder => child instanceof TFolder).map((f) => f.name);
    const full = this.full(dir);
    if (!(await this.app.vault.adapter.exists(full))) return [];
    return (await this.app.vault.adapter.list(full)).folders.map((f) => f.slice(f.lastIndexOf('/') + 1));
  }

  async listStats(dir: string): Promise<Array<FileStat & { name: string }>> {
    const folder = this.app.vault.getAbstractFileByPath(this.full(dir));
    if (folder instanceof TFolder) {
      return folder.children.filter((child): child is TFile => child instanceof TFile).map((f) => ({ name: f.name, size: f.stat.size, mtimeMs: f.stat.mtime }));
    }
    const full = this.full(dir);
    if (!(await this.app.vault.adapter.exists(full))) return [];
    const listing = await this.app.vault.adapter.list(full);
    const out: Array<FileStat & { name: string }> = [];
    for (const file of listing.files) {
      const stat = await this.app.vault.adapter.stat(file);
      if (stat && stat.type === 'file') out.push({ name: file.slice(file.lastIndexOf('/') + 1), size: stat.size, mtimeMs: stat.mtime });
    }
    return out;
  }

  async write(path: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<void> {
    const full = this.full(path);
    const file = this.file(path);
    if (typeof data !== 'string' || path.startsWith('.engram/')) {
      await this.writeHidden(full, data, options.expect);
      return;
    }
    if (file) {
      if (options.expect === null) throw new WriteConflictError(path);
      let conflict = false;
      await this.app.vault.process(file, (current) => {
        if (options.expect !== undefined && current !== options.expect) {
          conflict = true;
          return current;
        }
        this.ownWrites.set(full, data);
        return data;
      });
      if (conflict) throw new WriteConflictError(path);
      return;
    }
    if (options.expect !== undefined && options.expect !== null) throw new WriteConflictError(path);
    await this.ensureFolder(full.slice(0, Math.max(0, full.lastIndexOf('/'))));
    this.ownWrites.set(full, data);
    try {
      await this.app.vault.create(full, data);
    } catch {
      this.ownWrites.delete(full);
      throw new WriteConflictError(path);
    }
  }

  private async writeHidden(full: string, data: string | Uint8Array, expect: string | null | undefined): Promise<void> {
    const adapter = this.app.vault.adapter;
    if (expect !== undefined) {
      const exists = await adapter.exists(full);
      if (expect === null ? exists : !exists || (await adapter.read(full)) !== expect) throw new WriteConflictError(full);
    }
    await this.ensureFolder(full.slice(0, Math.max(0, full.lastIndexOf('/'))), true);
    if (typeof data === 'string') await adapter.write(full, data);
    else await adapter.writeBinary(full, data.slice().buffer);
  }

  private async ensureFolder(folder: string, hidden = false): Promise<void> {
    if (!folder || (await this.app.vault.adapter.exists(folder))) return;
    if (hidden) await this.app.vault.adapter.mkdir(folder);
    else await this.app.vault.createFolder(folder);
  }

  async move(from: string, to: string): Promise<void> {
    const file = this.file(from);
    if (!file) throw new WriteConflictError(from);
    if (this.file(to)) throw new WriteConflictError(to);
    const target = this.full(to);
    await this.ensureFolder(target.slice(0, target.lastIndexOf('/')));
    await this.app.fileManager.renameFile(file, target);
  }

  async remove(path: string): Promise<void> {
    const file = this.file(path);
    if (file) await this.app.fileManager.trashFile(file);
    else if (await this.app.vault.adapter.exists(this.full(path))) await this.app.vault.adapter.remove(this.full(path));
  }

  async mkdir(path: string): Promise<void> {
    await this.ensureFolder(this.full(path), path.startsWith('.engram'));
  }
}

/**
 * Locks inside Obsidian: one process, so a promise chain per key serialises writers. The
 * runner's consolidation lock (a `.lock` folder in `.engram/locks/`) is honoured by
 * `tryLock`, so the plugin's "consolidate now" and a cron run never overlap.
 */
export class ObsidianLocks implements Locks {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly app: App,
    private readonly files: ObsidianFileStore,
    private readonly staleMs = 10_000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.chains.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    }
  }

  async tryLock(key: string, holder: string): Promise<{ release: () => Promise<void> } | { heldBy: string }> {
    const adapter = this.app.vault.adapter;
    const dir = this.files.full(`.engram/locks/${key}.lock`);
    const info = this.files.full(`.engram/locks/${key}.holder.json`);
    const stat = await adapter.stat(dir);
    if (stat && this.now() - stat.mtime <= this.staleMs) {
      let heldBy = 'another process';
      try {
        const parsed = JSON.parse(await adapter.read(info)) as { holder?: string; pid?: number; host?: string };
        heldBy = `${parsed.holder ?? 'engram'} (pid ${parsed.pid ?? '?'} on ${parsed.host ?? '?'})`;
      } catch {
        // no holder description: keep the generic one
      }
      return { heldBy };
    }
    if (stat) await adapter.rmdir(dir, true);
    await adapter.mkdir(dir);
    await adapter.write(info, JSON.stringify({ pid: 0, host: 'obsidian', holder }));
    // a new entry in the lock folder moves its mtime: the lock stays fresh while held
    const refresh = window.setInterval(() => {
      void adapter
        .remove(`${dir}/.refresh`)
        .catch(() => undefined)
        .then(() => adapter.write(`${dir}/.refresh`, String(this.now())));
    }, this.staleMs / 2);
    return {
      release: async () => {
        window.clearInterval(refresh);
        await adapter.rmdir(dir, true);
        if (await adapter.exists(info)) await adapter.remove(info);
      },
    };
  }
}
