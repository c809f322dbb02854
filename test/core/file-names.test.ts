import { asciiCleanName, claimFileName, cleanName, safeFileName, safeFileNameByPattern, takenNames, takenNamesOf } from '../../src/core/file-names';
import { archivedPath, compareMemoryPaths, frontmatterId, preferredPath, revivedPath } from '../../src/core/memory-files';
import { memoryTitle } from '../../src/core/title';

describe('readable file names (ADR 0005)', () => {
  it('are safe on Windows, macOS and Linux', () => {
    expect(safeFileName('Use <T> in "generics": a/b\\c | d? e* #tag ^x [y]')).toBe('Use T in generics a b c d e tag x y');
    expect(safeFileName('CON')).toBe('CON note');
    expect(safeFileName('lpt1.txt')).toBe('lpt1.txt note');
    expect(safeFileName('..hidden notes...  ')).toBe('hidden notes');
    expect(safeFileName('tab\there\u0007bell')).toBe('tab here bell');
    expect(safeFileName('a'.repeat(70))).toBe('a'.repeat(60));
    expect(safeFileName(`${'word '.repeat(14)}end`)).toBe('word word word word word word word word word word word word');
    expect(safeFileName('e\u0301te')).toBe('\u00e9te'); // NFC: one name on macOS and elsewhere
    expect(safeFileName('???')).toBe('');
  });

  it('are unique ignoring case, numbered when taken, and fall back to the id', () => {
    const taken = takenNames(['episodic/Deploy on Fridays.md', 'archive/ops/deploy ON fridays 2.md']);
    expect(claimFileName('Deploy on fridays', 'mem-aaaaaaaaaaaa', taken)).toBe('Deploy on fridays 3');
    expect(claimFileName('Deploy on fridays', 'mem-aaaaaaaaaaaa', taken)).toBe('Deploy on fridays 4');
    expect(claimFileName(memoryTitle('*** ???'), 'mem-bbbbbbbbbbbb', taken)).toBe('mem-bbbbbbbbbbbb');
    expect([...taken].sort()).toEqual(['deploy on fridays', 'deploy on fridays 2', 'deploy on fridays 3', 'deploy on fridays 4', 'mem-bbbbbbbbbbbb']);
  });
});

