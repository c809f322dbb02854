import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { entityCounts, entityTerms, NAMELESS, namedEntityTerms, queryEntityTerms } from '../../../src/core/recall/entities';
import { seededRandom } from '../../../src/core/random';
import { RecallEngine } from '../../../src/core/recall/recall';
import { DEFAULT_SETTINGS, resolveSettings } from '../../../src/core/settings';

describe('entities named in a text', () => {
  it('finds names, runs of capitalised words and acronyms, not the word that starts a sentence', () => {
    expect(entityTerms('Joanna: I took that pic on a hike last summer near Fort Wayne. Max loved it, thanks Nate!')).toEqual([
      'entity:fort_wayn', 'entity:nate',
    ]);
    expect(entityTerms('Caroline: Since we last spoke, I went to an LGBTQ+ pride parade in NYC with Mel.')).toEqual(['entity:lgbtq', 'entity:nyc', 'entity:mel']);
    // a comma ends a name: "Wow, Caroline" names Caroline, not "Wow Caroline"
    expect(entityTerms('Melanie: Wow, Caroline! Thanks, Nate Smith.\nHey Mel')).toEqual(['entity:carolin', 'entity:nate_smith', 'entity:mel', 'entity:hey_mel']);
  });

  it('keeps connectors inside a name and drops a leading article at the start of a sentence', () => {
    expect(entityTerms('The Lord of the Rings was long. I watched Lord of the Rings twice.')).toEqual(['entity:lord_ring']);
    expect(entityTerms('Fort Wayne is lovely.')).toEqual(['entity:wayn', 'entity:fort_wayn']);
    expect(entityTerms('We met Dr. Seuss fans at the Bank of America stadium.')).toEqual(['entity:dr_seuss', 'entity:bank_america']);
  });

  it('reads quoted titles, in double or single quotes, but not apostrophes', () => {
    expect(entityTerms('I read "Nothing is Impossible" and \'Embracing Identity\', the kids\' favourite, isn\'t it?')).toEqual([
      'entity:imposs', 'entity:embrac_ident',
    ]);
  });

  it('takes a line break (with spaces around it, or after punctuation) as the start of a sentence, and only that white space', () => {
    expect(entityTerms('we saw Alice\n  Bob came\nlater Carol\t\r\n Dave left; Erin Fox')).toEqual(['entity:alic', 'entity:carol', 'entity:fox', 'entity:erin_fox']);
    expect(entityTerms('met Alice -\nBob came')).toEqual(['entity:alic']);
    expect(entityTerms('met Alice  Bob')).toEqual(['entity:alic_bob']);
  });

  it('scans a text once: the text it examines grows with its length, not with its square', () => {
    // 20,000 words over 2,000 lines; the scan used to test all the text before each word (a
    // 1 MB query took 20-36 s), here what it slices is bounded by the text's length
    const text = Array.from({ length: 2000 }, (_, i) => `Line ${i} names Alice and Bob Smith near the river bank`).join('\n');
    const slice = jest.spyOn(String.prototype, 'slice');
    let sliced = 0;
    slice.mockImplementation(function (this: string, ...args: [number?, number?]) {
      const part = String.prototype.substring.call(this, ...(args.map((a, k) => (a === undefined ? (k === 0 ? 0 : this.length) : a < 0 ? Math.max(0, this.length + a) : a)) as [number, number]));
      sliced += part.length;
      return part;
    });
    try {
      expect(entityTerms(text)).toEqual(['entity:alic', 'entity:bob_smith']);
    } finally {
      slice.mockRestore();
    }
    expect(sliced).toBeLessThan(2 * text.length);
  });

  it('leaves out I, months and weekdays', () => {
    expect(entityTerms("Yes, I'm sure: on Friday in May I'll go, I've said.")).toEqual([]);
  });

  it('finds the entities of a lower-case question among those memories name', () => {
    const known = new Set(['entity:max', 'entity:fort_wayn', 'entity:nate']);
    expect(queryEntityTerms('what does max like near fort wayne?', (k) => known.has(k))).toEqual(['entity:max', 'entity:fort_wayn']);
    expect(queryEntityTerms('What did Nate tell Max?', (k) => known.has(k))).toEqual(['entity:nate', 'entity:max']);
    expect(queryEntityTerms('What did Joanna write?', (k) => known.has(k))).toEqual([]);
  });
});

