/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import { Platform, type WorkspaceLeaf } from '../fakes/obsidian';
import { startPlugin, type Harness } from './harness';

/*
 * The related-memories sidebar, against the built plugin: for the memory in the editor, its
 * co-access partners, its links both ways and what recall finds for its text, each with tier,
 * strength and the day its tier next drops; the open conflicts; on a phone, the tier counts.
 */
const P = 'semantic/mem-cc7d4cac5923.md'; // three episodes decay into it
const S = 'semantic/mem-1ac8be4e7939.md'; // co-access with D
const CONFLICT = `---
id: conflict-mem-1ac8be4e7939-mem-c14c76a3ce4f
status: open
sides: ["mem-1ac8be4e7939", "mem-c14c76a3ce4f"]
---
Two memories disagree.
`;

interface Sections {
  current: { id: string; label: string } | null;
  coAccess: Array<{ id: string; why: string; nextDemotionMs: number | null; node: { tier: string; strength: number } }>;
  links: Array<{ id: string; why: string }>;
  recalled: Array<{ id: string; why: string }>;
  conflicts: Array<{ path: string; label: string; sides: string[] }>;
}

let h: Harness;
afterEach(() => {
  Platform.isMobile = false;
  h.close();
});

async function openSidebar(): Promise<{ leaf: WorkspaceLeaf; sections: () => Sections; el: HTMLElement }> {
  expect(h.app.commands.executeCommandById('engram-memory:open-related')).toBe(true);
  await h.advance(100);
  const leaf = h.app.workspace.getLeavesOfType('engram-related')[0]!;
  const view = leaf.view as unknown as { sections: Sections; contentEl: HTMLElement };
  return { leaf, sections: () => view.sections, el: view.contentEl };
}

it('lists a memory\'s co-access partners, links both ways, recall neighbours and open conflicts', async () => {
  h = await startPlugin({
    before: async (_dir, app) => {
      await app.vault.createFolder('memory/conflicts');
      await app.vault.create('memory/conflicts/conflict-mem-1ac8be4e7939-mem-c14c76a3ce4f.md', CONFLICT);
    },
  });
  await h.open(S);
  const { sections, el } = await openSidebar();
  await h.advance(2000);
  const s = sections();
  expect(s.current?.id).toBe('mem-1ac8be4e7939');
  expect(s.coAccess.map((i) => [i.id, i.why])).toEqual([['mem-c14c76a3ce4f', 'used together 1×']]);
  expect(s.coAccess[0]!.node.tier).toBe('warm');
  expect(s.coAccess[0]!.nextDemotionMs).toBeGreaterThan(Date.parse('2026-11-29T12:00:00Z'));
  expect(s.conflicts).toEqual([{ path: 'memory/conflicts/conflict-mem-1ac8be4e7939-mem-c14c76a3ce4f.md', label: expect.stringContaining(' ↔ ') as unknown as string, sides: ['mem-1ac8be4e7939', 'mem-c14c76a3ce4f'] }]);
  // the engine is built in the background; then recall's neighbours for the note's text appear
  await h.advance(12_000);
  expect(sections().recalled.length).toBeGreaterThan(0);
  expect(sections().recalled.every((r) => r.id !== 'mem-1ac8be4e7939' && /^recall \d\.\d\d$/.test(r.why))).toBe(true);
  const rows = Array.from(el.querySelectorAll('.engram-related-item .engram-related-meta')).map((m) => m.textContent);
  expect(rows[0]).toMatch(/^used together 1× · warm · strength 0\.\d\d · drops \d{4}-\d\d-\d\d$/);
  // the sidebar follows the editor: links both ways
  await h.open(P);
  await h.advance(1000);
  expect(sections().current?.id).toBe('mem-cc7d4cac5923');
  expect(sections().links.map((l) => l.why).sort()).toEqual(['decays from (links here)', 'decays from (links here)', 'decays from (links here)']);
  // clicking a row opens that memory
  const first = el.querySelector('.engram-related-item[data-id]') as HTMLElement;
  first.click();
  await h.advance(2000);
  expect(h.app.workspace.getActiveFile()?.basename).toBe(first.getAttribute('data-id'));
  // every row is a button for the keyboard and screen readers: Tab reaches it, Enter or Space opens it
  await h.open(P);
  await h.advance(1000);
  const rowsNow = Array.from(el.querySelectorAll('.engram-related-item')) as HTMLElement[];
  expect(rowsNow.length).toBeGreaterThan(1);
  for (const row of rowsNow) expect([row.getAttribute('role'), row.getAttribute('tabindex'), row.getAttribute('aria-label')?.startsWith('Open ')]).toEqual(['button', '0', true]);
  const second = el.querySelector('.engram-related-item[data-id]') as HTMLElement;
  second.dispatchEvent(new KeyboardEvent('keydown', { key: ' ' }));
  await h.advance(2000);
  expect(h.app.workspace.getActiveFile()?.basename).toBe(second.getAttribute('data-id'));
});

it('shows the tier counts in the sidebar on a phone, where there is no status bar', async () => {
  h = await startPlugin({ before: () => void (Platform.isMobile = true) });
  expect(h.plugin.status!.el).toBeNull();
  await h.open(S);
  const { el } = await openSidebar();
  await h.advance(1000);
  expect(el.querySelector('.engram-related-status')!.textContent).toMatch(/^core \d+ · active \d+ · warm \d+ · cold \d+ · archive \d+$/);
});
