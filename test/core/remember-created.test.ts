import { checkInput, isFormattedTimestamp, normaliseInput } from '../../src/core/remember';
import { formatTimestamp, parseTimestamp } from '../../src/core/time';

/**
 * normaliseInput keeps a created_at that is written as formatTimestamp writes its instant
 * (isFormattedTimestamp) instead of formatting it again: the result must be what
 * formatTimestamp(parseTimestamp(created_at)) is, for every form parseTimestamp reads.
 */

const NOW = Date.UTC(2026, 10, 29, 12);

/** What normaliseInput wrote before: the instant formatted. */
function reference(created: string | undefined): string {
  return formatTimestamp(created === undefined ? NOW : parseTimestamp(created)!);
}

describe('isFormattedTimestamp', () => {
  it('is true exactly for the forms formatTimestamp writes', () => {
    expect(isFormattedTimestamp('2026-11-29T12:00:00Z')).toBe(true);
    expect(isFormattedTimestamp('2025-12-01T00:51:50.400Z')).toBe(true);
    expect(isFormattedTimestamp('2025-12-01T00:51:50.001Z')).toBe(true);
    expect(isFormattedTimestamp('2025-12-01T00:51:50.000Z')).toBe(false); // written without its .000
    expect(isFormattedTimestamp('2025-12-01 00:51:50Z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01 00:51:50.400Z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50+0000')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50.40Z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50.400')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51+01:00')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50.4001Z')).toBe(false);
    expect(isFormattedTimestamp('2025/12-01T00:51:50Z')).toBe(false);
    expect(isFormattedTimestamp('2025-12/01T00:51:50Z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00.51:50Z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51.50Z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50.400z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50z')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50,400Z')).toBe(false);
    // a Z where formatTimestamp writes it, but more after it: not its form (length 20 with no milliseconds)
    expect(isFormattedTimestamp('2025-12-01T00:51:50Z0')).toBe(false);
    expect(isFormattedTimestamp('2025-12-01T00:51:50Z+00:00')).toBe(false);
  });

  it('agrees with formatTimestamp on every timestamp parseTimestamp reads (40,000 random ones)', () => {
    let seed = 11;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const two = (n: number): string => String(n).padStart(2, '0');
    const seps = ['T', 'T', 'T', ' '];
    const zones = ['Z', 'Z', 'Z', '', '+00:00', '-05:30', '+0100', 'z'];
    let kept = 0;
    const wrong: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const year = [rand(10_000), 1970 + rand(100), rand(100), 2000 + rand(50)][rand(4)]!;
      const date = `${String(year).padStart(4, '0')}-${two(rand(14))}-${two(rand(33))}`;
      const millis = ['', '', `.${String(rand(1000)).padStart(3, '0')}`, '.000', `.${rand(10)}`, `.${String(rand(1e6)).padStart(6, '0')}`][rand(6)]!;
      const time = [``, `${seps[rand(4)]}${two(rand(25))}:${two(rand(61))}`, `${seps[rand(4)]}${two(rand(25))}:${two(rand(61))}:${two(rand(61))}${millis}`][rand(3)]!;
      const value = `${date}${time}${time === '' ? '' : zones[rand(zones.length)]}`;
      const ms = parseTimestamp(value);
      if (ms === null) continue;
      // kept as it is exactly when it is its own formatting
      if (isFormattedTimestamp(value) !== (formatTimestamp(ms) === value)) wrong.push(value);
      if (isFormattedTimestamp(value)) kept++;
    }
    expect(wrong).toEqual([]);
    expect(kept).toBeGreaterThan(2_000);
  });
});

describe('normaliseInput created_at', () => {
  it('is the formatted instant, whatever the form of the input', () => {
    for (const created of [undefined, '2026-11-29T12:00:00Z', '2025-12-01T00:51:50.400Z', '2025-12-01T00:51:50.000Z', '2025-12-01', '2025-12-01 10:00', '2025-12-01T10:00:00+02:00', '0050-01-01T00:00:00Z', '2025-12-01T00:51:50.123456Z']) {
      const input = { text: 'a line', ...(created === undefined ? {} : { created_at: created }) };
      expect(normaliseInput(input, NOW).created_at).toBe(reference(created));
      expect(normaliseInput(input, NOW, undefined, checkInput(input)).created_at).toBe(reference(created));
    }
  });
});
