import { LINK_KINDS, type LinkKind, type MemoryLink } from '../../../src/core/links';
import { analyze } from '../../../src/core/analyzer';
import { parseMemory } from '../../../src/core/memory';
import { catalogDoc, coAccessField, linksField, ownLinks, ownString } from '../../../src/core/recall/catalog';
import { memoryTimeTerms } from '../../../src/core/recall/time-terms';
import { DEFAULT_SETTINGS } from '../../../src/core/settings';
import { seededRandom } from '../../../src/core/random';

/**
 * Issue 23, a first recall at 10k: a catalog document's links and its row's links and co-access
 * fields are made by loops instead of `map` and `join` (whose optimised versions made arrays of
 * another elements kind, so that the code after them was thrown away and compiled again). Each
 * gives what the code it replaces gave, kept here as the reference.
 */
const random = seededRandom('issue-23-catalog-fields');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const id = () => `mem-${Array.from({ length: 12 }, () => pick([...'abcdefghijklmnopqrstuvwxyz0123456789'])).join('')}`;

/** catalogDoc's links before: `links.map(ownLink)`. */
const referenceOwnLinks = (links: readonly MemoryLink[]): MemoryLink[] =>
  links.map((link) => ({ ...link, target: ownString(link.target), kind: LINK_KINDS[LINK_KINDS.indexOf(link.kind)] ?? link.kind }));
/** encode's links and co-access before. */
const referenceLinksField = (links: readonly MemoryLink[]): string => links.map((l) => `${l.kind}|${l.target}`).join(' ');
const referenceCoAccessField = (co: Record<string, number>): string => Object.entries(co).map(([key, n]) => `${key}:${n}`).join(' ');

function randomLinks(): MemoryLink[] {
  return Array.from({ length: Math.floor(random() * 5) }, () => {
    const link: MemoryLink = { target: id(), kind: pick(LINK_KINDS) };
    if (random() < 0.3) link.name = `Note ${Math.floor(random() * 100)}`;
    return link;
  });
}

describe('ownLinks: each link as ownLink makes it', () => {
  it('gives new link objects with the same fields, in order, and the kind as LINK_KINDS spells it', () => {
    const kind = ['re', 'lated'].join('') as LinkKind;
    const links: MemoryLink[] = [
      { target: 'mem-aaaaaaaaaaaa', kind },
      { target: 'mem-bbbbbbbbbbbb', kind: 'supersedes', name: 'Old note' },
      { target: 'mem-cccccccccccc', kind: 'contradicts' },
    ];
    const out = ownLinks(links);
    expect(out).toEqual([
      { target: 'mem-aaaaaaaaaaaa', kind: 'related' },
      { target: 'mem-bbbbbbbbbbbb', kind: 'supersedes', name: 'Old note' },
      { target: 'mem-cccccccccccc', kind: 'contradicts' },
    ]);
    expect(out).toHaveLength(3);
    expect(out).not.toBe(links);
    for (let i = 0; i < links.length; i++) expect(out[i]).not.toBe(links[i]);
    expect(out[0]!.kind).toBe(LINK_KINDS[0]);
  });

  it('gives an empty array of its own for no links', () => {
    const none: MemoryLink[] = [];
    const out = ownLinks(none);
    expect(out).toEqual([]);
    expect(out).not.toBe(none);
  });

  it('equals links.map(ownLink) on random links', () => {
    for (let k = 0; k < 200; k++) {
      const links = randomLinks();
      expect(ownLinks(links)).toEqual(referenceOwnLinks(links));
    }
  });
});

describe("a row's links and co-access fields", () => {
  it('links: kind|target each, one space between, nothing for none', () => {
    expect(linksField([])).toBe('');
    expect(linksField([{ target: 'mem-aaaaaaaaaaaa', kind: 'related' }])).toBe('related|mem-aaaaaaaaaaaa');
    expect(linksField([
      { target: 'mem-aaaaaaaaaaaa', kind: 'related' },
      { target: 'mem-bbbbbbbbbbbb', kind: 'supersedes', name: 'Old' },
      { target: 'mem-cccccccccccc', kind: 'decays_from' },
    ])).toBe('related|mem-aaaaaaaaaaaa supersedes|mem-bbbbbbbbbbbb decays_from|mem-cccccccccccc');
  });

  it('co-access: id:count each in the object order, one space between, nothing for none', () => {
    expect(coAccessField({})).toBe('');
    expect(coAccessField({ 'mem-bbbbbbbbbbbb': 2 })).toBe('mem-bbbbbbbbbbbb:2');
    expect(coAccessField({ 'mem-bbbbbbbbbbbb': 2, 'mem-aaaaaaaaaaaa': 0.5, 'mem-cccccccccccc': 0 })).toBe('mem-bbbbbbbbbbbb:2 mem-aaaaaaaaaaaa:0.5 mem-cccccccccccc:0');
  });

  it('equal the map-and-join fields on random links and co-access', () => {
    for (let k = 0; k < 200; k++) {
      const links = randomLinks();
      expect(linksField(links)).toBe(referenceLinksField(links));
      const co: Record<string, number> = {};
      for (let n = Math.floor(random() * 5); n > 0; n--) co[id()] = pick([0, 1, 2, 0.25, 1e-7, 12345.5]);
      expect(coAccessField(co)).toBe(referenceCoAccessField(co));
    }
  });
});

describe('catalogDoc: the terms of a memory with tags', () => {
  const doc = (body: string, tags: string) =>
    catalogDoc(parseMemory('episodic/note.md', `---\nid: mem-aaaaaaaaaaaa\ncategory: episodic\ncreated_at: "2026-05-01T10:00:00Z"\ntags: ${tags}\n---\n${body}\n`, DEFAULT_SETTINGS), false);

  it('are the body\'s and each tag\'s, the tags read as separate words, with the day\'s facets whether or not the analysis told the date answer', () => {
    const quiet = doc('Cache warmed before the rollout.', '[deploy, postgres]');
    expect(quiet.terms).toEqual(analyze('Cache warmed before the rollout. deploy postgres').terms);
    expect(quiet.terms.slice(-2)).toEqual(['deploy', 'postgr']);
    expect(quiet.facets).toEqual(memoryTimeTerms('Cache warmed before the rollout.', Date.UTC(2026, 4, 1, 10)));
    const dated = doc('Cache warmed on 3 May 2026.', '[deploy]');
    expect(dated.terms.slice(-1)).toEqual(['deploy']);
    expect(dated.facets).toEqual(memoryTimeTerms('Cache warmed on 3 May 2026.', Date.UTC(2026, 4, 1, 10)));
    expect(dated.facets).not.toEqual(quiet.facets);
  });
});
