import { MarkdownView, Notice, Platform, Plugin, requestUrl, TFile, TFolder, type WorkspaceLeaf } from 'obsidian';
import type { RecallDoc } from '../core/recall/catalog';
import { currentTier } from '../core/tiers';
import { registerCommands } from './commands';
import { firstWords } from './graph/graph-model';
import { registerReviewCommands } from './review-commands';
import { GRAPH_VIEW_TYPE, MemoryGraphView } from './graph/graph-view';
import { Downloads, type PinnedFile } from './downloads';
import { MemoryIndex } from './memory-index';
import { registerPropertyTypes } from './property-types';
import { ConfirmModal } from './modals';
import { linkTitlesExtension, titleTypedLinks } from './link-titles';
import { RelatedView, RELATED_VIEW_TYPE } from './related-view';
import { NoteOpens } from './note-opens';
import { QuietWrites } from './quiet-writes';
import { EngramService } from './service';
import { DEFAULT_PLUGIN_SETTINGS, resolvePluginSettings, type PluginSettings } from './settings';
import { EngramSettingTab } from './settings-tab';
import { TierStatusBar } from './status-bar';
import { TierUpkeep } from './tier-upkeep';
import { TouchOnOpen } from './touch-on-open';
import { WelcomeModal } from './welcome';

/** Where the deferred-write queue is kept: this device's storage for the vault (never synced). */
const QUEUE_KEY = 'engram-deferred-writes';
/** When the last tier upkeep pass ran on this device. */
const TIER_PASS_KEY = 'engram-tier-pass-at';
/** Whether the first-run view was shown on this device (it opens by itself once). */
const WELCOME_KEY = 'engram-welcome-shown';
/** The first pass waits for the start-up to be over. */
const TIER_PASS_DELAY_MS = 10_000;
/** How often the shared settings file is checked for outside changes. */
const CONFIG_CHECK_MS = 5000;

/**
 * Engram in Obsidian: the shell around the core. Wiring only; each capability lives in its
 * own module (note-opens, touch-on-open, quiet-writes, the graph view, commands, settings,
 * status bar).
 */
export default class EngramPlugin extends Plugin {
  override settings: PluginSettings = { ...DEFAULT_PLUGIN_SETTINGS };
  service!: EngramService;
  touch: TouchOnOpen | null = null;
  deferred: QuietWrites | null = null;
  status: TierStatusBar | null = null;
  private settingTab: EngramSettingTab | null = null;
  /** Every memory, in memory: the status bar, graph, sidebar and recall read from here. */
  index!: MemoryIndex;
  private engineTimer: number | null = null;
  private engineIdle: number | null = null;
  private readonly opens = new NoteOpens<WorkspaceLeaf>();
  private saveQueueTimer: number | null = null;
  private tierPassTimer: number | null = null;
  tiers: TierUpkeep | null = null;

