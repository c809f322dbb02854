import stem from 'wink-porter2-stemmer';
import { analyze, words } from '../../../src/core/analyzer';
import { asciiWords, regexWords } from '../../../src/core/recall/entities';
import { FIELD_LINE, fieldKeyEnd, readFlatFrontmatter } from '../../../src/core/frontmatter';
import { Bm25Index } from '../../../src/core/recall/bm25';
import { bodyText } from '../../../src/core/memory';
import { LINK_KINDS, parseLinkIds, type LinkKind, type MemoryLink } from '../../../src/core/links';
import { seededRandom } from '../../../src/core/random';

/**
 * The hand-written scanners a first run reads every memory with (issue 23) give exactly what
 * the regular expressions they replace give: each reference is the old code, kept here.
 */
const random = seededRandom('issue-23-first-run');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const textOf = (atoms: readonly string[], max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(atoms)).join('');

const STOP = new Set(
  ('a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves s t d ll m re ve also us let get got im ive youre').split(' '),
);
const NEGATIONS = new Set(['not', 'no', 'never', 'nor', 'none', 'nothing', 'cannot', 'without', 'neither']);
/** analyze before its hand tokenizer. */
function oldAnalyze(text: string) {
  const list = text.toLowerCase().replace(/[’`]/g, "'").replace(/\bwon't\b/g, 'will not').replace(/\bcan't\b/g, 'can not').replace(/\bshan't\b/g, 'shall not').replace(/n't\b/g, ' not')
    .split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
  const terms: string[] = [];
  let negations = 0;
  for (const w of list) {
    if (NEGATIONS.has(w)) negations++;
    else if (!STOP.has(w)) terms.push(w.length > 40 ? w.slice(0, 64) : stem(w));
  }
  return { terms, negated: negations % 2 === 1 };
}

const WORDY = ['a', 'Z', 'q', '7', '0', ' ', ' ', '\n', '\t', '\r', '\v', '\f', '-', "'", '’', '`', '.', ',', ':', ';', '!', '?', '"', '“', 'é', 'İ', 'ß', '٣', '\u00a0', '\u2028', '😀',
  'won\'t', "can't", "Shan't", "isn't", 'not', 'never', 'the', 'Mr.', 'Dr', 'Lord of the Rings', 'NYC', 'Fort Wayne', 'Caroline:', 'term2y', 'x'.repeat(45), 'ledger', 'running'];

describe('the first run\'s scanners', () => {
  it('cut words as the regular expression does, and analyse as before', () => {
    const hand: unknown[] = [];
    const reference: unknown[] = [];
    let tokens = 0;
    for (let i = 0; i < 1000; i++) {
      const text = textOf(i % 2 ? WORDY.filter((w) => /^[\x00-\x7f]*$/.test(w)) : WORDY, 24);
      const lower = text.toLowerCase();
      const expected = lower.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
      hand.push(words(lower), analyze(text));
      reference.push(expected, oldAnalyze(text));
      tokens += expected.length;
    }
    expect(hand).toEqual(reference); // one comparison: 4,000 expect calls were most of the test's time
    expect(tokens).toBe(6106);
    expect(words('Won’t stop: term2y-x ABC')).toEqual(['Won', 't', 'stop', 'term2y', 'x', 'ABC']);
    // ASCII alone, cut by hand: the bounds of each letter and digit range (@ A Z [ ` a z { and / 0 9 :) and the
    // characters past z ({|}~), as the regular expression cuts them (Stryker: 4 survivors on this line before)
    const ascii = 'AZ@[`az{0/9:x|y}w~v ABC';
    expect(words(ascii)).toEqual(ascii.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0));
    expect(words(ascii)).toEqual(['AZ', 'az', '0', '9', 'x', 'y', 'w', 'v', 'ABC']);
    expect(analyze("The ledger isn't running, won't it?")).toEqual({ terms: ['ledger', 'run'], negated: false });
  });

  it('find the words of a text for entities as the regular expression does', () => {
    const hands: unknown[] = [];
    const reference: unknown[] = [];
    let ascii = 0;
    for (let i = 0; i < 2000; i++) {
      const text = textOf(i % 4 ? WORDY.filter((w) => /^[\x00-\x7f]*$/.test(w)) : WORDY, 24);
      const hand = asciiWords(text);
      if (hand === null) hands.push(/[^\x00-\x7f]/.test(text));
      else ascii++;
      hands.push(hand ?? []);
      reference.push(...(hand === null ? [true, []] : [regexWords(text)]));
    }
    expect(hands).toEqual(reference);
    expect(ascii).toBe(1585);
    expect(asciiWords('Hi Mr. Smith.\nThe  Lord-of x')).toEqual([
      { text: 'Hi', initial: true, joined: false },
      { text: 'Mr', initial: false, joined: true },
      { text: 'Smith', initial: false, joined: true },
      { text: 'The', initial: true, joined: false },
      { text: 'Lord-of', initial: false, joined: true },
      { text: 'x', initial: false, joined: true },
    ]);
  });

  it('read a field line as FIELD_LINE does', () => {
    const atoms = ['a', 'Z', '_', '0', '-', ':', ' ', ': ', '"', 'é', '.', '#'];
    const hand: unknown[] = [];
    const reference: unknown[] = [];
    let fields = 0;
    for (let i = 0; i < 5000; i++) {
      const line = textOf(atoms, 8);
      const yaml = `x\n${line}\ny`;
      const at = fieldKeyEnd(yaml, 2, 2 + line.length);
      const m = FIELD_LINE.exec(line);
      hand.push(at < 0 ? null : [yaml.slice(2, at), yaml.slice(at + 2, 2 + line.length)]);
      reference.push(m ? [m[1], m[2]] : null);
      if (m) fields++;
    }
    expect(hand).toEqual(reference);
    expect(fields).toBe(119);
  });

  it('read a key of every ASCII character as FIELD_LINE does (the key character test written out in its loop)', () => {
    const keys: string[] = [];
    for (let c = 0; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      for (const line of [`a${ch}: v`, `${ch}a: v`, `a${ch}`, `a${ch}b: v`]) {
        const yaml = `x\n${line}\ny`;
        const at = fieldKeyEnd(yaml, 2, 2 + line.length);
        const m = FIELD_LINE.exec(line);
        expect([line, at < 0 ? null : yaml.slice(2, at)]).toEqual([line, m ? m[1] : null]);
        if (m && line === `a${ch}b: v`) keys.push(m[1]!);
      }
    }
    // a key is a letter or _, then letters, digits, _ and -
    expect(keys.length).toBe(26 + 26 + 10 + 2);
    expect(fieldKeyEnd('x\na\u00e9: v\n', 2, 8)).toBe(-1);
  });

  it('read double-quoted values, empty lists and maps as JSON reads them', () => {
    const atoms = ['a', ' ', '"', '\\', '\\"', '\\n', '\\u00e9', 'é', '/', '[', ']', '{', '}', ','];
    const hand: unknown[] = [];
    const reference: unknown[] = [];
    let read = 0;
    for (let i = 0; i < 3000; i++) {
      const value = `"${textOf(atoms, 6)}"`;
      let expected: unknown;
      try {
        expected = JSON.parse(value);
      } catch {
        expected = undefined;
      }
      const flat = readFlatFrontmatter(`k: ${value}\n`);
      if (flat !== undefined) {
        read++;
        hand.push(flat);
        reference.push({ k: expected });
      }
    }
    expect(hand).toEqual(reference);
    expect(read).toBe(1976);
    expect(readFlatFrontmatter('a: []\nb: {}\nc: "x y"\n')).toEqual({ a: [], b: {}, c: 'x y' });
  });

  it('index a document given in lists as the same terms in one list', () => {
    const params = { k1: 1.2, b: 0.75, delta: 0.5 };
    const one = new Bm25Index(params);
    const lists = new Bm25Index(params);
    for (let i = 0; i < 300; i++) {
      const parts = Array.from({ length: Math.floor(random() * 4) }, () => Array.from({ length: Math.floor(random() * 6) }, () => pick(['a', 'b', 'c', 'day:1', 'entity:x'])));
      const length = Math.floor(random() * 9);
      expect(lists.addLists(parts, length)).toBe(one.add(parts.flat(), length));
    }
    expect(lists.toArrays()).toEqual(one.toArrays());
    expect(one.toArrays().tfs.length).toBe(655);
  });

  it('fold a body without links as before', () => {
    for (const body of ['a  b\n\nc ', ' [[x|related]] y ', 'no [ link ]', '\u00a0a\u2028b']) {
      expect(bodyText(body)).toBe(body.replace(/\[\[[^\]]*\]\]/g, (link) => (/\|(related|decays_from|supersedes|contradicts)\]\]$/.test(link) ? '' : link)).replace(/\s+/g, ' ').trim());
    }
  });
});

