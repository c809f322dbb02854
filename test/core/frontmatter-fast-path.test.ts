import { setFrontmatterFields, setFrontmatterFieldsByDocument, setFrontmatterFieldsByLines, type FieldValue } from '../../src/core/frontmatter';
import { seededRandom } from '../../src/core/random';
import { damage, randomNote } from '../helpers/frontmatter-fuzz';

/** setFrontmatterFields' outcome, and whether it took the document path (the line path did not apply). */
function written(text: string, fields: Record<string, FieldValue>): { out: string; document: boolean } {
  return { out: outcome(() => setFrontmatterFields(text, fields)), document: setFrontmatterFieldsByLines(text, fields) === null };
}

/**
 * setFrontmatterFields takes a line-based path (scalarLineEdit) when it can: scalar values on
 * `key: value` lines, and new fields of any value appended. What it writes must be, byte for
 * byte, what the YAML-document path writes, or a refusal where that path refuses too.
 */
function outcome(write: () => string): string {
  try {
    return `wrote ${write()}`;
  } catch (error) {
    return `refused ${(error as Error).message}`;
  }
}

describe('the line-based fast path writes what the document path writes', () => {
  it('on crafted notes: scalars in every quoting, fields appended, lists and maps set where absent', () => {
    const note = (yaml: string, eol = '\n') => `---${eol}${yaml.replace(/\n/g, eol)}${eol}---${eol}Body.${eol}`;
    const cases: Array<[string, Record<string, FieldValue>, string]> = [
      [note('id: mem-a\ntier: active'), { tier: 'warm' }, note('id: mem-a\ntier: warm')],
      [note('id: mem-a\ntier: "active"  # the tier'), { tier: 'cold' }, note('id: mem-a\ntier: "cold"  # the tier')],
      [note("id: mem-a\ntier: 'active'"), { tier: 'archive' }, note("id: mem-a\ntier: 'archive'")],
      [note('id: mem-a\ntier: active'), { decays_from: '[[Some pattern]]', link_ids: ['mem-0123456789ab'] }, note('id: mem-a\ntier: active\ndecays_from: "[[Some pattern]]"\nlink_ids: ["mem-0123456789ab"]')],
      [note('id: mem-a\ntier: active', '\r\n'), { link_ids: ['mem-0123456789ab', 'say "hi"'] }, note('id: mem-a\ntier: active\nlink_ids: ["mem-0123456789ab", "say \\"hi\\""]', '\r\n')],
      [note('id: mem-a\nco_access: {}'), { co_access: { 'mem-b': 2 } }, note('id: mem-a\nco_access: {"mem-b": 2}')],
      [note('id: mem-a'), { tags: [], co_access: {} }, note('id: mem-a\ntags: []\nco_access: {}')],
      [note('  id: mem-a\n  tier: active'), { link_ids: ['mem-0123456789ab'] }, note('  id: mem-a\n  tier: active\n  link_ids: ["mem-0123456789ab"]')],
      [note('id: mem-a\ntags:\n  - a'), { tags: ['a', 'b'] }, note('id: mem-a\ntags:\n  - a\n  - b')],
    ];
    const paths: boolean[] = [];
    for (const [text, fields, expected] of cases) {
      const { out, document } = written(text, fields);
      expect([text, out]).toEqual([text, `wrote ${expected}`]);
      expect([text, outcome(() => setFrontmatterFieldsByDocument(text, fields))]).toEqual([text, `wrote ${expected}`]);
      paths.push(document);
    }
    // the document path: a block list there, a mapping there, a top-level mapping indented as a whole
    expect(paths).toEqual([false, false, false, false, false, true, false, true, true]);
  });

  it('on random notes (the fuzzer\'s, damaged at times) and random writes, lists and maps among them', () => {
    let same = 0;
    let refused = 0;
    let lenient = 0;
    let lines = 0;
    let collections = 0;
    const differ: Array<{ note: string; fields: Record<string, FieldValue>; fast: string; document: string }> = [];
    for (let i = 0; i < 1500; i++) {
      const rand = seededRandom(`fast-path:${i}`);
      let text = randomNote(rand);
      if (rand() < 0.2) text = damage(rand, text);
      const fields: Record<string, FieldValue> = {};
      for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
        const r = rand();
        if (r < 0.25) fields.tier = ['active', 'warm', 'cold', 'archive'][Math.floor(rand() * 4)]!;
        else if (r < 0.4) fields.decays_from = '[[Pattern: the deploy]]';
        else if (r < 0.55) fields.link_ids = rand() < 0.5 ? ['mem-0123456789ab'] : ['mem-0123456789ab', 'mem-ba9876543210'];
        else if (r < 0.65) fields.tags = rand() < 0.5 ? [] : ['a', 'with space'];
        else if (r < 0.75) fields.co_access = rand() < 0.5 ? {} : { 'mem-aaaaaaaaaaaa': 3 };
        else if (r < 0.85) fields.half_life_days = Math.round(rand() * 300) / 10;
        else fields[['status', 'note', 'rank', 'meta'][Math.floor(rand() * 4)]!] = rand() < 0.5 ? 'set by engram' : 7;
      }
      const { out: fast, document: slow } = written(text, fields);
      if (!slow) lines++;
      if (!slow && Object.values(fields).some((v) => v !== null && typeof v === 'object')) collections++;
      const document = outcome(() => setFrontmatterFieldsByDocument(text, fields));
      if (fast.startsWith('refused') && document.startsWith('refused')) refused++;
      else if (fast === document) same++;
      // the reader reads a few damaged notes the YAML library refuses: the fast path (checked by the reader) writes them
      else if (fast.startsWith('wrote') && document.startsWith('refused invalid YAML')) lenient++;
      else differ.push({ note: text, fields, fast, document });
    }
    expect(differ).toEqual([]);
    // written by lines: most, a list or a mapping among the fields in many
    expect([same, refused, lenient, lines, collections]).toEqual([1252, 248, 0, 980, 432]);
  });
});
