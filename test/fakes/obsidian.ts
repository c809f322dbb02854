/**
 * A fake of the part of Obsidian's API that Engram's plugin uses, over a real folder on disk,
 * for jest's jsdom environment. It behaves as the app does where the plugin depends on it, and
 * where a naive fake would be forgiving, each such behaviour cites where it is documented:
 * - the file tree (TFile/TFolder) mirrors the folder and leaves out dot-folders (.obsidian,
 *   .engram), which only `vault.adapter` reaches;
 * - `file-open` fires on EVERY change of the active leaf (tab switch, closing a tab, a split,
 *   a restored workspace), not only when a note is opened: "The `file-open` is always
 *   triggered for the `Workspace.activeLeaf`" and "`file-open` events fire for
 *   `active-leaf-change` as well" (obsidianmd/obsidian-api#37, kept for backwards
 *   compatibility); obsidian.d.ts: "Triggered when the active file changes. The file could be
 *   in a new leaf, an existing leaf, or an embed";
 * - a restored layout (start-up, `changeLayout`) leaves background tabs deferred until shown
 *   (obsidian.d.ts `WorkspaceLeaf.isDeferred`, since 1.7.2; obsidian-workspaces-plus#131
 *   loads them after `changeLayout()`);
 * - `vault.process` is asynchronous: the file is read, changed and written, `modify` fires after
 *   the write, and the metadata cache fires `changed` later, once it has re-parsed the note
 *   (obsidian-releases#116: "MetadataCache resolves after the modify event");
 * - a rename fires the vault's `rename` and NO metadata `changed` (obsidian.d.ts, MetadataCache
 *   `changed`: "This is not called when a file is renamed for performance reasons. You must
 *   hook the vault rename event for those.");
 * - typing in an editor fires `editor-change` at once, and the note is saved (`modify`) only
 *   after a pause of about two seconds (obsidian-git#1113: modify is not per keystroke);
 * - `adapter.getResourcePath` returns `app://<vault id>/<absolute path>?<mtime>` on desktop
 *   (obsidian-dynamic-background#8 for the form; obsidian-js-engine-plugin PR #1: "the desktop
 *   version append a `?mtime` suffix"), so a path appended to it breaks;
 * - `vault.create` refuses an existing path; `fileManager.renameFile` moves and fires `rename`
 *   with the old path (obsidian.d.ts, Vault `on('rename', (file, oldPath))`), and updates the
 *   links to the file in other notes (obsidian.d.ts, FileManager.renameFile: "Rename or move a
 *   file safely, and update all links to it depending on the user's preferences"; here the
 *   preference "Automatically update internal links" is assumed on, `updateLinks`), writing
 *   each linking note (`modify`) with the shortest link text that still resolves (the name when
 *   it is unique in the vault, else the path: assumed from the app's "shortest path" default);
 * - ASSUMED (not documented in obsidian.d.ts): a rename made outside the app (a file manager,
 *   git) reaches the app through its file watcher as a `delete` of the old path and a `create`
 *   of the new one, with no link updates (`renameOutside`);
 * - DOCUMENTED (obsidian-help, "Troubleshoot Obsidian Sync" > Conflict resolution, from app
 *   1.9.7): with Sync's device setting "Create conflict file", a note changed on two devices
 *   before they synced is not merged: "The conflict file contains the changes from the device
 *   where the conflict was detected. The original file keeps the remote version", named
 *   `original-note-name (Conflicted copy device-name YYYYMMDDHHMM).md` (`syncConflict`: the
 *   note gets the other device's text, a `modify`, and the local text goes to the conflict file,
 *   a `create`; `syncConflictCopy` creates only the file). ASSUMED: the order of the two writes
 *   (the copy first, so the local text is never only in memory) and that the stamp is local
 *   time (tests run with TZ=UTC). The default setting, "Automatically merge" (diff-match-patch),
 *   is not reproduced;
 * - `metadataCache.getFirstLinkpathDest` resolves a link by path, then by file name (obsidian.d.ts:
 *   "Get the best match for a linkpath");
 * - events registered through a Component are removed when it unloads, and the counts of live
 *   listeners are exposed so tests can check that nothing is left;
 * - `workspace.onLayoutReady` runs its callback once the layout is ready;
 * - plugin views of a registered type are closed when the plugin unloads;
 * - a plugin's settings tab is shown in one of two ways, by the app's version (`setApiVersion`):
 *   before 1.13 the app calls `display()`; from 1.13 it calls `getSettingDefinitions()` and, when
 *   that returns items, draws them itself and never calls `display()` (obsidian.d.ts,
 *   `SettingTab.display`: "Not called when getSettingDefinitions returns a non-empty array");
 *   `update()` and `refreshDomState()` exist only from 1.13 (`@since 1.13.0`), and the app's
 *   settings search finds the definitions (`searchSettings`).
 * Not reproduced: the declarative `control`, `action`, `list` and `page` items (the fake throws
 * on them: Engram uses `render` rows in groups) and the search's ranking (a substring match here),
 * Obsidian's own YAML serialiser (processFrontMatter here re-serialises with
 * js-yaml), CodeMirror (a minimal Editor over a string), rendering, mobile, sync, and the exact
 * order of `layout-change` against `file-open` inside `changeLayout` (undocumented; here
 * `layout-change` comes first).
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import * as yaml from 'js-yaml';
import { setImmediate as ioTurn } from 'node:timers';
import { installObsidianDom } from './obsidian-dom';
import type { SettingDefinitionItem, SettingGroup as SettingGroupType, Setting as SettingType } from 'obsidian';

if (typeof window !== 'undefined') installObsidianDom(window);

export function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/\/+/g, '/').replace(/^\/+|\/+$/g, '') || '/';
}

/**
 * The app's version (obsidian.d.ts `apiVersion`: "the API version of the app, which follows the
 * release cycle of the desktop app"). The default is the version of the `obsidian` types in
 * package.json; `setApiVersion('1.8.7')` runs a test as an app older than the declarative
 * settings API (manifest.json's minAppVersion).
 */
export let apiVersion = '1.13.1';
export function setApiVersion(version: string): void {
  apiVersion = version;
}

/** obsidian.d.ts: "Returns true if the API version is equal or higher than the requested version." */
export function requireApiVersion(version: string): boolean {
  const have = apiVersion.split('.').map(Number);
  const want = version.split('.').map(Number);
  for (let i = 0; i < Math.max(have.length, want.length); i++) {
    const diff = (have[i] ?? 0) - (want[i] ?? 0);
    if (diff !== 0) return diff > 0;
  }
  return true;
}

export const Platform = { isDesktopApp: true, isDesktop: true, isMobile: false, isMobileApp: false, isPhone: false, isTablet: false };

/** How long the metadata cache takes to re-parse a changed note before `changed` fires (ms). */
export const METADATA_DELAY_MS = 5;
/** How long an editor waits after the last keystroke before it saves the note (ms). */
export const EDITOR_SAVE_MS = 2000;

export interface EventRef {
  owner: Events;
  name: string;
  fn: (...args: unknown[]) => unknown;
}

