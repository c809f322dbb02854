/** Timestamps: ISO-8601 in UTC, as SPEC §2 writes them ("2026-04-28T10:23:00Z"). */

export const MS_PER_DAY = 86_400_000;

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Milliseconds since the epoch, or null when `value` is not an ISO-8601 date or date-time
 * that exists: the calendar is checked (no 30 February, no hour 24, no minute 60), where
 * Date.parse would roll an impossible date over into the next month.
 */
export function parseTimestamp(value: string): number | null {
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
