import { deriveMemoryId, isMemoryId, safeRelativePath } from '../../src/core/ids';
import { parseLinks } from '../../src/core/links';

describe('ids and paths', () => {
  it('accepts only mem- and 12 lowercase letters or digits', () => {
    expect(['mem-abc123def456', 'mem-000000000000'].map(isMemoryId)).toEqual([true, true]);
    expect(['mem-ABC123DEF456', 'mem-abc', 'mem-abc123def4567', '../mem-abc123def456', 'mem-abc123def45/'].map(isMemoryId)).toEqual([false, false, false, false, false]);
  });

  it('derives the same id from the same text and time', () => {
    expect(deriveMemoryId('x', '2026-01-01T00:00:00Z')).toBe(deriveMemoryId('x', '2026-01-01T00:00:00Z'));
    expect(deriveMemoryId('x', '2026-01-01T00:00:00Z', 1)).not.toBe(deriveMemoryId('x', '2026-01-01T00:00:00Z'));
    expect(isMemoryId(deriveMemoryId('x', '2026-01-01T00:00:00Z'))).toBe(true);
  });

  it('keeps paths inside the vault', () => {
    expect(safeRelativePath('episodic/./mem-abc123def456.md')).toBe('episodic/mem-abc123def456.md');
    expect(safeRelativePath('episodic\\mem-abc123def456.md')).toBe('episodic/mem-abc123def456.md');
    expect(() => safeRelativePath('../etc/passwd')).toThrow('invalid path "../etc/passwd": leaves the vault');
    expect(() => safeRelativePath('episodic/../../x')).toThrow('leaves the vault');
    expect(() => safeRelativePath('/etc/passwd')).toThrow('must be relative to the vault');
    expect(() => safeRelativePath('C:\\x')).toThrow('must be relative to the vault');
    expect(() => safeRelativePath('a\0b')).toThrow('NUL byte');
    expect(() => safeRelativePath('')).toThrow('empty');
  });

  it('reads typed wikilinks to memories only', () => {
    expect(parseLinks('[[mem-aaaaaaaaaaaa|related]] [[mem-bbbbbbbbbbbb|decays_from]] [[mem-cccccccccccc]] [[mem-dddddddddddd|see this]] [[../mem-eeeeeeeeeeee|related]] [[Project note]] [[mem-aaaaaaaaaaaa|related]]')).toEqual([
      { target: 'mem-aaaaaaaaaaaa', kind: 'related' },
      { target: 'mem-bbbbbbbbbbbb', kind: 'decays_from' },
      { target: 'mem-cccccccccccc', kind: 'related' },
      { target: 'mem-dddddddddddd', kind: 'related' },
      { target: 'mem-eeeeeeeeeeee', kind: 'related' },
    ]);
  });
});
