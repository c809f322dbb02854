import { eachFlatField, hasUnusualCharacter, isNumberText, isPlainText, plainQuotedList } from '../../src/core/frontmatter';
import { seededRandom } from '../../src/core/random';

/**
 * Issue 23, a first recall at 10k reads 200,000 frontmatter fields: the flat reader's value
 * forms that Engram writes (a decimal, a plain word, a list of plain quoted strings) are read by
 * hand. Each gives what the patterns it replaces gave (kept here as the reference), on crafted
 * and random texts.
 */
const NUMBER_VALUE = /^-?(?:0|[1-9]\d{0,14})(?:\.\d{1,20})?$/;
const PLAIN_STRING = /^[A-Za-z_][\w.\-/]*(?: [\w.\-/]+)*$/;
const QUOTED = '"(?:[^"\\\\]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*"';
const QUOTED_LIST = new RegExp(`^\\[(?:${QUOTED}(?:, ${QUOTED})*)?\\]$`);

const random = seededRandom('issue-23-frontmatter-hand-scans');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const textOf = (atoms: readonly string[], max: number) => Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(atoms)).join('');

describe('the flat reader\'s values read by hand', () => {
  it('isNumberText is the decimal pattern', () => {
    const crafted = ['0', '-0', '7', '-7', '01', '-01', '10', '0.5', '.5', '5.', '-.5', '1.0', '1e5', '+1', '--1', '-', '', ' 1', '1 ', '0x1',
      '123456789012345', '1234567890123456', '-123456789012345', '1.12345678901234567890', '1.123456789012345678901', '0.30000000000000004', '1.2.3', '1-2', 'Infinity', 'NaN'];
    for (const text of crafted) expect([text, isNumberText(text)]).toEqual([text, NUMBER_VALUE.test(text)]);
    const atoms = ['0', '1', '9', '5', '-', '.', 'e', ' ', 'a', '12345', '00'];
    let numbers = 0;
    for (let round = 0; round < 20000; round++) {
      const text = textOf(atoms, 8);
      expect([text, isNumberText(text)]).toEqual([text, NUMBER_VALUE.test(text)]);
      if (NUMBER_VALUE.test(text)) numbers++;
    }
    expect(numbers).toBeGreaterThan(500);
  });

  it('isPlainText is the plain word pattern', () => {
    const crafted = ['a', '_', 'A', 'z', 'Z', '0a', '-a', '.a', '/a', 'a b', 'a  b', 'a b ', ' a', 'a-b/c.d_e', 'code reviewer', 'null', 'True',
      'a:b', 'a#b', 'a\tb', 'é', 'aé', 'a b c d', 'a /', 'a .', 'a -', '', 'mem-00032efea89c', 'a`', 'a@', 'a[', 'a{', 'a~', 'a,b', 'a b,'];
    for (const text of crafted) expect([text, isPlainText(text)]).toEqual([text, PLAIN_STRING.test(text)]);
    // every ASCII character after a letter and before one, and first
    for (let c = 0; c < 0x80; c++) {
      for (const text of [`a${String.fromCharCode(c)}`, `a${String.fromCharCode(c)}b`, `${String.fromCharCode(c)}a`]) expect([text, isPlainText(text)]).toEqual([text, PLAIN_STRING.test(text)]);
    }
    const atoms = ['a', 'Z', '_', '0', '9', '-', '.', '/', ' ', '  ', ':', '@', '`', '[', '{', '~', 'é', '\u212a'];
    let plain = 0;
    for (let round = 0; round < 20000; round++) {
      const text = textOf(atoms, 8);
      expect([text, isPlainText(text)]).toEqual([text, PLAIN_STRING.test(text)]);
      if (PLAIN_STRING.test(text)) plain++;
    }
    expect(plain).toBeGreaterThan(500);
  });

  it('plainQuotedList reads a list of plain quoted strings as JSON.parse does, and leaves the rest to the pattern', () => {
    const viaPattern = (text: string) => (QUOTED_LIST.test(text) ? (JSON.parse(text) as string[]) : undefined);
    const crafted = ['["a"]', '["a", "b"]', '["", ""]', '["a b", "c, d"]', '["é ü"]', '["a","b"]', '["a" , "b"]', '["a", "b",]', '["a"] ', '["a"]]', '[["a"]]',
      '["a\\"b"]', '["a\\\\b"]', '["\\u00e9"]', '["a"', '["a', '[a]', '["a", b]', '["a", "b"', '["a"x]', '[ "a"]', '["a", ""]', '["[", "]"]', '["a", "b"]x'];
    for (const text of crafted) {
      const hand = plainQuotedList(text);
      // what it reads is what the pattern and JSON.parse read; what it leaves they judge
      if (hand !== undefined) expect([text, hand]).toEqual([text, viaPattern(text)]);
      expect([text, hand ?? viaPattern(text)]).toEqual([text, viaPattern(text)]);
    }
    expect(plainQuotedList('["a", "b c"]')).toEqual(['a', 'b c']);
    expect(plainQuotedList('["a\\"b"]')).toBeUndefined();
    const atoms = ['"', '"', '", "', 'a', ' ', ',', ']', '[', '\\', '\\"', 'é', ', '];
    const inner = ['a', 'b c', ' ', ',', ', ', ']', '[', 'é', '\\', '\\"', '\\n', '\\u00e9', '"'];
    let read = 0;
    for (let round = 0; round < 20000; round++) {
      // lists of quoted strings (a few with a quote or backslash inside, or another separator or end), and random texts
      const list = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => `"${textOf(inner, 3)}"`).join(random() < 0.9 ? ', ' : pick([',', ' , ', ',  '])) + (random() < 0.9 ? ']' : pick([']]', '', ' ]', '] ']));
      const text = `[${random() < 0.7 ? list() : textOf(atoms, 8)}`;
      const hand = plainQuotedList(text);
      if (hand !== undefined) {
        read++;
        expect([text, hand]).toEqual([text, viaPattern(text)]);
      }
      expect([text, hand ?? viaPattern(text)]).toEqual([text, viaPattern(text)]);
    }
    expect(read).toBeGreaterThan(2000);
  });
});

