import { analyze, analyzeAnyText, resetWordTable, startsNoDate } from '../../../src/core/analyzer';
import { DATE_CODE_ISO, findDates, findDatesCounting, tokenize, tokensOf, wordDateCode } from '../../../src/core/recall/dates';

/**
 * findDates skips numbers that begin no date or duration (inertNumber) without trying the
 * parser on them: the same mentions and durations as trying every form on each number.
 */

const ANCHOR = Date.parse('2023-06-14T15:00:00Z');

function same(text: string): void {
  const fast = findDatesCounting(text, ANCHOR, true);
  const slow = findDatesCounting(text, ANCHOR, false);
  expect({ text, mentions: fast.mentions, durations: fast.durations }).toEqual({ text, mentions: slow.mentions, durations: slow.durations });
  expect(findDates(text, ANCHOR)).toEqual({ mentions: slow.mentions, durations: slow.durations });
}

describe('the words findDates does not look at', () => {
  it('are one shared token without text a run; date words, numbers and commas keep theirs', () => {
    const text = 'Observation 12: the ledger balanced last night, 3 weeks ago in mid-May (yesterdays)';
    const full = tokenize(text);
    const lean = tokensOf(text, true);
    const other = lean[0]!;
    expect(other).toEqual({ text: '', from: -1, to: -1, value: null });
    // "ledger balanced" is one run; "observation" and "yesterdays" are runs of one
    const others = ['observation', 'ledger', 'balanced', 'yesterdays'];
    const expected = full.filter((t, i) => !(others.includes(t.text) && others.includes(full[i - 1]?.text ?? '')));
    expect(lean.map((t) => (t === other ? '-' : t))).toEqual(expected.map((t) => (others.includes(t.text) ? '-' : t)));
    expect(lean.filter((t) => t === other).length).toBe(3);
    expect(lean.length).toBe(full.length - 1);
  });

  it('make a run across spaces, hyphens and other characters that are no token, not across a comma, a digit or a date word', () => {
    const kinds = (text: string) => tokensOf(text, true).map((t) => (t.text === '' ? '-' : t.text));
    expect(kinds('alpha beta-gamma. delta')).toEqual(['-']);
    expect(kinds('alpha, beta')).toEqual(['-', ',', '-']);
    expect(kinds('alpha 3 beta')).toEqual(['-', '3', '-']);
    expect(kinds('alpha3beta')).toEqual(['-', '3', '-']);
    expect(kinds('alpha may beta gamma')).toEqual(['-', 'may', '-']);
    expect(kinds('\u00e9t\u00e9 alpha beta')).toEqual(['-']); // any text: its lower case read
    expect(kinds('alpha \u00e9t\u00e9 beta')).toEqual(['-']);
    expect(kinds('')).toEqual([]);
    expect(kinds('may')).toEqual(['may']);
  });

  it('find what one token per word finds, in random texts of date words among runs of other words', () => {
    const dateWords = ['1', '3', '12', '31', '2019', '2022-05-01', '8th', 'of', 'the', 'and', 'between', 'may', 'May', 'sept', 'june',
      'day', 'days', 'weeks', 'month', 'year', 'ago', 'before', 'after', 'later', 'earlier', 'last', 'this', 'next', 'past', 'previous',
      ',', 'a', 'few', 'couple', 'summer', 'fall', 'friday', 'on', 'in', 'night', 'morning', 'week', 'weekend', 'first', 'half', 'mid',
      'early', 'beginning', 'yesterday', 'three'];
    const others = ['alpha', 'Beta', 'ledger', 'x', 'septembers', 'mayday', '\u00e9t\u00e9', 'Observation'];
    const gaps = [' ', ' ', ' ', '-', '. ', '', '\n'];
    let seed = 37;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = <T,>(list: T[]) => list[Math.floor(random() * list.length)]!;
    let collapsed = 0;
    for (let k = 0; k < 4000; k++) {
      let text = '';
      for (let n = 1 + Math.floor(random() * 12); n > 0; n--) text += pick(random() < 0.5 ? others : dateWords) + pick(gaps);
      same(text);
      if (tokensOf(text, true).length < tokenize(text).length) collapsed++;
    }
    expect(collapsed).toBeGreaterThan(1500); // many texts had a run of two words or more
  });
});

