import { claimFileName, safeFileName, takenNames } from '../../src/core/file-names';
import { archivedPath, compareMemoryPaths, frontmatterId, preferredPath, revivedPath } from '../../src/core/memory-files';
import { memoryTitle } from '../../src/core/title';

describe('readable file names (ADR 0005)', () => {
  it('are safe on Windows, macOS and Linux', () => {
    expect(safeFileName('Use <T> in "generics": a/b\\c | d? e* #tag ^x [y]')).toBe('Use T in generics a b c d e tag x y');
    expect(safeFileName('CON')).toBe('CON note');
    expect(safeFileName('lpt1.txt')).toBe('lpt1.txt note');
    expect(safeFileName('..hidden notes...  ')).toBe('hidden notes');
    expect(safeFileName('tab\there\u0007bell')).toBe('tab here bell');
    expect(safeFileName('a'.repeat(70))).toBe('a'.repeat(60));
    expect(safeFileName(`${'word '.repeat(14)}end`)).toBe('word word word word word word word word word word word word');
    expect(safeFileName('e\u0301te')).toBe('\u00e9te'); // NFC: one name on macOS and elsewhere
    expect(safeFileName('???')).toBe('');
  });

  it('are unique ignoring case, numbered when taken, and fall back to the id', () => {
    const taken = takenNames(['episodic/Deploy on Fridays.md', 'archive/ops/deploy ON fridays 2.md']);
    expect(claimFileName('Deploy on fridays', 'mem-aaaaaaaaaaaa', taken)).toBe('Deploy on fridays 3');
    expect(claimFileName('Deploy on fridays', 'mem-aaaaaaaaaaaa', taken)).toBe('Deploy on fridays 4');
    expect(claimFileName(memoryTitle('*** ???'), 'mem-bbbbbbbbbbbb', taken)).toBe('mem-bbbbbbbbbbbb');
    expect([...taken].sort()).toEqual(['deploy on fridays', 'deploy on fridays 2', 'deploy on fridays 3', 'deploy on fridays 4', 'mem-bbbbbbbbbbbb']);
  });
});

describe('memory paths', () => {
  it('archive and revive keep the name and the sub-folder', () => {
    expect(archivedPath('episodic/ops/Staging DB reset.md')).toBe('archive/ops/Staging DB reset.md');
    expect(revivedPath('archive/ops/Staging DB reset.md', 'decision')).toBe('decisions/ops/Staging DB reset.md');
    expect(archivedPath('archive/x.md')).toBe('archive/x.md');
  });

  it('the memory among copies of one id is outside archive/, not named like a copy, then shallower and shorter', () => {
    expect(preferredPath(['episodic/Note (Conflicted copy Laptop 202611281015).md', 'episodic/Note.md'])).toBe('episodic/Note.md');
    expect(preferredPath(['archive/Note.md', 'episodic/deep/Note 1.md'])).toBe('episodic/deep/Note 1.md');
    expect(preferredPath(['episodic/Note copy.md', 'episodic/Note.md'])).toBe('episodic/Note.md');
    expect(preferredPath(['episodic/a/Note.md', 'episodic/Note.sync-conflict-20261128-101500-ABC.md', 'episodic/b.md'])).toBe('episodic/b.md');
  });

  it('list order: folder by folder, a folder\'s files before its sub-folders', () => {
    const paths = ['semantic/a.md', 'episodic/z/a.md', 'episodic/b.md', 'archive/a.md', 'episodic/a/z.md', 'decisions/q.md'];
    expect([...paths].sort(compareMemoryPaths)).toEqual(['episodic/b.md', 'episodic/a/z.md', 'episodic/z/a.md', 'semantic/a.md', 'decisions/q.md', 'archive/a.md']);
  });

  it('the id is read from the frontmatter\'s top-level id line only', () => {
    expect(frontmatterId('---\ncategory: episodic\nid: "mem-abc123def456" # the id\n---\nid: mem-000000000000\n')).toBe('mem-abc123def456');
    expect(frontmatterId('---\nnested:\n  id: mem-abc123def456\n---\n')).toBeNull();
    expect(frontmatterId('no frontmatter\nid: mem-abc123def456\n')).toBeNull();
  });
});