describe('recall with entity terms', () => {
  const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
  const memory = (n: number, body: string) =>
    toRecallDoc(parseMemory(`episodic/${id(n)}.md`, `---\nid: ${id(n)}\ncategory: episodic\ncreated_at: "2022-06-0${n + 1}T09:00:00Z"\n---\n${body}\n`, DEFAULT_SETTINGS), false);
  const docs = [
    memory(0, 'Joanna: The hike near Fort Wayne was lovely.'),
    memory(1, 'Joanna: The fort near the wayne was lovely.'),
    memory(2, 'Nate: I played games all day.'),
  ];
  const now = Date.parse('2022-06-10T00:00:00Z');
  const ask = (settings: typeof DEFAULT_SETTINGS) => new RecallEngine(docs, settings).recall('what did joanna like near fort wayne', { limit: 2, radius: 'all' }, now);

  it('matches a name of several words as a phrase, in a question typed in lower case', () => {
    expect(docs[0]!.facets).toContain('entity:fort_wayn');
    expect(docs[1]!.facets).not.toContain('entity:fort_wayn');
    expect(ask(DEFAULT_SETTINGS).map((h) => h.doc.id)).toEqual([id(0), id(1)]);
    // without entities, the query words match both and the shorter memory leads
    expect(ask(resolveSettings({ recall: { entityWeight: 0 } })).map((h) => h.doc.id)).toEqual([id(1), id(0)]);
  });
});

describe('texts that name nothing, told without reading their words (NAMELESS; issue 23, first recall)', () => {
  it('are ASCII texts without quotation marks whose only capital letter, if any, is their first character', () => {
    const cases: Array<[string, boolean]> = [
      ['Observation 12: auth term2y retry-limit session.', true],
      ['use pnpm, not npm\nhere; then x-ray', true],
      ['A', true],
      ["'one quote, no title", true], // a title takes two quotation marks
      ['"one more', true],
      ['Observation 12: met Caroline', false], // a capital past the first character
      ['OK then', false], // an acronym starts it
      ['"Nothing is impossible" he said', false], // a quotation mark after the first
      ['he read "nothing is impossible"', false],
      ["the kids' favourite", false],
      ['caf\u00e9 at noon', false], // not ASCII
      ['\u00c9mile came', false],
      ['', false],
    ];
    expect(cases.map(([text]) => NAMELESS.test(text))).toEqual(cases.map(([, nameless]) => nameless));
    // each text the shortcut takes names nothing when its words are read; the others are read
    for (const [text, nameless] of cases) if (nameless) expect(namedEntityTerms(text)).toEqual([]);
    // those are not read word by word; the others are
    const before = entityCounts.read;
    for (const [text] of cases) entityTerms(text);
    expect(entityCounts.read - before).toBe(cases.filter(([, nameless]) => !nameless).length);
    expect(entityTerms('Observation 12: met Caroline')).toEqual(['entity:carolin']);
    expect(entityTerms('OK then')).toEqual(['entity:ok']);
    expect(entityTerms('"Nothing is impossible" he said')).toEqual(['entity:imposs']);
    expect(entityTerms("met 'embracing identity' there")).toEqual(['entity:embrac_ident']);
    expect(entityTerms('\u00c9mile came, then Zo\u00e9 too')).toEqual(['entity:zo\u00e9']);
  });

  it('give what reading their words gives, over random texts', () => {
    const random = seededRandom('issue-23-nameless');
    const pieces = ['a', 'the', 'of', 'Max', 'mr', 'Dr', 'NYC', 'x', 'I', 'May', ' ', ' ', '  ', '\n', '.', ', ', ': ', '; ', '!', '?', '-', "'", '"', '12', '3rd', 'term2y', '\u00e9', 'Fort', 'Wayne', 'is'];
    let nameless = 0;
    for (let round = 0; round < 3000; round++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]!);
      // half of them lower case past their first character (the texts the shortcut is for)
      const text = round % 2 === 0 ? parts.join('') : parts.join('').replace(/^(.)(.*)$/s, (_, first: string, rest: string) => first + rest.toLowerCase());
      if (NAMELESS.test(text)) nameless++;
      expect(entityTerms(text)).toEqual(namedEntityTerms(text));
    }
    expect(nameless).toBeGreaterThan(300);
  });
});
