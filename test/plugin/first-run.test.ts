/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Modal, Notice } from '../fakes/obsidian';
import { startPlugin, type Harness } from './harness';

/*
 * Ask before acting: a person who enables the plugin in a vault without a memory folder gets
 * a first-run view and nothing else. Nothing is written (not a file, not a property type) until
 * they create the memory folder there.
 */
let h: Harness;
afterEach(() => {
  Modal.openModals.slice().forEach((m) => m.close());
  h.close();
});

/** Every file and folder under `dir` with its bytes (folders as null), sorted by path. */
function snapshot(dir: string): Array<[string, string | null]> {
  const out: Array<[string, string | null]> = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        out.push([`${p}/`, null]);
        walk(p);
      } else out.push([p, fs.readFileSync(path.join(dir, p)).toString('base64')]);
    }
  };
  walk('');
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

/** A person's vault: ordinary notes with generic properties, Obsidian's own config files. */
function personalVault(dir: string): void {
  fs.mkdirSync(path.join(dir, 'Projects'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'Projects', 'Garden.md'), '---\nsource: seed catalogue\ntier: gold\ncategory: plants\nactivation: 3\n---\nTomatoes by the wall.\n');
  fs.writeFileSync(path.join(dir, 'Reading list.md'), '# Reading\n\n- [[Projects/Garden]]\n');
  fs.writeFileSync(path.join(dir, '.obsidian', 'types.json'), '{\n  "types": {\n    "rating": "number"\n  }\n}');
  fs.writeFileSync(path.join(dir, '.obsidian', 'app.json'), '{}');
}

function welcome(): Modal | undefined {
  return Modal.openModals.find((m) => m.titleEl.textContent === 'Engram: memory for your AI agents');
}

function button(modal: Modal, text: string): HTMLButtonElement {
  const found = Array.from(modal.contentEl.querySelectorAll('button')).find((b) => b.textContent === text);
  if (!found) throw new Error(`no button ${text}`);
  return found;
}

it('leaves a vault without a memory folder byte-identical: start, 20 minutes idle, ordinary notes opened, types.json included', async () => {
  let before: Array<[string, string | null]> = [];
  h = await startPlugin({
    empty: true,
    prepare: (dir) => {
      personalVault(dir);
      before = snapshot(dir);
    },
  });
  // the first-run view opened by itself, once, and says what Engram writes and downloads
  const view = welcome()!;
  const text = view.contentEl.textContent!;
  expect(text).toContain('What it writes, and when');
  expect(text).toContain('Opening a memory note counts as using it');
  expect(text).toMatch(/The token table \(1\.6 MB, from openaipublic\.blob\.core\.windows\.net\)/);
  expect(text).toMatch(/embedding runtime \(9\.6 MB of WebAssembly, from github\.com\) and the model \(about 23 MB, from huggingface\.co\)/);
  button(view, 'Not now').click();
  expect(welcome()).toBeUndefined();
  await h.advance(20 * 60_000);
  const garden = h.app.vault.getFileByPath('Projects/Garden.md')!;
  await h.app.workspace.getLeaf(false).openFile(garden);
  await h.app.workspace.getLeaf('tab').openFile(h.app.vault.getFileByPath('Reading list.md')!);
  await h.advance(60_000);
  expect(snapshot(h.dir)).toEqual(before);
  expect(h.app.metadataTypeManager.types).toEqual({ rating: { name: 'rating', type: 'number' } });
  expect(h.plugin.status!.el.textContent).toBe('Engram: set up');
  expect(h.plugin.status!.el.getAttribute('role')).toBe('button');
  expect(h.plugin.status!.el.getAttribute('tabindex')).toBe('0');
  // no Notice beyond none: nothing to report
  expect(Notice.shown).toEqual([]);
  expect(h.app.vault.writes).toBe(0);
});

it('"Consolidate now" before the folder exists says so and offers the set-up instead of creating memory/.engram', async () => {
  h = await startPlugin({ empty: true });
  button(welcome()!, 'Not now').click();
  expect(h.app.commands.executeCommandById('engram-memory:consolidate')).toBe(true);
  await h.advance(1000);
  expect(Notice.shown).toEqual(['Engram: Consolidation needs the memory folder, which does not exist yet. Set up Engram first.']);
  expect(fs.existsSync(path.join(h.dir, 'memory'))).toBe(false);
  expect(welcome()).toBeDefined();
  // the status bar offers the same view from the keyboard
  button(welcome()!, 'Not now').click();
  h.plugin.status!.el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
  expect(welcome()).toBeDefined();
});

it('creates the memory folder from the first-run view, then registers only Engram\'s own property types', async () => {
  h = await startPlugin({ empty: true, prepare: (dir) => personalVault(dir) });
  const view = welcome()!;
  button(view, 'Create the memory folder').click();
  await h.advance(1000);
  await h.until(() => h.plugin.status!.counts !== null);
  expect(fs.readdirSync(path.join(h.dir, 'memory')).sort()).toEqual(['.engram', 'STATE.md', 'archive', 'conflicts', 'daily', 'decisions', 'episodic', 'semantic']);
  expect(JSON.parse(fs.readFileSync(path.join(h.dir, '.obsidian', 'types.json'), 'utf8'))).toEqual({
    types: {
      rating: 'number',
      last_accessed_at: 'datetime',
      activation_at: 'datetime',
      access_count: 'number',
      half_life_days: 'number',
      is_error: 'checkbox',
      related_paths: 'multitext',
      agent_role: 'text',
      content_hash: 'text',
    },
  });
  expect(h.plugin.status!.el.textContent).toBe('core 0 · active 0 · warm 0 · cold 0 · archive 0');
  expect(h.plugin.status!.el.getAttribute('role')).toBeNull();
  // the person's note with generic property names is untouched
  expect(fs.readFileSync(path.join(h.dir, 'Projects', 'Garden.md'), 'utf8')).toBe('---\nsource: seed catalogue\ntier: gold\ncategory: plants\nactivation: 3\n---\nTomatoes by the wall.\n');
});

it('starts by itself when the memory folder arrives from elsewhere (sync, the command line), and opens the view only once per device', async () => {
  h = await startPlugin({
    empty: true,
    before: (_dir, app) => app.saveLocalStorage('engram-welcome-shown', 1),
  });
  expect(welcome()).toBeUndefined();
  await h.advance(60_000);
  expect(h.plugin.ready).toBe(false);
  await h.app.vault.createFolder('memory/episodic');
  await h.until(() => h.plugin.ready === true && h.plugin.status!.counts !== null);
  expect(h.plugin.status!.el.textContent).toBe('core 0 · active 0 · warm 0 · cold 0 · archive 0');
});
