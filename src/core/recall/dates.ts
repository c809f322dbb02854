import { MS_PER_DAY } from '../time';

/**
 * Date expressions in English text, resolved to spans of whole UTC days: absolute dates
 * ("1 May, 2022", "May 1 2022", "2022-05-01"), months ("in May", "January 2022"), years,
 * seasons ("summer 2021", northern hemisphere), weeks and parts of months ("the second week
 * of November", "early May"), and expressions relative to the moment the text was written
 * or asked (`anchor`): "yesterday", "last week", "three days ago", "last Friday", "this
 * summer", "the week before 9 June 2023", "between August 11 and August 15 2023". Durations
 * ("for 4 years") have no span but say that the text is about time.
 *
 * A month or day named without a year is the latest one that has begun by the anchor; a bare
 * weekday is the latest one on or before it (memories mostly recount). "May", "March" and
 * "August" are months only after a preposition or before a day or year ("in May", "May 3").
 */
export interface DateMention {
  /** [start, end): midnight UTC of the first day, and of the day after the last. */
  start: number;
  end: number;
  /** The characters of the text that make up the expression: [from, to). */
  from: number;
  to: number;
}

export interface DateFindings {
  mentions: DateMention[];
  /** Durations ("4 years", "for three weeks"): time spoken of, without a date. */
  durations: Array<{ from: number; to: number }>;
}

interface Token {
  text: string;
  from: number;
  to: number;
  /** The number a token stands for: digits, an ordinal ("8th"), or a number word. */
  value: number | null;
}

type Span = [start: number, end: number];

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_ABBREVIATIONS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Month names that are also common words: months only after a preposition or beside a number. */
const AMBIGUOUS_MONTHS = new Set(['may', 'march', 'august']);
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const WEEKDAY_ABBREVIATIONS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, couple: 2, few: 3, several: 3,
};
const ORDINAL_WORDS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, last: -1 };
const UNITS: Record<string, 'day' | 'week' | 'weekend' | 'month' | 'year'> = {
  day: 'day', days: 'day', week: 'week', weeks: 'week', weekend: 'weekend', weekends: 'weekend',
  month: 'month', months: 'month', year: 'year', years: 'year',
};
const SEASONS: Record<string, number> = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 };
/** Words after which an ambiguous month name ("may") or "fall" is a date. */
const DATE_PREPOSITIONS = new Set(['in', 'during', 'since', 'until', 'till', 'by', 'of', 'from', 'through', 'last', 'next', 'this', 'early', 'late', 'mid', 'before', 'after', 'around', 'the']);

/** The start (00:00 UTC) of the day `ms` falls in. */
export const utcDay = (ms: number) => Math.floor(ms / MS_PER_DAY) * MS_PER_DAY;
const day = (year: number, month: number, date: number) => Date.UTC(year, month, date);
const monthSpan = (year: number, month: number): Span => [day(year, month, 1), day(year, month + 1, 1)];
const yearSpan = (year: number): Span => [day(year, 0, 1), day(year + 1, 0, 1)];
/** The Monday-to-Sunday week holding `ms`. */
function weekSpan(ms: number): Span {
  const start = utcDay(ms) - ((new Date(ms).getUTCDay() + 6) % 7) * MS_PER_DAY;
  return [start, start + 7 * MS_PER_DAY];
}
/** Season `start` month (0-based, may be 11 = December of the year before) of a year. */
function seasonSpan(year: number, startMonth: number): Span {
  const first = startMonth === 11 ? day(year - 1, 11, 1) : day(year, startMonth, 1);
  const d = new Date(first);
  return [first, day(d.getUTCFullYear(), d.getUTCMonth() + 3, 1)];
}

/**
 * The tokens of a text: what `TOKEN_PATTERN` matches in its lower case, scanned by hand (a
 * regular expression and two tests per token were most of findDates, which runs on every
 * memory a first run parses). The same tokens as the pattern, which the tests compare.
 */
export function tokenize(text: string): Token[] {
  return tokensOf(text, false);
}

/**
 * tokenize's tokens, with `opaque`: each run of words the date finder never looks at (no month,
 * unit, number word or other word it compares with: DATE_WORDS), words apart only by characters
 * that make no token (spaces, hyphens, full stops: not a comma or a digit), as one shared token
 * with no text, place or value. The finder reads those only as "some other word" (it starts
 * nothing there and compares them with words they are not), and no mention or duration begins
 * or ends on one, so it finds the same; a first recall no longer makes a token of each of a
 * vault's words (tokenize was half of findDates at 10k). Exported for tests.
 */
export function tokensOf(text: string, opaque: boolean): Token[] {
  return (opaque ? asciiOpaqueTokens(text) : null) ?? lowerTokens(text, opaque);
}

