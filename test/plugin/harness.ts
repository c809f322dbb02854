/**
 * Loads the built plugin (dist/plugin/main.js, built by jest's global setup) into the fake
 * Obsidian over a copy of the example vault, with jest's fake timers at a fixed `now`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setImmediate as realImmediate } from 'node:timers';
import { App, MarkdownView, Notice, TFile, type PluginManifest, type WorkspaceLeaf } from '../fakes/obsidian';

export const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'vault');
export const NOW = Date.parse('2026-11-29T12:00:00Z');

export interface PluginUnderTest {
  load(): void;
  unload(): void;
  settings: Record<string, unknown> & { touchOnOpen: boolean; debounceMs: number; quietMs: number };
  touch: { writes: number; waiting: number; settle(): Promise<void> } | null;
  status: { counts: Record<string, number> | null; el: HTMLElement } | null;
  service: any;
  [key: string]: any;
}

export interface Harness {
  dir: string;
  app: App;
  plugin: PluginUnderTest;
  read(p: string): string;
  file(p: string): TFile;
  /** Let promise chains and file system turns run (timers do not move by themselves). */
  flush(): Promise<void>;
  /** Move the clock, running timers, then let writes settle. */
  advance(ms: number): Promise<void>;
  /** Open a memory note in the active tab (as a click in the file explorer). */
  open(p: string): Promise<WorkspaceLeaf>;
  /** Open a memory note in a new tab. */
  openInNewTab(p: string): Promise<WorkspaceLeaf>;
  /** Let the event loop run until `condition` holds (fails after `turns` turns). */
  until(condition: () => boolean, turns?: number): Promise<void>;
  /** Writes to each memory file since the harness started (vault-relative memory paths). */
  writes: Map<string, number>;
  close(): void;
}

jest.setTimeout(30_000);

export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => realImmediate(resolve));
}

/**
 * `runtime`: the embedding runtime (worker and WASM, as built in dist/plugin) already in
 * `.engram/runtime/`, as a first download would have left it.
 */
export async function startPlugin(options: { before?: (dir: string, app: App) => Promise<void> | void; vault?: string; now?: number; runtime?: boolean; empty?: boolean; prepare?: (dir: string) => void } = {}): Promise<Harness> {
  Notice.shown.length = 0;
  jest.useFakeTimers({ now: options.now ?? NOW, doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-plugin-'));
  fs.mkdirSync(path.join(dir, '.obsidian', 'plugins', 'engram-memory'), { recursive: true });
  // `empty`: a vault without a memory folder, as a person who just enabled the plugin has
  if (!options.empty) {
    fs.cpSync(options.vault ?? EXAMPLE, path.join(dir, 'memory'), { recursive: true });
    // the token table as a first download would have left it (test/plugin/downloads.test.ts downloads it)
    fs.mkdirSync(path.join(dir, 'memory', '.engram', 'runtime'), { recursive: true });
    fs.copyFileSync(require.resolve('gpt-tokenizer/data/cl100k_base.tiktoken'), path.join(dir, 'memory', '.engram', 'runtime', 'cl100k_base.tiktoken'));
    if (options.runtime) seedRuntime(dir);
  }
  // `prepare`: files on disk before the app opens the vault (`before` runs after)
  options.prepare?.(dir);
  const app = new App(dir);
  const writes = new Map<string, number>();
  app.vault.on('modify', (f: TFile) => writes.set(f.path.replace(/^memory\//, ''), (writes.get(f.path.replace(/^memory\//, '')) ?? 0) + 1));
  await options.before?.(dir, app);
  const manifest = { ...(JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'manifest.json'), 'utf8')) as PluginManifest), dir: '.obsidian/plugins/engram-memory' };
  const EngramPlugin = (require('../../dist/plugin/main.js') as { default: new (app: App, manifest: PluginManifest) => PluginUnderTest }).default;
  const plugin = new EngramPlugin(app, manifest);
  plugin.load();
  await flush();
  app.workspace.setLayoutReady();
  await flush();
  const file = (p: string) => app.vault.getAbstractFileByPath(`memory/${p}`) as TFile;
  const advance = async (ms: number) => {
    // step through in slices so that what a timer starts (file writes take event-loop turns)
    // settles before the next slice: 250 ms slices for the first 5 s, 2 s slices to 10 minutes,
    // then minutes
    for (let done = 0; done < ms; ) {
      const step = Math.min(done < 5000 ? 250 : done < 600_000 ? 2000 : 60_000, ms - done);
      jest.advanceTimersByTime(step);
      done += step;
      await flush();
    }
    if (ms === 0) jest.advanceTimersByTime(0);
    await flush();
    await plugin.touch?.settle();
    await flush();
  };
  return {
    dir,
    app,
    plugin,
    writes,
    read: (p) => fs.readFileSync(path.join(dir, 'memory', p), 'utf8'),
    file,
    flush,
    advance,
    until: async (condition, turns = 5000) => {
      for (let i = 0; i < turns && !condition(); i++) await new Promise((resolve) => realImmediate(resolve));
      if (!condition()) throw new Error('condition not reached');
    },
    open: async (p) => {
      const leaf = app.workspace.getLeaf(false);
      await leaf.openFile(file(p));
      await flush();
      return leaf;
    },
    openInNewTab: async (p) => {
      const leaf = app.workspace.getLeaf('tab');
      await leaf.openFile(file(p));
      await flush();
      return leaf;
    },
    close: () => {
      plugin.unload();
      jest.useRealTimers();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Put the built embedding runtime where a first download would leave it. */
export function seedRuntime(dir: string): void {
  for (const name of ['embedding-worker.js', 'ort-wasm-simd.wasm']) fs.copyFileSync(path.join(__dirname, '..', '..', 'dist', 'plugin', name), path.join(dir, 'memory', '.engram', 'runtime', name));
  // and the model's weights (the runtime is fetched only when the model can be had)
  const onnx = path.join(dir, 'memory', '.engram', 'models', 'Xenova', 'all-MiniLM-L6-v2', 'onnx');
  fs.mkdirSync(onnx, { recursive: true });
  fs.writeFileSync(path.join(onnx, 'model_quantized.onnx'), 'weights');
}

export function frontmatterLines(text: string): string[] {
  return text.slice(4, text.indexOf('\n---\n')).split('\n');
}

export function field(text: string, name: string): string | undefined {
  return frontmatterLines(text).find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
}

export { MarkdownView };
