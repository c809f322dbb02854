import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import wink from 'wink-porter2-stemmer';
import { analyze, analyzeAnyText, analyzeAscii, foundTermsHeld, resetWordTable, wordTableCounts } from '../../src/core/analyzer';
import { porter2Counts, stem } from '../../src/core/porter2';
import { seededRandom } from '../../src/core/random';

/**
 * Issue 23, a first recall's analysis: the Porter2 stemmer kept here (porter2.ts) stems every
 * word as wink-porter2-stemmer does, and analyze's ASCII scan (the word table) gives what the
 * general path gives.
 */
const random = seededRandom('issue-23-analysis');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

const SUFFIXES = ('sses ied ies us ss s eedly eed ed edly ingly ing at bl iz y 3 ization ational fulness ousness iveness tional biliti lessli entli ' +
  'ation alism aliti ousli iviti fulli enci anci abli izer ator alli bli ogi li alize icate iciti ative ical ness ful ement ance ence able ible ' +
  'ment ant ent ism ate iti ous ive ize ion sion tion al er ic e l ll bb dd ff gg mm nn pp rr tt').split(' ');
const ROOTS = ('gener commun arsen y ay oy uy ey iy a e i o u b c d t l n r s z w x k g h m p v yy sk dy ly ty id gent ug earl on sing new ' +
  'atl cosm bi and inn out cann herr proc exc succ earr hop run fil plan tap stat rel cond ac bl iz').split(' ');