/** tokensOf read from the text's lower case (any text): the reference asciiOpaqueTokens is compared with. Exported for tests. */
export function lowerTokens(text: string, opaque: boolean): Token[] {
  const lower = text.toLowerCase();
  const tokens: Token[] = [];
  const n = lower.length;
  let i = 0;
  while (i < n) {
    const c = lower.charCodeAt(i);
    if (isDigit(c)) {
      const from = i;
      if (isoDateAt(lower, i)) {
        tokens.push({ text: lower.slice(i, i + 10), from, to: i + 10, value: NaN }); // Number('2022-05-01'), as before
        i += 10;
        continue;
      }
      while (i < n && isDigit(lower.charCodeAt(i))) i++;
      const digits = lower.slice(from, i);
      const suffix = lower.slice(i, i + 2);
      const ordinal = suffix === 'st' || suffix === 'nd' || suffix === 'rd' || suffix === 'th';
      if (ordinal) i += 2;
      tokens.push({ text: ordinal ? digits + suffix : digits, from, to: i, value: Number(digits) });
    } else if (c >= 97 && c <= 122) {
      const from = i;
      while (i < n && isLowerLetter(lower.charCodeAt(i))) i++;
      if (opaque && (i - from > LONGEST_DATE_WORD || !DATE_WORDS.has(lower.slice(from, i)))) {
        pushOther(tokens);
        continue;
      }
      const raw = lower.slice(from, i);
      tokens.push({ text: raw, from, to: i, value: raw in NUMBER_WORDS ? NUMBER_WORDS[raw]! : null });
    } else {
      if (c === 44) tokens.push({ text: ',', from: i, to: i + 1, value: null });
      i++;
    }
  }
  return tokens;
}

/**
 * tokensOf(text, true) of a text of ASCII characters alone, read where it stands: each letter
 * lower-cased as it is read (the lower case of ASCII is the same length, so the places are
 * those of the lower-case text), and each word found among DATE_WORDS by a hash of its
 * letters, so that no substring is cut but a date word's (which is that word's own string).
 * A first recall at 10k made a lower-case copy of each body and a substring of each short word.
 * Null when the text holds another character: its lower case may differ in length or hold
 * ASCII letters it did not (the Kelvin sign), and tokensOf reads that lower case.
 */
function asciiOpaqueTokens(text: string): Token[] | null {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return null;
    if (isDigit(c)) {
      const from = i;
      if (isoDateAt(text, i)) {
        tokens.push({ text: text.slice(i, i + 10), from, to: i + 10, value: NaN }); // Number('2022-05-01'), as before
        i += 10;
        continue;
      }
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      const digits = text.slice(from, i);
      const suffix = ordinalSuffixAt(text, i);
      if (suffix !== null) i += 2;
      tokens.push({ text: suffix !== null ? digits + suffix : digits, from, to: i, value: Number(digits) });
    } else if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
      const from = i;
      let hash = 0;
      for (; i < n; i++) {
        const d = text.charCodeAt(i);
        if (!isAsciiLetter(d)) break;
        hash = (Math.imul(hash, 31) + (d | 0x20)) | 0; // its lower case
      }
      const word = i - from > LONGEST_DATE_WORD ? undefined : dateWordAt(text, from, i, hash);
      if (word === undefined) pushOther(tokens);
      else tokens.push({ text: word, from, to: i, value: NUMBER_VALUES.get(word) ?? null });
    } else {
      if (c === 44) tokens.push({ text: ',', from: i, to: i + 1, value: null });
      i++;
    }
  }
  return tokens;
}

/**
 * OTHER_WORD after the tokens, unless they end with it: a run of words the finder does not look
 * at (most of a memory's words) is one token. No form the parser reads goes on past such a word
 * (each compares it with a word, a number or a comma it is not, and stops there or fails), and
 * no mention or duration begins or ends on one, so one token for the run finds what one token
 * per word did (the tests compare findDates with the tokens of the text's words).
 */
function pushOther(tokens: Token[]): void {
  if (tokens.length === 0 || tokens[tokens.length - 1] !== OTHER_WORD) tokens.push(OTHER_WORD);
}

const isAsciiLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/** The ordinal suffix (st, nd, rd, th) at i in any case, in lower case; null when none. */
function ordinalSuffixAt(text: string, i: number): string | null {
  if (i + 2 > text.length) return null;
  const a = text.charCodeAt(i);
  const b = text.charCodeAt(i + 1);
  if (!isAsciiLetter(a) || !isAsciiLetter(b)) return null;
  const pair = ((a | 0x20) << 8) | (b | 0x20);
  return pair === 0x7374 ? 'st' : pair === 0x6e64 ? 'nd' : pair === 0x7264 ? 'rd' : pair === 0x7468 ? 'th' : null;
}

/** The date word the letters text[from, to) spell in any case (its hash: `hash`), or undefined. */
function dateWordAt(text: string, from: number, to: number, hash: number): string | undefined {
  const candidates = DATE_WORDS_BY_HASH.get(hash);
  if (candidates === undefined) return undefined;
  for (const word of candidates) {
    if (word.length !== to - from) continue;
    let k = 0;
    while (k < word.length && word.charCodeAt(k) === (text.charCodeAt(from + k) | 0x20)) k++;
    if (k === word.length) return word;
  }
  return undefined;
}

