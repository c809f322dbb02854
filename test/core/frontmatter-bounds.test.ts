import { analyze, STEM_LIMIT, TOKEN_LIMIT } from '../../src/core/analyzer';
import { setFrontmatterFields, splitFrontmatter, type FieldValue } from '../../src/core/frontmatter';
import { parseDocument } from 'yaml';
import { parseMemory } from '../../src/core/memory';
import { resolveSettings } from '../../src/core/settings';

/**
 * Reading is bounded in time and size, and a write changes only the fields it writes
 * (alias-bomb-show.sh, long-token-dos.sh, format-docpath-loses-comments.sh).
 */
const settings = resolveSettings(undefined);
const head = '---\nid: mem-aliasbomb001\ncategory: episodic\ncreated_at: "2026-11-01T10:00:00Z"\n';

describe('bounded reading', () => {
  it('refuses a frontmatter whose aliases expand it past 10,000 values, at once (alias-bomb-show.sh)', () => {
    const lines = ['lol0: &a0 ["lol"]'];
    for (let i = 1; i <= 9; i++) lines.push(`lol${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    const note = `${head}${lines.join('\n')}\n---\nLooks harmless.\n`;
    expect(note.length).toBeLessThan(700);
    expect(() => parseMemory('episodic/mem-aliasbomb001.md', note, settings)).toThrow(
      'episodic/mem-aliasbomb001.md: frontmatter holds over 10000 values once its YAML aliases are expanded',
    );
  });

  it('keeps aliases that stay small', () => {
    const note = `${head}base: &b {x: 1}\ncopy: *b\n---\nBody\n`;
    expect(parseMemory('episodic/mem-aliasbomb001.md', note, settings).extra).toEqual({ base: { x: 1 }, copy: { x: 1 } });
  });

  it('refuses nesting deeper than 32 levels with a reason, however deep', () => {
    for (const depth of [40, 100_000]) {
      const note = `${head}deep: ${'['.repeat(depth)}${']'.repeat(depth)}\n---\nBody\n`;
      expect(() => parseMemory('episodic/mem-aliasbomb001.md', note, settings)).toThrow('episodic/mem-aliasbomb001.md: frontmatter nested deeper than 32 levels');
    }
    expect(parseMemory('episodic/mem-aliasbomb001.md', `${head}deep: ${'['.repeat(30)}${']'.repeat(30)}\n---\nBody\n`, settings).id).toBe('mem-aliasbomb001');
    expect(() => parseMemory('episodic/mem-aliasbomb001.md', `${head}self: &s [1, *s]\n---\nBody\n`, settings)).toThrow(
      'episodic/mem-aliasbomb001.md: frontmatter nested deeper than 32 levels (or a YAML alias inside its own anchor)',
    );
  });

  it('does not stem a long token: it stays a term of its first 64 characters (long-token-dos.sh)', () => {
    const token = 'Qm9keSBvZiBhIGxvbmcgYmFzZTY0IGJsb2I'.repeat(1400); // 49,000 characters, one token
    const { terms } = analyze(`Pasted API response: ${token}`);
    expect(terms).toEqual(['past', 'api', 'respons', token.toLowerCase().slice(0, TOKEN_LIMIT)]);
    expect(analyze('internationalisations').terms).toEqual(['internationalis']);
    expect(STEM_LIMIT).toBe(40);
  });
});

describe('edits that keep every other byte (format-docpath-loses-comments.sh)', () => {
  it('adds to a block co_access entry by entry, keeping comments and spacing', () => {
    const note =
      '---\nid: mem-fmt000000001   # the id\ncategory: episodic\ncreated_at: \'2026-11-01T10:00:00Z\'  # single-quoted\nco_access:\n' +
      '  mem-zzzzzzzzzzz1: 1  # why these two belong together\n---\nBody\n';
    expect(setFrontmatterFields(note, { co_access: { 'mem-zzzzzzzzzzz1': 1, 'mem-partner00001': 1 }, tier: 'active' })).toBe(
      '---\nid: mem-fmt000000001   # the id\ncategory: episodic\ncreated_at: \'2026-11-01T10:00:00Z\'  # single-quoted\nco_access:\n' +
        '  mem-zzzzzzzzzzz1: 1  # why these two belong together\n  mem-partner00001: 1\ntier: active\n---\nBody\n',
    );
    expect(setFrontmatterFields(note, { co_access: { 'mem-zzzzzzzzzzz1': 2 } })).toBe(note.replace('zzz1: 1  #', 'zzz1: 2  #'));
  });

  it('a changed anchored value leaves its aliases at the value they had', () => {
    const note = '---\nid: mem-fmt000000007\ncategory: episodic\naccess_count: &count 3\noriginal_count: *count\n---\nBody\n';
    const out = setFrontmatterFields(note, { access_count: 4 });
    expect(out).toBe('---\nid: mem-fmt000000007\ncategory: episodic\naccess_count: 4\noriginal_count: 3\n---\nBody\n');
    expect(parseMemory('episodic/mem-fmt000000007.md', out.replace('category: episodic\n', 'category: episodic\ncreated_at: "2026-11-01T10:00:00Z"\n'), settings).extra).toEqual({ original_count: 3 });
  });

  it('appends to a block list, fills an empty value, and replaces a tagged one', () => {
    const note = '---\nid: mem-fmt000000008\ntags:\n  - a  # first\n  - b\ntier:\nrank: !!str 5\n---\nBody\n';
    expect(setFrontmatterFields(note, { tags: ['a', 'b', 'c'], tier: 'warm', rank: 6 })).toBe('---\nid: mem-fmt000000008\ntags:\n  - a  # first\n  - b\n  - c\ntier: warm\nrank: 6\n---\nBody\n');
  });

  it('an alias of a changed list keeps the list it had; an edit that would break another field is refused', () => {
    const note = '---\nid: mem-fmt000000009\nlist: &l [1, 2]\nnested: {inner: *l}\n---\nBody\n';
    expect(setFrontmatterFields(note, { list: ['x'] })).toBe('---\nid: mem-fmt000000009\nlist: ["x"]\nnested: {inner: [1,2]}\n---\nBody\n');
    const inner = '---\nid: mem-fmt000000009\nlist: [&i 1, 2]\nother: *i\n---\nBody\n';
    expect(() => setFrontmatterFields(inner, { list: ['x'] })).toThrow('cannot set list without changing other fields of this frontmatter; edit it by hand');
  });
});

describe('edits the long fuzz run found wanting (npm run fuzz, seed night-2026-11-30)', () => {
  it('a value written where the old one was empty keeps the space before a comment, so the next edit reads it', () => {
    for (const [note, fields] of [
      ['---\nco_access: # kite\nid: mem-fuzz00000001\n---\nBody\n', { co_access: { 'mem-aaaaaaaaaaaa': 1 } }],
      ['---\nid: mem-fuzz00000001\ntags:  # |pipe\naliases: null\n---\nBody\n', { tags: ['with space'] }],
    ] as Array<[string, Record<string, FieldValue>]>) {
      const once = setFrontmatterFields(note, fields);
      expect(parseDocument(splitFrontmatter(once)!.yaml).errors).toEqual([]);
      expect(once).toMatch(/ # (kite|\|pipe)\n/);
      expect(setFrontmatterFields(once, fields)).toBe(once);
    }
  });
});