/** The words of the repository's documentation, each once, in lower case. */
function docWords(): string[] {
  const root = path.join(__dirname, '../..');
  const files = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];
  const words = new Set<string>();
  for (const name of files) {
    for (const w of readFileSync(path.join(root, name), 'utf8').split(/[^\p{L}\p{N}'’]+/u)) if (w) words.add(w.toLowerCase());
  }
  return [...words];
}

describe('porter2 stem', () => {
  it('stems as wink-porter2-stemmer over documentation, every root and suffix pair and random strings', () => {
    const words = new Set(docWords());
    expect(words.size).toBeGreaterThan(3500);
    for (const r of ROOTS) for (const a of SUFFIXES) {
      words.add(r + a);
      words.add(r + a + pick(SUFFIXES));
    }
    const alphabet = "aeiouybcdlgnstrmzxw3'’éİß0123456789$";
    for (let i = 0; i < 8000; i++) words.add(Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick([...alphabet])).join(''));
    for (const w of ['skis', 'skies', 'dying', 'News', 'ANDES', 'a', 'ab', '', 'yyy', 'E', 'bE', 'ratE', 'LL', 'fall', 'succeeding', 'proceed',
      'exceeded', "dog's", "dogs'", 'dog’s', "it'", 'generate', 'generously', 'communism', 'arsenal', 'ab$$$$$', '$$$$$', 'x\nalism', 'gener\nation']) words.add(w);
    const list = [...words];
    const before = porter2Counts.regions;
    const ours = list.map(stem);
    const regions = porter2Counts.regions - before;
    // wink takes a 3 in the word for its mark of a consonant y; here a 3 is a plain character,
    // as '#' (a character none of these words holds) is to wink
    expect(list.filter((w) => w.includes('#'))).toEqual([]);
    expect(list.filter((w) => w.toLowerCase().includes('3')).length).toBeGreaterThan(1000);
    expect(ours).toEqual(list.map((w) => (w.includes('3') ? wink(w.replace(/3/g, '#')).replace(/#/g, '3') : wink(w))));
    // wink computes the regions five times a word; here only where a step's suffix is found
    expect(regions / list.length).toBeLessThan(1.2);
    expect(['consistently', 'generalization', 'hopping', 'skies', 'sayyay', 'controllable', 'conditional', 'relational'].map(stem))
      .toEqual(['consist', 'general', 'hop', 'sky', 'sa3yay'.replace('3', 'y'), 'control', 'condit', 'relat']);
  });

  it('keeps a 3 in the word: wink took it for its y mark ("mp3" stemmed as "mpy", to MPI\'s "mpi")', () => {
    const words = ['413', 'mp3', 'mpi', 'mpy', 'x3d', '2023', 'http3', 'python3', 'web3', '3rd', 'playing', 'yelling', 'enjoy3', 'Y3Y', 'boy3s'];
    expect(words.map((w) => wink(w))).toEqual(['41i', 'mpi', 'mpi', 'mpi', 'xyd', '202i', 'httpi', 'pythoni', 'webi', 'yrd', 'play', 'yell', 'enjoyi', 'yyi', 'boyi']);
    expect(words.map(stem)).toEqual(['413', 'mp3', 'mpi', 'mpi', 'x3d', '2023', 'http3', 'python3', 'web3', '3rd', 'play', 'yell', 'enjoy3', 'y3i', 'boy3']);
  });
});

describe('analyze over ASCII text (the word table)', () => {
  const random = seededRandom('issue-23-word-table');
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const ATOMS = ['a', 'Z', 'q', '7', '0', ' ', ' ', '\n', '\t', '-', '.', ',', ':', '!', '"', '[', '{', '~', 'not', 'Never', 'NO', 'the', 'The',
    'ledger', 'LEDGERS', 'running', 'Runs', 'term2y', 'x'.repeat(41), 'Y'.repeat(70), 'generalization', 'without', 'nothing', 'ab', 'AB'];
  const textOf = (max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(ATOMS)).join('');

  it('gives what the general path gives, by the table', () => {
    const fast: unknown[] = [];
    const general: unknown[] = [];
    const found = wordTableCounts.found;
    let terms = 0;
    for (let i = 0; i < 1000; i++) {
      const text = textOf(20);
      const a = analyzeAscii(text);
      expect(a).not.toBeNull();
      fast.push(a, analyze(text));
      const b = analyzeAnyText(text);
      general.push(b, b);
      terms += b.terms.length;
    }
    expect(fast).toEqual(general);
    expect(terms).toBe(2369);
    expect(wordTableCounts.found - found).toBeGreaterThan(3000);
    expect(analyzeAscii('The LEDGERS were not running; never NO x')).toEqual({ terms: ['ledger', 'run', 'x'], negated: true });
    // words that start with the last letter or digit of a range (z, Z, 9) or the first (a, A, 0)
    expect(analyzeAscii('zinc Zone 9am azure Apple 0day')).toEqual({ terms: ['zinc', 'zone', '9am', 'azur', 'appl', '0day'], negated: false });
  });

  it('leaves texts with an apostrophe, a backquote or a character past ASCII to the general path', () => {
    // \u0080: the first character past ASCII
    for (const text of ["isn't it", 'won`t', 'café', 'a’b', 'x\u00a0y', 'a\u0080b']) {
      expect(analyzeAscii(text)).toBeNull();
      expect(analyze(text)).toEqual(analyzeAnyText(text));
    }
    expect(analyze("The ledger isn't running")).toEqual({ terms: ['ledger', 'run'], negated: true });
  });

  it('gives each text an array of its own, of its terms alone, and lets a long text\'s terms go', () => {
    // the terms are found in one array reused from text to text and copied out: a later text,
    // shorter or longer, changes no array given before
    const a = analyzeAscii('ledger running webhooks retry auth token')!;
    const b = analyzeAscii('cache')!;
    const c = analyzeAscii('one two three four five six seven eight')!;
    expect([a.terms, b.terms, c.terms]).toEqual([['ledger', 'run', 'webhook', 'retri', 'auth', 'token'], ['cach'], ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']]);
    expect(a.terms).not.toBe(b.terms);
    b.terms.push('changed');
    expect(analyzeAscii('cache')!.terms).toEqual(['cach']);
    // up to 4,096 terms are held for the next text; more are let go (the ASCII scan, or where it stops)
    expect(foundTermsHeld()).toBeLessThanOrEqual(8);
    expect(analyzeAscii(Array.from({ length: 4096 }, (_, i) => `w${i}`).join(' '))!.terms).toHaveLength(4096);
    expect(foundTermsHeld()).toBe(4096);
    expect(analyzeAscii(Array.from({ length: 4097 }, (_, i) => `w${i}`).join(' '))!.terms).toHaveLength(4097);
    expect(foundTermsHeld()).toBe(0);
    expect(analyzeAscii(`${Array.from({ length: 4097 }, (_, i) => `w${i}`).join(' ')} \u00e9`)).toBeNull();
    expect(foundTermsHeld()).toBe(0);
    expect(analyzeAscii(`${Array.from({ length: 4096 }, (_, i) => `w${i}`).join(' ')} \u00e9`)).toBeNull();
    expect(foundTermsHeld()).toBe(4096);
    expect(analyzeAscii('w1 w2')!.terms).toEqual(['w1', 'w2']);
  });

  it('empties the table when full and still analyses the same', () => {
    resetWordTable(10); // 512 words at most
    try {
      const added = wordTableCounts.added;
      const words = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}`);
      const text = `${words.join(' ')} ${words.join(' ')}`;
      expect(analyzeAscii(text)).toEqual(analyzeAnyText(text));
      expect(wordTableCounts.added - added).toBe(4000); // each word added again after the table was emptied
      expect(analyzeAscii(`${words[0]} ${words[1999]} W0`)!.terms).toEqual(['w0', 'w1jj', 'w0']);
      expect(wordTableCounts.added - added).toBe(4001);
    } finally {
      resetWordTable();
    }
  });
});