  override async onload(): Promise<void> {
    this.settings = resolvePluginSettings(await this.loadData());
    this.service = new EngramService(this.app, this.settings, this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`);
    this.index = new MemoryIndex(() => this.service.vault, () => new Promise((resolve) => window.setTimeout(resolve, 0)));
    // the core finds a memory by id through the warm index (checked against the file's id)
    this.service.locator = (id) => this.index.get(id)?.path ?? null;
    this.service.downloads = new Downloads({
      read: (path) => this.service.files.read(path),
      write: (path, bytes) => this.service.files.write(path, bytes),
      fetch: async (url) => {
        const response = await requestUrl({ url, method: 'GET', throw: false });
        return { status: response.status, bytes: new Uint8Array(response.arrayBuffer) };
      },
      ask: (file) => this.askDownload(file),
      allowed: (name) => this.settings.allowedDownloads.includes(name),
      remember: (name) => {
        this.settings.allowedDownloads = [...new Set([...this.settings.allowedDownloads, name])];
        void this.saveSettings();
      },
    });
    // a phone has no status bar: the tier counts and progress go to the sidebar there
    this.status = new TierStatusBar(Platform.isMobile ? null : this.addStatusBarItem(), this.service, this.index);
    const labelOf = (doc: RecallDoc) => this.labelOf(doc);
    this.registerView(GRAPH_VIEW_TYPE, (leaf) => new MemoryGraphView(leaf, this.service, this.index, labelOf, (id) => this.index.get(id)?.text ?? null, (path) => this.openMemory(path)));
    // typed links show the linked memory's title after their kind (the file keeps `[[id|kind]]`)
    const titleOf = (id: string) => {
      const doc = this.index.get(id);
      return doc ? this.labelOf(doc) : null;
    };
    this.registerEditorExtension(linkTitlesExtension(titleOf));
    this.registerMarkdownPostProcessor((el) => titleTypedLinks(el, titleOf));
    this.registerView(RELATED_VIEW_TYPE, (leaf) => new RelatedView(leaf, this.service, this.index, labelOf, this.status, Platform.isMobile, (path) => this.openMemory(path)));
    registerCommands(this);
    registerReviewCommands(this);
    this.settingTab = new EngramSettingTab(this.app, this);
    this.addSettingTab(this.settingTab);
    this.app.workspace.onLayoutReady(() => void this.start());
  }

  /** Whether the memory folder exists and the plugin reads and writes it (see `start`). */
  ready = false;
  private activating: Promise<void> | null = null;

  /**
   * After the layout is ready: what the restored workspace shows is recorded, not touched. Until
   * the memory folder exists (created from the first-run view, by the runner, or arriving by
   * sync), nothing is read or written and no property type is registered: the plugin waits.
   */
  private async start(): Promise<void> {
    this.app.workspace.iterateAllLeaves((leaf) => this.opens.remember(leaf, leafPath(leaf)));
    this.registerEvent(this.app.workspace.on('file-open', (file) => this.onFileOpen(file)));
    this.registerEvent(this.app.workspace.on('layout-change', () => this.onLayoutChange()));
    if (await this.service.isSetUp()) {
      await this.activate();
      return;
    }
    this.status?.setAction('Engram: set up', 'Set up Engram: create the memory folder', () => this.showWelcome());
    // the folder may arrive from elsewhere (sync, the runner, a file manager)
    this.registerEvent(
      this.app.vault.on('create', (file) => {
        if (!this.ready && file instanceof TFolder) void this.activateIfSetUp();
      }),
    );
    if (this.app.loadLocalStorage(WELCOME_KEY) === null) {
      this.app.saveLocalStorage(WELCOME_KEY, Date.now());
      this.showWelcome();
    }
  }

  /** The first-run view (also the "Set up" command and the status bar before set-up). */
  showWelcome(): void {
    new WelcomeModal(this.app, this.settings.folder || DEFAULT_PLUGIN_SETTINGS.folder, (folder) => this.createFolder(folder)).open();
  }

  /** The person chose to create the memory folder: create its layout, then start. */
  async createFolder(folder: string): Promise<void> {
    try {
      if (folder !== this.settings.folder) {
        this.settings.folder = resolvePluginSettings({ folder }).folder;
        await this.saveSettings();
        this.service.files.setRoot(this.settings.folder);
      }
      const created = await this.service.vault.init({ obsidianConfigDir: null });
      await this.activate();
      new Notice(created.length > 0 ? `Engram: created the memory folder ${this.settings.folder || '(the vault)'}` : 'Engram: the memory folder is ready');
    } catch (error) {
      new Notice(`Engram: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async activateIfSetUp(): Promise<void> {
    if (!this.ready && (await this.service.isSetUp())) await this.activate();
  }

  /** Start reading and writing the memory folder (once). */
  private activate(): Promise<void> {
    this.activating ??= this.activateNow();
    return this.activating;
  }

  private async activateNow(): Promise<void> {
    this.ready = true;
    this.status?.setAction(null);
    await this.service.reloadSettings();
    if (this.service.settingsProblem) new Notice(`Engram: ${this.service.settingsProblem}`);
    const timers = { now: () => Date.now(), setTimeout: (fn: () => void, ms: number) => window.setTimeout(fn, ms), clearTimeout: (h: number) => window.clearTimeout(h) };
    const report = (error: unknown) => new Notice(`Engram: ${error instanceof Error ? error.message : String(error)}`);
    this.deferred = new QuietWrites(
      () => this.service.vault,
      (id) => this.busy(id),
      timers,
      () => ({ quietMs: this.settings.quietMs, batchMs: this.settings.batchMs }),
      report,
      () => {
        this.saveQueueSoon();
        // after the change is complete (a queued entry gets its tier flag after it is created)
        if (this.tierJob && this.tierProgressTimer === null) {
          this.tierProgressTimer = window.setTimeout(() => {
            this.tierProgressTimer = null;
            this.tierProgress();
          }, 0);
        }
      },
    );
    this.deferred.tierOf = (memory, now) => currentTier(memory, now, this.service.vault.settings);
    const saved: unknown = this.app.loadLocalStorage(QUEUE_KEY);
    if (typeof saved === 'string') this.deferred.load(saved);
    this.touch = new TouchOnOpen(
      () => this.service.vault,
      this.deferred,
      timers,
      () => ({ coAccessWindowMinutes: this.service.vault.settings.coAccessWindowMinutes, reopenMinutes: this.settings.reopenMinutes, debounceMs: this.settings.debounceMs, quietMs: this.settings.quietMs }),
      report,
    );
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
    // the in-memory index follows every change Obsidian reports (rename sends no `changed`)
    this.register(this.index.subscribe((changes) => {
      this.status?.changed(changes);
      this.buildEngineSoon();
    }));
    this.registerEvent(
      this.app.metadataCache.on('changed', (file, data) => {
        const path = this.memoryPath(file);
        if (path) this.index.changed(path, data);
      }),
    );
    // a rename or move by the person (or the app's own archive moves) keeps the memory: its
    // identity is the frontmatter id, the file name and folder are theirs
    this.registerEvent(
      this.app.vault.on('rename', (file, oldPath) => {
        const before = this.service.files.relative(oldPath);
        const after = file instanceof TFile ? this.memoryPath(file) : null;
        if (before && this.index.knows(before)) this.index.renamed(before, after);
        else if (after && file instanceof TFile) void this.app.vault.cachedRead(file).then((text) => this.index.changed(after, text));
        this.readOrphans();
      }),
    );
    this.registerEvent(
      this.app.vault.on('delete', (file) => {
        const path = this.service.files.relative(file.path);
        if (path) this.index.removed(path);
        this.readOrphans();
      }),
    );
    // .engram/ is hidden from Obsidian's file events: the shared settings file is checked every
    // few seconds (one stat) so that changes made by the runner or another device apply
    this.registerInterval(window.setInterval(() => void this.checkConfig(), CONFIG_CHECK_MS));
    // the written tier kept true (Obsidian's own graph colours by it): when the vault opens, then daily
    this.tiers = new TierUpkeep(
      async () => {
        await this.index.load();
        const { vault } = this.service;
        return { docs: [...this.index.all()], now: vault.now(), settings: vault.settings };
      },
      (id) => this.deferred?.addTier(id),
      { get: () => numberOrNull(this.app.loadLocalStorage(TIER_PASS_KEY)), set: (at) => this.app.saveLocalStorage(TIER_PASS_KEY, at) },
      () => Date.now(),
      (count) => this.askTierPass(count),
    );
    this.tierPassTimer = window.setTimeout(() => {
      this.tierPassTimer = null;
      void this.tiers?.maybeRun(true).catch(report);
    }, TIER_PASS_DELAY_MS);
    this.registerInterval(window.setInterval(() => void this.tiers?.maybeRun(false).catch(report), 3_600_000));
    // only Engram's own fields, and only those without a type yet (see property-types.ts)
    void registerPropertyTypes(this.app).catch(report);
    void this.index
      .load()
      .then(() => {
        this.status?.start();
        this.buildEngineSoon();
      })
      .catch(report);
  }

  /** The tier updates the person agreed to, while they are written: how many in all. */
  private tierJob: { total: number } | null = null;
  private tierProgressTimer: number | null = null;

  /**
   * Many notes' tiers are out of date (a vault opened after weeks, a first start): say how many
   * and what updating them writes, and let the person choose. Agreed, the status bar shows the
   * progress and pauses on a click (or Enter).
   */
  private askTierPass(count: number): Promise<boolean> {
    const perBatch = 500;
    const minutes = Math.ceil((count / perBatch) * (this.settings.batchMs / 60_000));
    return new Promise((resolve) => {
      new ConfirmModal(
        this.app,
        `Update the tier of ${count} memory notes?`,
        `${count} memories have faded to a colder tier since their notes were last written. Updating changes one property, tier, in each note (Obsidian's graph colours by it): ${perBatch} notes every ${Math.round(this.settings.batchMs / 1000)} s, about ${minutes} min in all, and every changed note is synced again. You can pause from the status bar. Not now: recall, the sidebar and the status bar use the current tiers anyway, and you are asked again tomorrow.`,
        `Update ${count} notes`,
        () => {
          this.tierJob = { total: count };
          resolve(true);
        },
        () => resolve(false),
      ).open();
    });
  }

  /** The agreed tier updates' progress in the status bar (a click pauses them). */
  private tierProgress(): void {
    const job = this.tierJob;
    if (!job || !this.deferred) return;
    const left = this.deferred.tiersWaiting;
    if (left === 0) {
      this.tierJob = null;
      this.status?.setJob(null);
      return;
    }
    this.status?.setJob(`Engram: tiers ${job.total - left}/${job.total} updated (pause)`, () => {
      const dropped = this.deferred?.dropTiers() ?? 0;
      this.tierJob = null;
      this.status?.setJob(null);
      new Notice(`Engram: tier updates paused; ${dropped} notes not updated (asked again tomorrow)`);
    });
  }

  /** A memory's file went away while a copy of it remains: the copy is read as the memory now. */
  private readOrphans(): void {
    for (const path of this.index.orphans.splice(0)) {
      const file = this.service.fileAt(path);
      if (file) void this.app.vault.cachedRead(file).then((text) => this.index.changed(path, text));
    }
  }

  /** Ask before files are downloaded: what, from where, how big, and why. */
  private askDownload(files: PinnedFile[]): Promise<boolean> {
    return new Promise((resolve) => {
      const hosts = [...new Set(files.map((f) => /^https?:\/\/([^/]+)/.exec(f.url)?.[1] ?? f.url))].join(', ');
      const names = files.map((f) => f.name).join(' and ');
      const size = files.reduce((sum, f) => sum + f.bytes, 0) / 1_048_576;
      const purpose = files[0]!.purpose;
      // the runtime's question also says what the model costs, when the model comes after it
      const model = files.some((f) => f.name.endsWith('.wasm')) ? this.service.modelDownload : null;
      const modal = new ConfirmModal(
        this.app,
        `Download ${names}?`,
        `${purpose[0]!.toUpperCase()}${purpose.slice(1)} needs ${names} (${size.toFixed(1)} MB). ${files.length > 1 ? 'They are' : 'It is'} downloaded once from ${hosts}, checked against ${files.length > 1 ? 'their' : 'its'} published SHA-256 and kept in the memory folder's .engram/runtime/.${model ? ` Then ${model} is downloaded on first use and kept in .engram/models/.` : ''} Nothing else is sent or received.`,
        'Download',
        () => resolve(true),
        () => resolve(false),
      );
      modal.open();
    });
  }

  /** The vault-relative memory path of a note that is a memory, else null. */
  memoryPath(file: TFile): string | null {
    return this.service.memoryIdOf(file) ? this.service.files.relative(file.path) : null;
  }

  /** A memory's label: its title (the first `aliases` entry) or its first words, else its id. */
  labelOf(doc: RecallDoc): string {
    const aliases: unknown = this.app.metadataCache.getCache(this.service.files.full(doc.path))?.frontmatter?.aliases;
    const title: unknown = Array.isArray(aliases) ? (aliases as unknown[])[0] : aliases;
    if (typeof title === 'string' && title.trim()) return title.trim();
    return doc.text ? firstWords(doc.text) : doc.id;
  }

  /**
   * The recall engine is built once, after the index loads, when the app is next idle, in slices
   * with a turn of the event loop between them (MemoryIndex.buildInSlices), so that opening
   * recall finds it ready; from then on it follows every change in place.
   */
  private buildEngineSoon(): void {
    if (!this.index.loaded || this.index.engineReady) return;
    if (this.engineTimer !== null) window.clearTimeout(this.engineTimer);
    this.engineTimer = window.setTimeout(() => {
      this.engineTimer = null;
      const build = () => {
        this.engineIdle = null;
        if (this.index.loaded && !this.index.engineReady) void this.index.buildInSlices().catch((error: unknown) => new Notice(`Engram: ${error instanceof Error ? error.message : String(error)}`));
      };
      if (typeof window.requestIdleCallback === 'function') this.engineIdle ??= window.requestIdleCallback(build, { timeout: 10_000 });
      else build();
    }, 2000);
  }

  /** `.engram/config.json` changed outside this plugin: read it again. */
  private async checkConfig(): Promise<void> {
    if (!this.ready || !(await this.service.configChanged())) return;
    await this.service.reloadSettings();
    if (this.service.settingsProblem) new Notice(`Engram: ${this.service.settingsProblem}`);
    this.settingTab?.refresh();
    await this.reloadIndex();
  }

  /** Settings or the memory folder changed: the index is read again. */
  async reloadIndex(): Promise<void> {
    this.index.reset();
    await this.index.load();
    this.status?.recount();
  }

  /** data.json changed on disk (Sync, another device): the plugin's own settings are read again. */
  override async onExternalSettingsChange(): Promise<void> {
    const next = resolvePluginSettings(await this.loadData());
    const folderChanged = next.folder !== this.settings.folder;
    Object.assign(this.settings, next);
    if (folderChanged) {
      this.service.files.setRoot(next.folder);
      await this.folderMoved();
    }
    this.settingTab?.refresh();
  }

  /**
   * `file-open` fires on every change of the active leaf; only a note newly shown in its leaf
   * is an open (NoteOpens), and only an open of a memory is a touch.
   */
  private onFileOpen(file: TFile | null): void {
    if (!file) return;
    const leaf = this.app.workspace.getActiveViewOfType(MarkdownView)?.leaf ?? this.app.workspace.getMostRecentLeaf();
    if (!leaf || !this.opens.opened(leaf, file.path)) return;
    if (!this.touch || !this.settings.touchOnOpen) return;
    const id = this.service.memoryIdOf(file);
    const path = this.service.files.relative(file.path);
    if (id && path) this.touch.noteOpened(path, id);
  }

  /** New leaves: a restored layout's are recorded as showing their notes (a restore opens nothing). */
  private onLayoutChange(): void {
    const leaves: Array<{ leaf: WorkspaceLeaf; path: string | null; deferred: boolean }> = [];
    this.app.workspace.iterateAllLeaves((leaf) => {
      if (!this.opens.knows(leaf)) leaves.push({ leaf, path: leafPath(leaf), deferred: leaf.isDeferred });
    });
    this.opens.layoutChanged(leaves);
  }

  /** Whether a memory's note is open in a tab, or was typed in within the quiet time. */
  private busy(id: string): boolean {
    let open = false;
    this.app.workspace.iterateAllLeaves((leaf) => {
      const path = leafPath(leaf);
      if (path && !open) open = this.service.memoryIdOf(this.app.vault.getFileByPath(path)) === id;
    });
    const path = this.index.get(id)?.path;
    return open || (path !== undefined && this.touch?.recentlyEdited(path) === true);
  }

  private saveQueueSoon(): void {
    if (this.saveQueueTimer !== null) window.clearTimeout(this.saveQueueTimer);
    this.saveQueueTimer = window.setTimeout(() => this.saveQueue(), 1000);
  }

  private saveQueue(): void {
    if (this.saveQueueTimer !== null) window.clearTimeout(this.saveQueueTimer);
    this.saveQueueTimer = null;
    if (!this.deferred) return;
    this.app.saveLocalStorage(QUEUE_KEY, this.deferred.waiting.length > 0 ? this.deferred.save() : null);
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
    if (folder === this.settings.folder) return;
    this.settings.folder = folder;
    await this.saveSettings();
    this.service.files.setRoot(folder);
    await this.folderMoved();
  }

  /** Another memory folder: read it if it exists, else wait for it to be created (nothing is made up). */
  private async folderMoved(): Promise<void> {
    if (!(await this.service.isSetUp())) {
      this.index.reset();
      if (this.ready) this.status?.setAction('Engram: set up', 'Set up Engram: create the memory folder', () => this.showWelcome());
      this.ready = false;
      this.activating = null;
      return;
    }
    if (!this.ready || !this.activating) {
      this.activating = null;
      await this.activate();
      return;
    }
    this.status?.setAction(null);
    await this.service.reloadSettings();
    await this.reloadIndex();
  }

  override onunload(): void {
    if (this.tierProgressTimer !== null) window.clearTimeout(this.tierProgressTimer);
    this.tierProgressTimer = null;
    this.tierJob = null;
    this.ready = false;
    this.activating = null;
    if (this.tierPassTimer !== null) window.clearTimeout(this.tierPassTimer);
    this.tierPassTimer = null;
    if (this.engineTimer !== null) window.clearTimeout(this.engineTimer);
    this.engineTimer = null;
    if (this.engineIdle !== null) window.cancelIdleCallback(this.engineIdle);
    this.engineIdle = null;
    this.touch?.dispose();
    this.touch = null;
    this.saveQueue();
    this.deferred?.dispose();
    this.deferred = null;
    this.status?.dispose();
    this.service.disposeEmbedder();
  }
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The vault path of the note a leaf shows (a deferred background tab included), or null. */
function leafPath(leaf: WorkspaceLeaf): string | null {
  if (leaf.view instanceof MarkdownView) return leaf.view.file?.path ?? null;
  const file: unknown = leaf.getViewState().state?.file;
  return typeof file === 'string' ? file : null;
}