/** What tokenize finds (the tests' reference): an ISO date, digits with an ordinal suffix, a word, a comma. */
export const TOKEN_PATTERN = /(\d{4})-(\d{2})-(\d{2})|\d+(?:st|nd|rd|th)?|[a-z]+|[,]/g;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isLowerLetter = (c: number) => c >= 97 && c <= 122;

/** `\d{4}-\d{2}-\d{2}` at i. */
function isoDateAt(s: string, i: number): boolean {
  if (i + 10 > s.length) return false;
  for (let k = 0; k < 10; k++) {
    const c = s.charCodeAt(i + k);
    if (k === 4 || k === 7 ? c !== 45 : !isDigit(c)) return false;
  }
  return true;
}

interface Parse {
  span: Span | null;
  /** Tokens consumed. */
  length: number;
}

class Parser {
  constructor(
    private readonly tokens: Token[],
    private readonly anchor: number,
  ) {}

  private word(i: number): string {
    return this.tokens[i]?.text ?? '';
  }

  private month(i: number): number {
    const w = this.word(i);
    const full = MONTHS.indexOf(w);
    if (full >= 0) return full;
    return w === 'sept' ? 8 : MONTH_ABBREVIATIONS.indexOf(w);
  }

  private year(i: number): number | null {
    const t = this.tokens[i];
    return t && /^(19|20)\d\d$/.test(t.text) ? Number(t.text) : null;
  }

  private dayOfMonth(i: number): number | null {
    const t = this.tokens[i];
    return t && /^\d{1,2}(st|nd|rd|th)?$/.test(t.text) && t.value! >= 1 && t.value! <= 31 ? t.value : null;
  }

  /** The latest year in which (month, date) has begun by the anchor. */
  private latestYear(month: number, date = 1): number {
    const year = new Date(this.anchor).getUTCFullYear();
    return day(year, month, date) <= this.anchor ? year : year - 1;
  }

  /** Skip a comma or "of" at i. */
  private skip(i: number, ...words: string[]): number {
    return words.includes(this.word(i)) ? i + 1 : i;
  }

  /** An absolute date at i: a day, a month, a year, a season, a week or part of a month. */
  absolute(i: number): Parse | null {
    const t = this.tokens[i];
    if (!t) return null;
    const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t.text);
    if (iso) {
      const start = day(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
      return { span: [start, start + MS_PER_DAY], length: 1 };
    }
    // "1 May, 2022", "8th of December 2023"
    const date = this.dayOfMonth(i);
    if (date !== null) {
      const m = this.skip(i + 1, 'of');
      const month = this.month(m);
      if (month >= 0) {
        const y = this.skip(m + 1, ',');
        const year = this.year(y);
        const start = day(year ?? this.latestYear(month, date), month, date);
        return { span: [start, start + MS_PER_DAY], length: (year !== null ? y + 1 : m + 1) - i };
      }
    }
    // "May 1, 2022", "December 1,2023", "May 2022", "May of 2022", "May"
    const month = this.month(i);
    if (month >= 0) {
      const next = this.dayOfMonth(i + 1);
      if (next !== null) {
        const y = this.skip(i + 2, ',');
        const year = this.year(y);
        const start = day(year ?? this.latestYear(month, next), month, next);
        return { span: [start, start + MS_PER_DAY], length: (year !== null ? y + 1 : i + 2) - i };
      }
      const y = this.skip(i + 1, ',', 'of');
      const year = this.year(y);
      if (year !== null) return { span: monthSpan(year, month), length: y + 1 - i };
      const w = t.text;
      const fullName = MONTHS.includes(w);
      if (!fullName || (AMBIGUOUS_MONTHS.has(w) && !DATE_PREPOSITIONS.has(this.word(i - 1)))) return null;
      return { span: monthSpan(this.latestYear(month), month), length: 1 };
    }
    const year = this.year(i);
    if (year !== null) return { span: yearSpan(year), length: 1 };
    // "summer 2021", "summer of 2021", "the fall"
    const season = SEASONS[t.text];
    if (season !== undefined) {
      const y = this.skip(i + 1, 'of');
      const seasonYear = this.year(y);
      if (seasonYear !== null) return { span: seasonSpan(seasonYear, season), length: y + 1 - i };
      if (t.text === 'fall' && !DATE_PREPOSITIONS.has(this.word(i - 1))) return null;
      return { span: this.latestSeason(season, false), length: 1 };
    }
    return this.partOfMonth(i);
  }