export class Events {
  private handlers = new Map<string, EventRef[]>();
  on(name: string, fn: (...args: any[]) => unknown): EventRef {
    const ref: EventRef = { owner: this, name, fn };
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), ref]);
    return ref;
  }
  off(name: string, fn: (...args: any[]) => unknown): void {
    this.handlers.set(name, (this.handlers.get(name) ?? []).filter((r) => r.fn !== fn));
  }
  offref(ref: EventRef): void {
    this.handlers.set(ref.name, (this.handlers.get(ref.name) ?? []).filter((r) => r !== ref));
  }
  trigger(name: string, ...args: unknown[]): void {
    for (const ref of [...(this.handlers.get(name) ?? [])]) ref.fn(...args);
  }
  tryTrigger(ref: EventRef, args: unknown[]): void {
    ref.fn(...args);
  }
  /** Test helper: live listeners, all events or one. */
  listenerCount(name?: string): number {
    if (name) return this.handlers.get(name)?.length ?? 0;
    let n = 0;
    for (const list of this.handlers.values()) n += list.length;
    return n;
  }
}

export class Component {
  private loaded = false;
  private readonly cleanups: Array<() => void> = [];
  private readonly children: Component[] = [];
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    void this.onload();
    for (const child of this.children) child.load();
  }
  onload(): void | Promise<void> {}
  unload(): void {
    if (!this.loaded) return;
    this.loaded = false;
    for (const child of this.children.splice(0)) child.unload();
    for (const fn of this.cleanups.splice(0).reverse()) fn();
    this.onunload();
  }
  onunload(): void {}
  addChild<T extends Component>(child: T): T {
    this.children.push(child);
    if (this.loaded) child.load();
    return child;
  }
  register(fn: () => void): void {
    this.cleanups.push(fn);
  }
  registerEvent(ref: EventRef): void {
    this.register(() => ref.owner.offref(ref));
  }
  registerDomEvent(el: EventTarget, type: string, fn: EventListener): void {
    el.addEventListener(type, fn);
    this.register(() => el.removeEventListener(type, fn));
  }
  registerInterval(id: number): number {
    this.register(() => window.clearInterval(id));
    return id;
  }
}

export abstract class TAbstractFile {
  vault!: Vault;
  path = '';
  name = '';
  parent: TFolder | null = null;
}

export class TFile extends TAbstractFile {
  stat = { ctime: 0, mtime: 0, size: 0 };
  basename = '';
  extension = '';
}

export class TFolder extends TAbstractFile {
  children: TAbstractFile[] = [];
  isRoot(): boolean {
    return this.path === '/';
  }
}

interface Stat {
  type: 'file' | 'folder';
  ctime: number;
  mtime: number;
  size: number;
}

/** One turn of the event loop (the app's file system calls are asynchronous). */
function turn(): Promise<void> {
  return new Promise((resolve) => ioTurn(resolve));
}

/** The vault's id in resource URLs (the app uses a hash of the vault). */
export const VAULT_ID = '3f1c2a9e8b7d6c5f';

/** FileSystemAdapter over the vault's folder: paths relative to it, '/'-separated. */
export class DataAdapter {
  constructor(readonly basePath: string) {}
  private abs(path: string): string {
    const normal = normalizePath(path);
    return normal === '/' ? this.basePath : nodePath.join(this.basePath, normal);
  }
  getName(): string {
    return nodePath.basename(this.basePath);
  }
  async exists(path: string): Promise<boolean> {
    return fs.existsSync(this.abs(path));
  }
  async stat(path: string): Promise<Stat | null> {
    try {
      const s = fs.statSync(this.abs(path));
      return { type: s.isDirectory() ? 'folder' : 'file', ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size };
    } catch {
      return null;
    }
  }
  async list(path: string): Promise<{ files: string[]; folders: string[] }> {
    const base = normalizePath(path);
    const entries = fs.readdirSync(this.abs(path), { withFileTypes: true });
    const join = (name: string) => (base === '/' ? name : `${base}/${name}`);
    return { files: entries.filter((e) => e.isFile()).map((e) => join(e.name)), folders: entries.filter((e) => e.isDirectory()).map((e) => join(e.name)) };
  }
  async read(path: string): Promise<string> {
    return fs.readFileSync(this.abs(path), 'utf8');
  }
  async readBinary(path: string): Promise<ArrayBuffer> {
    const b = fs.readFileSync(this.abs(path));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  }
  async write(path: string, data: string): Promise<void> {
    fs.mkdirSync(nodePath.dirname(this.abs(path)), { recursive: true });
    fs.writeFileSync(this.abs(path), data);
  }
  async writeBinary(path: string, data: ArrayBuffer): Promise<void> {
    fs.mkdirSync(nodePath.dirname(this.abs(path)), { recursive: true });
    fs.writeFileSync(this.abs(path), Buffer.from(data));
  }
  async mkdir(path: string): Promise<void> {
    fs.mkdirSync(this.abs(path), { recursive: true });
  }
  async remove(path: string): Promise<void> {
    fs.rmSync(this.abs(path));
  }
  async rmdir(path: string, recursive: boolean): Promise<void> {
    fs.rmSync(this.abs(path), { recursive, force: false });
  }
  async rename(from: string, to: string): Promise<void> {
    fs.renameSync(this.abs(from), this.abs(to));
  }
  /** As the desktop app: `app://<vault id>/<absolute path>?<mtime>` (the query is a cache-buster). */
  getResourcePath(path: string): string {
    const abs = this.abs(path);
    const url = `app://${VAULT_ID}/${abs.split(nodePath.sep).map(encodeURIComponent).join('/').replace(/^\//, '')}`;
    try {
      return `${url}?${Math.round(fs.statSync(abs).mtimeMs)}`;
    } catch {
      return url;
    }
  }
}

export class Vault extends Events {
  readonly adapter: DataAdapter;
  readonly configDir = '.obsidian';
  private readonly files = new Map<string, TAbstractFile>();
  private readonly root: TFolder;
  /** Test counters. */
  writes = 0;

  constructor(basePath: string) {
    super();
    this.adapter = new DataAdapter(basePath);
    this.root = new TFolder();
    this.root.vault = this;
    this.root.path = '/';
    this.files.set('/', this.root);
    this.scan('');
  }

