/**
 * A memory's short title: its first words, for people (Obsidian's search, quick switcher, link
 * suggestions and graph show it through the `aliases` property instead of the `mem-…` id).
 * Markup, link brackets and the characters Obsidian treats specially in link targets are left
 * out; at most `max` characters, cut at a word, without trailing punctuation.
 */
export function memoryTitle(text: string, max = 60): string {
  // an ASCII text with single spaces and no markup (most texts): nothing for the patterns to
  // replace, and its end trimmed by hand (an import ran four regular expressions over every line)
  if (isPlainLine(text)) {
    if (text.length <= max) return trimEnd(text);
    const cut = text.slice(0, max + 1);
    const space = cut.lastIndexOf(' ');
    return trimEnd(space > max / 2 ? cut.slice(0, space) : cut.slice(0, max));
  }
  return memoryTitleByPattern(text, max);
}

/** memoryTitle by its regular expressions (any text): the reference test/core/title.test.ts compares it with. */
export function memoryTitleByPattern(text: string, max = 60): string {
  const line = text
    .replace(/\[\[([^\]|]*\|)?([^\]]*)\]\]/g, '$2')
    .replace(/[`*_>#|^[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (line.length <= max) return line.replace(/[\s,;:.!?-]+$/, '');
  const cut = line.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  // a cut inside a word never keeps half of a character outside the BMP (an emoji)
  return (space > max / 2 ? cut.slice(0, space) : cut.slice(0, max).replace(/[\ud800-\udbff]$/, '')).replace(/[\s,;:.!?-]+$/, '');
}

/**
 * A text the patterns above leave as it is: ASCII, none of `*_>#|^[]` and the backquote, no
 * white space but single spaces between other characters (none at its ends).
 */
function isPlainLine(text: string): boolean {
  const n = text.length;
  let space = true; // before the first character: a space there is one at an end
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20) {
      if (space) return false;
      space = true;
      continue;
    }
    space = false;
    // above 0x7e (other white space, surrogates), control characters (tab, line breaks), # * > [ ] ^ _ ` |
    if (c > 0x7e || c < 0x20 || c === 0x23 || c === 0x2a || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x5e || c === 0x5f || c === 0x60 || c === 0x7c) return false;
  }
  return !space || n === 0;
}

/** An ASCII line without its trailing white space and `,;:.!?-` (the patterns' /[\s,;:.!?-]+$/). */
function trimEnd(line: string): string {
  let end = line.length;
  for (;;) {
    const c = line.charCodeAt(end - 1);
    if (end > 0 && (c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x2c || c === 0x3b || c === 0x3a || c === 0x2e || c === 0x21 || c === 0x3f || c === 0x2d)) end--;
    else break;
  }
  return end === line.length ? line : line.slice(0, end);
}
