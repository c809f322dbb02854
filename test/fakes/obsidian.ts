/**
 * A fake of the part of Obsidian's API that Engram's plugin uses, over a real folder on disk,
 * for jest's jsdom environment. It behaves as the app does where the plugin depends on it:
 * - the file tree (TFile/TFolder) mirrors the folder and leaves out dot-folders (.obsidian,
 *   .engram), which only `vault.adapter` reaches;
 * - `vault.process` reads, applies the function synchronously, writes and fires `modify`;
 *   `vault.create` refuses an existing path; `fileManager.renameFile` moves and fires `rename`;
 * - the metadata cache parses frontmatter after each change and fires `changed` a moment later
 *   (a microtask; the app does it from a worker);
 * - events registered through a Component are removed when it unloads, and the counts of live
 *   listeners are exposed so tests can check that nothing is left;
 * - `workspace.onLayoutReady` runs its callback once the layout is ready; opening a file in a
 *   leaf fires `file-open`;
 * - plugin views of a registered type are closed when the plugin unloads.
 * Not reproduced: Obsidian's own YAML serialiser (processFrontMatter here re-serialises with
 * js-yaml), the editor (a minimal Editor over a string), rendering, mobile, and sync.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import * as yaml from 'js-yaml';
import { installObsidianDom } from './obsidian-dom';

if (typeof window !== 'undefined') installObsidianDom(window);

export function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/\/+/g, '/').replace(/^\/+|\/+$/g, '') || '/';
}

export const Platform = { isDesktopApp: true, isDesktop: true, isMobile: false, isMobileApp: false };

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
  getResourcePath(path: string): string {
    return `app://local/${normalizePath(path)}`;
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
  private writeFile(file: TFile, data: string): void {
    fs.writeFileSync(nodePath.join(this.adapter.basePath, file.path), data);
    this.writes++;
    this.refreshStat(file);
    this.trigger('modify', file);
  }
  async modify(file: TFile, data: string): Promise<void> {
    this.writeFile(file, data);
  }
  async process(file: TFile, fn: (data: string) => string): Promise<string> {
    const current = fs.readFileSync(nodePath.join(this.adapter.basePath, file.path), 'utf8');
    const next = fn(current);
    if (next !== current) this.writeFile(file, next);
    return next;
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
    const update = (file: TAbstractFile) => {
      if (!(file instanceof TFile) || file.extension !== 'md') return;
      const data = fs.readFileSync(nodePath.join(vault.adapter.basePath, file.path), 'utf8');
      const parsed = this.parse(data);
      this.cache.set(file.path, parsed);
      void Promise.resolve().then(() => this.trigger('changed', file, data, parsed));
    };
    vault.on('modify', update);
    vault.on('create', update);
    vault.on('rename', (file: TAbstractFile, old: string) => {
      this.cache.delete(old);
      update(file);
    });
    vault.on('delete', (file: TAbstractFile) => this.cache.delete(file.path));
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
  async renameFile(file: TAbstractFile, newPath: string): Promise<void> {
    await this.vault.rename(file, newPath);
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

export class MarkdownView extends ItemView {
  override navigation = true;
  file: TFile | null = null;
  editor = new Editor();
  mode: 'source' | 'preview' = 'source';
  override getViewType(): string {
    return 'markdown';
  }
  getMode(): 'source' | 'preview' {
    return this.mode;
  }
}

export class WorkspaceLeaf {
  view: View;
  constructor(readonly app: App) {
    this.view = new View(this);
  }
  async openFile(file: TFile): Promise<void> {
    await this.setView(new MarkdownView(this));
    (this.view as MarkdownView).file = file;
    (this.view as MarkdownView).editor.setValue(await this.app.vault.read(file));
    this.app.workspace.setActiveLeaf(this);
    this.app.workspace.trigger('file-open', file);
  }
  async setViewState(state: { type: string; active?: boolean }): Promise<void> {
    const creator = this.app.workspace.viewCreators.get(state.type);
    if (!creator) throw new Error(`no view of type ${state.type}`);
    await this.setView(creator(this));
    if (state.active) this.app.workspace.setActiveLeaf(this);
  }
  private async setView(view: View): Promise<void> {
    await this.closeView();
    this.view = view;
    document.body.appendChild(view.containerEl);
    view.load();
    await view.onOpen();
  }
  private async closeView(): Promise<void> {
    const old = this.view;
    await old.onClose();
    old.unload();
    old.containerEl.remove();
  }
  async detach(): Promise<void> {
    await this.closeView();
    this.view = new View(this);
    this.app.workspace.leaves = this.app.workspace.leaves.filter((l) => l !== this);
  }
  getViewState(): { type: string } {
    return { type: this.view.getViewType() };
  }
}

export class Workspace extends Events {
  leaves: WorkspaceLeaf[] = [];
  activeLeaf: WorkspaceLeaf | null = null;
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
    if (!this.activeLeaf) this.activeLeaf = leaf;
    return leaf;
  }
  setActiveLeaf(leaf: WorkspaceLeaf): void {
    this.activeLeaf = leaf;
    this.trigger('active-leaf-change', leaf);
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((l) => l.view.getViewType() === type);
  }
  async revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
    this.setActiveLeaf(leaf);
  }
  getActiveFile(): TFile | null {
    const view = this.activeLeaf?.view;
    return view instanceof MarkdownView ? view.file : null;
  }
  getActiveViewOfType<T extends View>(type: abstract new (...args: any[]) => T): T | null {
    const view = this.activeLeaf?.view;
    return view instanceof type ? view : null;
  }
  async detachLeavesOfType(type: string): Promise<void> {
    for (const leaf of this.getLeavesOfType(type)) await leaf.detach();
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
  constructor(basePath: string) {
    this.vault = new Vault(basePath);
    this.metadataCache = new MetadataCache(this.vault);
    this.fileManager = new FileManager(this.vault);
    this.workspace = new Workspace(this);
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
    this.register(() => this.app.settingTabs.splice(this.app.settingTabs.indexOf(tab), 1));
  }
  addStatusBarItem(): HTMLElement {
    const el = document.body.createDiv({ cls: 'status-bar-item' });
    this.statusBarItems.push(el);
    this.register(() => el.remove());
    return el;
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

export abstract class PluginSettingTab {
  readonly containerEl: HTMLElement;
  constructor(
    readonly app: App,
    readonly plugin: Plugin,
  ) {
    this.containerEl = document.createElement('div');
  }
  abstract display(): void;
  hide(): void {}
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

export async function requestUrl(): Promise<never> {
  throw new Error('the network is not available in tests');
}

export function debounce<T extends unknown[]>(fn: (...args: T) => unknown, wait: number): (...args: T) => void {
  let timer: number | undefined;
  return (...args: T) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => fn(...args), wait);
  };
}
