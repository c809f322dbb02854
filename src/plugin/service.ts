import { requestUrl, TFile, type App } from 'obsidian';
import { EngramError } from '../core/errors';
import { isMemoryId } from '../core/ids';
import type { Embedder, Ports } from '../core/ports';
import { resolveSettings, type EngramSettings } from '../core/settings';
import { LAYOUT, MEMORY_FOLDERS, Vault } from '../core/vault';
import { HttpEmbedder } from '../embedding/http-embedder';
import { WorkerEmbedder } from '../embedding/worker-embedder';
import type { Downloads } from './downloads';
import { ObsidianFileStore, ObsidianLocks } from './obsidian-files';
import { embeddingRuntime, wasmSimd, workerSource } from './runtime';
import { CL100K, tokenCounter } from './token-table';
import { MODEL_DOWNLOAD } from './welcome';

/** Where the plugin keeps embedding models: memory-folder relative, the runner's default too. */
const MODELS = '.engram/models/';
import type { PluginSettings } from './settings';

/**
 * The core opened on the memory folder of this Obsidian vault: the Vault with Obsidian's file
 * port, the shared settings (`.engram/config.json`, the same file the runner reads) and the
 * configured embedder. Everything the commands and views need goes through here.
 */
export class EngramService {
  readonly files: ObsidianFileStore;
  vault: Vault;
  /** Problems met reading the shared settings (shown once, defaults used meanwhile). */
  settingsProblem: string | null = null;
  private worker: Worker | null = null;
  private workerEmbedder: WorkerEmbedder | null = null;
  private wasmUrl: string | null = null;
  /** Files fetched on first use (set by the plugin: it asks the user). */
  downloads: Downloads | null = null;
  private countTokens: ((text: string) => number) | null = null;
  /** Where the plugin's index believes a memory is (the core checks the file's id before it believes it). */
  locator: ((id: string) => string | null) | null = null;
  /** The model download that follows the runtime's, said in the same confirmation (null: the model is here). */
  modelDownload: string | null = null;

  constructor(
    readonly app: App,
    readonly plugin: PluginSettings,
    /** The plugin's folder (manifest.dir), where the downloaded WASM files sit (the worker is inside main.js). */
    private readonly pluginDir: string,
  ) {
    this.files = new ObsidianFileStore(app, plugin.folder);
    this.vault = this.makeVault(resolveSettings(undefined));
  }

  private makeVault(settings: EngramSettings): Vault {
    const ports: Ports = {
      files: this.files,
      locks: new ObsidianLocks(this.app, this.files),
      clock: { now: () => Date.now() },
      random: Math.random,
      tokens: {
        count: (text) => {
          if (!this.countTokens) throw new EngramError('the token table is not loaded');
          return this.countTokens(text);
        },
      },
    };
    // read when a count is first written (never before set-up): this device's place (machine.ts)
    const app = this.app;
    Object.defineProperty(ports, 'place', { get: () => devicePlace(app), enumerable: true });
    return new Vault(ports, settings, { locator: (id) => this.locator?.(id) ?? null });
  }

  /** `.engram/config.json` as last read or written here (size and mtime), to notice outside changes. */
  private configSeen: string | null = null;

  /**
   * Read `.engram/config.json` again (at start, or when another program or device changed it).
   * The embedding worker is restarted only when the embedder's settings changed.
   */
  async reloadSettings(): Promise<void> {
    const before = JSON.stringify(this.vault.settings.embedder);
    this.settingsProblem = null;
    this.configSeen = await this.configStamp();
    try {
      this.vault = this.makeVault(resolveSettings(await this.readOverrides(), LAYOUT.config));
    } catch (error) {
      this.settingsProblem = error instanceof Error ? error.message : String(error);
      this.vault = this.makeVault(resolveSettings(undefined));
    }
    if (JSON.stringify(this.vault.settings.embedder) !== before) this.disposeEmbedder();
  }

  /** Whether `.engram/config.json` changed since it was last read or written here. */
  async configChanged(): Promise<boolean> {
    return (await this.configStamp()) !== this.configSeen;
  }