describe('the inert-number shortcut of findDates', () => {
  it('hands the parser no number that is no year, has no unit after it and (one or two digits) no month or "of"', () => {
    // term182, term3o9 (3, 9), 9729: inert; "2 days" is a duration, 2019 a year, "12 of May" and "3 sept" dates
    const text = 'Observation 9729: term182 term3o9 2 days, 2019, 12 of May, 3 sept, 31 dec, 45 jan, 007 weeks';
    const fast = findDatesCounting(text, ANCHOR, true);
    const slow = findDatesCounting(text, ANCHOR, false);
    expect(fast.mentions.map((m) => text.slice(m.from, m.to))).toEqual(['2019', '12 of May', '3 sept', '31 dec']);
    expect(fast.durations.map((d) => text.slice(d.from, d.to))).toEqual(['2 days', '007 weeks']);
    expect(slow).toEqual({ ...fast, attempts: 12 });
    // the parser sees 2, 2019, 12, 3, 31, 45, jan and 007: not 9729, 182, 3 (of 3o9) or 9, which the slow path tries
    expect(fast.attempts).toBe(8);
  });

  it('keeps what the parser makes of numbers beside units, months, "of", years and ordinals', () => {
    for (const text of [
      '3 days ago', '10 weeks before 9 June 2023', '12 months later', '2 years earlier', 'for 5 weekends',
      '1 May, 2022', '08 of December 2023', '99 of May', '1 sept', '7 jan 2020', '32 may', '00 march',
      'between 3 and 5 May 2022', 'between 2021 and 2022', '1999', '2099', '1899', '20222', '19',
      '3rd of May', '21st june', '2022-05-01', '2022-05-01x', '123-45', 'term12 months', '12months',
      'x1 of', '5', '5 of', '5 day', '5 days', '5 the week', 'the 2 weeks before May 3', 'a few days ago',
      '17 of sep 2021, 18 oct', '3,4 may', '9 Jun', 'on 4 July 1999 and 40 days later',
      // every word the parser compares with, in the phrases it reads
      'the first half of September', 'the second half of may 2021', 'this morning', 'this afternoon', 'this evening', 'last night',
      'on Friday', 'Friday', 'the day before 9 June 2023', 'the Sunday after October 25, 2022', 'a couple of months ago', 'a few weeks ago',
      'three days earlier than that', '2 weeks later', 'the beginning of November 2022', 'the end of may', 'the middle of June', 'the start of jan',
      'early May', 'late june 2020', 'mid-May', 'the third week of November', 'the last week of may', 'between August 11 and 15 2023',
      'last weekend', 'next weekends', 'past month', 'previous year', 'in the fall', 'the fall of 2019', 'summer of 2021', 'around may',
      'tonight', 'today', 'tomorrow', 'yesterday', 'thurs', 'tues', 'sept 3', 'through march', 'till june', 'since august', 'during may',
    ]) same(text);
  });

  it('agrees with the slow path on random mixes of numbers, units, months and words', () => {
    const pieces = ['1', '2', '12', '31', '32', '007', '123', '2019', '1999', '2100', '20230', 'of', 'the', 'and', 'between', 'may',
      'May', 'sept', 'dec', 'june', 'day', 'days', 'weeks', 'month', 'year', 'ago', 'before', 'after', 'later', 'last', 'this',
      'next', ',', 'term', 'x', '3rd', '8th', 'a', 'few', 'summer', 'friday', 'on', '2022-05-01', '\u00e9t\u00e9', '\n', 'night', 'morning',
      'ago', 'half', 'week', 'weekend', 'earlier', 'first', 'couple', 'yesterday', 'mid', 'Observation', 'septembers', 'fall', 'in', 'an', 'two', 'tues'];
    let seed = 23;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    let differ = 0;
    for (let k = 0; k < 3000; k++) {
      const words: string[] = [];
      for (let n = 1 + Math.floor(random() * 10); n > 0; n--) words.push(pieces[Math.floor(random() * pieces.length)]!);
      const text = words.join(random() < 0.3 ? '' : ' ');
      same(text);
      if (findDatesCounting(text, ANCHOR, true).attempts !== findDatesCounting(text, ANCHOR, false).attempts) differ++;
    }
    expect(differ).toBeGreaterThan(500); // the shortcut was taken on many of them
  });
});

