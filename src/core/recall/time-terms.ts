import { formatDay, MS_PER_DAY } from '../time';
import { findDates, utcDay, type DateMention } from './dates';

/**
 * Time as index terms. A memory is indexed under the days, months and years it is about:
 * the day it was written, and every date its text names, resolved against that day
 * ("yesterday" in a memory written on 2 May 2022 is 1 May). A question's dates become terms
 * of the same kind, resolved against the time it is asked, so "what did Joanna watch on
 * 1 May, 2022?" matches the memory written the next day that says "last night", and BM25
 * weighs them like words (a day is rare and weighs much, a month less).
 *
 * Terms hold a colon, which the analyser never produces, so they cannot meet a word:
 *   day:2022-05-01  month:2022-05  year:2022   the spans a memory or question is about
 *   time:said                                  the memory names a date or a duration
 * A memory's span is indexed at the finest unit that takes at most a week's worth of terms
 * (days for a span of up to 7 days, months up to about a season, years up to 3 years; longer
 * spans are not indexed) and at every coarser one (a day's month and year). A question's span
 * is looked up at its finest unit only: a question about a day matches memories of that day,
 * one about a month every memory of that month, and a memory of the same year but another
 * month does not match a question about a month. The question's words stay words.
 */

/** Memories that name a date or a duration carry this term; "when" questions ask for it. */
export const TIME_SAID = 'time:said';

const MAX_DAYS = 7;
const MAX_MONTH_SPAN_DAYS = 92;
const MAX_YEAR_SPAN_DAYS = 3 * 366;

/**
 * The index terms of the days [start, end): those of each day start + k days before end, in
 * that order. Past a week only months and years are kept, and past a season only years, so
 * the days between the first of each month (or year) add no term: they are stepped over. A
 * year named in a memory ("in 2019", and the bench's "Observation 1950") spans 365 days, and
 * formatting each was 14 % of a first recall at 10k.
 */
export function spanTerms(start: number, end: number): string[] {
  const days = Math.round((end - start) / MS_PER_DAY);
  if (days <= 0 || days > MAX_YEAR_SPAN_DAYS) return [];
  const terms = new Set<string>();
  const byDay = days <= MAX_DAYS;
  const byMonth = days <= MAX_MONTH_SPAN_DAYS;
  for (let d = start; d < end; ) {
    const iso = formatDay(d);
    if (byDay) terms.add(`day:${iso}`);
    if (byMonth) terms.add(`month:${iso.slice(0, 7)}`);
    terms.add(`year:${iso.slice(0, 4)}`);
    d = byDay ? d + MS_PER_DAY : firstDayFrom(start, d, byMonth);
  }
  return [...terms];
}

/**
 * The first of start + k days after `d` that falls in the next month (`byMonth`) or year after
 * d's: every day before it has d's month and year.
 */
function firstDayFrom(start: number, d: number, byMonth: boolean): number {
  const next = new Date(d);
  next.setUTCHours(0, 0, 0, 0);
  if (byMonth) next.setUTCMonth(next.getUTCMonth() + 1, 1);
  else next.setUTCFullYear(next.getUTCFullYear() + 1, 0, 1);
  const k = Math.ceil((next.getTime() - start) / MS_PER_DAY);
  return Math.max(start + k * MS_PER_DAY, d + MS_PER_DAY);
}

/**
 * The terms of the day a memory was written, by day: memories share their days (10,000 of
 * them written over a year share 365), and spanTerms formats its dates through Date objects.
 * Bounded: cleared when full.
 */
const WRITTEN_DAY_TERMS = new Map<number, readonly string[]>();
const WRITTEN_DAYS_MAX = 4096;

function writtenDayTerms(day: number): readonly string[] {
  let terms = WRITTEN_DAY_TERMS.get(day);
  if (terms === undefined) {
    if (WRITTEN_DAY_TERMS.size >= WRITTEN_DAYS_MAX) WRITTEN_DAY_TERMS.clear();
    terms = spanTerms(day, day + MS_PER_DAY);
    WRITTEN_DAY_TERMS.set(day, terms);
  }
  return terms;
}

/** A memory's time terms: the day it was written and the dates its text names, once each. */
export function memoryTimeTerms(text: string, createdMs: number): string[] {
  return timeTerms(text, createdMs, false) as string[];
}

/**
 * memoryTimeTerms, but for a memory that names no date and no duration (most of them) the array
 * of its day's terms that every memory written that day shares: the caller changes nothing in
 * it. A first load keeps 10,000 memories' terms (a copy each was ~70 bytes of each one's ~1.8 KB).
 */
export function sharedTimeTerms(text: string, createdMs: number, namesNoDate = false): readonly string[] {
  // namesNoDate: the caller knows findDates finds nothing in the text (analyzer.ts startsNoDate)
  return namesNoDate ? writtenDayTerms(utcDay(createdMs)) : timeTerms(text, createdMs, true);
}

function timeTerms(text: string, createdMs: number, share: boolean): readonly string[] {
  const written = writtenDayTerms(utcDay(createdMs));
  const found = findDates(text, createdMs);
  // most memories name no date and no duration: their terms are their day's (each once already)
  if (found.mentions.length === 0 && found.durations.length === 0) return share ? written : [...written];
  const terms = new Set(written);
  for (const m of found.mentions) for (const t of spanTerms(m.start, m.end)) terms.add(t);
  if (found.mentions.length > 0 || found.durations.length > 0) terms.add(TIME_SAID);
  return [...terms];
}

export interface QueryTime {
  /** The time terms of the question's dates, each at its finest unit. */
  terms: string[];
  /** A question about when, or how long ("When did…", "How long has…", "What year…"). */
  asksWhen: boolean;
}

const ASKS_WHEN = /\b(when (did|was|were|is|are|will|do|does|has|have|had|would)|since when|how long|what (year|month|day|date|time|week)|which (year|month|day|week))\b/i;

/**
 * A question's time. Relative expressions are resolved against `now`, unless the question
 * also names a date of its own ("what did she finish last Friday, on 23 January 2022?"): then
 * it speaks from that date, and they are resolved against its end.
 */
export function queryTime(query: string, now: number): QueryTime {
  let mentions = findDates(query, now).mentions;
  const fixed = mentions.filter((m) => sameSpan(m, findDates(query.slice(m.from, m.to), now + 1000 * MS_PER_DAY).mentions[0]));
  if (fixed.length > 0 && fixed.length < mentions.length) mentions = findDates(query, fixed[0]!.end - 1).mentions;
  const terms = new Set<string>();
  for (const m of mentions) {
    const all = spanTerms(m.start, m.end);
    const finest = ['day:', 'month:', 'year:'].find((unit) => all.some((t) => t.startsWith(unit)));
    for (const t of all) if (t.startsWith(finest!)) terms.add(t);
  }
  return { terms: [...terms], asksWhen: ASKS_WHEN.test(query) };
}

/** Whether a mention resolves to the same span from another anchor (an absolute date). */
function sameSpan(a: DateMention, b: DateMention | undefined): boolean {
  return b !== undefined && a.start === b.start && a.end === b.end;
}
