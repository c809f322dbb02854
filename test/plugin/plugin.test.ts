/**
 * @jest-environment jsdom
 */
import { FakeWorker, installFakeWorkers, workers } from '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Editor, MarkdownView, Modal, Notice, TFile } from '../fakes/obsidian';

import { faded } from '../../src/plugin/graph/memory-graph';
import { seedRuntime, startPlugin, type Harness, type PluginUnderTest } from './harness';

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'vault');
const A = 'decisions/mem-1b285ef1d302.md'; // cold, last access 2026-10-01, no links
const B = 'decisions/mem-e2eef83885cf.md'; // cold on file, last access 2026-11-18
const C = 'episodic/mem-045ec1a2d6c2.md';

let h: Harness;
let dir: string;
let app: App;
let plugin: PluginUnderTest;
let baseline: { workspace: number; vault: number; metadata: number };
let read: (p: string) => string;
let file: (p: string) => TFile;
let flush: () => Promise<void>;
let advance: (ms: number) => Promise<void>;
let open: (p: string) => Promise<unknown>;

function frontmatterLines(text: string): string[] {
  return text.slice(4, text.indexOf('\n---\n')).split('\n');
}

beforeEach(async () => {
  h = await startPlugin({
    before: (_dir, fresh) => {
      baseline = { workspace: fresh.workspace.listenerCount(), vault: fresh.vault.listenerCount(), metadata: fresh.metadataCache.listenerCount() };
    },
  });
  ({ dir, app, plugin, read, file, flush, advance, open } = h);
});

afterEach(() => h.close());

