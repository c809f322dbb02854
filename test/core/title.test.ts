import { memoryTitle } from '../../src/core/title';

describe('a memory\'s title (its aliases entry)', () => {
  it('is its first words, without markup or link brackets, cut at a word', () => {
    expect(memoryTitle('Found a flaky test in the auth suite: timeout too short for CI.')).toBe('Found a flaky test in the auth suite: timeout too short for');
    expect(memoryTitle('Use **pnpm**.')).toBe('Use pnpm');
    expect(memoryTitle('See [[mem-abcdefabcdef|the outbox note]] and #ci | ^block')).toBe('See the outbox note and ci block');
    expect(memoryTitle('x'.repeat(80))).toBe('x'.repeat(60));
    expect(memoryTitle('   ')).toBe('');
  });
});