  /** "the second week of November", "the beginning of November 2022", "early May", "mid-May", "the first half of September". */
  private partOfMonth(i: number): Parse | null {
    let k = this.skip(i, 'the');
    let part: [number, number] | null = null;
    const w = this.word(k);
    const ordinal = ORDINAL_WORDS[w];
    if (ordinal !== undefined && this.word(k + 1) === 'week' && this.word(k + 2) === 'of') {
      part = ordinal === -1 ? [-7, 0] : [(ordinal - 1) * 7 + 1, ordinal * 7 + 1];
      k += 3;
    } else if ((w === 'first' || w === 'second') && this.word(k + 1) === 'half' && this.word(k + 2) === 'of') {
      part = w === 'first' ? [1, 16] : [16, 0];
      k += 3;
    } else if ((w === 'beginning' || w === 'start' || w === 'end' || w === 'middle') && this.word(k + 1) === 'of') {
      part = w === 'end' ? [21, 0] : w === 'middle' ? [11, 21] : [1, 11];
      k += 2;
    } else if (w === 'early' || w === 'late' || w === 'mid') {
      part = w === 'late' ? [21, 0] : w === 'mid' ? [11, 21] : [1, 11];
      k += 1;
    }
    if (part === null) return null;
    const month = this.month(k);
    if (month < 0) return null;
    const y = this.skip(k + 1, ',', 'of');
    const year = this.year(y) ?? this.latestYear(month);
    const [first, after] = monthSpan(year, month);
    const start = part[0] < 0 ? after + part[0] * MS_PER_DAY : first + (part[0] - 1) * MS_PER_DAY;
    const end = part[1] === 0 ? after : Math.min(after, first + (part[1] - 1) * MS_PER_DAY);
    return { span: [start, end], length: (this.year(y) !== null ? y + 1 : k + 1) - i };
  }

  /** The latest season (start month) that has begun by the anchor, or, when `ended`, that is over by it. */
  private latestSeason(startMonth: number, ended: boolean): Span {
    let year = new Date(this.anchor).getUTCFullYear() + 1;
    for (;;) {
      const span = seasonSpan(year, startMonth);
      if ((ended ? span[1] : span[0]) <= this.anchor) return span;
      year--;
    }
  }

  /** The first season (start month) that begins after the anchor. */
  private nextSeason(startMonth: number): Span {
    let year = new Date(this.anchor).getUTCFullYear() - 1;
    for (;;) {
      const span = seasonSpan(year, startMonth);
      if (span[0] > this.anchor) return span;
      year++;
    }
  }

  /** An expression relative to the anchor, or to an absolute date ("the week before 9 June 2023"). */
  relative(i: number): Parse | null {
    const w = this.word(i);
    const today = utcDay(this.anchor);
    if (w === 'yesterday') return { span: this.oneDay(today, -1), length: 1 };
    if (w === 'today' || w === 'tonight') return { span: this.oneDay(today, 0), length: 1 };
    if (w === 'tomorrow') return { span: this.oneDay(today, 1), length: 1 };
    if ((w === 'last' && this.word(i + 1) === 'night') || (w === 'this' && ['morning', 'afternoon', 'evening'].includes(this.word(i + 1)))) {
      return { span: this.oneDay(today, w === 'last' ? -1 : 0), length: 2 };
    }
    if ((w === 'last' || w === 'past' || w === 'previous' || w === 'this' || w === 'next') && this.word(i + 2) !== 'of') {
      const shift = w === 'this' ? 0 : w === 'next' ? 1 : -1;
      const span = this.named(this.word(i + 1), shift);
      if (span) return { span, length: 2 };
      return null;
    }
    // "three days ago", "a few weeks ago", "a couple of months ago"
    const count = this.count(i);
    if (count) {
      const unit = UNITS[this.word(i + count.length)];
      const after = this.word(i + count.length + 1);
      if (unit && after === 'ago') return { span: this.ago(count.value, unit), length: count.length + 2 };
      if (unit && (after === 'before' || after === 'after' || after === 'earlier' || after === 'later')) {
        const target = this.absoluteAt(i + count.length + 2);
        if (target) return { span: this.shifted(target.span!, unit, after === 'before' ? -count.value : count.value), length: count.length + 2 + target.length };
      }
    }
    // "the week before 9 June 2023", "the Sunday before October 25, 2022", "the day after ..."
    const k = this.skip(i, 'the');
    const unitWord = this.word(k);
    const relation = this.word(k + 1);
    if (relation === 'before' || relation === 'after') {
      const target = this.absoluteAt(k + 2);
      if (!target) return null;
      const sign = relation === 'before' ? -1 : 1;
      const weekday = this.weekday(unitWord);
      if (weekday >= 0) return { span: this.weekdayFrom(target.span!, weekday, sign), length: k + 2 - i + target.length };
      const unit = UNITS[unitWord];
      if (unit) return { span: this.shifted(target.span!, unit, sign), length: k + 2 - i + target.length };
    }
    // "on Friday", "Friday"
    const weekday = this.weekday(w);
    if (weekday >= 0 && (WEEKDAYS.includes(w) || this.word(i - 1) === 'on')) {
      const back = (new Date(this.anchor).getUTCDay() - weekday + 7) % 7;
      return { span: this.oneDay(today, -back), length: 1 };
    }
    return null;
  }

