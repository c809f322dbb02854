import { flatEditHolds, FRONTMATTER_VALUES, readFlatFrontmatter, valuesWithin, readFrontmatter, setFrontmatterFields, setFrontmatterFieldsByLines, splitFrontmatter, type FieldValue } from '../../src/core/frontmatter';
import { seededRandom } from '../../src/core/random';
import { damage, randomNote } from '../helpers/frontmatter-fuzz';

/**
 * scalarLineEdit checks the edit of a flat frontmatter (readFlatFrontmatter's) from its changed
 * lines alone (flatEditHolds) where it used to read the whole edited text again. Its answer must
 * be the full reading's wherever it gives one, and it must leave to that reading every edit it
 * cannot judge: the cases the check exists to catch.
 */
const note = (yaml: string, head = '---\n') => `${head}${yaml}\n---\nBody.\n`;

/**
 * The check scalarLineEdit made before flatEditHolds, made here on what it wrote: the whole
 * edited frontmatter read again holds the named fields with their new values, every other
 * field as it was, and the body is the same. The line path gives a text only where this holds
 * (and where it does not, it gives null: flatEditHolds only ever spares this reading).
 */
function fullReadingAgrees(text: string, written: string, fields: Record<string, FieldValue>): boolean {
  const [a, b] = [splitFrontmatter(text)!, splitFrontmatter(written)!];
  if (a.head !== b.head || a.fence !== b.fence || a.body !== b.body) return false;
  let before: unknown;
  let after: unknown;
  try {
    [before, after] = [readFrontmatter(a.yaml) ?? {}, readFrontmatter(b.yaml)];
  } catch {
    return false;
  }
  if (typeof after !== 'object' || after === null || Array.isArray(after)) return false;
  const [was, now] = [before as Record<string, unknown>, after as Record<string, unknown>];
  const own = (o: Record<string, unknown>, k: string) => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);
  return [...new Set([...Object.keys(was), ...Object.keys(now)])].every((k) => JSON.stringify(own(now, k)) === JSON.stringify(Object.prototype.hasOwnProperty.call(fields, k) ? fields[k] : own(was, k)));
}

/** A frontmatter of flat fields (readFlatFrontmatter's), some of them near its limits. */
function flatNote(rand: () => number): string {
  const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)]!;
  const fields = [
    'id: mem-0123456789ab',
    `tier: ${pick(['active', 'warm', 'cold', 'archive', '"cold"', 'a b'])}`,
    `tags: ${pick(['[]', '["auth"]', '["a", "with space"]', '["say \\"hi\\""]'])}`,
    `co_access: ${pick(['{}', '{"mem-aaaaaaaaaaaa": 3}', '{"mem-a": 1, "mem-b": 2.5}'])}`,
    `half_life_days: ${pick(['7', '0.5', '-3', '0'])}`,
    `status: ${pick(['"set by engram"', 'plain words', 'null', 'true', '"__x"'])}`,
    `note: ${pick(['"a\\nb"', '"\\u00e9t\u00e9"', 'x'])}`,
    'link_ids: ["related mem-7c55dc0c88cd"]',
  ].filter(() => rand() < 0.8);
  for (let i = fields.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [fields[i], fields[j]] = [fields[j]!, fields[i]!];
  }
  return note(fields.length > 0 ? fields.join('\n') : 'id: mem-0123456789ab');
}

describe('valuesWithin: the count scalarLineEdit starts the line check from', () => {
  it('counts the value itself, each map entry and each list item, at every depth', () => {
    // the map, its 3 entries, the list's 2 items, the inner map's 1 entry
    expect(valuesWithin({ a: 1, b: ['x', 'y'], c: { d: 2 } })).toBe(7);
    expect([valuesWithin({}), valuesWithin('text'), valuesWithin(null), valuesWithin([])]).toEqual([1, 1, 1, 1]);
    // a flat frontmatter as read: each field and each item of its lists
    expect(valuesWithin(readFlatFrontmatter('id: mem-aaaaaaaaaaaa\ntags: ["a", "b", "c"]\nco_access: {"mem-bbbbbbbbbbbb": 2}'))).toBe(1 + 3 + 3 + 1);
  });

  it('holds exactly FRONTMATTER_VALUES values and refuses one more', () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(valuesWithin({ l: list(FRONTMATTER_VALUES - 2) })).toBe(FRONTMATTER_VALUES);
    expect(() => valuesWithin({ l: list(FRONTMATTER_VALUES - 1) })).toThrow(`frontmatter holds over ${FRONTMATTER_VALUES} values`);
  });
});

