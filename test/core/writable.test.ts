import { MemoryParseError } from '../../src/core/errors';
import { assertWritable } from '../../src/core/vault';

/** The refusal's reason, or null when the text may be written. */
function refusal(text: string, maxBytes: number, body: string | null = null): string | null {
  try {
    assertWritable('semantic/a.md', text, maxBytes, body);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryParseError);
    expect((error as MemoryParseError).path).toBe('semantic/a.md');
    return (error as MemoryParseError).reason;
  }
}

describe('assertWritable: what Engram writes into a memory file stays readable by Engram', () => {
  // The limit is in UTF-8 bytes. Counting UTF-16 units is exact only for ASCII; a text of
  // length n is at most 3n bytes, so only a text longer than a third of the limit is encoded.
  it('counts UTF-8 bytes, not characters: 60 é are 120 bytes, over a 100-byte limit', () => {
    expect(refusal('é'.repeat(60), 100)).toBe('refused: the file would be 120 bytes, over the 100-byte limit');
    expect(refusal('é'.repeat(50), 100)).toBeNull();
    expect(refusal('é'.repeat(51), 100)).toBe('refused: the file would be 102 bytes, over the 100-byte limit');
  });

  it('three-byte characters: 34 € are 102 bytes, over a 101-byte limit', () => {
    expect(refusal('€'.repeat(34), 101)).toBe('refused: the file would be 102 bytes, over the 101-byte limit');
    expect(refusal('€'.repeat(33), 99)).toBeNull();
    expect(refusal('€'.repeat(33), 98)).toBe('refused: the file would be 99 bytes, over the 98-byte limit');
  });

  it('ASCII up to the limit is written, one byte more is refused', () => {
    expect(refusal('a'.repeat(100), 100)).toBeNull();
    expect(refusal('a'.repeat(101), 100)).toBe('refused: the file would be 101 bytes, over the 100-byte limit');
    expect(refusal('', 0)).toBeNull();
  });

  it('refuses a NUL byte, and a metadata write that would change the body', () => {
    expect(refusal('---\nid: x\n---\nbody\0', 1000)).toBe('refused: the text would contain a NUL byte');
    expect(refusal('---\nid: x\n---\nbody\n', 1000, 'body\n')).toBeNull();
    expect(refusal('---\nid: x\n---\nbody!\n', 1000, 'body\n')).toBe('refused: the update would change the body');
    // ends with the body, but the frontmatter's body is longer: still a change
    expect(refusal('---\nid: x\n---\nmore body\n', 1000, 'body\n')).toBe('refused: the update would change the body');
    expect(refusal('no frontmatter body\n', 1000, 'body\n')).toBe('refused: the update would change the body');
  });
});