  /** The day `offset` days from today (a function of the class, not a closure made at each call). */
  private oneDay(today: number, offset: number): Span {
    return [today + offset * MS_PER_DAY, today + (offset + 1) * MS_PER_DAY];
  }

  private absoluteAt(i: number): Parse | null {
    const k = this.skip(i, 'on', 'the');
    const parsed = this.absolute(k);
    return parsed ? { span: parsed.span, length: k - i + parsed.length } : null;
  }

  private weekday(w: string): number {
    const full = WEEKDAYS.indexOf(w);
    if (full >= 0) return full;
    if (w === 'tues' || w === 'thur' || w === 'thurs') return w === 'tues' ? 2 : 4;
    return WEEKDAY_ABBREVIATIONS.indexOf(w);
  }

  /** A count at i: "3", "three", "a", "a few", "a couple of". */
  private count(i: number): { value: number; length: number } | null {
    const t = this.tokens[i];
    if (!t || t.value === null || /^\d{4}$/.test(t.text) || /(st|nd|rd|th)$/.test(t.text)) return null;
    if ((t.text === 'a' || t.text === 'an') && (this.word(i + 1) === 'few' || this.word(i + 1) === 'couple')) {
      const length = this.word(i + 2) === 'of' ? 3 : 2;
      return { value: NUMBER_WORDS[this.word(i + 1)]!, length };
    }
    return { value: t.value, length: 1 };
  }

  /** "last week", "this month", "next summer", "last Friday" (shift -1, 0, 1). */
  private named(w: string, shift: number): Span | null {
    const weekday = this.weekday(w);
    const now = this.anchor;
    const date = new Date(now);
    if (weekday >= 0) {
      const today = utcDay(now);
      if (shift === 0) return this.weekdayIn(weekSpan(now), weekday);
      if (shift < 0) {
        const back = (date.getUTCDay() - weekday + 7) % 7 || 7;
        return [today - back * MS_PER_DAY, today - (back - 1) * MS_PER_DAY];
      }
      const ahead = (weekday - date.getUTCDay() + 7) % 7 || 7;
      return [today + ahead * MS_PER_DAY, today + (ahead + 1) * MS_PER_DAY];
    }
    const season = SEASONS[w];
    if (season !== undefined) return shift < 0 ? this.latestSeason(season, true) : shift === 0 ? this.latestSeason(season, false) : this.nextSeason(season);
    const unit = UNITS[w];
    if (!unit) return null;
    if (unit === 'weekend') return this.weekend(now, shift);
    return this.ago(-shift, unit);
  }

  /** The unit `count` units before the anchor (negative: after): its day, calendar week, month or year. */
  private ago(count: number, unit: 'day' | 'week' | 'weekend' | 'month' | 'year'): Span {
    const date = new Date(this.anchor);
    const today = utcDay(this.anchor);
    switch (unit) {
      case 'day':
        return [today - count * MS_PER_DAY, today - (count - 1) * MS_PER_DAY];
      case 'week':
        return weekSpan(this.anchor - count * 7 * MS_PER_DAY);
      case 'weekend':
        return this.weekend(this.anchor, -count);
      case 'month':
        return monthSpan(date.getUTCFullYear(), date.getUTCMonth() - count);
      case 'year':
        return yearSpan(date.getUTCFullYear() - count);
    }
  }

  /** The weekend of the week holding `ms` (Saturday and Sunday), moved by `shift` weeks: last weekend is -1. */
  private weekend(ms: number, shift: number): Span {
    const saturday = weekSpan(ms)[0] + (5 + shift * 7) * MS_PER_DAY;
    return [saturday, saturday + 2 * MS_PER_DAY];
  }

  /** `count` units before (negative) or after a span: the week before 9 June is the 7 days before it. */
  private shifted(span: Span, unit: 'day' | 'week' | 'weekend' | 'month' | 'year', count: number): Span {
    const [start, end] = span;
    if (unit === 'weekend') {
      const saturdays: number[] = [];
      let d = count < 0 ? start - MS_PER_DAY : end;
      while (saturdays.length < Math.abs(count)) {
        if (new Date(d).getUTCDay() === 6) saturdays.push(d);
        d += (count < 0 ? -1 : 1) * MS_PER_DAY;
      }
      const saturday = saturdays[saturdays.length - 1]!;
      return [saturday, saturday + 2 * MS_PER_DAY];
    }
    const days = unit === 'day' ? 1 : unit === 'week' ? 7 : unit === 'month' ? 30 : 365;
    const length = days * Math.abs(count) * MS_PER_DAY;
    return count < 0 ? [start - length, start - length + days * MS_PER_DAY] : [end + length - days * MS_PER_DAY, end + length];
  }