describe('the plugin against the fake Obsidian API', () => {
  it('touches a memory opened in Obsidian: one tier up, the access counted, the body untouched', async () => {
    const before = read(A);
    await open(A);
    expect(read(A)).toBe(before); // nothing before the debounce
    await advance(1500);
    const after = read(A);
    expect(after.slice(after.indexOf('\n---\n'))).toBe(before.slice(before.indexOf('\n---\n')));
    const changed = frontmatterLines(after).filter((line, i) => line !== frontmatterLines(before)[i]);
    expect(changed).toEqual([
      'last_accessed_at: "2026-11-29T12:00:00Z"',
      'access_count: 1',
      'tier: warm',
      'activation: 0.25',
      'activation_at: "2026-11-29T12:00:00Z"',
      expect.stringMatching(/^uses_m-[0-9a-f]{12}: 1$/), // this device's own count, so that two devices' touches add up after a sync (issue 21)
      expect.stringMatching(/^counted_by: m-[0-9a-f]{12}$/), // this machine, so that git always merges two machines' touches (issue 22)
    ]);
    expect(changed[5]!.slice('uses_'.length, -': 1'.length)).toBe(changed[6]!.slice('counted_by: '.length));
    expect(plugin.touch!.writes).toBe(1);
  });

  it('links two memories opened within the co-access window, on both sides', async () => {
    await open(A);
    await advance(10_000);
    await open(B);
    await advance(1500);
    // B's side goes with B's touch; A's side in the next batch of deferred writes (A is no longer open)
    expect(read(B)).toContain('co_access: {"mem-1b285ef1d302": 1}');
    expect(read(A)).toContain('co_access: {}');
    await advance(30_000);
    expect(read(A)).toContain('co_access: {"mem-e2eef83885cf": 1}');
    // outside the window (30 minutes): no new link
    await advance(31 * 60_000);
    await open(C);
    await advance(1500);
    expect(read(C)).toContain('co_access: {}');
  });

  it('follows a co-access window changed in the settings without a reload', async () => {
    await plugin.service.setSetting(['coAccessWindowMinutes'], 1);
    await open(A);
    await advance(2 * 60_000);
    await open(B);
    await advance(1500);
    expect(read(A)).toContain('co_access: {}');
    expect(read(B)).toContain('co_access: {}');
    expect(read(B)).toContain('access_count: 2');
  });

  it('writes once for rapid re-opens of one note', async () => {
    let modifies = 0;
    app.vault.on('modify', (f: TFile) => {
      if (f.path === `memory/${C}`) modifies++;
    });
    for (let i = 0; i < 5; i++) {
      await open(C);
      await advance(200);
    }
    await advance(1500);
    expect(modifies).toBe(1);
    expect(read(C)).toContain('access_count: 1');
    expect(plugin.touch!.writes).toBe(1);
  });

  it('never writes the note the user is typing in, and writes once they stop', async () => {
    await open(A);
    const editor = app.workspace.getActiveViewOfType(MarkdownView)!.editor;
    const type = () => app.workspace.trigger('editor-change', editor, { file: file(A) });
    for (let t = 0; t < 4; t++) {
      await advance(1000);
      type();
    }
    await advance(4000); // 4 s after the last keystroke: still waiting
    expect(read(A)).toContain('access_count: 0');
    expect(plugin.touch!.waiting).toBe(1);
    await advance(1000);
    expect(read(A)).toContain('access_count: 1');
  });

  it('ignores the modify events its own writes cause', async () => {
    await open(A);
    await advance(1500);
    expect(read(A)).toContain('access_count: 1');
    await advance(10 * 60_000); // past the re-open window: a second use
    await open(C);
    await open(A);
    await advance(1500); // not held back as if a person had edited the note
    expect(read(A)).toContain('access_count: 2');
    // an outside edit, by contrast, holds the next touch back
    await advance(10 * 60_000);
    await open(C);
    await app.vault.modify(file(A), read(A).replace('Node 20 LTS', 'Node 20 LTS (edited)'));
    await flush();
    await open(A);
    await advance(1500);
    expect(read(A)).toContain('access_count: 2');
    await advance(5000);
    expect(read(A)).toContain('access_count: 3');
    expect(read(A)).toContain('Node 20 LTS (edited)');
  });

  it('does not touch when touch on open is off, or for notes outside the memory folders', async () => {
    fs.writeFileSync(path.join(dir, 'memory', 'STATE.md'), '# STATE\n');
    plugin.settings.touchOnOpen = false;
    await open(A);
    await advance(2000);
    expect(read(A)).toContain('access_count: 0');
    plugin.settings.touchOnOpen = true;
    await app.workspace.getLeaf(false).openFile(app.vault.getAbstractFileByPath('memory/STATE.md') as TFile);
    await advance(2000);
    expect(plugin.touch!.writes).toBe(0);
  });

  it('shows the count per tier in the status bar and keeps it current', async () => {
    await advance(10);
    const initial = { ...plugin.status!.counts! };
    expect(Object.values(initial).reduce((a, b) => a + b, 0)).toBe(63);
    await open(A);
    await advance(1500);
    await advance(1500);
    expect(plugin.status!.counts).toEqual({ ...initial, cold: initial.cold! - 1, warm: initial.warm! + 1 });
    expect(plugin.status!.el.textContent).toBe(`core ${initial.core} · active ${initial.active} · warm ${initial.warm! + 1} · cold ${initial.cold! - 1} · archive ${initial.archive}`);
  });

  it('marks the active memory verified, stale or core through commands that apply only to memories', async () => {
    await open(B);
    expect(app.commands.executeCommandById('engram-memory:mark-stale')).toBe(true);
    await flush();
    expect(read(B)).toContain('confidence: stale');
    expect(app.commands.executeCommandById('engram-memory:mark-core')).toBe(true);
    await flush();
    expect(read(B)).toContain('tier: core');
    await app.workspace.getLeaf(false).openFile(app.vault.getAbstractFileByPath('memory/STATE.md') as TFile);
    expect(app.commands.executeCommandById('engram-memory:mark-verified')).toBe(false);
    expect([...app.commands.commands.values()].every((c) => c.hotkeys === undefined)).toBe(true);
  });

  it('remembers the selection as a new memory and inserts the agent memory block', async () => {
    await open(C);
    const view = app.workspace.getActiveViewOfType(MarkdownView)!;
    view.editor = new Editor('Intro. The ledger export job must run after settlement closes. Outro.', [7, 62]);
    expect(app.commands.executeCommandById('engram-memory:remember-selection')).toBe(true);
    await flush();
    await advance(0);
    const created = fs.readdirSync(path.join(dir, 'memory', 'episodic')).length;
    expect(created).toBe(fs.readdirSync(path.join(EXAMPLE, 'episodic')).length + 1);
    // the note is named after its first words, and the notice says that name, not the id (ADR 0005)
    expect(fs.existsSync(path.join(dir, 'memory', 'episodic', 'The ledger export job must run after settlement closes.md'))).toBe(true);
    expect(Notice.shown.at(-1)).toBe('Engram: remembered as The ledger export job must run after settlement closes');
    view.editor = new Editor('', [0, 0]);
    expect(app.commands.executeCommandById('engram-memory:insert-agent-memory')).toBe(true);
    await advance(0);
    await flush();
    await h.until(() => view.editor.getValue() !== '');
    expect(view.editor.getValue()).toMatch(/^# STATE[\s\S]*<agent-memory source="engram"[\s\S]*<\/agent-memory>\n$/);
  });

  it('validates settings before writing .engram/config.json, which the runner reads too', async () => {
    await plugin.service.setSetting(['tokenBudget'], 1500);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'memory', '.engram', 'config.json'), 'utf8'))).toEqual({ tokenBudget: 1500 });
    expect(plugin.service.vault.settings.tokenBudget).toBe(1500);
    await expect(plugin.service.setSetting(['tierDays', 'active'], -3)).rejects.toThrow(/tierDays\.active/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'memory', '.engram', 'config.json'), 'utf8'))).toEqual({ tokenBudget: 1500 });
  });

  it('has a settings tab whose fields write the shared settings file, asking before a model download is allowed', async () => {
    const tab = app.settingTabs[0]!;
    app.openSettingTab(tab); // Obsidian 1.13 draws it from getSettingDefinitions()
    expect(tab.drawn).toBe('definitions');
    const setting = (name: string) => Array.from(tab.containerEl.querySelectorAll('.setting-item')).find((el) => el.querySelector('.setting-item-name')!.textContent === name)!;
    const shownNames = () => Array.from(tab.containerEl.querySelectorAll('.setting-item')).filter((el) => el.closest('[hidden]') === null).map((el) => el.querySelector('.setting-item-name')!.textContent);
    const names = shownNames();
    expect(names).not.toContain('Allow downloading the model');
    for (const name of ['Memory folder', 'Touch on open', 'Co-access window (minutes)', 'Token budget', 'Episodic half-life (days)', 'Boost when opened', 'Cluster at cosine', 'Active until (days)', 'Embedder']) expect(names).toContain(name);
    const input = setting('Episodic half-life (days)').querySelector('input')!;
    expect(input.value).toBe('7');
    input.value = '10';
    input.dispatchEvent(new Event('change'));
    await flush();
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'memory', '.engram', 'config.json'), 'utf8'))).toEqual({ halfLifeDays: { episodic: 10 } });
    const select = setting('Embedder').querySelector('select')!;
    select.value = 'transformers';
    select.dispatchEvent(new Event('change'));
    await flush();
    expect(shownNames()).toContain('Allow downloading the model');
    // switching the download on asks first; nothing is saved until the user agrees
    const config = () => JSON.parse(fs.readFileSync(path.join(dir, 'memory', '.engram', 'config.json'), 'utf8')) as { embedder: unknown };
    (setting('Allow downloading the model').querySelector('.checkbox-container') as HTMLElement).click();
    await flush();
    const ask = Modal.openModals.at(-1)!;
    expect(ask.titleEl.textContent).toBe('Download an embedding model?');
    expect(config().embedder).toEqual({ kind: 'transformers' });
    const buttons = Array.from(ask.contentEl.querySelectorAll('button'));
    expect(buttons.map((b) => b.textContent)).toEqual(['Cancel', 'Allow download']);
    buttons[1]!.click();
    await flush();
    expect(config().embedder).toEqual({ kind: 'transformers', allowRemoteModels: true });
    expect(Modal.openModals).toHaveLength(0);
  });

  it('recalls from a search modal with scores and explanations, and opening a result touches it', async () => {
    expect(app.commands.executeCommandById('engram-memory:recall')).toBe(true);
    await flush();
    const modal = Modal.openModals.at(-1) as unknown as {
      getSuggestions(q: string): Promise<Array<{ id: string; path: string; score: number }>>;
      renderSuggestion(r: unknown, el: HTMLElement): void;
      onChooseSuggestion(r: unknown): void;
      close(): void;
    };
    const results = await modal.getSuggestions('flaky session timeout test');
    expect(results.length).toBeGreaterThan(2);
    expect(results[0]!.path).toBe(C);
    expect(results.map((r) => r.score)).toEqual([...results.map((r) => r.score)].sort((a, b) => b - a));
    const el = document.createElement('div');
    modal.renderSuggestion((await modal.getSuggestions('flaky session timeout test?'))[0], el);
    expect(el.querySelector('.engram-recall-text')!.textContent).toBe('Flaky test in the auth suite: the session expiry test uses a 50 ms timeout, too short for the CI runners.');
    expect(el.querySelector('.engram-recall-explain')!.textContent).toMatch(/^lexical [0-9.]+ · lexical_rank 1.000 · vector null · /);
    modal.onChooseSuggestion(results[0]);
    modal.close();
    await flush();
    expect(app.workspace.getActiveFile()!.path).toBe(`memory/${C}`);
    await advance(1500);
    expect(read(C)).toContain('access_count: 1');
  });

  it('draws creative-recall cards and shows the consolidation report', async () => {
    expect(app.commands.executeCommandById('engram-memory:creative-recall')).toBe(true);
    await flush();
    const cards = Modal.openModals.at(-1)!.contentEl.querySelectorAll('.engram-card');
    expect(cards).toHaveLength(5);
    Modal.openModals.at(-1)!.close();
    expect(app.commands.executeCommandById('engram-memory:consolidate')).toBe(true);
    await flush();
    await advance(0);
    const report = Modal.openModals.at(-1)!;
    expect(report.titleEl.textContent).toBe('Consolidation');
    const steps = Array.from(report.contentEl.querySelectorAll('li')).map((li) => li.textContent!.replace(/ · \d+ ms$/, ''));
    expect(steps.map((s) => s.split(' ').slice(1, 3).join(' '))).toEqual([
      'pruned (moved',
      'downgraded →',
      'embedded (no',
      'clusters →',
      'strengthened',
      'conflicts resolved',
      'tiers demoted',
      'logged to',
    ]);
    expect(steps[3]).toBe('1 clusters → semantic memories (1 new semantic, 0 reinforced (lexical similarity))');
    expect(fs.readFileSync(path.join(dir, 'memory', '.engram', 'runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    report.close();
  });

  it('embeds in the worker with progress in the status bar, and a click cancels', async () => {
    installFakeWorkers();
    seedRuntime(dir); // downloaded before (test/plugin/runtime.test.ts downloads it)
    await plugin.service.setSetting(['embedder', 'kind'], 'transformers');
    expect(app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
    await h.until(() => workers.length > 0 && workers[0]!.messages.length > 0);
    const worker = workers.at(-1)!;
    const request = worker.messages[0] as { type: string; id: number; texts: string[] };
    expect(request.type).toBe("embed");
    expect(request.texts).toHaveLength(63);
    worker.emit({ type: 'progress', id: request.id, done: 32, total: 63 });
    expect(plugin.status!.el.textContent).toBe('Engram: embedding 32/63 (click to cancel)');
    plugin.status!.el.click();
    expect(worker.messages[1]).toEqual({ type: 'cancel', id: request.id });
    worker.emit({ type: 'cancelled', id: request.id });
    await flush();
    expect(Notice.shown.at(-1)).toBe('Engram: embedding with Xenova/all-MiniLM-L6-v2 was cancelled');
    expect(fs.existsSync(path.join(dir, 'memory', '.engram', 'embeddings.bin'))).toBe(false);
    // the next run completes: vectors written, the status bar back to the counts
    expect(app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
    await flush();
    const again = worker.messages.at(-1) as { id: number; texts: string[] };
    worker.emit({ type: 'result', id: again.id, vectors: again.texts.map((_, i) => Float32Array.from([1, i, 0, 0])) });
    await flush();
    expect(Notice.shown.at(-1)).toBe('Engram: embedded 63, kept 0, removed 0');
    expect(fs.statSync(path.join(dir, 'memory', '.engram', 'embeddings.bin')).size).toBe(63 * 4 * 4);
    plugin.unload();
    expect(worker.terminated).toBe(true);
    plugin.load = () => undefined;
  });

  it('opens the memory graph from the in-memory catalog, keeps it current on touch, create, rename and delete, and leaves nothing after unload', async () => {
    installFakeWorkers();
    expect(app.commands.executeCommandById('engram-memory:open-graph')).toBe(true);
    await advance(10);
    expect(Notice.shown).toEqual([]);
    const view = app.workspace.getLeavesOfType('engram-memory-graph')[0]!.view as unknown as {
      model: { graph: { order: number; size: number; getNodeAttributes(id: string): Record<string, unknown>; hasNode(id: string): boolean }; counts(): Record<string, number>; search(q: string): string[]; neighbourhood(id: string, hops: number): Set<string> };
      contentEl: HTMLElement;
    };
    await advance(1000);
    // jsdom has no WebGL: the view says so, and the model is built all the same
    expect(view.contentEl.querySelector('.engram-graph-unavailable')!.textContent).toBe('This device cannot draw the memory graph (it needs hardware graphics).');
    const model = view.model;
    expect(model.graph.order).toBe(63);
    const counts = { ...plugin.status!.counts! };
    expect(model.counts()).toEqual(counts);
    const a = model.graph.getNodeAttributes('mem-1b285ef1d302');
    expect([a.tier, a.label, a.color]).toEqual(['cold', 'Node 20 LTS is the runtime until the payments…', a.color]);
    expect(a.color).toBe(faded('#027aff', '#1e1e1e', 0.35 + 0.65 * (a.strength as number))); // cold, faded by strength
    expect(model.search('runtime payments')).toContain('mem-1b285ef1d302');
    // a touch recolours the node (metadata `changed`)
    await open(A);
    await advance(1600);
    expect(model.graph.getNodeAttributes('mem-1b285ef1d302').tier).toBe('warm');
    expect(model.counts()).toEqual({ ...counts, warm: counts.warm! + 1, cold: counts.cold! - 1 });
    expect(plugin.status!.counts).toEqual(model.counts()); // the status bar moved one memory, too
    // a memory moved to archive/ (a rename: no metadata `changed`) keeps its node, with its new path
    if (!app.vault.getAbstractFileByPath('memory/archive')) await app.vault.createFolder('memory/archive');
    await app.fileManager.renameFile(file(C), 'memory/archive/mem-045ec1a2d6c2.md');
    await advance(100);
    expect(model.graph.getNodeAttributes('mem-045ec1a2d6c2')).toMatchObject({ path: 'archive/mem-045ec1a2d6c2.md', tier: 'archive' });
    // a new memory appears; a deleted one goes
    await app.vault.create('memory/episodic/mem-aaaaaaaaaaab.md', read(B).replace('mem-e2eef83885cf', 'mem-aaaaaaaaaaab'));
    await advance(100);
    expect(model.graph.hasNode('mem-aaaaaaaaaaab')).toBe(true);
    await app.vault.delete(file('episodic/mem-aaaaaaaaaaab.md'));
    await advance(100);
    expect(model.graph.hasNode('mem-aaaaaaaaaaab')).toBe(false);
    expect(model.graph.order).toBe(63);

    plugin.unload();
    await flush();
    expect(workers.every((w: FakeWorker) => w.terminated)).toBe(true);
    expect(app.workspace.listenerCount()).toBe(baseline.workspace);
    expect(app.vault.listenerCount()).toBe(baseline.vault);
    expect(app.metadataCache.listenerCount()).toBe(baseline.metadata);
    expect(document.querySelectorAll('.engram-graph-view')).toHaveLength(0);
    expect(jest.getTimerCount()).toBe(0);
    expect(Modal.openModals).toHaveLength(0);
    plugin.load = () => undefined; // afterEach unloads again: nothing left to do
  });
});
