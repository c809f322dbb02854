import { MemoryParseError } from '../../src/core/errors';
import { parseMemory } from '../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';

const PATH = 'episodic/mem-abc123def456.md';
const note = (extra: string) => `---\nid: mem-abc123def456\ncategory: episodic\ncreated_at: "2026-01-01T00:00:00Z"\n${extra}\n---\nSome text.\n`;

/** The parse error's reason for a memory with these extra frontmatter lines. */
function reason(extra: string): string {
  try {
    parseMemory(PATH, note(extra), S);
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryParseError);
    return (error as MemoryParseError).reason;
  }
  throw new Error('parsed');
}

describe('a memory file\'s fields: what a person may have written, and the error naming the rest', () => {
  it('co_access is a mapping of memory id to count; anything else names what it got', () => {
    expect(parseMemory(PATH, note('co_access: {"mem-cccccccccccc": 2, "mem-dddddddddddd": 0.5}'), S).co_access).toEqual({ 'mem-cccccccccccc': 2, 'mem-dddddddddddd': 0.5 });
    // empty (null) is absent
    expect(parseMemory(PATH, note('co_access:'), S).co_access).toEqual({});
    expect(reason('co_access: "mem-cccccccccccc"')).toBe('field "co_access": expected a mapping of memory id to count, got "mem-cccccccccccc"');
    expect(reason('co_access: 5')).toBe('field "co_access": expected a mapping of memory id to count, got 5');
    expect(reason('co_access: true')).toBe('field "co_access": expected a mapping of memory id to count, got true');
    expect(reason('co_access: ["mem-cccccccccccc"]')).toBe('field "co_access": expected a mapping of memory id to count, got a list');
    expect(reason('co_access: {"cccc": 2}')).toBe('field "co_access": "cccc" is not a memory id');
    expect(reason('co_access: {"mem-cccccccccccc": -1}')).toBe('field "co_access": count for mem-cccccccccccc must be a non-negative number, got -1');
    expect(reason('co_access: {"mem-cccccccccccc": "two"}')).toBe('field "co_access": count for mem-cccccccccccc must be a non-negative number, got "two"');
    expect(reason('co_access: {"mem-cccccccccccc": {"a": 1}}')).toBe('field "co_access": count for mem-cccccccccccc must be a non-negative number, got a mapping');
    expect(reason('co_access: {"mem-cccccccccccc": null}')).toBe('field "co_access": count for mem-cccccccccccc must be a non-negative number, got null');
  });

  it('a value shown in an error is cut to 37 characters and "..." past 40 (its JSON form)', () => {
    const forty = 'x'.repeat(38); // "xxx…" is 40 characters with its quotes
    expect(reason(`tier: ${forty}`)).toBe(`field "tier": expected one of core, active, warm, cold, archive, got "${forty}"`);
    const fortyOne = 'x'.repeat(39);
    expect(reason(`tier: ${fortyOne}`)).toBe(`field "tier": expected one of core, active, warm, cold, archive, got "${'x'.repeat(36)}...`);
  });
});