  /** The nearest given weekday strictly before (sign -1) or after (sign 1) a span. */
  private weekdayFrom(span: Span, weekday: number, sign: number): Span {
    let d = sign < 0 ? span[0] - MS_PER_DAY : span[1];
    while (new Date(d).getUTCDay() !== weekday) d += sign * MS_PER_DAY;
    return [d, d + MS_PER_DAY];
  }

  private weekdayIn(span: Span, weekday: number): Span {
    const d = span[0] + ((weekday + 6) % 7) * MS_PER_DAY;
    return [d, d + MS_PER_DAY];
  }

  /** A date expression at i: "between A and B" (or "between August 11 and 15 2023"), relative, or absolute. */
  at(i: number): Parse | null {
    if (this.word(i) === 'between') {
      // "between 3 and 5 May 2022": the first end is a bare day of the second's month
      const bare = this.dayOfMonth(i + 1);
      const second = bare !== null && this.word(i + 2) === 'and' ? this.absoluteAt(i + 3) : null;
      if (second && second.span![1] - second.span![0] === MS_PER_DAY) {
        const last = new Date(second.span![0]);
        const start = day(last.getUTCFullYear(), last.getUTCMonth(), bare!);
        if (start < second.span![0]) return { span: [start, second.span![1]], length: 3 + second.length };
      }
      const a = this.absoluteAt(i + 1);
      const and = a ? i + 1 + a.length : -1;
      if (a && this.word(and) === 'and') {
        const b = this.absoluteAt(and + 1);
        if (b) {
          // "between August 11 and August 15 2023": the first date takes the year of the second
          let start = a.span![0];
          if (start > b.span![0] || b.span![0] - start > 366 * MS_PER_DAY) {
            const first = new Date(start);
            start = day(new Date(b.span![0]).getUTCFullYear(), first.getUTCMonth(), first.getUTCDate());
            if (start > b.span![0]) start = day(new Date(b.span![0]).getUTCFullYear() - 1, first.getUTCMonth(), first.getUTCDate());
          }
          return { span: [start, Math.max(start + a.span![1] - a.span![0], b.span![1])], length: and + 1 + b.length - i };
        }
        const date = this.dayOfMonth(and + 1);
        if (date !== null) {
          const first = new Date(a.span![0]);
          const y = this.skip(and + 2, ',');
          const year = this.year(y) ?? first.getUTCFullYear();
          const startYear = this.year(y) !== null ? year : first.getUTCFullYear();
          const start = day(startYear, first.getUTCMonth(), first.getUTCDate());
          return { span: [start, day(year, first.getUTCMonth(), date + 1)], length: (this.year(y) !== null ? y + 1 : and + 2) - i };
        }
      }
    }
    return this.relative(i) ?? this.absolute(i);
  }
}

/** Words that can begin a date expression or a duration (besides numbers): everything else is skipped at once. */
const STARTERS = new Set([
  ...MONTHS, ...MONTH_ABBREVIATIONS, 'sept', ...WEEKDAYS, ...WEEKDAY_ABBREVIATIONS, 'tues', 'thur', 'thurs', ...Object.keys(SEASONS),
  ...Object.keys(NUMBER_WORDS), ...Object.keys(ORDINAL_WORDS), 'yesterday', 'today', 'tonight', 'tomorrow', 'last', 'past', 'previous',
  'this', 'next', 'the', 'between', 'early', 'late', 'mid', 'beginning', 'start', 'end', 'middle', 'day', 'week', 'weekend', 'month', 'year',
]);
const canStart = (t: Token) => t.value !== null || STARTERS.has(t.text);

/** Every word the date finder compares a token with (Parser and findDates): the others are alike to it. */
const DATE_WORDS: ReadonlySet<string> = new Set([
  ...STARTERS, ...Object.keys(UNITS), ...DATE_PREPOSITIONS, ...Object.keys(ORDINAL_WORDS), ...Object.keys(NUMBER_WORDS),
  'ago', 'and', 'after', 'before', 'earlier', 'later', 'night', 'morning', 'afternoon', 'evening', 'of', 'on', 'half', 'fall',
]);
// built in calls marked pure: a bundle that never finds dates (the cold touch's) drops them, and
// with them the word sets above, instead of building them at its start
const LONGEST_DATE_WORD = /* @__PURE__ */ longestWord(DATE_WORDS);
/** DATE_WORDS by the hash asciiOpaqueTokens computes of a word's letters (h = 31 h + c, 32 bits). */
const DATE_WORDS_BY_HASH = /* @__PURE__ */ byLetterHash(DATE_WORDS);

function longestWord(words: ReadonlySet<string>): number {
  let longest = 0;
  for (const word of words) longest = Math.max(longest, word.length);
  return longest;
}

