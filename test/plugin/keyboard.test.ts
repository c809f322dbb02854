/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import { Modal } from '../fakes/obsidian';
import { startPlugin, type Harness } from './harness';

/*
 * Keyboard and screen reader: every control of the plugin's modals is a native button or
 * input (reachable by Tab, run by Enter or Space), and a button whose text alone does not say
 * what it acts on is named (aria-label).
 */
let h: Harness;
afterEach(() => {
  Modal.openModals.slice().forEach((m) => m.close());
  h.close();
});

/** The elements of a modal a click acts on: each must be a native control. */
function controls(modal: Modal): HTMLElement[] {
  return Array.from(modal.contentEl.querySelectorAll<HTMLElement>('button, input, select, [role="button"], .clickable-icon, [onclick]'));
}

it('draws creative-recall cards whose Open buttons name their memory', async () => {
  h = await startPlugin();
  await h.until(() => h.plugin.index.loaded === true);
  expect(h.app.commands.executeCommandById('engram-memory:creative-recall')).toBe(true);
  await h.until(() => Modal.openModals.some((m) => m.titleEl.textContent === 'Creative recall'));
  const modal = Modal.openModals.find((m) => m.titleEl.textContent === 'Creative recall')!;
  const buttons = controls(modal);
  expect(buttons).toHaveLength(5);
  for (const b of buttons) {
    expect(b.tagName).toBe('BUTTON');
    expect(b.getAttribute('aria-label')).toMatch(/^Open: \S/);
  }
});

it('offers the first-run view\'s choices as native controls', async () => {
  h = await startPlugin({ empty: true });
  const modal = Modal.openModals.find((m) => m.titleEl.textContent === 'Engram: memory for your AI agents')!;
  expect(controls(modal).map((c) => [c.tagName, c.textContent || (c as HTMLInputElement).value])).toEqual([
    ['INPUT', 'memory'],
    ['BUTTON', 'Not now'],
    ['BUTTON', 'Create the memory folder'],
  ]);
});
