import { splitFrontmatter, type FrontmatterSplit } from '../../src/core/frontmatter';
import { seededRandom } from '../../src/core/random';

/**
 * Issue 23: splitFrontmatter reads the fences by hand. It gives what the patterns gave
 * (splitFrontmatterByPatterns, the reference) on crafted and random notes.
 */
const OPEN = /^(\uFEFF?)---[ \t]*(\r?\n)/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/gm;

/** splitFrontmatter by the patterns it replaced: the reference. */
function splitFrontmatterByPatterns(text: string): FrontmatterSplit | null {
  const open = OPEN.exec(text);
  if (!open) return null;
  const start = open[0].length;
  CLOSE.lastIndex = start;
  for (let m = CLOSE.exec(text); m; m = CLOSE.exec(text)) {
    if (m.index !== start && text[m.index - 1] !== '\n') continue;
    return { head: text.slice(0, start), yaml: text.slice(start, m.index), fence: m[0], body: text.slice(m.index + m[0].length) };
  }
  return null;
}

const random = seededRandom('issue-23-frontmatter-split-scan');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

describe('splitFrontmatter read by hand', () => {
  it('splits a note into head, YAML, fence and body, byte for byte', () => {
    const text = '\uFEFF--- \t\r\nid: mem-1\n...  \r\nbody\n---\n';
    expect(splitFrontmatter(text)).toEqual({ head: '\uFEFF--- \t\r\n', yaml: 'id: mem-1\n', fence: '...  \r\n', body: 'body\n---\n' });
    expect(splitFrontmatter('---\n---\nb')).toEqual({ head: '---\n', yaml: '', fence: '---\n', body: 'b' });
    expect(splitFrontmatter('---\na: 1\n---')).toEqual({ head: '---\n', yaml: 'a: 1\n', fence: '---', body: '' });
    expect(splitFrontmatter('---\na: 1\n--- \t')).toEqual({ head: '---\n', yaml: 'a: 1\n', fence: '--- \t', body: '' });
    // `$` before \r, \u2028 and \u2029: the fence without them, the body with them
    expect(splitFrontmatter('---\na\n---\r\rb')).toEqual({ head: '---\n', yaml: 'a\n', fence: '---', body: '\r\rb' });
    expect(splitFrontmatter('---\na\n--- \u2028b')).toEqual({ head: '---\n', yaml: 'a\n', fence: '--- ', body: '\u2028b' });
    expect(splitFrontmatter('---\na\n...\u2029')).toEqual({ head: '---\n', yaml: 'a\n', fence: '...', body: '\u2029' });
    // a fence that does not follow a \n, or has more after it, is no fence
    expect(splitFrontmatter('---\na\r---\nb\n---\nc')).toEqual({ head: '---\n', yaml: 'a\r---\nb\n', fence: '---\n', body: 'c' });
    expect(splitFrontmatter('---\na\u2028---\n')).toBeNull();
    expect(splitFrontmatter('---\n----\n--- x\n')).toBeNull();
    expect(splitFrontmatter('---\na: 1\n')).toBeNull();
    for (const text of ['', '-', '--', '---', '---x\n---\n', ' ---\n---\n', '---\r---\n', '\uFEFF\uFEFF---\n---\n', '--- \r\r\n---\n', '---\n']) {
      expect([text, splitFrontmatter(text)]).toEqual([text, null]);
      expect(splitFrontmatterByPatterns(text)).toBeNull();
    }
    for (const text of ['\uFEFF--- \t\r\nid: mem-1\n...  \r\nbody\n---\n', '---\na\n---\r\rb', '---\na\n--- \u2028b', '---\na\n...\u2029', '---\na\r---\nb\n---\nc', '---\na: 1\n--- \t']) {
      expect(splitFrontmatter(text)).toEqual(splitFrontmatterByPatterns(text));
    }
  });

  it('gives what the patterns give, on random notes', () => {
    const atoms = ['---', '...', '--', '.', '-', '\n', '\r\n', '\r', ' ', '\t', '\u2028', '\u2029', '\uFEFF', 'a', 'id: x', '\n---\n', '\n...'];
    let split = 0;
    let reopened = 0;
    for (let round = 0; round < 8000; round++) {
      let text = random() < 0.7 ? pick(['---\n', '--- \r\n', '\uFEFF---\t\n', '---\n\n']) : '';
      for (let n = Math.floor(random() * 12); n > 0; n--) text += pick(atoms);
      const expected = splitFrontmatterByPatterns(text);
      expect([text, splitFrontmatter(text)]).toEqual([text, expected]);
      if (expected) split++;
      if (expected && expected.body.includes('---')) reopened++;
    }
    expect(split).toBeGreaterThan(1000);
    expect(reopened).toBeGreaterThan(100);
  });
});
