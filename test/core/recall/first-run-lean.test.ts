import { analyze } from '../../../src/core/analyzer';
import { Bm25ArraysBuilder, Bm25Index } from '../../../src/core/recall/bm25';
import type { RecallDoc } from '../../../src/core/recall/catalog';
import { frozenPartsFromDocs, partsFromDocs, RecallEngine } from '../../../src/core/recall/recall';
import { encodeSnapshot } from '../../../src/core/recall/snapshot';
import { DEFAULT_SETTINGS } from '../../../src/core/settings';
import { asciiWords, entityTerms, regexWords } from '../../../src/core/recall/entities';
import { lowerTokens, tokensOf } from '../../../src/core/recall/dates';
import { seededRandom } from '../../../src/core/random';

/**
 * Issue 23, a first recall at 10k: the leaner paths it takes give what the code they replace
 * gave, on crafted and random texts. Each reference below is the replaced code, kept here.
 */
const random = seededRandom('issue-23-first-run-lean');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const textOf = (atoms: readonly string[], max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(atoms)).join('');

/** entityTerms before the sparse word list: every word an object, read from the regular expression's words. */
const NOT_NAMES = new Set(['i', 'im', 'ive', 'id', 'ill', 'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september',
  'october', 'november', 'december', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
const CONNECTORS = new Set(['of', 'the', 'de', 'da', 'van', 'von']);
const isName = (w: string) => /^\p{Lu}/u.test(w) && !NOT_NAMES.has(w.toLowerCase().replace(/['’]/g, ''));
const isAcronym = (w: string) => /^\p{Lu}{2,}$/u.test(w.replace(/['’]s$/, ''));
function referenceEntityTerms(text: string): string[] {
  const found = new Set<string>();
  const add = (name: string) => {
    const terms = analyze(name).terms;
    if (terms.length === 0 || (terms.length === 1 && NOT_NAMES.has(terms[0]!))) return;
    found.add(`entity:${terms.join('_')}`);
  };
  if (/["“'‘]/.test(text)) for (const m of text.matchAll(/["“]([^"”\n]{2,80})["”]|(?<![\p{L}\p{N}])['‘]([^'’\n]{2,80})['’](?![\p{L}\p{N}])/gu)) {
    const title = m[1] ?? m[2]!;
    if (title.split(/\s+/).length <= 8) add(title);
  }
  const list = regexWords(text);
  for (let i = 0; i < list.length; i++) {
    const w = list[i]!;
    if (!isName(w.text)) continue;
    let end = i + 1;
    for (;;) {
      let k = end;
      while (k < list.length && list[k]!.joined && CONNECTORS.has(list[k]!.text.toLowerCase())) k++;
      if (k < list.length && list[k]!.joined && isName(list[k]!.text)) end = k + 1;
      else break;
    }
    const run = list.slice(i, end);
    i = end - 1;
    if (w.initial && run.length === 1 && !isAcronym(w.text)) continue;
    const parts = run.map((x) => x.text);
    if (w.initial) add(parts.slice(1).join(' '));
    if (!w.initial || !/^(the|a|an)$/i.test(parts[0]!)) add(parts.join(' '));
  }
  return [...found];
}

/** Names, connectors and titles in every case, the words around them, and what ends a sentence or a name. */
const NAMEY = ['Alice', 'BOB', 'carol', 'Fort', 'Wayne', 'NYC', 'LGBTQ', "O'Brien", 'Jean-Luc', "Mel's", 'I', 'May', 'Friday', 'The', 'the', 'THE',
  'Of', 'of', 'oF', 'de', 'Da', 'DA', 'van', 'Von', 'vON', 'ofs', 'dee', 'va', 'vans', 'thee', 'th', 'Mr', 'mr', 'MRS', 'Ms', 'ms', 'Dr', 'dr', 'St',
  'st', 'sT', 'Prof', 'PROF', 'prof', 'profs', 'mt', 'Mt', 'mx', 'ds', 'pr', 'prox', 'a', 'An', 'term2y', '42', '7th', 'x', 'y', ' ', ' ', ' ',
  '  ', '\n', '\t', '\r\n', '.', '. ', ', ', ': ', '; ', '!', '?', '-', "'", '"', '“', '”', '‘', '’', 'é', 'Émile', '(', ')'];

describe('a first run without a Word per word', () => {
  it('finds the entities the full word list found, on crafted and random texts', () => {
    const crafted = [
      'Joanna: I took that pic on a hike last summer near Fort Wayne. Max loved it, thanks Nate!',
      'The Lord of the Rings was long. I watched Lord of the Rings twice, then Bank of America van Dyke.',
      'We met Dr. Seuss fans, mr. Brown and Prof. Plum at the St. Louis game; mt. Hood next. Mrs. Jones left.',
      'met Alice  Bob, and Erin of the Fox. Van Helsing de la Cruz Da Vinci VON Trapp x Of Mice',
      'I read "Nothing is Impossible" and \'Embracing Identity\', the kids\' favourite.',
      'auth term2y retry redis Observation 0: Redis is down. NYC office, LGBTQ+ pride; o\'Brien met O\'Brien.',
      'lower words only, no name here at all',
      '',
    ];
    const texts = [...crafted];
    for (let i = 0; i < 3000; i++) texts.push(textOf(i % 5 ? NAMEY.filter((w) => /^[\x00-\x7f]*$/.test(w)) : NAMEY, 30));
    const ours = texts.map(entityTerms);
    expect(ours).toEqual(texts.map(referenceEntityTerms)); // one comparison for all
    expect(ours.filter((terms) => terms.length > 0).length).toBe(1267);
    expect(ours[1]).toEqual(['entity:lord_ring', 'entity:bank_america_van_dyke']);
    // a lower-case title is no name ("mr. Brown" names Brown), and its full stop ends no sentence either
    expect(ours[2]).toEqual(['entity:dr_seuss', 'entity:brown', 'entity:prof_plum', 'entity:st_loui', 'entity:hood', 'entity:jone', 'entity:mrs_jone']);
  });

  it('lists, sparse, each capitalised word and connector with its flags and one shared word for each run of the others', () => {
    const text = 'Hi mr. Smith of the x y Bank.\nzz THE de-facto da van Von St. x';
    const sparse = asciiWords(text, true)!;
    expect(sparse.map((w) => [w.text, w.initial, w.joined])).toEqual([
      ['Hi', true, false], ['', false, false], ['Smith', false, true], ['of', false, true], ['the', false, true], ['', false, false],
      ['Bank', false, true], ['', false, false], ['THE', false, true], ['', false, false], ['da', false, true], ['van', false, true],
      ['Von', false, true], ['St', false, true], ['', false, false],
    ]);
    // the other words are one object, shared: no string and no object is made for them
    expect(sparse[1]).toBe(sparse[5]);
    // the full list is the regular expression's, words and flags
    expect(asciiWords(text)).toEqual(regexWords(text));
    expect(asciiWords('é', true)).toBeNull();
  });
});

describe('the arrays of an index made without its posting lists', () => {
  const params = { k1: 1.2, b: 0.75, delta: 0.5 };
  const vocabulary = ['b', 'a', 'aa', 'B', 'z', 'day:2026-01-01', 'entity:x', 'é', 'e', 'ab', 'ba', ...Array.from({ length: 40 }, (_, i) => `t${i}`)];

  it('past 1,024 terms (the per-term arrays grow) count a repeated term once a document, as the index does; grouped too', () => {
    const many = Array.from({ length: 1500 }, (_, i) => `t${i}`);
    const index = new Bm25Index(params);
    const builder = new Bm25ArraysBuilder();
    for (const lists of [[many, ['t1499', 't1200']], [['t1300'], many.slice(1100)]]) expect(builder.addLists(lists, 4)).toBe(index.addLists(lists, 4));
    const arrays = builder.toArrays();
    expect(arrays).toEqual(index.toArrays());
    expect([arrays.tfs[arrays.offsets[arrays.terms.indexOf('t1499')]!], arrays.docs.length]).toEqual([2, 1900]);
    // both documents as one group: each term once, its tfs summed (what one document of both lists gives)
    const one = new Bm25ArraysBuilder();
    one.addLists([many, ['t1499', 't1200'], ['t1300'], many.slice(1100)], 8);
    expect(builder.grouped([[0, 1]], [8]).toArrays()).toEqual(one.toArrays());
  });

  it('are the arrays of the index the same additions make', () => {
    for (let round = 0; round < 20; round++) {
      const docs = Array.from({ length: Math.floor(random() * 300) }, () =>
        Array.from({ length: Math.floor(random() * 3) }, () => Array.from({ length: Math.floor(random() * 15) }, () => pick(vocabulary))),
      );
      const index = new Bm25Index(params);
      const builder = new Bm25ArraysBuilder();
      for (const lists of docs) {
        const length = Math.floor(random() * 9);
        expect(builder.addLists(lists, length)).toBe(index.addLists(lists, length));
      }
      expect(builder.toArrays()).toEqual(index.toArrays());
      expect(builder.clamped).toBe(false);
    }
    const builder = new Bm25ArraysBuilder();
    builder.addLists([['b', 'a', 'b'], ['c']], 3);
    builder.addLists([], 0);
    builder.addLists([['a'], ['a', 'c']], 1);
    expect(builder.toArrays()).toEqual({
      terms: ['a', 'b', 'c'], offsets: Int32Array.of(0, 2, 3, 5), docs: Int32Array.of(0, 2, 0, 0, 2), tfs: Uint16Array.of(1, 2, 2, 1, 1),
      lengths: Int32Array.of(3, 0, 1),
    });
    expect(new Bm25ArraysBuilder().toArrays()).toEqual(new Bm25Index(params).toArrays());
  });

  it('order their terms by UTF-16 code units, as `<` orders strings (not by code points or locale), grouped too', () => {
    // U+1F600 is the surrogates D83D DE00: before U+FFFF by code units, after it by code points
    const terms = ['\uffff', '\u{1F600}', 'b', 'B', 'a', 'ab', 'aa', '', '\u00e9', 'e\u0301', 'Z', '10', '9', 'day:2026-01-01', 'entity:x'];
    const builder = new Bm25ArraysBuilder();
    builder.addLists([terms.slice(0, 8)], 8);
    builder.addLists([terms.slice(8), ['a']], 7);
    const expected = ['', '10', '9', 'B', 'Z', 'a', 'aa', 'ab', 'b', 'day:2026-01-01', 'entity:x', 'e\u0301', '\u00e9', '\u{1F600}', '\uffff'];
    expect(builder.toArrays().terms).toEqual(expected);
    expect([...terms].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))).toEqual(expected);
    // 'a' is in both documents
    expect(Array.from(builder.toArrays().docs)).toEqual([0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0]);
    expect(builder.grouped([[1, 0]], [15]).toArrays().terms).toEqual(expected);
    const index = new Bm25Index(params);
    index.addLists([terms.slice(0, 8)], 8);
    index.addLists([terms.slice(8), ['a']], 7);
    expect(builder.toArrays()).toEqual(index.toArrays());
  });

  it('are the same whatever room the builder was made with (a room of one grows as the default one does)', () => {
    const random = seededRandom('issue-23-builder-room');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const docs = Array.from({ length: 200 }, () => Array.from({ length: 2 }, () => Array.from({ length: Math.floor(random() * 12) }, () => pick(vocabulary))));
    const arraysWith = (builder: Bm25ArraysBuilder) => {
      docs.forEach((lists, d) => builder.addLists(lists, d % 7));
      return builder.toArrays();
    };
    const exact = docs.reduce((n, lists) => n + lists[0]!.length + lists[1]!.length, 0);
    const expected = arraysWith(new Bm25ArraysBuilder());
    expect(arraysWith(new Bm25ArraysBuilder(1))).toEqual(expected);
    expect(arraysWith(new Bm25ArraysBuilder(0))).toEqual(expected);
    expect(arraysWith(new Bm25ArraysBuilder(exact))).toEqual(expected);
    expect(expected.docs.length).toBeGreaterThan(1000);
  });

  it('of groups of documents (episodes) are those of a builder given each group\'s members\' lists one after the other', () => {
    const random = seededRandom('issue-23-grouped');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    for (let round = 0; round < 20; round++) {
      const docs = Array.from({ length: Math.floor(random() * 200) }, () =>
        Array.from({ length: Math.floor(random() * 3) }, () => Array.from({ length: Math.floor(random() * 15) }, () => pick(vocabulary))),
      );
      const builder = new Bm25ArraysBuilder(round % 2 === 0 ? 1 : 4096);
      docs.forEach((lists) => builder.addLists(lists, 1));
      // groups of any members (some documents in none, a group may be empty), in any order
      const groups = Array.from({ length: Math.floor(random() * 12) }, () => docs.map((_, d) => d).filter(() => random() < 0.3));
      const lengths = groups.map(() => Math.floor(random() * 50));
      const reference = new Bm25ArraysBuilder();
      groups.forEach((group, g) => reference.addLists(group.flatMap((d) => docs[d]!), lengths[g]!));
      const grouped = builder.grouped(groups, lengths);
      expect(grouped.toArrays()).toEqual(reference.toArrays());
      expect(grouped.clamped).toBe(false);
      // a group added to afterwards numbers its terms as the reference does
      expect(grouped.addLists([['t1', 'new']], 2)).toBe(reference.addLists([['t1', 'new']], 2));
      expect(grouped.toArrays()).toEqual(reference.toArrays());
    }
    const two = new Bm25ArraysBuilder();
    two.addLists([['a', 'b', 'a']], 3);
    two.addLists([['c']], 1);
    two.addLists([['a'], ['b']], 2);
    expect(two.grouped([[2, 0], [1]], [5, 1]).toArrays()).toEqual({
      terms: ['a', 'b', 'c'], offsets: Int32Array.of(0, 1, 2, 3), docs: Int32Array.of(0, 0, 1), tfs: Uint16Array.of(3, 2, 1), lengths: Int32Array.of(5, 1),
    });
  });

  it('of groups whose summed tf passes 16 bits say so', () => {
    const builder = new Bm25ArraysBuilder();
    builder.addLists([Array.from({ length: 40000 }, () => 'a')], 1);
    builder.addLists([Array.from({ length: 40000 }, () => 'a')], 1);
    builder.toArrays();
    expect(builder.clamped).toBe(false);
    const grouped = builder.grouped([[0, 1]], [2]);
    expect(grouped.toArrays().tfs).toEqual(Uint16Array.of(65535));
    expect(grouped.clamped).toBe(true);
  });

  it('say when a tf was cut to 16 bits', () => {
    const builder = new Bm25ArraysBuilder();
    builder.addLists([Array.from({ length: 65536 }, () => 'a'), ['b']], 65537);
    expect(builder.toArrays().tfs).toEqual(Uint16Array.of(65535, 1));
    expect(builder.clamped).toBe(true);
    const fits = new Bm25ArraysBuilder();
    fits.addLists([Array.from({ length: 65535 }, () => 'a')], 1);
    fits.toArrays();
    expect(fits.clamped).toBe(false);
  });

  it('make parts that answer and encode as partsFromDocs\' do (a tf past 16 bits: partsFromDocs\' own)', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'pizza', 'deploy', 'retri'];
    const docs: RecallDoc[] = Array.from({ length: 120 }, (_, i) => ({
      id: `mem-${String(i).padStart(12, '0')}`, path: `episodic/m${i}.md`, category: 'episodic', confidence: 'observed', tier: null, archived: false,
      createdMs: 1_700_000_000_000 + i * 3_600_000, accessMs: 1_700_000_000_000 + i * 3_600_000, activationMs: 1_700_000_000_000 + i * 3_600_000,
      access_count: i % 3, is_error: false, half_life_days: 7, activation: 0, amplitude: 1, agent_role: null, source: null,
      session: i % 4 === 0 ? null : `s${i % 7}`, terms: Array.from({ length: 1 + Math.floor(random() * 8) }, () => pick(words)),
      ...(i % 5 === 0 ? {} : { facets: [pick(['day:2023-11-14', 'year:2023', 'entity:bob', 'time:said'])] }),
      links: [], co_access: {}, text: '',
    }));
    const settings = DEFAULT_SETTINGS;
    const listing: Array<[string, number, number]> = docs.map((d, i) => [d.path, 100 + i, 5000 + i]);
    const frozen = frozenPartsFromDocs(docs, settings);
    const built = partsFromDocs(docs, settings);
    expect(Buffer.from(encodeSnapshot(frozen, listing, 'f'))).toEqual(Buffer.from(encodeSnapshot(built, listing, 'f')));
    expect(frozen.episodeNames).toEqual(['s1', 's2', 's3', 's5', 's6', 's0', 's4']);
    expect(() => frozen.lexical.add(['x'])).toThrow('read-only');
    const now = 1_700_000_000_000 + 200 * 3_600_000;
    for (const query of ['pizza', 'alpha beta', 'deploy retries', 'bob', 'november 14 2023']) {
      const answer = (parts: typeof built) => new RecallEngine(parts, settings).recall(query, { limit: 10, radius: 'all' }, now).map((h) => [h.doc.id, h.score]);
      expect(answer(frozen)).toEqual(answer(built));
      expect(answer(frozen).length).toBeGreaterThan(0);
    }
    // an episode's summed tf past 16 bits (each member's fits): partsFromDocs' parts too
    docs[1]!.terms = Array.from({ length: 40000 }, () => 'pizza');
    docs[15]!.terms = Array.from({ length: 40000 }, () => 'pizza');
    expect(docs[1]!.session).toBe(docs[15]!.session);
    const summed = frozenPartsFromDocs(docs, settings);
    expect(Buffer.from(encodeSnapshot(summed, listing, 'f'))).toEqual(Buffer.from(encodeSnapshot(partsFromDocs(docs, settings), listing, 'f')));
    expect(() => summed.lexical.add(['x'])).not.toThrow(); // partsFromDocs' whole parts, its lexical index too
    expect(() => summed.episodes.add(['x'])).not.toThrow();
    docs[7]!.terms = Array.from({ length: 65536 }, () => 'pizza');
    expect(() => frozenPartsFromDocs(docs, settings).lexical.add(['x'])).not.toThrow();
  });
});

describe('the date tokens of an ASCII text, read in place', () => {
  it('are those of its lower-case copy, on crafted and random texts in any case', () => {
    const atoms = ['may', 'MAY', 'May', 'mAy', 'sept', 'SEPT', 'september', 'SEPTEMBERS', 'a', 'A', 'an', 'AN', 'few', 'Couple', 'days', 'WEEK', 'ago',
      'afternoon', 'Afternoons', 'weekend', 'Of', 'the', 'THE', 'x', 'Z', 'term', 'Observation', 'yesterday', 'YESTERDAY', 'tues', 'thurs',
      '1', '3', '12', '2019', '2022-05-01', '2022-05-0', '3RD', '21St', '2nD', '4TH', '5th', '1s', '2n', '3r', '4t', 'st', 'ND', 'th', '8@', '9`',
      ' ', ' ', ', ', ',', '.', '-', '\n', '@', '[', '`', '{', '~', '\u212a', 'é', 'İ'];
    const texts = ['Observation 12: the ledger balanced LAST NIGHT, 3 Weeks Ago in mid-May, on the 3RD of SEPT 2021', '', '3', '3r', '3RD', 'a'];
    for (let i = 0; i < 4000; i++) texts.push(textOf(i % 4 ? atoms.slice(0, -3) : atoms, 20));
    let words = 0;
    const ours = texts.map((text) => tokensOf(text, true));
    const reference = texts.map((text) => lowerTokens(text, true));
    expect(ours).toEqual(reference);
    for (const tokens of reference) words += tokens.filter((t) => /^[a-z]+$/.test(t.text)).length;
    expect(words).toBe(3914);
    expect(tokensOf('On MAY 3RD, Observation', true)).toEqual([
      { text: 'on', from: 0, to: 2, value: null }, { text: 'may', from: 3, to: 6, value: null }, { text: '3rd', from: 7, to: 10, value: 3 },
      { text: ',', from: 10, to: 11, value: null }, { text: '', from: -1, to: -1, value: null },
    ]);
    // the Kelvin sign is a k in lower case: such a text is read from its lower case
    expect(tokensOf('\u212aelvin 3 wee\u212a', true)).toEqual(lowerTokens('\u212aelvin 3 wee\u212a', true));
    expect(tokensOf('3 wee\u212a', true)[1]).toEqual({ text: 'week', from: 2, to: 6, value: null });
  });
});
