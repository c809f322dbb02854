import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { bm25Params, partsFromDocs } from '../../../src/core/recall/recall';
import { decodeSnapshot, encodeSnapshot } from '../../../src/core/recall/snapshot';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';

/**
 * A listing UTF-8 cannot carry (a file name with a lone surrogate, as a file system may give) is
 * kept in the snapshot's header as a JSON list; `matches` compares it with the files listed now
 * as it does a packed listing (listStrings' equalsAll): every path equal, in order.
 *
 * listStrings' `values.length === list.length` as `true` (StrykerJS) is equivalent: its only
 * caller, `matches`, has already answered false for a listing of another length.
 */

const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
const PATHS = ['episodic/a.md', 'episodic/b\uD800.md', 'episodic/c.md'];

describe('a snapshot whose listing is kept as JSON', () => {
  let files: Array<[string, number, number]>;
  let bytes: Uint8Array;
  beforeAll(() => {
    const docs = PATHS.map((p, n) => toRecallDoc(parseMemory(p, `---\nid: ${id(n)}\ncategory: episodic\ncreated_at: "2026-05-01T00:0${n}:00Z"\n---\nNote ${n} about kites.\n`, S), false));
    files = PATHS.map((p, n) => [p, 100 + n, 1_700_000_000_000 + n]);
    bytes = encodeSnapshot(partsFromDocs(docs, S), files, 'fp');
  });

  it('is kept as JSON, and read back path by path', () => {
    expect(new TextDecoder('latin1').decode(bytes).includes('"listing":["episodic/a.md","episodic/b\\ud800.md","episodic/c.md"]')).toBe(true);
    expect([...decodeSnapshot(bytes)!.parts(bm25Params(S)).table.paths]).toEqual(PATHS);
  });

  it('matches the same files, and no listing with one path other (the others the same)', () => {
    const snapshot = decodeSnapshot(bytes)!;
    const other = (i: number, path: string) => files.map((f, j): [string, number, number] => (j === i ? [path, f[1], f[2]] : f));
    expect(snapshot.matches(files)).toBe(true);
    expect(snapshot.matches(files.map((f): [string, number, number] => [`${f[0]}`, f[1], f[2]]))).toBe(true);
    expect([snapshot.matches(other(0, 'episodic/x.md')), snapshot.matches(other(1, 'episodic/b\uD801.md')), snapshot.matches(other(2, 'episodic/c.mdx'))]).toEqual([false, false, false]);
    expect([snapshot.matches(files.slice(1)), snapshot.matches([...files, ['episodic/d.md', 1, 1]])]).toEqual([false, false]);
  });
});