function byLetterHash(words: ReadonlySet<string>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const word of words) {
    let hash = 0;
    for (let k = 0; k < word.length; k++) hash = (Math.imul(hash, 31) + word.charCodeAt(k)) | 0;
    const list = out.get(hash);
    if (list) list.push(word);
    else out.set(hash, [word]);
  }
  return out;
}
/**
 * NUMBER_WORDS as a Map, for asciiOpaqueTokens (whose words are DATE_WORDS, none of them a name
 * an object has of itself): `word in NUMBER_WORDS` and `NUMBER_WORDS[word]` were loads by name,
 * which V8's optimised code took for the names it had met, and gave up (deoptimised, then
 * compiled again) at the first other number word of a first recall.
 */
const NUMBER_VALUES = /* @__PURE__ */ numberValues();

function numberValues(): Map<string, number> {
  return new Map(Object.entries(NUMBER_WORDS));
}
/** A word the finder does not look at (tokensOf with `opaque`): no text, so it equals no date word. */
const OTHER_WORD: Token = /* @__PURE__ */ Object.freeze({ text: '', from: -1, to: -1, value: null });

/**
 * A number of digits at i that begins neither a date nor a duration, told from the next token
 * alone: it is no year (19xx, 20xx), no unit follows it ("3 days", "3 weeks ago"), and a day
 * of the month (one or two digits) has no month or "of" after it. Parser.at would try every
 * form on it and find none; told apart here, a first recall does not try them on each of the
 * numbers a vault's texts hold (most of findDates in the bench's memories, `term2y` or
 * `Observation 9729`). The tests compare findDates with and without it.
 */
function inertNumber(tokens: Token[], i: number): boolean {
  const t = tokens[i]!;
  const text = t.text;
  const n = text.length;
  // digits only: not an ISO date (its value is NaN), an ordinal ("3rd") or a number word
  if (t.value === null || !isDigit(text.charCodeAt(0)) || !isDigit(text.charCodeAt(n - 1)) || Number.isNaN(t.value)) return false;
  if (n === 4 && (text.startsWith('19') || text.startsWith('20'))) return false;
  const next = tokens[i + 1]?.text ?? '';
  if (UNITS[next] !== undefined) return false;
  return n > 2 || (next !== 'of' && next !== 'sept' && !MONTHS.includes(next) && !MONTH_ABBREVIATIONS.includes(next));
}

/** What startsNothing makes of a date word: nothing, a word that can begin a date (canStart), a unit, "of". */
const INERT_WORD = 0;
const STARTER_WORD = 1;
const UNIT_WORD = 2;
const OF_WORD = 3;
/**
 * Each of DATE_WORDS' kind. canStart's words are STARTERS (the number words, whose value makes
 * canStart true, are among them, and so are the months inertNumber looks for after a number);
 * a unit or "of" after a number keeps inertNumber from skipping it. Numbers, not the words'
 * strings, are compared in the scan, and no object is read by a word's name.
 */
const WORD_KINDS = /* @__PURE__ */ wordKinds();

function wordKinds(): Map<string, number> {
  const out = new Map<string, number>();
  for (const word of DATE_WORDS) out.set(word, STARTERS.has(word) ? STARTER_WORD : Object.hasOwn(UNITS, word) ? UNIT_WORD : word === 'of' ? OF_WORD : INERT_WORD);
  return out;
}

/**
 * Whether a text of ASCII characters has no token findDates would hand the parser: no word that
 * can begin a date or a duration (STARTERS: month, weekday and number words, "the", "a"...), no
 * ISO date or ordinal, and only numbers that inertNumber skips (no year 19xx or 20xx, no unit
 * after it, and for one or two digits no month or "of" after it). findDates then finds nothing
 * and is answered without its tokens: read in one pass over the characters, as asciiOpaqueTokens
 * reads them, with no token, substring or number made. Most of a first recall's findDates at
 * 10k were the bench's memories ("Observation 12: auth term2y ..."), each number a token object,
 * its digits a string, then skipped. False for any other text (and at the first word that can
 * begin something: such texts, most of those in English, take the tokens at once).
 */
function startsNothing(text: string): boolean {
  return pendingAfter(text, 0) >= 0;
}

/**
 * startsNothing's scan of a text with `pending` before it (the number before the next token: 0
 * none, 1 of one or two digits, a day: a month or "of" may follow; 2 longer): what is pending at
 * its end, or -1 where startsNothing answers false.
 */
