import { parseTimestamp } from '../../src/core/time';

/** A deterministic generator (no Math.random: the same cases every run). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

describe('parseTimestamp', () => {
  it('reads the form Engram writes as the general path reads the same instant written otherwise', () => {
    const rand = lcg(23);
    const pick = (max: number) => Math.floor(rand() * max);
    let valid = 0;
    const differ: string[] = [];
    for (let k = 0; k < 5000; k++) {
      // every field a little past its range now and then: 13th months, 30 February, hour 24, second 60
      const fields = [pick(3000), pick(14), pick(33), pick(25), pick(61), pick(61)];
      const [y, mo, d, h, mi, se] = fields as [number, number, number, number, number, number];
      const date = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
      const time = `${pad(h, 2)}:${pad(mi, 2)}:${pad(se, 2)}`;
      const canonical = parseTimestamp(`${date}T${time}Z`);
      if (canonical !== parseTimestamp(`${date}T${time}+00:00`)) differ.push(`${date}T${time}Z`);
      if (canonical !== null) valid++;
      // with milliseconds (Date.toISOString's form, which agents' import lines carry)
      const millis = `${date}T${time}.${pad(pick(1000), 3)}Z`;
      const withMillis = parseTimestamp(millis);
      if (withMillis !== parseTimestamp(millis.replace('Z', '+00:00')) || (withMillis === null) !== (canonical === null)) differ.push(millis);
    }
    expect(differ).toEqual([]);
    expect(valid).toBe(3637);
  });

  it('checks the calendar and the clock in the form Engram writes', () => {
    expect(parseTimestamp('2026-04-28T10:23:00Z')).toBe(Date.UTC(2026, 3, 28, 10, 23, 0));
    expect(parseTimestamp('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseTimestamp('2025-02-29T00:00:00Z')).toBeNull();
    expect(parseTimestamp('1900-02-29T00:00:00Z')).toBeNull();
    expect(parseTimestamp('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29));
    expect(parseTimestamp('2026-04-31T00:00:00Z')).toBeNull();
    expect(parseTimestamp('2026-13-01T00:00:00Z')).toBeNull();
    expect(parseTimestamp('2026-00-01T00:00:00Z')).toBeNull();
    expect(parseTimestamp('2026-04-00T00:00:00Z')).toBeNull();
    expect(parseTimestamp('2026-04-28T24:00:00Z')).toBeNull();
    expect(parseTimestamp('2026-04-28T23:60:00Z')).toBeNull();
    expect(parseTimestamp('2026-04-28T23:59:60Z')).toBeNull();
    // a year before 100 is that year, not 19YY
    expect(parseTimestamp('0050-01-01T00:00:00Z')).toBe(Date.parse('0050-01-01T00:00:00Z'));
    expect(new Date(parseTimestamp('0050-01-01T00:00:00Z')!).getUTCFullYear()).toBe(50);
    // not the form: the general path (and its answers)
    expect(parseTimestamp('2026-04-28T10:23:0xZ')).toBeNull();
    expect(parseTimestamp('2026-04-28 10:23:00Z')).toBe(Date.UTC(2026, 3, 28, 10, 23, 0));
    expect(parseTimestamp('２026-04-28T10:23:00Z')).toBeNull();
    expect(parseTimestamp('2026-04-28T10:23:00z')).toBeNull();
    expect(parseTimestamp('2025-12-01T08:09:10.123Z')).toBe(Date.UTC(2025, 11, 1, 8, 9, 10, 123));
    expect(parseTimestamp('2025-02-29T08:09:10.123Z')).toBeNull();
    expect(parseTimestamp('2025-12-01T08:09:10.1x3Z')).toBeNull();
    expect(parseTimestamp('2025-12-01T08:09:10.12Z')).toBe(Date.UTC(2025, 11, 1, 8, 9, 10, 120));
  });
});