/** parseLinkIds before it read entries in place: the pattern on each trimmed entry. */
function linkIdsByPattern(value: unknown): MemoryLink[] {
  if (!Array.isArray(value)) return [];
  const out: MemoryLink[] = [];
  for (const entry of value) {
    const m = typeof entry === 'string' ? /^(\w+) (mem-[a-z0-9]{12})$/.exec(entry.trim()) : null;
    if (!m || !(LINK_KINDS as readonly string[]).includes(m[1]!) || out.some((l) => l.kind === m[1] && l.target === m[2])) continue;
    out.push({ target: m[2]!, kind: m[1] as LinkKind });
  }
  return out;
}

describe('the link_ids entries read in place', () => {
  it('are what the pattern finds in each trimmed entry, on crafted and random values', () => {
    const crafted: unknown[] = [
      ['related mem-778a119f43f6'], ['  supersedes mem-111111111111\n'], ['related  mem-778a119f43f6'], ['related\tmem-778a119f43f6'], ['relatedmem-778a119f43f6'],
      ['bogus mem-222222222222'], ['related mem-778A119F43F6'], ['related mem-778a119f43f'], ['related mem-778a119f43f66'], [' mem-778a119f43f6'], ['mem-778a119f43f6'],
      ['x related mem-778a119f43f6'], ['related mem-778a119f43f6', 'related mem-778a119f43f6', 'contradicts mem-778a119f43f6'], ['decays_from mem-aaaaaaaaaaaa x'],
      [7, null, ['related mem-778a119f43f6']], 'related mem-778a119f43f6', null, undefined, {}, [],
    ];
    for (const value of crafted) expect([value, parseLinkIds(value)]).toEqual([value, linkIdsByPattern(value)]);
    expect(parseLinkIds(crafted[12])).toEqual([{ target: 'mem-778a119f43f6', kind: 'related' }, { target: 'mem-778a119f43f6', kind: 'contradicts' }]);
    expect(parseLinkIds(crafted[1])).toEqual([{ target: 'mem-111111111111', kind: 'supersedes' }]);
    // a generator of its own: the same values whichever tests run before
    const random = seededRandom('issue-23-link-ids');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const textOf = (atoms: readonly string[], max: number) => Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(atoms)).join('');
    const atoms = ['related', 'decays_from', 'supersedes', 'contradicts', 'relate', 'x', '_', ' ', '  ', '\t', '\n', 'mem-', 'mem-aaaaaaaaaaaa', 'mem-778a119f43f6', 'a', '0', 'A', '-', '\u00e9'];
    let links = 0;
    for (let round = 0; round < 4000; round++) {
      const value = Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.5 ? `${pick(atoms.slice(0, 6))} ${pick(atoms.slice(12, 14))}` : textOf(atoms, 5)));
      const expected = linkIdsByPattern(value);
      expect([value, parseLinkIds(value)]).toEqual([value, expected]);
      links += expected.length;
    }
    // about half the entries are a kind and an id (the first four of six kinds), some repeated
    expect(links).toBe(1916);
  });
});
