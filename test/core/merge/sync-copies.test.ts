// src/core/merge/sync-copies.ts's findDuplicates in process: the groups of files that hold one
// id, from the id index's listing or from one a caller gives (consolidation passes the listing
// its load made). test/headless/sync-copies.test.ts runs the merges through the CLI.
import { findDuplicates } from '../../../src/core/merge/sync-copies';
import { memoryNote, memoryVault } from '../../helpers/memory-ports';

const A = 'mem-aaaaaaaaaaaa';
const B = 'mem-bbbbbbbbbbbb';
const C = 'mem-cccccccccccc';
const D = 'mem-dddddddddddd';

describe('findDuplicates', () => {
  it('gives the ids held by two files or more, sorted by id, each with the file kept and the copies sorted', async () => {
    const { vault } = memoryVault('2026-06-01T00:00:00Z');
    const ids = new Map([
      [D, ['episodic/d.md', 'archive/d.md']],
      [A, ['episodic/a.md']],
      [C, ['episodic/c 2.md', 'episodic/c.md', 'episodic/c (1).md']],
      [B, ['episodic/b.md']],
    ]);
    expect(await findDuplicates(vault, ids)).toEqual([
      { id: C, keep: 'episodic/c.md', copies: ['episodic/c (1).md', 'episodic/c 2.md'] },
      { id: D, keep: 'episodic/d.md', copies: ['archive/d.md'] },
    ]);
    // the map given is left as it was
    expect([...ids.keys()]).toEqual([D, A, C, B]);
    expect(await findDuplicates(vault, new Map([[A, ['episodic/a.md']]]))).toEqual([]);
    // held ids given in ascending and in descending order come out in id order alike
    const ascending = new Map([
      [A, ['episodic/a.md', 'episodic/a 2.md']],
      [B, ['episodic/b.md']],
      [C, ['episodic/c.md', 'episodic/c 2.md']],
    ]);
    const sorted = [
      { id: A, keep: 'episodic/a.md', copies: ['episodic/a 2.md'] },
      { id: C, keep: 'episodic/c.md', copies: ['episodic/c 2.md'] },
    ];
    expect(await findDuplicates(vault, ascending)).toEqual(sorted);
    expect(await findDuplicates(vault, new Map([...ascending].reverse()))).toEqual(sorted);
  });

  it('lists the memory folders itself when no listing is given', async () => {
    const { vault, files } = memoryVault('2026-06-01T00:00:00Z');
    const note = (id: string) => memoryNote({ id, category: 'episodic', created_at: '2026-05-01T00:00:00Z' });
    files.files.set('episodic/b.md', note(B));
    files.files.set('episodic/a.md', note(A));
    files.files.set('episodic/a copy.md', note(A));
    expect(await findDuplicates(vault)).toEqual([{ id: A, keep: 'episodic/a.md', copies: ['episodic/a copy.md'] }]);
  });
});