describe('the texts findDates answers without tokens (startsNothing)', () => {
  const quiet = (text: string) => findDatesCounting(text, ANCHOR, true).quiet;

  it('are ASCII texts with no word that can begin a date, no ISO date, ordinal or year, and only numbers inertNumber skips', () => {
    for (const text of [
      '', 'Observation 21: worker termig cents token auth term2h term2s migration term33k.', 'term182 term3o9 007',
      '1850 2150 3050 19 199 19999 0', 'weeks of', 'days', '123 of', '12, of', '12 x of', '12,weeks', 'ledger-balance. x',
    ]) {
      same(text);
      expect({ text, quiet: quiet(text) }).toEqual({ text, quiet: true });
      expect(findDates(text, ANCHOR)).toEqual({ mentions: [], durations: [] });
    }
  });

  it('are not a text with another character, an ISO date, an ordinal, a year, a word that can begin one, or a unit or "of" after a number', () => {
    for (const text of [
      'caf\u00e9 12', 'x\u0080', 'x 2022-05-01', 'x 2150-05-01', 'term2nd', 'x 3rd', 'Observation 1950', 'term2019', '2000', 'the ledger', 'term2a', 'x May',
      'an x', 'three', 'yesterday', '3 weeks', '300 years', 'term12months', '7 day', '12 of', '5 - of', '1 weekend', 'x 12 months', 'friday',
    ]) {
      same(text);
      expect({ text, quiet: quiet(text) }).toEqual({ text, quiet: false });
    }
    // where it declines, findDates reads the tokens: a year, a duration, a date
    expect(findDates('term12months', ANCHOR).durations).toEqual([{ from: 4, to: 12 }]);
    expect(findDates('Observation 1950', ANCHOR).mentions.length).toBe(1);
    expect(findDates('5 - of', ANCHOR)).toEqual({ mentions: [], durations: [] });
  });

  it('are answered as the tokens answer them, in random texts of the bench\'s words, numbers and date words', () => {
    const pieces = ['Observation', 'auth', 'term', 'ledger', 'x', 'y', 'h', 's', '0', '7', '12', '31', '45', '123', '1950', '2019', '1850',
      '9999', 'of', 'weeks', 'days', 'months', 'and', 'ago', 'night', 'may', 'a', 'nd', 'th', ',', '.', ':', '-', ' ', ' ', ' ', '\u00e9'];
    let seed = 41;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    let quietCount = 0;
    for (let k = 0; k < 4000; k++) {
      let text = '';
      for (let n = 1 + Math.floor(random() * 14); n > 0; n--) text += pieces[Math.floor(random() * pieces.length)]!;
      same(text);
      if (quiet(text)) quietCount++;
    }
    expect(quietCount).toBe(1977); // about half: the rest hold a starter, a year, a unit or "of" after a number, or "\u00e9"
  });

  it('tell digits and letters from every other ASCII character as the tokens do (the character tests written out in its loop)', () => {
    let quietCount = 0;
    for (let c = 0; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      // beside a day, a unit, a year, a month and an ordinal suffix, a character that is a digit or a letter joins their run
      for (const text of [`12${ch}of`, `3${ch}days`, `19${ch}50`, `x${ch}may`, `may${ch}x`, `2${ch}nd`, `${ch}12 of`, `term${ch}3 weeks`]) {
        same(text);
        if (quiet(text)) quietCount++;
      }
    }
    // of the 1,024 texts, the quiet ones: e.g. 12-of with a letter or digit between (one run: no "of"), 19x50 but for x = a or A (a starter)
    expect(quietCount).toBe(468);
    expect(['12@of', '12[of', '12`of', '12{of', '12/of', '12:of', '3@days', '19@50', 'x@may'].map(quiet)).toEqual([false, false, false, false, false, false, false, true, false]);
    expect(['12aof', '12Zof', '120of', '3Adays', '1950', 'xAmay', 'mayAx'].map(quiet)).toEqual([true, true, true, true, false, true, true]);
  });
});