describe('the name a new memory gets from its text (remember, import, the plugin: memoryTitle, then claimFileName)', () => {
  const nameOf = (text: string, taken = new Set<string>()) => claimFileName(memoryTitle(text), 'mem-000000000001', taken);

  it('is its first words, readable, for every kind of title', () => {
    const cases: Array<[string, string]> = [
      ['Reset the staging database with make db-reset before every demo.', 'Reset the staging database with make db-reset before every'],
      ['Staging DB reset', 'Staging DB reset'],
      // what Windows refuses and what breaks an Obsidian link become spaces, then one space
      ['Use <T> in "generics": a/b\\c | d? e* #tag ^x [y]', 'Use T in generics a b c d e tag x y'],
      ['Retries: 3 (was 5); see ops/retry.md', 'Retries 3 (was 5); see ops retry.md'],
      ['See [[Staging DB reset|the reset]] and `make db-reset` for **details**.', 'See the reset and make db-reset for details'],
      ['line one\nline two', 'line one line two'],
      // Unicode is kept, in NFC (one name for macOS's decomposed form and everyone else's)
      ['Café crème: naïve façade', 'Café crème naïve façade'],
      ['Cafe\u0301 au lait', 'Caf\u00e9 au lait'],
      ['東京のサーバーは毎晩三時に再起動します。', '東京のサーバーは毎晩三時に再起動します。'],
      ['Сервер перезапускается каждую ночь.', 'Сервер перезапускается каждую ночь'],
      ['🚀 Deploys on Fridays are banned 🚫', '🚀 Deploys on Fridays are banned 🚫'],
      // at most 60 characters, cut at a word; a word longer than that is cut, never inside an emoji
      ['Integration tests must use Testcontainers with a real PostgreSQL database.', 'Integration tests must use Testcontainers with a real'],
      ['a'.repeat(100), 'a'.repeat(60)],
      [`${'x'.repeat(59)}🚀 and more`, 'x'.repeat(59)],
      [`${'x'.repeat(58)}🚀🚀`, `${'x'.repeat(58)}🚀`],
      // Windows device names, with or without an extension, get a word more; a name merely starting so does not
      ['CON', 'CON note'],
      ['nul.txt', 'nul.txt note'],
      ['com1', 'com1 note'],
      ['LPT²', 'LPT² note'],
      ['Con artists', 'Con artists'],
      // no hidden file, no trailing dot or space (Windows drops them), no invisible character that disguises a name
      ['...hidden config...', 'hidden config'],
      ['Trailing dots...', 'Trailing dots'],
      ['abc\u202etxt.exe', 'abctxt.exe'],
      ['zero\u200bwidth \ufeffspace', 'zerowidth space'],
      // nothing usable left: the id
      ['?!* ... ###', 'mem-000000000001'],
    ];
    expect(cases.map(([text]) => [text, nameOf(text)])).toEqual(cases);
    for (const [, name] of cases) {
      expect([name, /[<>:"/\\|?*#^[\]\u0000-\u001f]|^[.\s]|[.\s]$/.test(name)]).toEqual([name, false]);
      const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
      expect([name, new TextEncoder().encode(`${name} 99.md`).length <= 255, loneSurrogate.test(name)]).toEqual([name, true, false]);
    }
  });

  it('is unique in the vault ignoring case and Unicode form, numbered in the order written, and a pattern says so', () => {
    const taken = takenNames(['episodic/Staging DB reset.md', 'archive/ops/Café au lait.md', 'semantic/Deploys (pattern).md']);
    expect([
      nameOf('Staging DB reset', taken),
      nameOf('staging db RESET', taken),
      nameOf('Cafe\u0301 au lait', taken),
      nameOf('Deploys (pattern)', taken),
      nameOf('CON', taken),
      nameOf('con', taken),
      nameOf('???', taken),
    ]).toEqual(['Staging DB reset 2', 'staging db RESET 3', 'Caf\u00e9 au lait 2', 'Deploys (pattern) 2', 'CON note', 'con note 2', 'mem-000000000001']);
  });
});

describe('memory paths', () => {
  it('archive and revive keep the name and the sub-folder', () => {
    expect(archivedPath('episodic/ops/Staging DB reset.md')).toBe('archive/ops/Staging DB reset.md');
    expect(revivedPath('archive/ops/Staging DB reset.md', 'decision')).toBe('decisions/ops/Staging DB reset.md');
    expect(archivedPath('archive/x.md')).toBe('archive/x.md');
  });

  it('the memory among copies of one id is outside archive/, not named like a copy, then shallower and shorter', () => {
    expect(preferredPath(['episodic/Note (Conflicted copy Laptop 202611281015).md', 'episodic/Note.md'])).toBe('episodic/Note.md');
    expect(preferredPath(['archive/Note.md', 'episodic/deep/Note 1.md'])).toBe('episodic/deep/Note 1.md');
    expect(preferredPath(['episodic/Note copy.md', 'episodic/Note.md'])).toBe('episodic/Note.md');
    expect(preferredPath(['episodic/a/Note.md', 'episodic/Note.sync-conflict-20261128-101500-ABC.md', 'episodic/b.md'])).toBe('episodic/b.md');
    // a readable name may end in a number of its own: only beside the name without it is `NAME 2` a copy
    expect(preferredPath(['episodic/Upgrade to Node 20 - Copy.md', 'episodic/ops/Upgrade to Node 20.md'])).toBe('episodic/ops/Upgrade to Node 20.md');
    expect(preferredPath(['episodic/Upgrade to Node 20 copy.md', 'episodic/ops/Upgrade to Node 20.md'])).toBe('episodic/ops/Upgrade to Node 20.md');
    expect(preferredPath(['episodic/ops/Deploy.md', 'episodic/Deploy 1.md'])).toBe('episodic/ops/Deploy.md');
    expect(preferredPath(['episodic/ops/Deploy (2).md', 'episodic/ops/deep/Deploy.md'])).toBe('episodic/ops/deep/Deploy.md');
    expect(preferredPath(['episodic/ops/deep/Node 20 notes.md', 'episodic/ops/Node 20.md'])).toBe('episodic/ops/Node 20.md');
  });

  it('list order: folder by folder, a folder\'s files before its sub-folders', () => {
    const paths = ['semantic/a.md', 'episodic/z/a.md', 'episodic/b.md', 'archive/a.md', 'episodic/a/z.md', 'decisions/q.md'];
    expect([...paths].sort(compareMemoryPaths)).toEqual(['episodic/b.md', 'episodic/a/z.md', 'episodic/z/a.md', 'semantic/a.md', 'decisions/q.md', 'archive/a.md']);
  });

  it('the id is read from the frontmatter\'s top-level id line only', () => {
    expect(frontmatterId('---\ncategory: episodic\nid: "mem-abc123def456" # the id\n---\nid: mem-000000000000\n')).toBe('mem-abc123def456');
    expect(frontmatterId('---\nnested:\n  id: mem-abc123def456\n---\n')).toBeNull();
    expect(frontmatterId('no frontmatter\nid: mem-abc123def456\n')).toBeNull();
    // a file name no longer says the id: a flow mapping a person wrote is still found by it
    expect(frontmatterId('---\n{category: episodic, id: "mem-abc123def456", tags: [a, b]}\n---\n')).toBe('mem-abc123def456');
    expect(frontmatterId('---\n{id: mem-abc123def456}\n---\n')).toBe('mem-abc123def456');
    expect(frontmatterId('---\n{nested: {id: mem-abc123def456}}\n---\n')).toBeNull();
  });
});

describe('takenNamesOf: the names of memory files as one string, for a few look-ups', () => {
  it('answers has() as takenNames does, and claims the same names, for ASCII paths and (through takenNames) others', () => {
    const ascii = ['episodic/Deploy on Fridays.md', 'archive/ops/deploy ON fridays 2.md', 'semantic/a.md', 'decisions/sub/deep/Use pnpm.md', 'episodic/x.md notes.md', 'episodic/two\nlines.md'];
    const other = [...ascii, 'archive/ops/Café au lait.md'];
    const keys = ['deploy on fridays', 'deploy on fridays 2', 'deploy on fridays 3', 'a', 'use pnpm', 'deep', 'sub', 'x.md notes', 'x', 'notes', 'lines', 'two\nlines', 'café au lait', 'ops', 'episodic', ''];
    for (const paths of [ascii, other, []]) {
      const full = takenNames(paths);
      const joined = takenNamesOf(paths);
      expect(keys.map((k) => joined.has(k))).toEqual(keys.map((k) => full.has(k)));
      expect([claimFileName('Deploy on Fridays', 'mem-000000000001', joined), claimFileName('deploy on fridays', 'mem-000000000002', joined)]).toEqual([claimFileName('Deploy on Fridays', 'mem-000000000001', full), claimFileName('deploy on fridays', 'mem-000000000002', full)]);
    }
    expect(takenNamesOf(other)).toEqual(takenNames(other)); // not ASCII: takenNames' own set
    expect(takenNamesOf(['episodic/Notes.MD']).has('notes')).toBe(true); // not .md: takenNames' set
    expect(takenNamesOf(['episodic/a.md', 'episodic/notes.txt']).has('notes.txt')).toBe(true); // one path not .md: takenNames' set
    // ASCII .md paths: no key made for any file (what the string is for); has() finds them all
    const lazy = takenNamesOf(ascii);
    expect([lazy.size, lazy.has('deploy on fridays 2'), lazy.has('use pnpm')]).toEqual([0, true, true]);
  });
});

describe('readable file names at their edges (each line states one rule of safeFileName / takenNames)', () => {
  test('a reserved device name is the whole first part, not a name ending in one', () => {
    expect(safeFileName('Falcon')).toBe('Falcon');
    expect(safeFileName('con .txt')).toBe('con .txt note');
  });

  test('the length is counted after spaces are collapsed and trimmed', () => {
    expect(safeFileName(` ${'a'.repeat(60)}`)).toBe('a'.repeat(60));
    // exactly 60 characters: kept whole, not cut at its last space
    expect(safeFileName(`${'a'.repeat(40)} ${'b'.repeat(19)}`)).toBe(`${'a'.repeat(40)} ${'b'.repeat(19)}`);
  });

  test('a long title is cut at its last space when that space is past half the limit, else at the limit', () => {
    expect(safeFileName('abcdefghij '.repeat(6))).toBe('abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij');
    expect(safeFileName(`ab ${'c'.repeat(70)}`)).toBe(`ab ${'c'.repeat(57)}`);
    // a space at exactly half the limit is not past it
    expect(safeFileName(`${'a'.repeat(30)} ${'b'.repeat(40)}`)).toBe(`${'a'.repeat(30)} ${'b'.repeat(29)}`);
  });

  test('a cut never leaves half of an emoji, and an emoji before the cut is kept whole', () => {
    expect(safeFileName(`${'a'.repeat(59)}\u{1F600}${'b'.repeat(10)}`)).toBe('a'.repeat(59));
    expect(safeFileName(`\u{1F600}${'a'.repeat(70)}`)).toBe(`\u{1F600}${'a'.repeat(58)}`);
  });

  test('taken names drop only the final .md', () => {
    expect([...takenNames(['episodic/x.md notes.md', 'Notes.MD'])]).toEqual(['x.md notes', 'notes']);
  });
});

describe('safeFileName: a plain ASCII title taken as it is, the same name as every step makes of it', () => {
  it('crafted: the edges of the shortcut (ends, dots, double spaces, each ASCII character, the cut, reserved names)', () => {
    const titles = [
      'a', '.', ' ', 'a.', '.a', 'a ', ' a', 'a  b', 'a b', 'a.b', 'con', 'CON.x', 'con .x', 'com1', 'aux y', 'nul.', 'Build 3 of the monorepo',
      'x'.repeat(60), 'x'.repeat(61), `${'ab '.repeat(30)}`, `${'ab.'.repeat(30)}z`, `a${' b'.repeat(40)}`, `${'a'.repeat(59)}. b`, `${'a'.repeat(59)} .b`,
      ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).flatMap((c) => [c, `a${c}b`, `a${c}`, `${c}b`]),
      'tab\tx', 'caf\u00e9', 'e\u0301te', '\u200bx', 'x\u007f', 'x\u0000y', '\ud83d\ude00 smile',
    ];
    for (const title of titles) for (const max of [60, 5]) expect([title, max, safeFileName(title, max)]).toEqual([title, max, safeFileNameByPattern(title, max)]);
    expect(safeFileName('a  b')).toBe('a b');
    expect(safeFileName('con .x')).toBe('con .x note');
    expect(safeFileName(`${'a'.repeat(59)}. b`)).toBe('a'.repeat(59));
  });

  it('random titles of ASCII, spaces, dots, forbidden and non-ASCII characters, of every length around the cut', () => {
    let seed = 23;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const alphabet = ['a', 'b', 'Z', '0', ' ', ' ', '.', '-', '_', "'", '(', ')', ',', '!', '~', '`', '{', '}', '@', ':', '#', '|', '[', ']', '"', '*', '?', '\\', '/', '<', '^', '\t', 'é', 'e\u0301', '\u200b', '\ud83d\ude00', 'con', 'lpt1', 'x'];
    for (let k = 0; k < 20000; k++) {
      const plainOnly = random() < 0.5; // half of them from the shortcut's own characters
      const letters = plainOnly ? alphabet.slice(0, 19) : alphabet;
      let title = '';
      const n = Math.floor(random() * 75);
      for (let i = 0; i < n; i++) title += letters[Math.floor(random() * letters.length)];
      const max = random() < 0.8 ? 60 : 1 + Math.floor(random() * 20);
      if (safeFileName(title, max) !== safeFileNameByPattern(title, max)) expect([title, max, safeFileName(title, max)]).toEqual([title, max, safeFileNameByPattern(title, max)]);
    }
  });

  it('a title of printable ASCII is cleaned by hand as by the patterns; any other character leaves it to them', () => {
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const crafted = ['Observation 12: auth term2y retry', ' : a::b :', 'a  b', '', ' ', '::', 'a"b#c*d/e:f<g>h?i[j\\k]l^m|n', '.a b.', '(x) {y} ~z~'];
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
    const titles = [...crafted, ...printable, ...Array.from({ length: 5000 }, () => Array.from({ length: Math.floor(random() * 30) }, () => (random() < 0.3 ? ' ' : printable[Math.floor(random() * 95)])).join(''))];
    for (const title of titles) expect([title, asciiCleanName(title)]).toEqual([title, cleanName(title)]);
    expect(asciiCleanName('Observation 12: auth term2y retry')).toBe('Observation 12 auth term2y retry');
    for (const title of ['tab\tx', 'x\u007f', 'caf\u00e9', '\u200bx', 'a\nb', '\ud83d\ude00']) expect([title, asciiCleanName(title)]).toEqual([title, null]);
  });
});
