import { memoryTitle, memoryTitleByPattern } from '../../src/core/title';

describe('a memory\'s title (its aliases entry)', () => {
  it('is its first words, without markup or link brackets, cut at a word', () => {
    expect(memoryTitle('Found a flaky test in the auth suite: timeout too short for CI.')).toBe('Found a flaky test in the auth suite: timeout too short for');
    expect(memoryTitle('Use **pnpm**.')).toBe('Use pnpm');
    expect(memoryTitle('See [[mem-abcdefabcdef|the outbox note]] and #ci | ^block')).toBe('See the outbox note and ci block');
    expect(memoryTitle('x'.repeat(80))).toBe('x'.repeat(60));
    expect(memoryTitle('   ')).toBe('');
  });
});

describe('a plain ASCII line titled by hand and by the patterns (memoryTitleByPattern)', () => {
  it('agree on crafted texts: ends, cuts at 60, markup, other white space, non-ASCII', () => {
    const texts = [
      '', 'a', 'a.', 'a -', 'Use pnpm, not yarn.', 'x'.repeat(61), 'x'.repeat(60), `${'word '.repeat(14)}end`, `${'a'.repeat(20)} ${'b'.repeat(45)}`, `${'a'.repeat(40)} b!?.,;:-`,
      'two  spaces', ' lead', 'trail ', 'tab\there', 'line\nbreak', 'Use **pnpm**.', 'a_b', 'a#b', 'a|b', 'a^b', 'a>b', '[[x|y]]', 'a`b', 'caf\u00e9 au lait', 'nb\u00a0sp', '\u{1F600}'.repeat(40),
      `${'a'.repeat(59)}-${'b'.repeat(9)}`, `${'a'.repeat(30)} -- ${'b'.repeat(40)}`, '-', '...', 'Observation 12: term2y auth Redis retry.',
    ];
    for (const text of texts) expect([text, memoryTitle(text)]).toEqual([text, memoryTitleByPattern(text)]);
    for (const text of texts) expect([text, memoryTitle(text, 10)]).toEqual([text, memoryTitleByPattern(text, 10)]);
  });

  it('agree on 20,000 random texts', () => {
    let seed = 3;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const pieces = ['a', 'Z', '7', ' ', ' ', ' ', 'word ', 'longerword', '.', ',', ';', ':', '!', '?', '-', '\t', '\n', '*', '_', '#', '[', ']', '|', '^', '>', '`', '\u00e9', '\u00a0', "'", '(', ')'];
    let plain = 0;
    for (let k = 0; k < 20_000; k++) {
      const text = Array.from({ length: Math.floor(rand() * 40) }, () => pieces[Math.floor(rand() * (k % 2 === 0 ? 17 : pieces.length))]).join('');
      const max = k % 3 === 0 ? 10 : 60;
      expect([text, memoryTitle(text, max)]).toEqual([text, memoryTitleByPattern(text, max)]);
      if (!/[^\x20-\x7e]|[*_#[\]|^>`]| {2}|^ | $/.test(text)) plain++;
    }
    expect(plain).toBeGreaterThan(1000);
  });
});