describe('the line check of a flat frontmatter edit (flatEditHolds)', () => {
  it('gives the full reading\'s answer on crafted edits, written text exact', () => {
    const tags = (n: number) => `tags: [${Array.from({ length: n }, (_, i) => `"t${i}"`).join(', ')}]`;
    const list = (n: number) => Array.from({ length: n }, (_, i) => `mem-${String(i).padStart(12, '0')}`);
    const cases: Array<[string, Record<string, FieldValue>, string | null]> = [
      // what a consolidation's tier step writes
      [note('id: mem-a\ntier: active\nlink_ids: ["x"]'), { tier: 'archive' }, note('id: mem-a\ntier: archive\nlink_ids: ["x"]')],
      [note('id: mem-a\nnote: "x"'), { note: 'y z', n: 3 }, note('id: mem-a\nnote: "y z"\nn: 3')],
      [note('id: mem-a\ntier: active'), { tier: 'active' }, note('id: mem-a\ntier: active')],
      // left to the full reading, which writes them: two spaces, `__proto__`, a line separator, an exponent
      [note('id: mem-a\ntier: active'), { tier: 'a  b' }, note('id: mem-a\ntier: a  b')],
      [note('id: mem-a\nnote: x'), { note: '__proto__' }, note('id: mem-a\nnote: __proto__')],
      [note('id: mem-a\nnote: "x"'), { note: 'a\u2028b' }, note('id: mem-a\nnote: "a\u2028b"')],
      [note('id: mem-a\nn: 1'), { n: 1e21 }, note('id: mem-a\nn: 1e+21')],
      // a \r\n line end appended to a frontmatter of \n lines (the fence's line end is \r\n)
      [note('id: mem-a', '---\r\n'), { note: 'x' }, '---\r\nid: mem-a\nnote: x\r\n---\nBody.\n'],
      // refused by the full reading: a key YAML reads as true, values over FRONTMATTER_VALUES
      [note('id: mem-a'), { True: 'x' }, null],
      [note(`id: mem-a\n${tags(9_990)}`), { link_ids: list(7) }, null],
      // at the bound exactly: 1 + 2 fields + 9,990 tags + 1 + 6 ids = 10,000 values
      [note(`id: mem-a\n${tags(9_990)}`), { link_ids: list(6) }, note(`id: mem-a\n${tags(9_990)}\nlink_ids: [${list(6).map((id) => `"${id}"`).join(', ')}]`)],
    ];
    for (const [text, fields, expected] of cases) {
      const label = text.slice(0, 60);
      const out = setFrontmatterFieldsByLines(text, fields);
      expect([label, out]).toEqual([label, expected]);
      if (out !== null) expect([label, fullReadingAgrees(text, out, fields)]).toEqual([label, true]);
    }
    // refused by both paths, with the reason
    expect(() => setFrontmatterFields(note('id: mem-a'), { True: 'x' })).toThrow('cannot set True without changing other fields');
  });

  it('answers true only for flat lines holding their key and the value written, within the bound', () => {
    const before = { id: 'mem-a', tier: 'active' };
    const lines = ['id: mem-a', 'tier: cold'];
    const holds = (fields: Record<string, FieldValue>, changed: Array<[number | null, string]>, edited: string[], appended: string[] = [], crlf = false, values = 3) =>
      flatEditHolds(before, values, fields, changed, edited, appended, crlf);
    expect(holds({ tier: 'cold' }, [[1, 'tier']], lines)).toBe(true);
    // the value read is not the one written
    expect(holds({ tier: 'warm' }, [[1, 'tier']], lines)).toBe(false);
    // the line holds another key
    expect(holds({ tier: 'cold' }, [[1, 'tier']], ['id: mem-a', 'tiers: cold'])).toBe(false);
    // a line break inside the line (eachFlatField alone would read `tier: cold` from it)
    expect(holds({ tier: 'cold' }, [[1, 'tier']], ['id: mem-a', 'tier: cold\n'])).toBe(false);
    // a line the flat reader does not read: a comment
    expect(holds({ tier: 'cold' }, [[1, 'tier']], ['id: mem-a', 'tier: cold # c'])).toBe(false);
    // appended lines: read in the order given
    expect(holds({ a: 'x', b: 2 }, [[null, 'a'], [null, 'b']], lines, ['a: x', 'b: 2'])).toBe(true);
    expect(holds({ a: 'x', b: 2 }, [[null, 'a'], [null, 'b']], lines, ['b: 2', 'a: x'])).toBe(false);
    // ... never with \r\n line ends
    expect(holds({ a: 'x' }, [[null, 'a']], lines, ['a: x'], true)).toBe(false);
    expect(holds({ tier: 'cold' }, [[1, 'tier']], lines, [], true)).toBe(true);
    // the bound: a list of 2 appended counts 3 values, a replaced scalar none
    expect(holds({ l: ['a', 'b'] }, [[null, 'l']], lines, ['l: ["a", "b"]'], false, 9_997)).toBe(true);
    expect(holds({ l: ['a', 'b'] }, [[null, 'l']], lines, ['l: ["a", "b"]'], false, 9_998)).toBe(false);
    expect(holds({ m: { x: 1 } }, [[null, 'm']], lines, ['m: {"x": 1}'], false, 9_998)).toBe(true);
    expect(holds({ m: { x: 1 } }, [[null, 'm']], lines, ['m: {"x": 1}'], false, 9_999)).toBe(false);
    expect(holds({ tier: 'cold' }, [[1, 'tier']], lines, [], false, 10_000)).toBe(true);
    // a list replacing a list counts the difference
    expect(flatEditHolds({ l: ['a', 'b', 'c'] }, 10_000, { l: ['a', 'b'] }, [[0, 'l']], ['l: ["a", "b"]'], [], false)).toBe(true);
    expect(flatEditHolds({ l: ['a'] }, 9_999, { l: ['a', 'b'] }, [[0, 'l']], ['l: ["a", "b"]'], [], false)).toBe(true);
    expect(flatEditHolds({ l: ['a'] }, 10_000, { l: ['a', 'b'] }, [[0, 'l']], ['l: ["a", "b"]'], [], false)).toBe(false);
  });

  it('on random notes and random writes: every text written agrees with the full reading', () => {
    let flat = 0;
    let written = 0;
    let flatWritten = 0;
    const differ: Array<{ text: string; fields: Record<string, FieldValue> }> = [];
    for (let i = 0; i < 1500; i++) {
      const rand = seededRandom(`flat-check:${i}`);
      // half the fuzzer's notes (damaged at times; few are flat), half flat ones as Engram writes them
      let text = i % 2 === 0 ? randomNote(rand) : flatNote(rand);
      if (i % 2 === 0 && rand() < 0.2) text = damage(rand, text);
      const fields: Record<string, FieldValue> = {};
      for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
        const r = rand();
        if (r < 0.3) fields.tier = ['active', 'warm', 'cold', 'archive', 'a  b', 'Null', '__proto__'][Math.floor(rand() * 7)]!;
        else if (r < 0.45) fields.link_ids = rand() < 0.5 ? ['mem-0123456789ab'] : ['mem-0123456789ab', 'say "hi"'];
        else if (r < 0.55) fields.co_access = rand() < 0.5 ? {} : { 'mem-aaaaaaaaaaaa': 3 };
        else if (r < 0.7) fields.half_life_days = [7, 0.5, 1e21, -0][Math.floor(rand() * 4)]!;
        else if (r < 0.8) fields[['True', 'no', 'id', 'x-y'][Math.floor(rand() * 4)]!] = 'v';
        else fields[['status', 'note', 'rank'][Math.floor(rand() * 3)]!] = rand() < 0.5 ? 'set by engram' : 'a\u2028b';
      }
      const split = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
      const isFlat = split !== null && readFlatFrontmatter(`${split[1]!}\n`) !== undefined;
      const lines = setFrontmatterFieldsByLines(text, fields);
      if (isFlat) flat++;
      if (lines !== null) written++;
      if (isFlat && lines !== null) flatWritten++;
      if (lines !== null && !fullReadingAgrees(text, lines, fields)) differ.push({ text, fields });
    }
    expect(differ).toEqual([]);
    // flat notes: half; most of their writes by lines
    expect([flat, written, flatWritten]).toEqual([751, 999, 499]);
  });
});
