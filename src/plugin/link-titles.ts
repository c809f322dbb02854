import { RangeSetBuilder } from '@codemirror/state';
import { Decoration, ViewPlugin, type DecorationSet, type EditorView, type ViewUpdate } from '@codemirror/view';
import { isMemoryId } from '../core/ids';
import { LINK_KINDS } from '../core/links';

/**
 * Typed links (`[[mem-…|related]]`, SPEC §2) name their kind in the alias, so Obsidian shows
 * the word "related" (a session's neighbours: one per memory). The plugin shows the linked
 * memory's title after the kind, in reading view and in the editor, without touching the file:
 * the alias stays the kind the core parses. Drawn with CSS from a data attribute (no HTML is
 * built from note text).
 */
export const TITLE_ATTRIBUTE = 'data-engram-title';
const TYPED_LINK = /\[\[([^\]|#\n]+?)(?:\.md)?\|(related|decays_from|supersedes|contradicts)\]\]/g;

/** Where each typed link's kind word is in `text` (from `offset`), with the title to show after it. */
export function typedLinkTitles(text: string, offset: number, titleOf: (id: string) => string | null): Array<{ from: number; to: number; title: string }> {
  const out: Array<{ from: number; to: number; title: string }> = [];
  for (const m of text.matchAll(TYPED_LINK)) {
    const id = m[1]!.trim().split('/').pop()!;
    if (!isMemoryId(id)) continue;
    const title = titleOf(id);
    if (!title) continue;
    const to = offset + m.index + m[0].length - 2;
    out.push({ from: to - m[2]!.length, to, title });
  }
  return out;
}

/** The editor extension: the kind word of each typed link in view marked with its memory's title. */
export function linkTitlesExtension(titleOf: (id: string) => string | null) {
  const build = (view: EditorView): DecorationSet => {
    const builder = new RangeSetBuilder<Decoration>();
    for (const { from, to } of view.visibleRanges) {
      for (const mark of typedLinkTitles(view.state.doc.sliceString(from, to), from, titleOf)) {
        builder.add(mark.from, mark.to, Decoration.mark({ class: 'engram-typed-link', attributes: { [TITLE_ATTRIBUTE]: mark.title } }));
      }
    }
    return builder.finish();
  };
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = build(view);
      }
      update(update: ViewUpdate): void {
        if (update.docChanged || update.viewportChanged) this.decorations = build(update.view);
      }
    },
    { decorations: (plugin) => plugin.decorations },
  );
}

/** Reading view: each rendered typed link to a memory gets its title after the kind. */
export function titleTypedLinks(el: HTMLElement, titleOf: (id: string) => string | null): void {
  for (const link of Array.from(el.querySelectorAll<HTMLAnchorElement>('a.internal-link'))) {
    const kind = (link.textContent ?? '').trim();
    if (!(LINK_KINDS as readonly string[]).includes(kind)) continue;
    const id = (link.getAttribute('data-href') ?? '').replace(/\.md$/, '').split('/').pop()!;
    const title = isMemoryId(id) ? titleOf(id) : null;
    if (!title) continue;
    link.addClass('engram-typed-link');
    link.setAttribute(TITLE_ATTRIBUTE, title);
    link.setAttribute('aria-label', `${kind.replace('_', ' ')}: ${title}`);
  }
}
