/**
 * Readable file names for new memories (ADR 0005): the title's first words, safe on Windows,
 * macOS and Linux, unique within the memory folders regardless of case (Obsidian links by file
 * name, and two names that differ only in case are one file on Windows and macOS). A name is
 * given once, when the memory is written; reinforcing it never renames it, and a person may
 * rename it at will: the id in the frontmatter is the memory's identity.
 */

/** Characters no file name may hold on Windows (and `/` anywhere), plus what breaks Obsidian links: `#^[]|`. */
const FORBIDDEN = /[<>:"/\\|?*#^[\]]|\p{Cc}/gu;
/**
 * Characters left out: invisible ones that make a name look like another (bidi overrides and
 * marks, zero-width space, byte-order mark), and half of a character outside the BMP (a lone
 * surrogate, which no file system stores as written).
 */
const DROPPED = /[\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Names Windows reserves for devices, with or without an extension. */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
/** At most this many characters before `.md` (and a number if needed): far under every system's limit of 255 bytes. */
export const MAX_NAME_CHARS = 60;

/**
 * A title of printable ASCII that none of safeFileName's replaces changes: no forbidden
 * character, no space or dot at its start, no space or dot at its end (no double space either,
 * checked apart). Most titles: only the cut to `max` and the reserved names apply to them.
 */
const PLAIN_NAME = /^[!$-)+-\-0-9;=@-Z_-{}~](?:[ !$-)+-.0-9;=@-Z_-{}~]*[!$-)+-\-0-9;=@-Z_-{}~])?$/;

/** A title made into a file name (without `.md`); '' when nothing usable is left. */
export function safeFileName(title: string, max = MAX_NAME_CHARS): string {
  // a plain title as it is (six replaces and a normalisation spared): safeFileNameByPattern's steps leave it so
  const plain = PLAIN_NAME.test(title) && !title.includes('  ');
  let name = plain ? title : (asciiCleanName(title) ?? cleanName(title));
  let cut = false;
  if (name.length > max) {
    name = cutName(name, max);
    cut = true;
  }
  // no leading dot (a hidden file), no trailing dots or spaces (Windows drops them)
  if (!plain || cut) name = name.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  const dot = name.indexOf('.');
  if (RESERVED.test((dot < 0 ? name : name.slice(0, dot)).trim())) name = `${name} note`;
  return name;
}

/** safeFileName without its shortcut for plain titles (test/core/file-names.test.ts compares both). */
export function safeFileNameByPattern(title: string, max = MAX_NAME_CHARS): string {
  let name = cleanName(title);
  if (name.length > max) name = cutName(name, max);
  name = name.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if (RESERVED.test(name.split('.')[0]!.trim())) name = `${name} note`;
  return name;
}

/** Invisible characters dropped, NFC, forbidden ones made spaces, white space runs one space, trimmed. Exported for tests. */
export function cleanName(title: string): string {
  return title.replace(DROPPED, '').normalize('NFC').replace(FORBIDDEN, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * cleanName of a title of printable ASCII (null for any other), by hand: nothing is dropped or
 * normalised there, the only white space is the space, so the name is the title's runs of
 * characters that are neither a space nor forbidden, joined by single spaces. An import's
 * titles ("Observation 12: …") went through four replaces and a normalisation each.
 */
export function asciiCleanName(title: string): string | null {
  let name = '';
  let start = -1; // where the run being read began (-1: between runs)
  const n = title.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? title.charCodeAt(i) : 0x20;
    if (c < 0x20 || c > 0x7e) return null;
    // a space, or FORBIDDEN's printable ASCII: " # * / : < > ? [ \ ] ^ |
    if (c === 0x20 || c === 0x22 || c === 0x23 || c === 0x2a || c === 0x2f || c === 0x3a || c === 0x3c || c === 0x3e || c === 0x3f || c === 0x5b || c === 0x5c || c === 0x5d || c === 0x5e || c === 0x7c) {
      if (start >= 0) name = name === '' ? title.slice(start, i) : `${name} ${title.slice(start, i)}`;
      start = -1;
    } else if (start < 0) start = i;
  }
  return name;
}

/** At most `max` characters, at a space in its second half if there is one. */
function cutName(name: string, max: number): string {
  const cut = name.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  // never half of a character outside the BMP (an emoji): a lone surrogate is no valid name
  return space > max / 2 ? cut.slice(0, space) : cut.slice(0, max).replace(/[\ud800-\udbff]$/, '');
}

/** The key two names collide on: Obsidian, Windows and macOS ignore case; macOS normalises Unicode. */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** The name keys of files already there (vault-relative paths or names, with or without `.md`). */
export function takenNames(paths: Iterable<string>): Set<string> {
  const taken = new Set<string>();
  for (const path of paths) taken.add(nameKey(path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '')));
  return taken;
}

/**
 * takenNames for a few look-ups (a remember names one file) among memory files' paths (each
 * `FOLDER/NAME.md`): the names are found in one lower-cased string of the paths instead of a
 * key made for each (~20 ms of a cold remember at 10,000 files). A name outside ASCII (where NFC
 * may change it) makes it takenNames' set. Keys added are kept as takenNames' are.
 */
export function takenNamesOf(paths: readonly string[]): Set<string> {
  const joined = `${paths.join('\n')}\n`;
  return paths.every((path) => path.endsWith('.md')) && ASCII.test(joined) ? new JoinedNames(joined.toLowerCase()) : takenNames(paths);
}

const ASCII = /^[\0-\x7f]*$/;

/** Name keys: those added, and the names of the paths in `lower` (each path lower-cased and followed by a line break). */
class JoinedNames extends Set<string> {
  constructor(private readonly lower: string) {
    super();
  }

  override has(key: string): boolean {
    return super.has(key) || this.lower.includes(`/${key}.md\n`);
  }
}

/**
 * The file name (without `.md`) for a new memory titled `title` (memoryTitle of its text), or
 * `fallback` (its id) when the title has no usable characters; `NAME 2`, `NAME 3`, ... when
 * taken. The name is added to `taken`.
 */
export function claimFileName(title: string, fallback: string, taken: Set<string>): string {
  const base = safeFileName(title) || fallback;
  let name = base;
  let key = nameKey(name);
  for (let n = 2; taken.has(key); n++) key = nameKey((name = `${base} ${n}`));
  taken.add(key);
  return name;
}
