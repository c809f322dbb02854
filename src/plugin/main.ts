import { MarkdownView, Notice, Plugin, TFile } from 'obsidian';
import { registerCommands } from './commands';
import { GRAPH_VIEW_TYPE, MemoryGraphView } from './graph/graph-view';
import { EngramService } from './service';
import { DEFAULT_PLUGIN_SETTINGS, resolvePluginSettings, type PluginSettings } from './settings';
import { EngramSettingTab } from './settings-tab';
import { TierStatusBar } from './status-bar';
import { TouchOnOpen } from './touch-on-open';

/**
 * Engram in Obsidian: the shell around the core. Wiring only; each capability lives in its
 * own module (touch-on-open, the graph view, commands, settings, status bar).
 */
export default class EngramPlugin extends Plugin {
  settings: PluginSettings = { ...DEFAULT_PLUGIN_SETTINGS };
  service!: EngramService;
  touch: TouchOnOpen | null = null;
  status: TierStatusBar | null = null;

  override async onload(): Promise<void> {
    this.settings = resolvePluginSettings(await this.loadData());
    this.service = new EngramService(this.app, this.settings, this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`);
    this.registerView(GRAPH_VIEW_TYPE, (leaf) => new MemoryGraphView(leaf, this.service, (path) => this.openMemory(path)));
    registerCommands(this);
    this.addSettingTab(new EngramSettingTab(this.app, this));
    this.status = new TierStatusBar(this.addStatusBarItem(), this.service);
    this.app.workspace.onLayoutReady(() => void this.start());
  }

  /** After the layout is ready (Obsidian's own file-open events at start are not the user's). */
  private async start(): Promise<void> {
    await this.service.reloadSettings();
    if (this.service.settingsProblem) new Notice(`Engram: ${this.service.settingsProblem}`);
    this.touch = new TouchOnOpen(
      () => this.service.vault,
      { now: () => Date.now(), setTimeout: (fn, ms) => window.setTimeout(fn, ms), clearTimeout: (h) => window.clearTimeout(h) },
      () => ({ coAccessWindowMinutes: this.service.vault.settings.coAccessWindowMinutes, debounceMs: this.settings.debounceMs, quietMs: this.settings.quietMs }),
      (error) => new Notice(`Engram: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.registerEvent(this.app.workspace.on('file-open', (file) => this.onFileOpen(file)));
    this.registerEvent(
      this.app.workspace.on('editor-change', (_editor, info) => {
        const path = info.file ? this.service.files.relative(info.file.path) : null;
        if (path) this.touch?.edited(path);
      }),
    );
    this.registerEvent(
      this.app.vault.on('modify', (file) => {
        if (file instanceof TFile && this.service.memoryIdOf(file)) void this.onModify(file);
      }),
    );
    this.registerEvent(this.app.metadataCache.on('changed', (file) => this.status?.changed(file)));
    this.status?.refresh();
  }

  private onFileOpen(file: TFile | null): void {
    if (!this.settings.touchOnOpen || !this.touch || !file) return;
    const id = this.service.memoryIdOf(file);
    if (id) this.touch.noteOpened(this.service.files.relative(file.path)!, id);
  }

  /** A memory changed on disk: unless this plugin wrote it, someone is editing it. */
  private async onModify(file: TFile): Promise<void> {
    const text = await this.app.vault.cachedRead(file);
    if (this.service.files.isOwnWrite(file.path, text)) return;
    const path = this.service.files.relative(file.path);
    if (path) this.touch?.edited(path);
  }

  /** Open a memory note (the open itself is the touch, through file-open). */
  async openMemory(path: string): Promise<void> {
    const file = this.service.fileAt(path);
    if (!file) {
      new Notice(`Engram: ${path} no longer exists`);
      return;
    }
    await this.app.workspace.getLeaf(false).openFile(file);
  }

  /** The memory open in the active editor, if any. */
  activeMemory(): { file: TFile; id: string } | null {
    const file = this.app.workspace.getActiveViewOfType(MarkdownView)?.file ?? this.app.workspace.getActiveFile();
    const id = this.service.memoryIdOf(file);
    return file && id ? { file, id } : null;
  }

  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
  }

  /** Point the plugin at another memory folder (settings tab). */
  async setFolder(folder: string): Promise<void> {
    this.settings.folder = folder;
    await this.saveSettings();
    this.service.files.setRoot(folder);
    await this.service.reloadSettings();
    this.status?.refresh();
  }

  override onunload(): void {
    this.touch?.dispose();
    this.touch = null;
    this.status?.dispose();
    this.service.disposeEmbedder();
  }
}