/** hasUnusualCharacter before its pattern: the loop over the code units (the reference). */
function unusualByLoop(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 ? c !== 0x0a : c >= 0x7f && (c <= 0x9f || c === 0x2028 || c === 0x2029 || (c >= 0xd800 && c <= 0xdfff) || c === 0xfeff || c >= 0xfffe)) return true;
  }
  return false;
}

describe('hasUnusualCharacter', () => {
  it('is the loop over the code units on every code unit, alone and inside a field line', () => {
    let unusual = 0;
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      const expected = unusualByLoop(ch);
      if (hasUnusualCharacter(ch) !== expected || hasUnusualCharacter(`id: a${ch}b\n`) !== expected) throw new Error(`code unit ${c.toString(16)}`);
      if (expected) unusual++;
    }
    // 31 controls but \n, DEL and 32 C1, 2 separators, 2,048 surrogates, the BOM, U+FFFE and U+FFFF
    expect(unusual).toBe(31 + 33 + 2 + 2048 + 1 + 2);
    expect([hasUnusualCharacter(''), hasUnusualCharacter('a\n'), hasUnusualCharacter('a\r\n'), hasUnusualCharacter('\u{1F600}'), hasUnusualCharacter('caf\u00e9 \u00a0\u2027\u202a\ufffd')]).toEqual([false, false, true, true, false]);
  });

  it('is the loop on random texts, and the flat reader refuses a frontmatter that holds one', () => {
    const atoms = ['a', ' ', '\n', 'id: x', '\t', '\r', '\u007f', '\u0085', '\u00a0', '\u00e9', '\u2028', '\u2029', '\ud83d', '\ude00', '\ufeff', '\ufffd', '\ufffe', '\uffff', '\u3000'];
    let unusual = 0;
    for (let round = 0; round < 5000; round++) {
      const text = textOf(atoms, 12);
      expect([text, hasUnusualCharacter(text)]).toEqual([text, unusualByLoop(text)]);
      if (unusualByLoop(text)) unusual++;
    }
    expect(unusual).toBeGreaterThan(3000);
    expect(eachFlatField('id: a\u2028b\n', () => true)).toBe(false);
    expect(eachFlatField('id: "a\u00e9b"\n', () => true)).toBe(true);
  });
});
