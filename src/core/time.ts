/** Timestamps: ISO-8601 in UTC, as SPEC §2 writes them ("2026-04-28T10:23:00Z"). */

export const MS_PER_DAY = 86_400_000;

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Milliseconds since the epoch, or null when `value` is not an ISO-8601 date or date-time
 * that exists: the calendar is checked (no 30 February, no hour 24, no minute 60), where
 * Date.parse would roll an impossible date over into the next month.
 */
export function parseTimestamp(value: string): number | null {
  const canonical = canonicalTimestamp(value);
  if (canonical !== undefined) return canonical;
  if (!ISO.test(value)) return null;
  const [, y, mo, d, h, mi, se] = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value)!.map(Number);
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > daysInMonth(y!, mo!)) return null;
  if (h !== undefined && !Number.isNaN(h) && (h > 23 || mi! > 59 || (se !== undefined && !Number.isNaN(se) && se > 59))) return null;
  const zone = /(?:Z|([+-])(\d{2}):?(\d{2}))$/.exec(value);
  if (zone?.[1] && (Number(zone[2]) > 23 || Number(zone[3]) > 59)) return null;
  let text = value.replace(' ', 'T');
  if (text.length === 10) text += 'T00:00:00Z';
  else if (!/(?:Z|[+-]\d{2}:?\d{2})$/.test(text)) text += 'Z';
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** `2026-04-28T10:23:00Z`: second precision unless the instant has milliseconds. */
export function formatTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** The UTC calendar day, `YYYY-MM-DD`. */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function daysBetween(fromMs: number, toMs: number): number {
  return (toMs - fromMs) / MS_PER_DAY;
}

/** The decimal number written in `text` from `from` to `to` (digits only), or -1. */
function number(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = digit(text, i);
    if (d < 0) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** `0`-`9` at `at` of `text` as a number, or -1. */
function digit(text: string, at: number): number {
  const c = text.charCodeAt(at) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/**
 * parseTimestamp of the form Engram writes, `YYYY-MM-DDTHH:MM:SSZ` (or with milliseconds), read without regular
 * expressions: a first recall or a remember reads three or four timestamps of each of 10,000
 * memories. The same checks and the same result as the general path (a year before 100 goes
 * there: Date.UTC would read it as 19YY); undefined for any other form.
 */
function canonicalTimestamp(value: string): number | null | undefined {
  // also `YYYY-MM-DDTHH:MM:SS.sssZ`, what Date.toISOString writes (agents' JSONL lines carry it: an import reads one a line)
  const millis = value.length === 24 && value[19] === '.' && value[23] === 'Z' ? number(value, 20, 23) : value.length === 20 && value[19] === 'Z' ? 0 : -1;
  if (millis < 0 || value[4] !== '-' || value[7] !== '-' || value[10] !== 'T' || value[13] !== ':' || value[16] !== ':') return undefined;
  // each field read where it stands, without an array of them (consolidation reads three
  // timestamps of each of 100,000 memories)
  const y = number(value, 0, 4);
  const mo = number(value, 5, 7);
  const d = number(value, 8, 10);
  const h = number(value, 11, 13);
  const mi = number(value, 14, 16);
  const se = number(value, 17, 19);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0) return undefined;
  if (y < 100) return undefined;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  if (h > 23 || mi > 59 || se > 59) return null;
  return Date.UTC(y, mo - 1, d, h, mi, se, millis);
}
