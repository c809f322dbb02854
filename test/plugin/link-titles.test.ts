/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { typedLinkTitles } from '../../src/plugin/link-titles';
import { startPlugin, type Harness } from './harness';

/*
 * Session links and other typed links (`[[mem-…|related]]`) show the linked memory's title after
 * their kind, in reading view (a post-processor) and in the editor (a CodeMirror extension),
 * while the file keeps the kind the core parses.
 */
const TITLE = 'A session with the product owner: chargebacks…';

it('finds the kind word of each typed link to a memory, with the title to show', () => {
  const titles: Record<string, string> = { 'mem-f89bf528af4e': 'Chargebacks reuse refunds' };
  const text = 'See [[mem-f89bf528af4e|related]], [[notes/mem-f89bf528af4e.md|supersedes]], [[mem-000000000000|related]], [[mem-f89bf528af4e|my label]] and [[other|related]].';
  expect(typedLinkTitles(text, 100, (id) => titles[id] ?? null)).toEqual([
    { from: 100 + text.indexOf('related'), to: 100 + text.indexOf('related') + 7, title: 'Chargebacks reuse refunds' },
    { from: 100 + text.indexOf('supersedes'), to: 100 + text.indexOf('supersedes') + 10, title: 'Chargebacks reuse refunds' },
  ]);
});

describe('the built plugin', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startPlugin();
    await h.until(() => h.plugin.index.loaded === true);
  });
  afterEach(() => h.close());

  it('titles typed links in reading view and in the editor, not other links', () => {
    expect(h.plugin.postProcessors).toHaveLength(1);
    expect(h.plugin.editorExtensions).toHaveLength(1);
    const section = document.body.createDiv();
    section.createEl('a', { cls: 'internal-link', text: 'related', attr: { 'data-href': 'mem-f89bf528af4e' } });
    section.createEl('a', { cls: 'internal-link', text: 'the design', attr: { 'data-href': 'mem-f89bf528af4e' } });
    section.createEl('a', { cls: 'internal-link', text: 'related', attr: { 'data-href': 'Some note' } });
    void h.plugin.postProcessors[0]!(section, {});
    const links = Array.from(section.querySelectorAll('a'));
    expect(links.map((a) => a.getAttribute('data-engram-title'))).toEqual([TITLE, null, null]);
    expect(links[0]!.getAttribute('aria-label')).toBe(`related: ${TITLE}`);

    const view = new EditorView({ state: EditorState.create({ doc: 'Next: [[mem-f89bf528af4e|related]]', extensions: [h.plugin.editorExtensions[0] as never] }), parent: document.body.createDiv() });
    const marked = Array.from(view.dom.querySelectorAll('.engram-typed-link'));
    expect(marked.map((el) => [el.textContent, el.getAttribute('data-engram-title')])).toEqual([['related', TITLE]]);
    expect(view.state.doc.toString()).toBe('Next: [[mem-f89bf528af4e|related]]');
    view.destroy();
    h.plugin.unload();
    expect(h.plugin.postProcessors).toHaveLength(0);
    expect(h.plugin.editorExtensions).toHaveLength(0);
  });
});