describe("the analyser's pass tells startsNothing's answer (startsNoDate, wordDateCode)", () => {
  const quiet = (text: string) => findDatesCounting(text, ANCHOR, true).quiet;
  /** What startsNoDate says: startsNothing's answer, but "not known" (false) where the analyser does not read the text by hand or a long word or four digits and a '-' stand. */
  const expected = (text: string) => quiet(text) && !/[^\0-\x7f]|['`]|[a-z0-9]{41,}|(^|\D)\d{4}-/i.test(text);

  it('says what startsNothing says of the bench-like random texts and of every ASCII character beside days, units, years and months', () => {
    const pieces = ['Observation', 'auth', 'term', 'ledger', 'x', 'y', 'h', 's', '0', '7', '12', '31', '45', '123', '1950', '2019', '1850',
      '9999', 'of', 'weeks', 'days', 'months', 'and', 'ago', 'night', 'may', 'a', 'nd', 'th', ',', '.', ':', '-', ' ', ' ', ' ', '\u00e9', "'"];
    let seed = 43;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const texts: string[] = [];
    for (let k = 0; k < 4000; k++) {
      let text = '';
      for (let n = 1 + Math.floor(random() * 14); n > 0; n--) text += pieces[Math.floor(random() * pieces.length)]!;
      texts.push(text);
    }
    for (let c = 0; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      texts.push(`12${ch}of`, `3${ch}days`, `19${ch}50`, `x${ch}may`, `may${ch}x`, `2${ch}nd`, `${ch}12 of`, `term${ch}3 weeks`, `1234${ch}05-06`, `1234${ch}x`);
    }
    let told = 0;
    for (const text of texts) {
      const analysis = analyze(text);
      expect({ text, told: startsNoDate(analysis) }).toEqual({ text, told: expected(text) });
      if (startsNoDate(analysis)) {
        told++;
        expect(findDates(text, ANCHOR)).toEqual({ mentions: [], durations: [] });
      }
    }
    expect(told).toBe(2372);
    // a word's code: what follows it for a number of none, one or two digits pending before it (3: it starts something)
    expect(['term', 'term38', 'term2a', 'of', 'weeks', '12', '1234', '1950', '3rd'].map(wordDateCode)).toEqual([
      0b000000, 0b010101, 0b111111, 0b001100, 0b111100, 0b010101, 0b101010 | DATE_CODE_ISO, 0b111111 | DATE_CODE_ISO, 0b111111,
    ]);
  });

  it("gives each word startsNothing's answer after it for each number before it (its code read back through startsNothing)", () => {
    const pieces = ['term', 'x', 'a', 'of', 'weeks', 'day', 'may', 'nd', 'th', 'st', 'ago', 'the', '0', '7', '12', '123', '1950', '2019', '9999', '1'];
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const words = [...pieces];
    for (let k = 0; k < 3000; k++) {
      let word = '';
      for (let n = 1 + Math.floor(random() * 4); n > 0; n--) word += pieces[Math.floor(random() * pieces.length)]!;
      words.push(word);
    }
    const counts = [0, 0, 0, 0];
    for (const word of words) {
      const code = wordDateCode(word);
      ['x ', '12 ', '123 '].forEach((before, pending) => {
        // what is pending after the word: a unit after it starts something unless none is; "of" unless it is of more than two digits
        const told = !quiet(before + word) ? 3 : quiet(`${before + word} weeks`) ? 0 : quiet(`${before + word} of`) ? 2 : 1;
        expect({ word, pending, after: (code >> (2 * pending)) & 3 }).toEqual({ word, pending, after: told });
        counts[told]!++;
      });
      expect({ word, iso: (code & DATE_CODE_ISO) !== 0 }).toEqual({ word, iso: /(^|\D)\d{4}$/.test(word) });
    }
    expect(counts).toEqual([3167, 1078, 1279, 3536]);
  });

  it('is "not known" for any analysis but the last the ASCII pass made, and for a text it does not read by hand', () => {
    const first = analyze('auth term38 token');
    expect(startsNoDate(first)).toBe(true);
    const second = analyze('auth 3 weeks token');
    expect([startsNoDate(first), startsNoDate(second)]).toEqual([false, false]);
    expect(startsNoDate(analyze("auth term38 don't"))).toBe(false);
    expect(quiet("auth term38 don't")).toBe(true);
    expect(startsNoDate(analyzeAnyText('auth term38 token'))).toBe(false);
    // a body with its tags after it: quiet when the whole is, and then its body is
    expect(startsNoDate(analyze('Observation 12: auth term38 api'))).toBe(true);
    expect(startsNoDate(analyze('Observation 12: auth term38 weeks'))).toBe(false);
  });

  it('keeps each word its code when the word table is emptied and filled again', () => {
    resetWordTable(4); // 16 slots: emptied at the 9th word
    try {
      const text = 'w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 12 weeks w13';
      const analysis = analyze(text);
      expect(startsNoDate(analysis)).toBe(false);
      expect(startsNoDate(analyze('w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 12 ww weeks'))).toBe(true);
      expect(quiet('w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 12 ww weeks')).toBe(true);
    } finally {
      resetWordTable();
    }
  });
});