function pendingAfter(text: string, pending: number): number {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return -1;
    // isDigit and isAsciiLetter written out: this loop runs over every character of most texts
    // of a first recall, mostly before it is optimised, where each call is a call
    if (c >= 48 && c <= 57) {
      if (isoDateAt(text, i)) return -1;
      const from = i;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d < 48 || d > 57) break;
      }
      if (ordinalSuffixAt(text, i) !== null) return -1;
      const digits = i - from;
      if (digits === 4) {
        const a = text.charCodeAt(from);
        const b = text.charCodeAt(from + 1);
        if ((a === 49 && b === 57) || (a === 50 && b === 48)) return -1; // 19xx, 20xx: a year
      }
      pending = digits <= 2 ? 1 : 2;
    } else if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
      const from = i;
      let hash = 0;
      for (; i < n; i++) {
        const d = text.charCodeAt(i);
        if (!((d >= 97 && d <= 122) || (d >= 65 && d <= 90))) break;
        hash = (Math.imul(hash, 31) + (d | 0x20)) | 0;
      }
      const word = i - from > LONGEST_DATE_WORD ? undefined : dateWordAt(text, from, i, hash);
      const kind = word === undefined ? INERT_WORD : WORD_KINDS.get(word)!;
      if (kind === STARTER_WORD || (kind === UNIT_WORD && pending !== 0) || (kind === OF_WORD && pending === 1)) return -1;
      pending = 0;
    } else {
      if (c === 44) pending = 0; // a comma: a token, neither unit nor month
      i++;
    }
  }
  return pending;
}

/** wordDateCode's mark of a word that ends in four digits: a '-' after it may begin an ISO date. */
export const DATE_CODE_ISO = 64;

/**
 * What startsNothing's scan makes of a word of letters and digits (lower case, as the analyser's
 * word table keeps it: src/core/analyzer.ts) for each number pending before it, 0, 1 and 2: two
 * bits each, pendingAfter's answer (3 for its -1, the word starts something), at bit 2 x pending;
 * DATE_CODE_ISO when the word ends in exactly four digits. The analyser reads a text's words once
 * for its terms and, with these codes, tells startsNothing's answer in the same pass: a first
 * recall at 10k scanned each of 10,000 bodies again for it (~30 ms of its profile). Exported for
 * the analyser and the tests.
 */
export function wordDateCode(word: string): number {
  // the scan once, from none pending: what is pending before the word counts only where a unit
  // or "of" begins it (digits set their own, any other word clears it), and only to stop there
  const after = pendingAfter(word, 0);
  let code = after < 0 ? 0b111111 : after * 0b010101;
  if (after >= 0) {
    let hash = 0;
    let k = 0;
    for (; k < word.length && isAsciiLetter(word.charCodeAt(k)); k++) hash = (Math.imul(hash, 31) + word.charCodeAt(k)) | 0;
    const first = k === 0 || k > LONGEST_DATE_WORD ? undefined : dateWordAt(word, 0, k, hash);
    const kind = first === undefined ? INERT_WORD : WORD_KINDS.get(first)!;
    // a unit after a number, "of" after a day: it starts something
    if (kind === UNIT_WORD) code |= 0b111100;
    else if (kind === OF_WORD) code |= 0b001100;
  }
  let k = word.length;
  while (k > 0 && isDigit(word.charCodeAt(k - 1))) k--;
  return word.length - k === 4 ? code | DATE_CODE_ISO : code;
}

/**
 * For the tests: findDates with or without its shortcuts (startsNothing, inertNumber, and the
 * words it does not look at as one token), how many tokens it handed to the parser, and whether
 * startsNothing answered.
 */
export function findDatesCounting(text: string, anchor: number, shortcut: boolean): DateFindings & { attempts: number; quiet: boolean } {
  const counter = { attempts: 0, quiet: false };
  return { ...findDatesWith(text, anchor, shortcut, counter), attempts: counter.attempts, quiet: counter.quiet };
}

/** Every date expression and duration in `text`, resolved against `anchor` (ms). */
export function findDates(text: string, anchor: number): DateFindings {
  return findDatesWith(text, anchor, true);
}

function findDatesWith(text: string, anchor: number, shortcut: boolean, counter?: { attempts: number; quiet: boolean }): DateFindings {
  if (shortcut && startsNothing(text)) {
    if (counter) counter.quiet = true;
    return { mentions: [], durations: [] };
  }
  const tokens = tokensOf(text, shortcut);
  const parser = new Parser(tokens, anchor);
  const mentions: DateMention[] = [];
  const durations: DateFindings['durations'] = [];
  for (let i = 0; i < tokens.length; ) {
    if (!canStart(tokens[i]!) || (shortcut && inertNumber(tokens, i))) {
      i++;
      continue;
    }
    if (counter) counter.attempts++;
    const parsed = parser.at(i);
    if (parsed?.span) {
      const last = tokens[i + parsed.length - 1]!;
      mentions.push({ start: parsed.span[0], end: parsed.span[1], from: tokens[i]!.from, to: last.to });
      i += parsed.length;
      continue;
    }
    const t = tokens[i]!;
    const unit = UNITS[tokens[i + 1]?.text ?? ''];
    if (t.value !== null && unit && !/(st|nd|rd|th)$/.test(t.text) && t.text !== 'a' && t.text !== 'an') {
      durations.push({ from: t.from, to: tokens[i + 1]!.to });
      i += 2;
      continue;
    }
    i++;
  }
  return { mentions, durations };
}
