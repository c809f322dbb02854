import { tokenize, TOKEN_PATTERN } from '../../../src/core/recall/dates';
import { seededRandom } from '../../../src/core/random';

/** The tokens as the regular expression finds them: what tokenize gave before it scanned by hand. */
function byPattern(text: string) {
  const NUMBER_WORDS: Record<string, number> = {
    a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
    eleven: 11, twelve: 12, couple: 2, few: 3, several: 3,
  };
  return [...text.toLowerCase().matchAll(new RegExp(TOKEN_PATTERN.source, 'g'))].map((m) => {
    const raw = m[0];
    let value: unknown = null;
    if (/^\d/.test(raw)) value = Number(raw.replace(/\D+$/, ''));
    else if (raw in NUMBER_WORDS) value = NUMBER_WORDS[raw];
    return { text: raw, from: m.index, to: m.index + raw.length, value };
  });
}

describe('the date tokenizer', () => {
  it('reads ISO dates, ordinals, numbers, words and commas', () => {
    expect(tokenize('On 2022-05-01, the 3rd; Twelve 45TH x12 12345-67-89 2022-05-017 a-few')).toEqual([
      { text: 'on', from: 0, to: 2, value: null },
      { text: '2022-05-01', from: 3, to: 13, value: NaN },
      { text: ',', from: 13, to: 14, value: null },
      { text: 'the', from: 15, to: 18, value: null },
      { text: '3rd', from: 19, to: 22, value: 3 },
      { text: 'twelve', from: 24, to: 30, value: 12 },
      { text: '45th', from: 31, to: 35, value: 45 },
      { text: 'x', from: 36, to: 37, value: null },
      { text: '12', from: 37, to: 39, value: 12 },
      { text: '12345', from: 40, to: 45, value: 12345 },
      { text: '67', from: 46, to: 48, value: 67 },
      { text: '89', from: 49, to: 51, value: 89 },
      { text: '2022-05-01', from: 52, to: 62, value: NaN },
      { text: '7', from: 62, to: 63, value: 7 },
      { text: 'a', from: 64, to: 65, value: 1 },
      { text: 'few', from: 66, to: 69, value: 3 },
    ]);
  });

  it('splits words at letters outside a-z and counts positions in the lower-cased text', () => {
    // 'İ' lower-cases to two code units: positions are the lower-cased text's, as before
    expect(tokenize('İstanbul Café 5ème constructor').map((t) => [t.text, t.from, t.to])).toEqual([
      ['i', 0, 1], ['stanbul', 2, 9], ['caf', 10, 13], ['5', 15, 16], ['me', 17, 19], ['constructor', 20, 31],
    ]);
  });

  it('gives what the regular expression gives on 5,000 random texts', () => {
    const random = seededRandom('date-tokens');
    const pieces = ['2022-05-01', '1999-1-01', '12', '3', 'st', 'nd', 'rd', 'th', 'h', '-', ',', ' ', 'May', 'a', 'few', 'days', 'ago', 'é', 'İ', 'X', '\n', '0000-00-00', '123', 'twelve', 'constructor', '.'];
    let tokens = 0;
    for (let k = 0; k < 5000; k++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 14) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const expected = byPattern(text);
      expect([text, tokenize(text)]).toEqual([text, expected]);
      tokens += expected.length;
    }
    expect(tokens).toBe(23362);
  });
});