  private async configStamp(): Promise<string> {
    const stat = await this.files.stat(LAYOUT.config);
    return stat ? `${stat.size}:${stat.mtimeMs}` : 'none';
  }

  /**
   * Whether the memory folder exists (the plugin reads and writes nothing before): the folder
   * itself, or, when the memory folder is the whole vault, its `.engram/` or a category folder.
   */
  async isSetUp(): Promise<boolean> {
    const adapter = this.app.vault.adapter;
    if (this.plugin.folder !== '') return adapter.exists(this.files.full(''));
    for (const folder of ['.engram', ...MEMORY_FOLDERS]) if (await adapter.exists(folder)) return true;
    return false;
  }

  async initialised(): Promise<boolean> {
    return (await this.files.stat(LAYOUT.version)) !== null;
  }

  /** The raw overrides in `.engram/config.json` ({} when there is none). */
  async readOverrides(): Promise<Record<string, unknown>> {
    const bytes = await this.files.read(LAYOUT.config);
    if (!bytes) return {};
    try {
      const parsed = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
      throw new Error('not a JSON object');
    } catch (error) {
      throw new EngramError(`${LAYOUT.config}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Set one setting (a path such as ["halfLifeDays", "episodic"]) in `.engram/config.json`,
   * validated with the core's rules first; the file keeps every other key. Throws naming the
   * setting when the value is refused.
   */
  async setSetting(path: string[], value: unknown): Promise<void> {
    const overrides = JSON.parse(JSON.stringify(await this.readOverrides())) as Record<string, unknown>;
    let node: Record<string, unknown> = overrides;
    for (const key of path.slice(0, -1)) {
      const next = node[key];
      const child: Record<string, unknown> = isRecord(next) ? next : {};
      node[key] = child;
      node = child;
    }
    node[path[path.length - 1]!] = value;
    const settings = resolveSettings(overrides, LAYOUT.config);
    const embedderBefore = JSON.stringify(this.vault.settings.embedder);
    await this.files.write(LAYOUT.config, `${JSON.stringify(overrides, null, 2)}\n`);
    this.configSeen = await this.configStamp();
    this.vault = this.makeVault(settings);
    if (JSON.stringify(settings.embedder) !== embedderBefore) this.disposeEmbedder();
  }

  /** Load the token table (downloaded once, after the user agrees) before counting tokens. */
  async tokenizer(): Promise<void> {
    if (this.countTokens) return;
    if (!this.downloads) throw new EngramError('downloads are not available');
    this.countTokens = tokenCounter(await this.downloads.get(CL100K));
  }

  /** The memory id of a note, when it is a memory of this memory folder. */
  memoryIdOf(file: TFile | null): string | null {
    if (!file || file.extension !== 'md') return null;
    const relative = this.files.relative(file.path);
    if (!relative || !MEMORY_FOLDERS.includes(relative.split('/')[0]!)) return null;
    const id: unknown = this.app.metadataCache.getFileCache(file)?.frontmatter?.id;
    if (typeof id === 'string' && isMemoryId(id)) return id;
    return isMemoryId(file.basename) ? file.basename : null;
  }

  /** The vault file of a memory-folder path. */
  fileAt(path: string): TFile | null {
    const file = this.app.vault.getAbstractFileByPath(this.files.full(path));
    return file instanceof TFile ? file : null;
  }

  /**
   * The configured embedder, or null for lexical only. transformers.js runs in a Web Worker whose
   * script and WASM are downloaded on first use (this version's release assets, SHA-256 checked,
   * after the user agrees; kept in `.engram/runtime/`) and started from blob URLs; the model's
   * files are read from (and, when the user allowed downloading the model, saved to) the memory
   * folder's `.engram/models/<model>/`, where the runner finds them too.
   */
  async embedder(): Promise<Embedder | null> {
    const settings = this.vault.settings.embedder;
    if (settings.kind === 'none') return null;
    if (settings.kind === 'http') {
      return new HttpEmbedder({ url: settings.url, api: settings.api, model: settings.model, timeoutMs: settings.timeoutMs, batchSize: settings.batchSize }, obsidianFetch);
    }
    if (this.workerEmbedder) return this.workerEmbedder;
    const runtime = embeddingRuntime();
    if (!runtime || !this.downloads) throw new EngramError('the embedding runtime is not available in this build');
    // the runtime is fetched only when the model can be had: in the memory folder already, or allowed from the hub
    const modelHere = await this.modelCached(settings.model, settings.quantized);
    if (!modelHere && !settings.allowRemoteModels) {
      throw new EngramError(`the embedding model ${settings.model} is not in ${MODELS}${settings.model}/ and downloading it is switched off (settings → embeddings): nothing was downloaded`);
    }
    this.modelDownload = modelHere ? null : `the model ${settings.model} (about ${MODEL_DOWNLOAD.megabytes} MB, from ${MODEL_DOWNLOAD.host})`;
    const wasmFile = wasmSimd() ? runtime.wasmSimd : runtime.wasm;
    const script = workerSource();
    if (script === null) throw new EngramError('the embedding worker is not in this build');
    const wasm = await this.downloads.get(wasmFile);
    const url = URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
    this.worker = new Worker(url);
    URL.revokeObjectURL(url);
    this.wasmUrl = URL.createObjectURL(new Blob([wasm.slice()], { type: 'application/wasm' }));
    this.workerEmbedder = new WorkerEmbedder(
      this.worker,
      { model: settings.model, allowRemoteModels: settings.allowRemoteModels, localModelPath: MODELS, quantized: settings.quantized, batchSize: settings.batchSize },
      { [wasmFile.name]: this.wasmUrl },
      { read: (path) => this.files.read(path), write: (path, bytes) => this.files.write(path, bytes) },
    );
    return this.workerEmbedder;
  }

  /** Whether the model's weights are in the memory folder (where the worker reads them, and the runner too). */
  private async modelCached(model: string, quantized: boolean): Promise<boolean> {
    return (await this.files.stat(`${MODELS}${model}/onnx/${quantized ? 'model_quantized' : 'model'}.onnx`)) !== null;
  }

  /** Stop an embedding in progress. */
  cancelEmbedding(): void {
    this.workerEmbedder?.cancel();
  }

  disposeEmbedder(): void {
    this.workerEmbedder?.dispose();
    this.workerEmbedder = null;
    this.worker?.terminate();
    this.worker = null;
    if (this.wasmUrl) URL.revokeObjectURL(this.wasmUrl);
    this.wasmUrl = null;
  }
}

/** `fetch` for the HTTP embedder over Obsidian's requestUrl (no CORS limits, honours the app's proxy). */
const obsidianFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await requestUrl({
    url: input instanceof Request ? input.url : input.toString(),
    method: init?.method ?? 'GET',
    headers: init?.headers as Record<string, string> | undefined,
    body: typeof init?.body === 'string' ? init.body : undefined,
    throw: false,
  });
  return new Response(response.text, { status: response.status });
}) as typeof fetch;

/**
 * A folder's resource URL to which file names can be appended: the desktop app returns
 * `app://<id>/<path>?<mtime>` (a cache-buster), so the query goes before the slash is added.
 */
export function folderUrl(resource: string): string {
  const base = resource.replace(/[?#].*$/, '');
  return base.endsWith('/') ? base : `${base}/`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const PLACE_KEY = 'engram-place';

/**
 * Where this device opens the vault (Ports.place): a token drawn once and kept in the app's
 * local storage, which belongs to this device and this vault and is never copied with the
 * vault's folder. A vault copied or synced with its `.engram/` to another device gets its own
 * machine stamp there.
 */
export function devicePlace(app: App): string {
  let token: unknown = app.loadLocalStorage(PLACE_KEY);
  if (typeof token !== 'string' || !/^[0-9a-f]{24}$/.test(token)) {
    token = Array.from({ length: 24 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
    app.saveLocalStorage(PLACE_KEY, token);
  }
  return `obsidian\n${token as string}`;
}