  private scan(dir: string): void {
    for (const entry of fs.readdirSync(nodePath.join(this.adapter.basePath, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        this.addFolder(path);
        this.scan(path);
      } else this.addFile(path);
    }
  }

  private parentOf(path: string): TFolder {
    const i = path.lastIndexOf('/');
    return (i < 0 ? this.root : this.files.get(path.slice(0, i))) as TFolder;
  }

  private addFolder(path: string): TFolder {
    const folder = new TFolder();
    folder.vault = this;
    folder.path = path;
    folder.name = path.slice(path.lastIndexOf('/') + 1);
    folder.parent = this.parentOf(path);
    folder.parent.children.push(folder);
    this.files.set(path, folder);
    return folder;
  }

  private addFile(path: string): TFile {
    const file = new TFile();
    file.vault = this;
    this.place(file, path);
    this.refreshStat(file);
    return file;
  }

  private place(file: TFile, path: string): void {
    file.path = path;
    file.name = path.slice(path.lastIndexOf('/') + 1);
    const dot = file.name.lastIndexOf('.');
    file.basename = dot > 0 ? file.name.slice(0, dot) : file.name;
    file.extension = dot > 0 ? file.name.slice(dot + 1) : '';
    file.parent = this.parentOf(path);
    file.parent.children.push(file);
    this.files.set(path, file);
  }

  private refreshStat(file: TFile): void {
    const s = fs.statSync(nodePath.join(this.adapter.basePath, file.path));
    file.stat = { ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size };
  }

  getName(): string {
    return this.adapter.getName();
  }
  getRoot(): TFolder {
    return this.root;
  }
  getAbstractFileByPath(path: string): TAbstractFile | null {
    return this.files.get(normalizePath(path)) ?? null;
  }
  getFileByPath(path: string): TFile | null {
    const f = this.getAbstractFileByPath(path);
    return f instanceof TFile ? f : null;
  }
  getFiles(): TFile[] {
    return [...this.files.values()].filter((f): f is TFile => f instanceof TFile);
  }
  getMarkdownFiles(): TFile[] {
    return this.getFiles().filter((f) => f.extension === 'md');
  }
  async read(file: TFile): Promise<string> {
    return fs.readFileSync(nodePath.join(this.adapter.basePath, file.path), 'utf8');
  }
  async cachedRead(file: TFile): Promise<string> {
    return this.read(file);
  }
  /** Called after every write of a note (the app keeps the note's open editors in step). */
  afterWrite: ((file: TFile, data: string) => void) | null = null;
  /** Writes of one file are queued: `process` is atomic (nothing interleaves its read and write). */
  private readonly queues = new Map<string, Promise<unknown>>();
  private serial<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(path) ?? Promise.resolve()).then(fn, fn);
    const settled = run.catch(() => undefined);
    this.queues.set(path, settled);
    void settled.then(() => {
      if (this.queues.get(path) === settled) this.queues.delete(path);
    });
    return run;
  }
  private writeFile(file: TFile, data: string): void {
    fs.writeFileSync(nodePath.join(this.adapter.basePath, file.path), data);
    this.writes++;
    this.refreshStat(file);
    this.afterWrite?.(file, data);
    this.trigger('modify', file);
  }
  async modify(file: TFile, data: string): Promise<void> {
    await this.serial(file.path, async () => {
      await turn();
      this.writeFile(file, data);
    });
  }
  /** As the app: asynchronous read, the change applied synchronously, asynchronous write, then `modify`. */
  async process(file: TFile, fn: (data: string) => string): Promise<string> {
    return this.serial(file.path, async () => {
      await turn();
      const current = fs.readFileSync(nodePath.join(this.adapter.basePath, file.path), 'utf8');
      const next = fn(current);
      if (next === current) return next;
      await turn();
      this.writeFile(file, next);
      return next;
    });
  }
  async create(path: string, data: string): Promise<TFile> {
    const normal = normalizePath(path);
    const abs = nodePath.join(this.adapter.basePath, normal);
    if (this.files.has(normal) || fs.existsSync(abs)) throw new Error('File already exists.');
    if (!this.files.has(normal.slice(0, Math.max(0, normal.lastIndexOf('/')))) && normal.includes('/')) throw new Error('Folder does not exist.');
    fs.writeFileSync(abs, data, { flag: 'wx' });
    this.writes++;
    const file = this.addFile(normal);
    this.trigger('create', file);
    return file;
  }
  async createFolder(path: string): Promise<TFolder> {
    const normal = normalizePath(path);
    if (this.files.has(normal)) throw new Error('Folder already exists.');
    const parts = normal.split('/');
    let folder: TFolder = this.root;
    for (let i = 1; i <= parts.length; i++) {
      const p = parts.slice(0, i).join('/');
      fs.mkdirSync(nodePath.join(this.adapter.basePath, p), { recursive: true });
      folder = (this.files.get(p) as TFolder | undefined) ?? this.addFolder(p);
    }
    this.trigger('create', folder);
    return folder;
  }
  /** Used by FileManager.renameFile. */
  async rename(file: TAbstractFile, newPath: string): Promise<void> {
    const normal = normalizePath(newPath);
    if (this.files.has(normal)) throw new Error('Destination file already exists!');
    if (!(file instanceof TFile)) throw new Error('the fake renames files only');
    const old = file.path;
    fs.renameSync(nodePath.join(this.adapter.basePath, old), nodePath.join(this.adapter.basePath, normal));
    file.parent!.children = file.parent!.children.filter((c) => c !== file);
    this.files.delete(old);
    this.place(file, normal);
    this.trigger('rename', file, old);
  }
  /** ASSUMED: a rename outside the app (file manager, git) is seen as a delete and a create. */
  async renameOutside(from: string, to: string): Promise<TFile> {
    const file = this.getFileByPath(from)!;
    const text = fs.readFileSync(nodePath.join(this.adapter.basePath, from), 'utf8');
    await this.delete(file);
    const dir = to.includes('/') ? to.slice(0, to.lastIndexOf('/')) : '';
    if (dir && !this.files.has(dir)) await this.createFolder(dir);
    fs.writeFileSync(nodePath.join(this.adapter.basePath, to), text);
    const moved = this.addFile(normalizePath(to));
    this.trigger('create', moved);
    return moved;
  }
  /** Obsidian Sync's conflict file (documented naming, see the top), beside the note, holding `text`. */
  async syncConflictCopy(path: string, text: string, device: string, at: Date): Promise<TFile> {
    const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
    return this.create(path.replace(/\.md$/, ` (Conflicted copy ${device} ${stamp}).md`), text);
  }
  /**
   * Obsidian Sync, set to "Create conflict file" on this device (`device`), downloads another
   * device's version of a note this device changed too: the conflict file gets this device's
   * text, the note the remote text (documented, see the top). Returns the conflict file.
   */
  async syncConflict(path: string, remote: string, device: string, at: Date): Promise<TFile> {
    const file = this.getFileByPath(path);
    if (!file) throw new Error(`no note at ${path}`);
    const local = fs.readFileSync(nodePath.join(this.adapter.basePath, path), 'utf8');
    const copy = await this.syncConflictCopy(path, local, device, at);
    this.writeFile(file, remote);
    return copy;
  }
  /** Write a note as the app does for its own changes (link updates): `modify` after the write. */
  writeNote(file: TFile, data: string): void {
    this.writeFile(file, data);
  }
  async delete(file: TAbstractFile): Promise<void> {
    fs.rmSync(nodePath.join(this.adapter.basePath, file.path), { recursive: true });
    file.parent!.children = file.parent!.children.filter((c) => c !== file);
    this.files.delete(file.path);
    this.trigger('delete', file);
  }
  async trash(file: TAbstractFile): Promise<void> {
    await this.delete(file);
  }
}

export interface CachedMetadata {
  frontmatter?: Record<string, any>;
}

