/**
 * A memory's short title: its first words, for people (Obsidian's search, quick switcher, link
 * suggestions and graph show it through the `aliases` property instead of the `mem-…` id).
 * Markup, link brackets and the characters Obsidian treats specially in link targets are left
 * out; at most `max` characters, cut at a word, without trailing punctuation.
 */
export function memoryTitle(text: string, max = 60): string {
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
