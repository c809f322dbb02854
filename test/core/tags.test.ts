import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { normaliseTag, normaliseTagByPattern, normaliseTags, remember } from '../../src/core/remember';
import { openVault } from '../../headless/runtime';

describe('tags are normalised on write (issue 12: Obsidian reads a tag up to the first space)', () => {
  it('drops the #, joins words with -, keeps letters, digits, _, - and /', () => {
    expect(['#testing', 'code review', '  ##ci  ', 'área/sub-área', 'a  b', 'x!y', '#', '-x-']).toEqual(['#testing', 'code review', '  ##ci  ', 'área/sub-área', 'a  b', 'x!y', '#', '-x-']);
    expect(['#testing', 'code review', '  ##ci  ', 'área/sub-área', 'a  b', 'x!y', '#', '-x-'].map(normaliseTag)).toEqual(['testing', 'code-review', 'ci', 'área/sub-área', 'a-b', 'xy', '', 'x']);
  });

  it('writes normalised, de-duplicated tags to a new memory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-tags-'));
    try {
      const { vault } = openVault({ vault: dir, now: '2026-11-29T12:00:00Z', cwd: dir, env: {} } as never, false);
      await vault.init({ obsidianConfigDir: null });
      const result = await remember(vault, { text: 'Review the retry policy before merging.', tags: ['#code review', 'code-review', 'CI', '#'] });
      const text = fs.readFileSync(path.join(dir, result.path), 'utf8');
      expect(text).toContain('tags: ["code-review", "CI"]');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('normaliseTag: the plain-tag shortcut', () => {
  it('returns a tag of ASCII letters, digits and underscores as it is, as the replaces would', () => {
    const alphabet = 'aZ9_-/# .!\u00e1\t';
    let seed = 11;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
    const tags = ['auth', 'snake_case', 'A1', '_', 'x-y', 'a/b', '#a', 'a ', ' a', '', '\u00e1rea', ...Array.from({ length: 5000 }, () => Array.from({ length: 1 + (next() % 6) }, () => alphabet[next() % alphabet.length]).join(''))];
    for (const tag of tags) expect([tag, normaliseTag(tag)]).toEqual([tag, normaliseTagByPattern(tag)]);
  });
});

describe('normaliseTags: none or one tag without the copies', () => {
  // the general path: each trimmed once, normalised, empty ones out, each once
  const byLists = (tags: string[]) => [...new Set([...new Set(tags.map((t) => t.trim()))].map(normaliseTagByPattern).filter((t) => t !== ''))];

  it('gives what the lists give for none, one and several tags, crafted and random', () => {
    const crafted: string[][] = [[], ['auth'], ['  ##ci  '], ['#'], [' '], ['code review'], ['a', 'a'], ['a', ' a', '#a'], ['#', 'x'], ['\u00e1rea', '\u00e1rea ']];
    let seed = 5;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
    const alphabet = 'aZ9_-/# .!\u00e1\t';
    const random = Array.from({ length: 3000 }, () => Array.from({ length: next() % 4 }, () => Array.from({ length: 1 + (next() % 5) }, () => alphabet[next() % alphabet.length]).join('')));
    for (const tags of [...crafted, ...random]) expect([tags, normaliseTags(tags)]).toEqual([tags, byLists(tags)]);
    expect(normaliseTags(['  ##ci  '])).toEqual(['ci']);
  });
});
