/** Timestamps: ISO-8601 in UTC, as SPEC §2 writes them ("2026-04-28T10:23:00Z"). */

export const MS_PER_DAY = 86_400_000;

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Milliseconds since the epoch, or null when `value` is not an ISO-8601 date or date-time. */
export function parseTimestamp(value: string): number | null {
  if (!ISO.test(value)) return null;
  let text = value.replace(' ', 'T');
  if (text.length === 10) text += 'T00:00:00Z';
  else if (!/(?:Z|[+-]\d{2}:?\d{2})$/.test(text)) text += 'Z';
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
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