export class MetadataCache extends Events {
  private readonly cache = new Map<string, CachedMetadata>();
  constructor(private readonly vault: Vault) {
    super();
    for (const file of vault.getMarkdownFiles()) this.cache.set(file.path, this.parse(fs.readFileSync(nodePath.join(vault.adapter.basePath, file.path), 'utf8')));
    // re-parsed a moment after the change (the app parses in a worker), then `changed`
    const update = (file: TAbstractFile) => {
      if (!(file instanceof TFile) || file.extension !== 'md') return;
      window.setTimeout(() => {
        if (vault.getAbstractFileByPath(file.path) !== file) return; // deleted or moved meanwhile
        const data = fs.readFileSync(nodePath.join(vault.adapter.basePath, file.path), 'utf8');
        const parsed = this.parse(data);
        this.cache.set(file.path, parsed);
        this.trigger('changed', file, data, parsed);
      }, METADATA_DELAY_MS);
    };
    vault.on('modify', update);
    vault.on('create', update);
    // a rename moves the cached metadata and fires no `changed` (obsidian.d.ts)
    vault.on('rename', (file: TAbstractFile, old: string) => {
      const cached = this.cache.get(old);
      this.cache.delete(old);
      if (cached) this.cache.set(file.path, cached);
    });
    vault.on('delete', (file: TAbstractFile) => {
      const previous = this.cache.get(file.path) ?? null;
      this.cache.delete(file.path);
      if (file instanceof TFile) this.trigger('deleted', file, previous);
    });
  }
  private parse(text: string): CachedMetadata {
    const m = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/.exec(text);
    if (!m) return {};
    try {
      const fm = yaml.load(m[1]!, { schema: yaml.CORE_SCHEMA });
      return typeof fm === 'object' && fm !== null ? { frontmatter: fm as Record<string, any> } : {};
    } catch {
      return {};
    }
  }
  getFileCache(file: TFile): CachedMetadata | null {
    return this.cache.get(file.path) ?? null;
  }
  /** The file a link points to: its path (with or without .md, relative to the vault), else a note of that name. */
  getFirstLinkpathDest(linkpath: string, sourcePath: string): TFile | null {
    void sourcePath; // the app prefers a match near the source; the fake has no ties to break that way
    const target = linkpath.replace(/#.*$/, '');
    const byPath = this.vault.getFileByPath(target) ?? this.vault.getFileByPath(`${target}.md`);
    if (byPath) return byPath;
    return this.vault.getMarkdownFiles().find((f) => f.basename === target) ?? null;
  }
  getCache(path: string): CachedMetadata | null {
    return this.cache.get(path) ?? null;
  }
}

export class FileManager {
  constructor(private readonly vault: Vault) {}
  async processFrontMatter(file: TFile, fn: (frontmatter: Record<string, any>) => void): Promise<void> {
    await this.vault.process(file, (text) => {
      const m = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/.exec(text);
      const fm = (m ? yaml.load(m[1]!, { schema: yaml.CORE_SCHEMA }) : {}) as Record<string, any>;
      fn(fm);
      const body = m ? text.slice(m[0].length) : text;
      return `---\n${yaml.dump(fm, { schema: yaml.CORE_SCHEMA, lineWidth: -1 })}---\n${body}`;
    });
  }
  /** The person's "Automatically update internal links" (assumed on). */
  updateLinks = true;
  async renameFile(file: TAbstractFile, newPath: string): Promise<void> {
    if (!(file instanceof TFile) || !this.updateLinks) {
      await this.vault.rename(file, newPath);
      return;
    }
    // the notes linking to it, found before the move (the app uses its resolved links)
    const linkRe = /\[\[([^\]|#]+)([^\]]*)\]\]/g;
    const resolves = (target: string) => target === file.basename || target === file.path || target === file.path.replace(/\.md$/, '');
    const linking = this.vault.getMarkdownFiles().filter((f) => f !== file && [...fs.readFileSync(nodePath.join(this.vault.adapter.basePath, f.path), 'utf8').matchAll(linkRe)].some((m) => resolves(m[1]!)));
    const oldBasename = file.basename;
    const oldPath = file.path;
    await this.vault.rename(file, newPath);
    const unique = this.vault.getMarkdownFiles().filter((f) => f.basename === file.basename).length === 1;
    const text = unique ? file.basename : file.path.replace(/\.md$/, '');
    for (const note of linking) {
      const before = fs.readFileSync(nodePath.join(this.vault.adapter.basePath, note.path), 'utf8');
      const after = before.replace(linkRe, (all, target: string, rest: string) => (target === oldBasename || target === oldPath || target === oldPath.replace(/\.md$/, '') ? `[[${text}${rest}]]` : all));
      if (after !== before) this.vault.writeNote(note, after);
    }
  }
  async trashFile(file: TAbstractFile): Promise<void> {
    await this.vault.trash(file);
  }
}

/** A minimal editor over a string, with a selection. */
export class Editor {
  constructor(
    public value = '',
    public selection: [number, number] = [0, 0],
  ) {}
  getValue(): string {
    return this.value;
  }
  setValue(v: string): void {
    this.value = v;
  }
  getSelection(): string {
    return this.value.slice(this.selection[0], this.selection[1]);
  }
  replaceSelection(text: string): void {
    this.value = this.value.slice(0, this.selection[0]) + text + this.value.slice(this.selection[1]);
    this.selection = [this.selection[0] + text.length, this.selection[0] + text.length];
  }
}

export class View extends Component {
  readonly containerEl: HTMLElement;
  app: App;
  icon = '';
  /** Whether opening a file may replace this view (an empty leaf and file views: yes). */
  navigation = true;
  constructor(readonly leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
    this.containerEl = document.createElement('div');
  }
  getViewType(): string {
    return 'empty';
  }
  getDisplayText(): string {
    return '';
  }
  getIcon(): string {
    return this.icon;
  }
  getState(): Record<string, unknown> {
    return {};
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
}

export class ItemView extends View {
  readonly contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.navigation = false;
    this.containerEl.createDiv({ cls: 'view-header' });
    this.contentEl = this.containerEl.createDiv({ cls: 'view-content' });
  }
}

/** The view of a background tab restored from a saved layout, until it is shown (since 1.7.2). */
export class DeferredView extends View {
  constructor(
    leaf: WorkspaceLeaf,
    readonly state: { type: string; file?: string },
  ) {
    super(leaf);
  }
  override getViewType(): string {
    return this.state.type;
  }
  override getState(): Record<string, unknown> {
    return this.state.file ? { file: this.state.file } : {};
  }
}

export class MarkdownView extends ItemView {
  override navigation = true;
  file: TFile | null = null;
  editor = new Editor();
  mode: 'source' | 'preview' = 'source';
  private saveTimer: number | null = null;
  override getViewType(): string {
    return 'markdown';
  }
  getMode(): 'source' | 'preview' {
    return this.mode;
  }
  override getState(): Record<string, unknown> {
    return this.file ? { file: this.file.path } : {};
  }
  /**
   * Test helper: the user types. `editor-change` fires at once; the note is saved (`modify`)
   * after EDITOR_SAVE_MS without another keystroke, as the app's editor does.
   */
  type(text: string): void {
    this.editor.setValue(this.editor.getValue() + text);
    this.app.workspace.trigger('editor-change', this.editor, this);
    if (this.saveTimer !== null) window.clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => {
      this.saveTimer = null;
      if (this.file) void this.app.vault.modify(this.file, this.editor.getValue());
    }, EDITOR_SAVE_MS);
  }
  /** Closing saves what was typed and not yet saved (as the app does). */
  override async onClose(): Promise<void> {
    if (this.saveTimer === null) return;
    window.clearTimeout(this.saveTimer);
    this.saveTimer = null;
    if (this.file) await this.app.vault.modify(this.file, this.editor.getValue());
  }
}

export interface OpenViewState {
  active?: boolean;
}

export class WorkspaceLeaf {
  view: View;
  constructor(readonly app: App) {
    this.view = new View(this);
  }
  get isDeferred(): boolean {
    return this.view instanceof DeferredView;
  }
  /** Load a deferred view (the app does it when the tab is shown). */
  async loadIfDeferred(): Promise<void> {
    const view = this.view;
    if (!(view instanceof DeferredView)) return;
    const file = view.state.file ? this.app.vault.getFileByPath(view.state.file) : null;
    if (file) await this.showFile(file);
    else await this.setViewState({ type: view.state.type });
  }
  /** Open a file here: `file-open` fires when this leaf is (or becomes) the active one. */
  async openFile(file: TFile, openState: OpenViewState = {}): Promise<void> {
    await this.showFile(file);
    const workspace = this.app.workspace;
    if (openState.active === false) {
      workspace.trigger('layout-change');
      return;
    }
    if (workspace.activeLeaf === this) workspace.trigger('file-open', file);
    else workspace.setActiveLeaf(this);
    workspace.trigger('layout-change');
  }
  private async showFile(file: TFile): Promise<void> {
    const view = this.view instanceof MarkdownView && !(this.view instanceof DeferredView) ? this.view : null;
    if (view) view.file = file;
    else {
      const fresh = new MarkdownView(this);
      fresh.file = file;
      await this.setView(fresh);
    }
    (this.view as MarkdownView).editor.setValue(await this.app.vault.read(file));
  }
  async setViewState(state: { type: string; active?: boolean; state?: { file?: string } }): Promise<void> {
    if (state.type === 'markdown' && state.state?.file) {
      const file = this.app.vault.getFileByPath(state.state.file);
      if (file) return this.openFile(file, { active: state.active ?? false });
    }
    const creator = this.app.workspace.viewCreators.get(state.type);
    if (!creator && state.type !== 'empty') throw new Error(`no view of type ${state.type}`);
    await this.setView(creator ? creator(this) : new View(this));
    if (state.active) this.app.workspace.setActiveLeaf(this);
    this.app.workspace.trigger('layout-change');
  }
  /** Replace the view (used by restores: a background tab gets a DeferredView). */
  async setView(view: View): Promise<void> {
    await this.closeView();
    this.view = view;
    document.body.appendChild(view.containerEl);
    if (!(view instanceof DeferredView)) {
      view.load();
      await view.onOpen();
    }
  }
  private async closeView(): Promise<void> {
    const old = this.view;
    if (!(old instanceof DeferredView)) {
      await old.onClose();
      old.unload();
    }
    old.containerEl.remove();
  }
  /** Close the tab; when it was the active one, the app activates the tab used before it. */
  async detach(): Promise<void> {
    await this.closeView();
    this.view = new View(this);
    this.app.workspace.removeLeaf(this);
  }
  getViewState(): { type: string; state: Record<string, unknown> } {
    return { type: this.view.getViewType(), state: this.view.getState() };
  }
}

export class Workspace extends Events {
  leaves: WorkspaceLeaf[] = [];
  activeLeaf: WorkspaceLeaf | null = null;
  /** Leaves in the order they were last active (most recent last). */
  private history: WorkspaceLeaf[] = [];
  layoutReady = false;
  readonly viewCreators = new Map<string, (leaf: WorkspaceLeaf) => View>();
  private readyCallbacks: Array<() => void> = [];
  constructor(readonly app: App) {
    super();
  }
  onLayoutReady(fn: () => void): void {
    if (this.layoutReady) fn();
    else this.readyCallbacks.push(fn);
  }
  /** Test helper: the app finished restoring the layout. */
  setLayoutReady(): void {
    this.layoutReady = true;
    for (const fn of this.readyCallbacks.splice(0)) fn();
    this.trigger('layout-change');
  }
  /** As the app: without newLeaf, the active leaf if it can navigate, else a new one. */
  getLeaf(newLeaf?: boolean | 'tab' | 'split' | 'window'): WorkspaceLeaf {
    if (!newLeaf && this.activeLeaf?.view.navigation) return this.activeLeaf;
    const leaf = new WorkspaceLeaf(this.app);
    this.leaves.push(leaf);
    return leaf;
  }
  /** A second pane showing what `leaf` shows, made active (the "Split right" command). */
  async duplicateLeaf(leaf: WorkspaceLeaf): Promise<WorkspaceLeaf> {
    const copy = this.getLeaf('split');
    const state = leaf.getViewState();
    const file = typeof state.state.file === 'string' ? this.app.vault.getFileByPath(state.state.file) : null;
    if (file) await copy.openFile(file);
    else await copy.setViewState({ type: state.type, active: true });
    return copy;
  }
  /**
   * As the app: a change of the active leaf fires `active-leaf-change` and then `file-open` with
   * the file the leaf shows (null for a view without one), whether or not that file is new to
   * the leaf (obsidianmd/obsidian-api#37). Showing a deferred tab loads it first.
   */
  setActiveLeaf(leaf: WorkspaceLeaf | null): void {
    if (leaf === this.activeLeaf) return;
    this.activeLeaf = leaf;
    if (leaf) this.history = [...this.history.filter((l) => l !== leaf), leaf];
    const announce = () => {
      this.trigger('active-leaf-change', leaf);
      const view = leaf?.view;
      this.trigger('file-open', view instanceof MarkdownView ? view.file : null);
    };
    if (leaf?.isDeferred) void leaf.loadIfDeferred().then(announce);
    else announce();
  }
  /** A leaf closed: forget it, and activate the one used before it when it was active. */
  removeLeaf(leaf: WorkspaceLeaf): void {
    this.leaves = this.leaves.filter((l) => l !== leaf);
    this.history = this.history.filter((l) => l !== leaf);
    if (this.activeLeaf === leaf) {
      this.activeLeaf = null;
      this.setActiveLeaf(this.history.at(-1) ?? null);
    }
    this.trigger('layout-change');
  }
  /**
   * Restore a saved layout (start-up, or the Workspaces plugin's `changeLayout`): every leaf is
   * replaced; background tabs stay deferred; then `layout-change`, and the active tab is shown
   * (`active-leaf-change`, `file-open`).
   */
  async changeLayout(layout: { tabs: Array<{ file?: string; type?: string; active?: boolean }> }): Promise<void> {
    for (const leaf of [...this.leaves]) {
      await leaf.setView(new View(leaf));
      this.leaves = this.leaves.filter((l) => l !== leaf);
    }
    this.history = [];
    this.activeLeaf = null;
    let active: WorkspaceLeaf | null = null;
    for (const tab of layout.tabs) {
      const leaf = new WorkspaceLeaf(this.app);
      this.leaves.push(leaf);
      await leaf.setView(new DeferredView(leaf, { type: tab.type ?? 'markdown', file: tab.file }));
      if (tab.active) active = leaf;
    }
    if (active) await active.loadIfDeferred();
    this.trigger('layout-change');
    this.setActiveLeaf(active);
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((l) => l.view.getViewType() === type);
  }
  iterateAllLeaves(fn: (leaf: WorkspaceLeaf) => unknown): void {
    for (const leaf of [...this.leaves]) fn(leaf);
  }
  getMostRecentLeaf(): WorkspaceLeaf | null {
    return this.history.at(-1) ?? null;
  }
  async revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
    this.setActiveLeaf(leaf);
  }
  /** As obsidian.d.ts: the active view's file, else the most recently active file. */
  getActiveFile(): TFile | null {
    for (const leaf of [this.activeLeaf, ...[...this.history].reverse()]) {
      const view = leaf?.view;
      if (view instanceof MarkdownView && view.file) return view.file;
    }
    return null;
  }
  getActiveViewOfType<T extends View>(type: abstract new (...args: any[]) => T): T | null {
    const view = this.activeLeaf?.view;
    return view instanceof type ? view : null;
  }
  async detachLeavesOfType(type: string): Promise<void> {
    for (const leaf of this.getLeavesOfType(type)) await leaf.detach();
  }
  /** Right sidebar leaf for a plugin view (as `getRightLeaf(false)`). */
  getRightLeaf(): WorkspaceLeaf {
    const leaf = new WorkspaceLeaf(this.app);
    this.leaves.push(leaf);
    return leaf;
  }
}

/**
 * The core graph plugin as far as Engram touches it: its settings live in memory (`options`,
 * read from `.obsidian/graph.json` when it starts) and it writes them back itself (`saveOptions`),
 * also whenever a graph view closes, so a graph.json written under it by another program is
 * overwritten (users report colour groups written to the file by hand vanishing when the graph
 * view closes). Not public API: Engram reaches it through `app.internalPlugins` with checks.
 */
export class GraphPluginFake {
  enabled = true;
  readonly instance: { options: Record<string, unknown>; saveOptions: () => Promise<void> };
  constructor(private readonly app: App) {
    const path = `${app.vault.configDir}/graph.json`;
    const file = nodePath.join(app.vault.adapter.basePath, path);
    const options = (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {}) as Record<string, unknown>;
    this.instance = { options, saveOptions: () => app.vault.adapter.write(path, JSON.stringify(this.instance.options, null, 2)) };
  }
}

/** The core graph view: shows the plugin's colour groups as they were when it opened; closing it saves the options. */
export class GraphViewFake extends ItemView {
  groups: unknown[] = [];
  constructor(
    leaf: WorkspaceLeaf,
    private readonly plugin: GraphPluginFake,
  ) {
    super(leaf);
  }
  override getViewType(): string {
    return 'graph';
  }
  override async onOpen(): Promise<void> {
    this.groups = JSON.parse(JSON.stringify(this.plugin.instance.options.colorGroups ?? [])) as unknown[];
  }
  override async onClose(): Promise<void> {
    await this.plugin.instance.saveOptions();
  }
}

export interface Command {
  id: string;
  name: string;
  hotkeys?: unknown[];
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
  editorCallback?: (editor: Editor, view: MarkdownView) => unknown;
  editorCheckCallback?: (checking: boolean, editor: Editor, view: MarkdownView) => boolean | void;
}

export class App {
  readonly vault: Vault;
  readonly metadataCache: MetadataCache;
  readonly fileManager: FileManager;
  readonly workspace: Workspace;
  readonly commands = {
    commands: new Map<string, Command>(),
    /** As Obsidian: false when the command is unavailable here. */
    executeCommandById: (id: string): boolean => {
      const cmd = this.commands.commands.get(id);
      if (!cmd) return false;
      const view = this.workspace.getActiveViewOfType(MarkdownView);
      if (cmd.editorCallback) {
        if (!view) return false;
        void cmd.editorCallback(view.editor, view);
        return true;
      }
      if (cmd.checkCallback) return cmd.checkCallback(false) !== false && cmd.checkCallback(true) !== false;
      void cmd.callback?.();
      return true;
    },
  };
  readonly settingTabs: PluginSettingTab[] = [];
  /** The settings modal's open tab (`openSettingTab`), if any. */
  shownSettingTab: PluginSettingTab | null = null;
  /**
   * The user opens a plugin's tab in the settings modal. From 1.13 the app asks the tab for its
   * definitions ("Called on every display()", obsidian.d.ts `getSettingDefinitions`) and draws
   * them if there are any; otherwise, and always before 1.13, it calls `display()`.
   */
  openSettingTab(tab: PluginSettingTab): void {
    this.closeSettings();
    document.body.appendChild(tab.containerEl);
    this.shownSettingTab = tab;
    if (requireApiVersion('1.13.0')) {
      tab.settingItems = tab.getSettingDefinitions();
      if (tab.settingItems.length > 0) {
        tab.drawn = 'definitions';
        tab.drawDefinitions();
        return;
      }
    }
    tab.drawn = 'display';
    tab.display();
  }
  /** The settings modal closes: the tab is hidden (`hide()`) and leaves the document. */
  closeSettings(): void {
    const tab = this.shownSettingTab;
    if (!tab) return;
    tab.hide();
    tab.drawn = null;
    tab.containerEl.remove();
    this.shownSettingTab = null;
  }
  /**
   * Obsidian 1.13's settings search, over what each tab stored with `update()` (obsidian.d.ts
   * `SettingTab.update`: "Stores the result of getSettingDefinitions() for rendering and search
   * indexing. Called by addSettingTab()"): the definitions whose name, description (a fragment's
   * textContent) or aliases hold the query, leaving out those with `searchable: false` and those
   * not visible ("hides the item and also excludes it from search"). Before 1.13 a plugin's
   * settings are not searchable at all.
   */
  searchSettings(query: string): Array<{ tab: string; name: string }> {
    if (!requireApiVersion('1.13.0')) return [];
    const q = query.toLowerCase();
    const found: Array<{ tab: string; name: string }> = [];
    const visit = (tab: PluginSettingTab, items: SettingDefinitionItem[]) => {
      for (const item of items) {
        if ('type' in item) {
          if (!isOn(item.visible)) continue;
          visit(tab, (item.items ?? []) as SettingDefinitionItem[]);
          continue;
        }
        if (!isOn(item.searchable) || !isOn(item.visible)) continue;
        const desc = typeof item.desc === 'string' ? item.desc : (item.desc?.textContent ?? '');
        const words = [item.name, desc, ...(item.aliases ?? [])].map((w) => w.toLowerCase());
        if (words.some((w) => w.includes(q))) found.push({ tab: tab.plugin.manifest.name, name: item.name });
      }
    };
    for (const tab of this.settingTabs) visit(tab, tab.settingItems);
    return found;
  }
  /** This device's storage for the vault (`loadLocalStorage`): not synced, survives restarts. */
  readonly localStorage = new Map<string, unknown>();
  loadLocalStorage(key: string): unknown {
    return this.localStorage.has(key) ? JSON.parse(JSON.stringify(this.localStorage.get(key))) : null;
  }
  saveLocalStorage(key: string, data: unknown): void {
    if (data === null) this.localStorage.delete(key);
    else this.localStorage.set(key, JSON.parse(JSON.stringify(data)));
  }
  /**
   * Property types (not public API): the app keeps them in memory and in .obsidian/types.json;
   * `setType` changes both.
   */
  readonly metadataTypeManager = {
    types: {} as Record<string, { name: string; type: string }>,
    setType: (name: string, type: string) => {
      this.metadataTypeManager.types[name] = { name, type };
      const types = Object.fromEntries(Object.entries(this.metadataTypeManager.types).map(([k, v]) => [k, v.type]));
      fs.writeFileSync(nodePath.join(this.vault.adapter.basePath, this.vault.configDir, 'types.json'), JSON.stringify({ types }, null, 2));
    },
  };
  /** Obsidian's core plugins; only the graph plugin is modelled. */
  readonly internalPlugins: { getPluginById(id: string): GraphPluginFake | null };
  constructor(basePath: string) {
    this.vault = new Vault(basePath);
    // the app reads the vault's property types at start
    const typesFile = nodePath.join(basePath, this.vault.configDir, 'types.json');
    if (fs.existsSync(typesFile)) {
      const saved = (JSON.parse(fs.readFileSync(typesFile, 'utf8')) as { types?: Record<string, string> }).types ?? {};
      for (const [name, type] of Object.entries(saved)) this.metadataTypeManager.types[name] = { name, type };
    }
    const graph = new GraphPluginFake(this);
    this.internalPlugins = { getPluginById: (id) => (id === 'graph' ? graph : null) };
    this.metadataCache = new MetadataCache(this.vault);
    this.fileManager = new FileManager(this.vault);
    this.workspace = new Workspace(this);
    this.workspace.viewCreators.set('graph', (leaf) => new GraphViewFake(leaf, graph));
    // the app keeps a note's open editors in step with what is written to it
    this.vault.afterWrite = (file, data) => {
      for (const leaf of this.workspace.leaves) if (leaf.view instanceof MarkdownView && leaf.view.file === file) leaf.view.editor.setValue(data);
    };
  }
}

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  minAppVersion: string;
  description: string;
  author: string;
  isDesktopOnly?: boolean;
  dir?: string;
}

export class Plugin extends Component {
  readonly statusBarItems: HTMLElement[] = [];
  readonly viewTypes: string[] = [];
  constructor(
    readonly app: App,
    readonly manifest: PluginManifest,
  ) {
    super();
  }
  addCommand(command: Command): Command {
    const full = { ...command, id: `${this.manifest.id}:${command.id}` };
    this.app.commands.commands.set(full.id, full);
    this.register(() => this.app.commands.commands.delete(full.id));
    return full;
  }
  addSettingTab(tab: PluginSettingTab): void {
    this.app.settingTabs.push(tab);
    // obsidian.d.ts `SettingTab.update`: "Called by addSettingTab()" (from 1.13, for search)
    if (requireApiVersion('1.13.0')) tab.update();
    this.register(() => this.app.settingTabs.splice(this.app.settingTabs.indexOf(tab), 1));
  }
  addStatusBarItem(): HTMLElement {
    const el = document.body.createDiv({ cls: 'status-bar-item' });
    this.statusBarItems.push(el);
    this.register(() => el.remove());
    return el;
  }
  /** Editor extensions (CodeMirror 6) the plugin registered; the app adds them to every editor. */
  readonly editorExtensions: unknown[] = [];
  /** Reading view post-processors; the app runs each on every rendered section. */
  readonly postProcessors: Array<(el: HTMLElement, ctx: unknown) => void | Promise<void>> = [];
  registerEditorExtension(extension: unknown): void {
    this.editorExtensions.push(extension);
    this.register(() => this.editorExtensions.splice(this.editorExtensions.indexOf(extension), 1));
  }
  registerMarkdownPostProcessor(fn: (el: HTMLElement, ctx: unknown) => void | Promise<void>): void {
    this.postProcessors.push(fn);
    this.register(() => this.postProcessors.splice(this.postProcessors.indexOf(fn), 1));
  }
  registerView(type: string, creator: (leaf: WorkspaceLeaf) => View): void {
    this.app.workspace.viewCreators.set(type, creator);
    this.viewTypes.push(type);
    this.register(() => {
      // the app closes the plugin's views when it unloads
      for (const leaf of this.app.workspace.getLeavesOfType(type)) void leaf.detach();
      this.app.workspace.viewCreators.delete(type);
    });
  }
  private dataPath(): string {
    return `${this.manifest.dir}/data.json`;
  }
  async loadData(): Promise<unknown> {
    const adapter = this.app.vault.adapter;
    return (await adapter.exists(this.dataPath())) ? JSON.parse(await adapter.read(this.dataPath())) : null;
  }
  async saveData(data: unknown): Promise<void> {
    await this.app.vault.adapter.write(this.dataPath(), JSON.stringify(data, null, 2));
  }
}

export class Notice {
  static shown: string[] = [];
  message: string;
  hidden = false;
  constructor(message: string) {
    this.message = message;
    Notice.shown.push(message);
  }
  setMessage(message: string): this {
    this.message = message;
    Notice.shown.push(message);
    return this;
  }
  hide(): void {
    this.hidden = true;
  }
}

export class Modal {
  readonly containerEl: HTMLElement;
  readonly modalEl: HTMLElement;
  readonly titleEl: HTMLElement;
  readonly contentEl: HTMLElement;
  static openModals: Modal[] = [];
  constructor(readonly app: App) {
    this.containerEl = document.createElement('div');
    this.modalEl = this.containerEl.createDiv({ cls: 'modal' });
    this.titleEl = this.modalEl.createDiv({ cls: 'modal-title' });
    this.contentEl = this.modalEl.createDiv({ cls: 'modal-content' });
  }
  setTitle(title: string): this {
    this.titleEl.setText(title);
    return this;
  }
  open(): void {
    document.body.appendChild(this.containerEl);
    Modal.openModals.push(this);
    this.onOpen();
  }
  close(): void {
    this.onClose();
    this.containerEl.remove();
    Modal.openModals = Modal.openModals.filter((m) => m !== this);
  }
  onOpen(): void {}
  onClose(): void {}
}

export abstract class SuggestModal<T> extends Modal {
  readonly inputEl: HTMLInputElement;
  placeholder = '';
  instructions: Array<{ command: string; purpose: string }> = [];
  constructor(app: App) {
    super(app);
    this.inputEl = this.modalEl.createEl('input');
  }
  setPlaceholder(p: string): void {
    this.placeholder = p;
  }
  setInstructions(i: Array<{ command: string; purpose: string }>): void {
    this.instructions = i;
  }
  abstract getSuggestions(query: string): T[] | Promise<T[]>;
  abstract renderSuggestion(value: T, el: HTMLElement): void;
  abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

/** A `visible` or `searchable` of a definition: absent means yes (obsidian.d.ts: "Default: true"). */
function isOn(value: boolean | (() => boolean) | undefined): boolean {
  return typeof value === 'function' ? value() : value !== false;
}

export abstract class PluginSettingTab {
  readonly containerEl: HTMLElement;
  /** obsidian.d.ts: "Nested setting definitions as returned by getSettingDefinitions(). Populated by update()." */
  settingItems: SettingDefinitionItem[] = [];
  /** How the settings modal drew this tab while it is open (`App.openSettingTab`). */
  drawn: 'definitions' | 'display' | null = null;
  /** The rows drawn from definitions: their `visible`, and the cleanup their `render` returned. */
  private rows: Array<{ el: HTMLElement; visible: () => boolean; cleanup: (() => void) | null }> = [];
  constructor(
    readonly app: App,
    readonly plugin: Plugin,
  ) {
    this.containerEl = document.createElement('div');
  }
  /** Required before 1.13 (the fake's tabs all target older apps too). */
  abstract display(): void;
  /** obsidian.d.ts: "Override to provide setting definitions." The base class has none. */
  getSettingDefinitions(): SettingDefinitionItem[] {
    return [];
  }
  /**
   * `@since 1.13.0`: absent from older apps (calling it there is a TypeError, as in the app).
   * Stores the definitions (search reads them) and, if the modal shows the tab drawn from them,
   * draws them again: the way to refresh a declarative tab (obsidian.d.ts, `refreshDomState`:
   * "For changes that affect the structure of the definitions themselves ... call `update()`
   * instead"; `SettingDefinitionPage.displayValue`: "Call `update()` on the setting tab to refresh
   * it after the value changes"; eslint-plugin-obsidianmd prefer-update-over-display: "Call
   * this.update() instead of this.display() to refresh a settings tab").
   */
  update(): void {
    if (!requireApiVersion('1.13.0')) throw new TypeError('this.update is not a function');
    this.settingItems = this.getSettingDefinitions();
    if (this.drawn === 'definitions') this.drawDefinitions();
  }
  /** `@since 1.13.0`: "Re-evaluate every `visible` and `disabled` predicate ... Cheap: toggles CSS state in place, no re-render." */
  refreshDomState(): void {
    if (!requireApiVersion('1.13.0')) throw new TypeError('this.refreshDomState is not a function');
    for (const row of this.rows) row.el.hidden = !row.visible();
  }
  /** "Hides the contents of the setting tab": the rows' cleanups run ("invoked before the row is torn down"). */
  hide(): void {
    this.teardown();
  }
  /** The app draws the stored definitions: a group under its heading, each row a Setting given to its `render`. */
  drawDefinitions(): void {
    this.teardown();
    for (const item of this.settingItems) this.drawItem(this.containerEl, item);
  }
  private teardown(): void {
    for (const row of this.rows) row.cleanup?.();
    this.rows = [];
    this.containerEl.empty();
  }
  private drawItem(parent: HTMLElement, item: SettingDefinitionItem): void {
    if ('type' in item) {
      if (item.type !== 'group') throw new Error(`the fake does not draw '${item.type}' items`);
      const groupEl = parent.createDiv({ cls: 'setting-group' });
      if (item.heading) new Setting(groupEl).setName(item.heading).setHeading();
      const listEl = groupEl.createDiv({ cls: 'setting-items' });
      this.rows.push({ el: groupEl, visible: () => isOn(item.visible), cleanup: null });
      groupEl.hidden = !isOn(item.visible);
      for (const child of item.items ?? []) this.drawItem(listEl, child as SettingDefinitionItem);
      return;
    }
    if (item.control !== undefined || item.action !== undefined) throw new Error(`the fake does not draw control or action definitions (${item.name})`);
    // SettingDefinitionBase: the name and description are "used for rendering and search"
    const setting = new Setting(parent).setName(item.name);
    if (typeof item.desc === 'string') setting.setDesc(item.desc);
    else if (item.desc) setting.descEl.appendChild(item.desc);
    const visible = () => isOn(item.visible);
    setting.settingEl.hidden = !visible();
    const group = { listEl: parent } as unknown as SettingGroupType;
    const cleanup = item.render?.(setting as unknown as SettingType, group);
    this.rows.push({ el: setting.settingEl, visible, cleanup: typeof cleanup === 'function' ? cleanup : null });
  }
}

class ValueComponent<T> {
  protected handler: ((value: T) => unknown) | null = null;
  onChange(fn: (value: T) => unknown): this {
    this.handler = fn;
    return this;
  }
}

export class TextComponent extends ValueComponent<string> {
  constructor(readonly inputEl: HTMLInputElement) {
    super();
    inputEl.addEventListener('input', () => void this.handler?.(inputEl.value));
  }
  setValue(v: string): this {
    this.inputEl.value = v;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
  }
  setPlaceholder(p: string): this {
    this.inputEl.placeholder = p;
    return this;
  }
}

export class ToggleComponent extends ValueComponent<boolean> {
  value = false;
  constructor(readonly toggleEl: HTMLElement) {
    super();
    toggleEl.addEventListener('click', () => this.click());
  }
  setValue(v: boolean): this {
    this.value = v;
    this.toggleEl.toggleClass('is-enabled', v);
    return this;
  }
  getValue(): boolean {
    return this.value;
  }
  /** The user flips the toggle (a click on it, as in the app). */
  click(): void {
    this.setValue(!this.value);
    void this.handler?.(this.value);
  }
}

export class DropdownComponent extends ValueComponent<string> {
  constructor(readonly selectEl: HTMLSelectElement) {
    super();
    selectEl.addEventListener('change', () => void this.handler?.(selectEl.value));
  }
  addOptions(options: Record<string, string>): this {
    for (const [value, text] of Object.entries(options)) this.selectEl.createEl('option', { value, text });
    return this;
  }
  setValue(v: string): this {
    this.selectEl.value = v;
    return this;
  }
  getValue(): string {
    return this.selectEl.value;
  }
}

export class ButtonComponent {
  private handler: (() => unknown) | null = null;
  constructor(readonly buttonEl: HTMLButtonElement) {
    buttonEl.addEventListener('click', () => void this.handler?.());
  }
  setButtonText(t: string): this {
    this.buttonEl.setText(t);
    return this;
  }
  setCta(): this {
    this.buttonEl.addClass('mod-cta');
    return this;
  }
  /** obsidian.d.ts `ButtonComponent.setTooltip`; the app shows it on hover and gives it to screen readers as aria-label. */
  setTooltip(tooltip: string): this {
    this.buttonEl.setAttribute('aria-label', tooltip);
    return this;
  }
  onClick(fn: () => unknown): this {
    this.handler = fn;
    return this;
  }
}

export class Setting {
  readonly settingEl: HTMLElement;
  readonly nameEl: HTMLElement;
  readonly descEl: HTMLElement;
  readonly controlEl: HTMLElement;
  readonly components: unknown[] = [];
  constructor(containerEl: HTMLElement) {
    this.settingEl = containerEl.createDiv({ cls: 'setting-item' });
    const info = this.settingEl.createDiv({ cls: 'setting-item-info' });
    this.nameEl = info.createDiv({ cls: 'setting-item-name' });
    this.descEl = info.createDiv({ cls: 'setting-item-description' });
    this.controlEl = this.settingEl.createDiv({ cls: 'setting-item-control' });
  }
  setName(name: string): this {
    this.nameEl.setText(name);
    return this;
  }
  setDesc(desc: string): this {
    this.descEl.setText(desc);
    return this;
  }
  setHeading(): this {
    this.settingEl.addClass('setting-item-heading');
    return this;
  }
  addText(cb: (c: TextComponent) => unknown): this {
    const c = new TextComponent(this.controlEl.createEl('input', { type: 'text' }));
    this.components.push(c);
    cb(c);
    return this;
  }
  addToggle(cb: (c: ToggleComponent) => unknown): this {
    const c = new ToggleComponent(this.controlEl.createDiv({ cls: 'checkbox-container' }));
    this.components.push(c);
    cb(c);
    return this;
  }
  addDropdown(cb: (c: DropdownComponent) => unknown): this {
    const c = new DropdownComponent(this.controlEl.createEl('select'));
    this.components.push(c);
    cb(c);
    return this;
  }
  addButton(cb: (c: ButtonComponent) => unknown): this {
    const c = new ButtonComponent(this.controlEl.createEl('button'));
    this.components.push(c);
    cb(c);
    return this;
  }
}

/**
 * Tests never touch the network: `requestUrl` answers only from servers on 127.0.0.1, and a
 * test routes a real URL (a pinned download) to its local server with `routeRequests`.
 */
export const routeRequests = new Map<string, string>();
export const requestLog: string[] = [];

export async function requestUrl(request: string | { url: string; method?: string; throw?: boolean }): Promise<{ status: number; arrayBuffer: ArrayBuffer; text: string; json: unknown }> {
  const asked = typeof request === 'string' ? request : request.url;
  const url = routeRequests.get(asked) ?? asked;
  requestLog.push(asked);
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error(`the network is not available in tests (${asked})`);
  const http = await import('node:http');
  const body = await new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
  if (body.status >= 400 && typeof request !== 'string' && request.throw !== false) throw new Error(`Request failed, status ${body.status}`);
  const arrayBuffer = Uint8Array.from(body.bytes).buffer;
  return { status: body.status, arrayBuffer, text: body.bytes.toString('utf8'), json: null };
}

export function debounce<T extends unknown[]>(fn: (...args: T) => unknown, wait: number): (...args: T) => void {
  let timer: number | undefined;
  return (...args: T) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => fn(...args), wait);
  };
}
