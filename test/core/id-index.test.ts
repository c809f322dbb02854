import { ID_INDEX_PATH, idCacheText, IdIndex, indexOfBytes, listMemoryPaths, rowsFromTable } from '../../src/core/memory-files';
import type { RangeReader } from '../../src/core/ports';
import { MemoryFileStore } from '../helpers/memory-ports';

/** A note holding `id` in its frontmatter, `pad` characters of body (a size change is a rewrite). */
const note = (id: string, pad = 0): string => `---\nid: ${id}\ncategory: episodic\n---\nWords${'.'.repeat(pad)}\n`;

/** A store whose reads are counted by path. */
class CountingStore extends MemoryFileStore {
  readonly reads: string[] = [];
  override async read(path: string): Promise<Uint8Array | null> {
    this.reads.push(path);
    return super.read(path);
  }
}

async function vaultWithIndex(): Promise<CountingStore> {
  const files = new CountingStore();
  files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa'));
  files.files.set('episodic/[draft] "b".md', note('mem-bbbbbbbbbbbb'));
  files.files.set('archive/mem-cccccccccccc.md', note('mem-cccccccccccc'));
  files.files.set('semantic/c.md', note('mem-cccccccccccc'));
  files.files.set('episodic/other.md', '---\ntitle: not a memory\n---\n');
  await new IdIndex(files).refresh();
  files.reads.length = 0;
  return files;
}

describe('indexOfBytes (the search of ids.json)', () => {
  it("finds what Buffer's indexOf finds, from every start, on 2,000 seeded texts of few letters", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const letters = [0x2c, 0x22, 0x5d, 0x6d, 0x61, 0x62];
    const want: number[] = [];
    const got: number[] = [];
    const native: number[] = [];
    for (let k = 0; k < 2000; k++) {
      const bytes = Buffer.from(Array.from({ length: next(200) }, () => letters[next(letters.length)]!));
      const needle = Buffer.from(Array.from({ length: 1 + next(k % 2 === 0 ? 3 : 12) }, () => letters[next(letters.length)]!));
      const plain = new Uint8Array(bytes);
      for (let from = 0; from <= bytes.length; from += 1 + next(7)) {
        want.push(bytes.indexOf(needle, from));
        // the loop (a plain Uint8Array, as the plugin reads) and Node's search (a Buffer)
        got.push(indexOfBytes(plain, needle, from));
        native.push(indexOfBytes(bytes, needle, from));
      }
    }
    expect(got).toEqual(want);
    expect(native).toEqual(want);
    expect(want.filter((at) => at >= 0).length).toBe(20_045);
    for (const text of [Buffer.from('["a",1,2,"mem-aaaaaaaaaaaa"],["b",3,4,"mem-aaaaaaaaaaab"]'), new TextEncoder().encode('["a",1,2,"mem-aaaaaaaaaaaa"],["b",3,4,"mem-aaaaaaaaaaab"]')]) {
      expect(indexOfBytes(text, Buffer.from(',"mem-aaaaaaaaaaab"]'), 0)).toBe(37);
    }
  });
});

describe('IdIndex.find', () => {
  it('answers from the rows of ids.json that hold the id, reading no note, as a full load would', async () => {
    const files = await vaultWithIndex();
    const found = [];
    for (const id of ['mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb', 'mem-cccccccccccc']) found.push(await new IdIndex(files).find(id));
    // two files hold mem-cccccccccccc: the one outside archive/ is the memory
    expect(found).toEqual(['episodic/mem-aaaaaaaaaaaa.md', 'episodic/[draft] "b".md', 'semantic/c.md']);
    expect(files.reads).toEqual([ID_INDEX_PATH, ID_INDEX_PATH, ID_INDEX_PATH]);
  });

  it('finds the row of a path with brackets, quotes and non-ASCII letters', async () => {
    const files = await vaultWithIndex();
    files.files.set('episodic/Zoë [«1»] "ß" 日本.md', note('mem-ffffffffffff'));
    await new IdIndex(files).refresh();
    const index = new IdIndex(files);
    expect(await index.find('mem-ffffffffffff')).toBe('episodic/Zoë [«1»] "ß" 日本.md');
    expect((index as unknown as { rows: unknown }).rows).toBeNull();
  });

  it('reads ids.json once for several ids', async () => {
    const files = await vaultWithIndex();
    const index = new IdIndex(files);
    expect([await index.find('mem-aaaaaaaaaaaa'), await index.find('mem-bbbbbbbbbbbb')]).toEqual(['episodic/mem-aaaaaaaaaaaa.md', 'episodic/[draft] "b".md']);
    expect(files.reads).toEqual([ID_INDEX_PATH]);
  });

  it('falls back to the full lookup when the file changed since its row, or the id has no row', async () => {
    const files = await vaultWithIndex();
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 3));
    expect(await new IdIndex(files).find('mem-aaaaaaaaaaaa')).toBe('episodic/mem-aaaaaaaaaaaa.md');
    // the changed file is read once to see that it still holds the id
    expect(files.reads).toEqual([ID_INDEX_PATH, 'episodic/mem-aaaaaaaaaaaa.md']);
    files.reads.length = 0;
    files.files.set('decisions/new.md', note('mem-dddddddddddd'));
    expect(await new IdIndex(files).find('mem-dddddddddddd')).toBe('decisions/new.md');
    // no row: the folders are listed and the files that changed since ids.json read (a find
    // that re-reads a changed file does not save the index; a refresh does)
    expect(files.reads).toEqual([ID_INDEX_PATH, 'episodic/mem-aaaaaaaaaaaa.md', 'decisions/new.md']);
    files.reads.length = 0;
    expect(await new IdIndex(files).find('mem-eeeeeeeeeeee')).toBeNull();
  });

  it('judges a file written since its row by reading that file alone, without parsing every row', async () => {
    const files = await vaultWithIndex();
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 3));
    const index = new IdIndex(files);
    expect(await index.find('mem-aaaaaaaaaaaa')).toBe('episodic/mem-aaaaaaaaaaaa.md');
    expect((index as unknown as { rows: unknown }).rows).toBeNull();
    // the preferred file now holds another id: the next candidate, as the full lookup takes it
    files.files.set('semantic/c.md', note('mem-dddddddddddd', 2));
    files.reads.length = 0;
    expect(await index.find('mem-cccccccccccc')).toBe('archive/mem-cccccccccccc.md');
    expect(files.reads).toEqual(['semantic/c.md']);
    expect((index as unknown as { rows: unknown }).rows).toBeNull();
    expect(await new IdIndex(files).find('mem-cccccccccccc')).toBe('archive/mem-cccccccccccc.md');
  });

  it('follows a move Engram made without reading the moved file, and saves it', async () => {
    const files = await vaultWithIndex();
    const index = new IdIndex(files);
    await files.move('episodic/mem-aaaaaaaaaaaa.md', 'archive/mem-aaaaaaaaaaaa.md');
    await index.moved('episodic/mem-aaaaaaaaaaaa.md', 'archive/mem-aaaaaaaaaaaa.md');
    expect(await index.find('mem-aaaaaaaaaaaa')).toBe('archive/mem-aaaaaaaaaaaa.md');
    await index.saveMoves();
    expect(await new IdIndex(files).find('mem-aaaaaaaaaaaa')).toBe('archive/mem-aaaaaaaaaaaa.md');
    // ids.json twice (once per index), the moved note never
    expect(files.reads).toEqual([ID_INDEX_PATH, ID_INDEX_PATH]);
  });

  it('leaves a moved file that changed since its row to the next refresh', async () => {
    const files = await vaultWithIndex();
    const index = new IdIndex(files);
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 5));
    await files.move('episodic/mem-aaaaaaaaaaaa.md', 'archive/mem-aaaaaaaaaaaa.md');
    await index.moved('episodic/mem-aaaaaaaaaaaa.md', 'archive/mem-aaaaaaaaaaaa.md');
    expect(await index.find('mem-aaaaaaaaaaaa')).toBe('archive/mem-aaaaaaaaaaaa.md');
    expect(files.reads).toEqual([ID_INDEX_PATH, 'archive/mem-aaaaaaaaaaaa.md']);
  });
});

describe('IdIndex from a reader that read the files (consolidation)', () => {
  const listed = async (files: CountingStore): Promise<Array<[string, number, number, string | null]>> => {
    const out: Array<[string, number, number, string | null]> = [];
    // in the loader's order: listMemoryPaths'
    for (const path of await listMemoryPaths(files)) {
      const text = files.files.get(path)!;
      const stat = (await files.stat(path))!;
      out.push([path, stat.size, stat.mtimeMs, /^id: (mem-[a-z0-9]{12})$/m.exec(text)?.[1] ?? null]);
    }
    return out;
  };

  it('adopt makes the rows a refresh would and answers as all() would, reading only ids.json', async () => {
    const files = await vaultWithIndex();
    files.files.set('decisions/new.md', note('mem-dddddddddddd'));
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 4));
    const rows = await listed(files);
    const index = new IdIndex(files);
    const ids = await index.adopt(rows);
    expect(files.reads).toEqual([ID_INDEX_PATH]);
    expect([...ids]).toEqual([
      ['mem-bbbbbbbbbbbb', ['episodic/[draft] "b".md']],
      ['mem-aaaaaaaaaaaa', ['episodic/mem-aaaaaaaaaaaa.md']],
      ['mem-cccccccccccc', ['semantic/c.md', 'archive/mem-cccccccccccc.md']],
      ['mem-dddddddddddd', ['decisions/new.md']],
    ]);
    // saved by saveMoves (the caller's, after its moves), not before: a new index then finds
    // the new file from ids.json alone, and a refresh agrees
    const before = files.files.get(ID_INDEX_PATH);
    expect(await new IdIndex(files).find('mem-dddddddddddd')).toBe('decisions/new.md');
    expect(files.files.get(ID_INDEX_PATH)).not.toBe(before); // that look-up refreshed and saved ids.json itself
    files.files.set(ID_INDEX_PATH, before!);
    await index.saveMoves();
    expect(files.files.get(ID_INDEX_PATH)).not.toBe(before);
    files.reads.length = 0;
    expect(await new IdIndex(files).find('mem-dddddddddddd')).toBe('decisions/new.md');
    expect(files.reads).toEqual([ID_INDEX_PATH]);
    const fresh = new IdIndex(files);
    expect(await fresh.all()).toEqual(ids);
  });

  it('adopt keeps the id a row had when the file read shows none (a save caught half-way)', async () => {
    const files = await vaultWithIndex();
    const rows = (await listed(files)).map(([path, size, mtimeMs, id]): [string, number, number, string | null] => (path === 'semantic/c.md' ? [path, size + 1, mtimeMs, null] : [path, size, mtimeMs, id]));
    const ids = await new IdIndex(files).adopt(rows);
    expect(ids.get('mem-cccccccccccc')).toEqual(['semantic/c.md', 'archive/mem-cccccccccccc.md']);
  });

  it('learn gives a refresh the rows of the files read, which it then does not read', async () => {
    const files = await vaultWithIndex();
    files.files.set('decisions/new.md', note('mem-dddddddddddd'));
    files.files.set('decisions/later.md', note('mem-eeeeeeeeeeee'));
    const index = new IdIndex(files);
    const stat = (await files.stat('decisions/new.md'))!;
    index.learn('decisions/new.md', stat.size, stat.mtimeMs, 'mem-dddddddddddd');
    expect(await index.find('mem-eeeeeeeeeeee')).toBe('decisions/later.md');
    // the refresh read the file nobody had read, not the one learned
    expect(files.reads).toEqual([ID_INDEX_PATH, 'decisions/later.md']);
    expect(await index.find('mem-dddddddddddd')).toBe('decisions/new.md');
  });

  it('learn of a new file adds it to the ids found without rebuilding them from every row; a file that changed id rebuilds them', async () => {
    const files = await vaultWithIndex();
    const index = new IdIndex(files);
    // the rows as a consolidation's load leaves them
    await index.adopt(await listed(files));
    const builds = index.byIdBuilds;
    expect(builds).toBeGreaterThan(0);
    // a pattern a consolidation wrote, then a look-up of another id (each rebuilt every row: 6 s at 100k)
    for (const [name, id] of [['semantic/p1.md', 'mem-p00000000001'], ['semantic/p2.md', 'mem-p00000000002'], ['archive/copy.md', 'mem-aaaaaaaaaaaa']] as const) {
      files.files.set(name, note(id));
      const stat = (await files.stat(name))!;
      index.learn(name, stat.size, stat.mtimeMs, id);
      expect(await index.find(id)).toBe(name === 'archive/copy.md' ? 'episodic/mem-aaaaaaaaaaaa.md' : name);
    }
    expect(index.byIdBuilds).toBe(builds);
    // what a rebuild from the rows gives: a fresh index over the same files finds the same
    const fresh = new IdIndex(files);
    for (const id of ['mem-p00000000001', 'mem-p00000000002', 'mem-aaaaaaaaaaaa']) expect(await fresh.find(id)).toBe(await index.find(id));
    // a file now holding another id: the ids are rebuilt once, then found as before
    files.files.set('semantic/p1.md', `${note('mem-p00000000003')}changed\n`);
    const stat = (await files.stat('semantic/p1.md'))!;
    index.learn('semantic/p1.md', stat.size, stat.mtimeMs, 'mem-p00000000003');
    expect([await index.find('mem-p00000000003'), index.byIdBuilds]).toEqual(['semantic/p1.md', builds + 1]);
  });

  it('moved with the size and mtime the caller checked follows the move without a stat', async () => {
    const files = await vaultWithIndex();
    const stats: string[] = [];
    const stat = files.stat.bind(files);
    files.stat = async (path: string) => (stats.push(path), stat(path));
    const index = new IdIndex(files);
    const before = (await stat('episodic/mem-aaaaaaaaaaaa.md'))!;
    await files.move('episodic/mem-aaaaaaaaaaaa.md', 'archive/mem-aaaaaaaaaaaa.md');
    await index.moved('episodic/mem-aaaaaaaaaaaa.md', 'archive/mem-aaaaaaaaaaaa.md', before);
    expect(stats).toEqual([]);
    // a size the row does not have: the row stays behind (the next refresh reads the file)
    await files.move('episodic/[draft] "b".md', 'archive/b.md');
    await index.moved('episodic/[draft] "b".md', 'archive/b.md', { size: 1, mtimeMs: 0 });
    await index.saveMoves();
    files.reads.length = 0;
    expect(await new IdIndex(files).find('mem-aaaaaaaaaaaa')).toBe('archive/mem-aaaaaaaaaaaa.md');
    expect(files.reads).toEqual([ID_INDEX_PATH]);
  });
});

/** A store that also reads parts of files (as the runner's does), counting whole reads and the ranges read. */
class RangeStore extends CountingStore {
  readonly ranges: Array<[string, number, number]> = [];
  readonly closed: string[] = [];
  async openRanges(path: string): Promise<RangeReader | null> {
    const bytes = await super.read(path);
    this.reads.pop(); // not a whole read: counted as ranges
    if (!bytes) return null;
    return {
      size: bytes.length,
      read: async (at, length) => (this.ranges.push([path, at, length]), bytes.slice(at, at + length)),
      close: async () => void this.closed.push(path),
    };
  }
}

async function rangedVault(): Promise<RangeStore> {
  const files = new RangeStore();
  files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa'));
  // non-ASCII names of 2, 3 and 4 UTF-8 bytes a letter before other rows: their byte offsets must stay right
  files.files.set('episodic/Zoë «ß» 日本 🦀.md', note('mem-ffffffffffff'));
  files.files.set('episodic/[draft] "b".md', note('mem-bbbbbbbbbbbb'));
  files.files.set('archive/mem-cccccccccccc.md', note('mem-cccccccccccc'));
  files.files.set('semantic/c.md', note('mem-cccccccccccc'));
  files.files.set('decisions/zz.md', note('mem-000000000000'));
  files.files.set('episodic/other.md', '---\ntitle: not a memory\n---\n');
  await new IdIndex(files).refresh();
  files.reads.length = 0;
  return files;
}

describe('the table of rows by id at the end of ids.json', () => {
  type Row = [string, number, number, string | null];
  const rowsOf = (text: string): Row[] => (JSON.parse(text) as { rows: Row[] }).rows;

  it('leaves the rows what older readers read, and ends with each id-holding row by id, its offset and length', async () => {
    const files = await rangedVault();
    const text = files.files.get(ID_INDEX_PATH)!;
    const parsed = JSON.parse(text) as { format: number; rows: Row[]; byId: string };
    expect(Object.keys(parsed)).toEqual(['format', 'rows', 'byId']);
    // the text before the table is JSON.stringify of what was written before it
    expect(text.startsWith(JSON.stringify({ format: 1, rows: parsed.rows }).slice(0, -1))).toBe(true);
    expect(parsed.rows.map((r) => r[0])).toEqual([
      'episodic/Zoë «ß» 日本 🦀.md',
      'episodic/[draft] "b".md',
      'episodic/mem-aaaaaaaaaaaa.md',
      'episodic/other.md',
      'semantic/c.md',
      'decisions/zz.md',
      'archive/mem-cccccccccccc.md',
    ]);
    expect(parsed.rows.map((r) => r[3])).toEqual(['mem-ffffffffffff', 'mem-bbbbbbbbbbbb', 'mem-aaaaaaaaaaaa', null, 'mem-cccccccccccc', 'mem-000000000000', 'mem-cccccccccccc']);
    const bytes = Buffer.from(text);
    const entries = parsed.byId.slice(0, -10).match(/.{24}/g)!;
    expect(parsed.byId.slice(-10)).toBe('0000000006');
    expect(entries.map((e) => e.slice(0, 12))).toEqual(['000000000000', 'aaaaaaaaaaaa', 'bbbbbbbbbbbb', 'cccccccccccc', 'cccccccccccc', 'ffffffffffff']);
    // each entry's offset and length cut exactly its row out of the file's bytes
    const cut = entries.map((e) => JSON.parse(bytes.subarray(parseInt(e.slice(12, 20), 16), parseInt(e.slice(12, 20), 16) + parseInt(e.slice(20), 16)).toString('utf8')) as Row);
    expect(cut).toEqual([
      parsed.rows[5],
      parsed.rows[2],
      parsed.rows[1],
      // one id's rows in the file's order
      parsed.rows[4],
      parsed.rows[6],
      parsed.rows[0],
    ]);
  });

  it('gives the rows of an id from a few positioned reads, in the file order, and none for an id it does not hold', async () => {
    const files = await rangedVault();
    const rows = rowsOf(files.files.get(ID_INDEX_PATH)!);
    const row = (i: number) => [rows[i]![0], [rows[i]![1], rows[i]![2], rows[i]![3]]];
    expect([...(await rowsFromTable(files, 'mem-cccccccccccc'))!]).toEqual([row(4), row(6)]);
    expect([...(await rowsFromTable(files, 'mem-ffffffffffff'))!]).toEqual([row(0)]);
    expect([...(await rowsFromTable(files, 'mem-000000000000'))!]).toEqual([row(5)]);
    // after the rows of non-ASCII paths
    expect([...(await rowsFromTable(files, 'mem-aaaaaaaaaaaa'))!]).toEqual([row(2)]);
    expect([...(await rowsFromTable(files, 'mem-zzzzzzzzzzzz'))!]).toEqual([]);
    expect([...(await rowsFromTable(files, 'mem-bbbbbbbbbbba'))!]).toEqual([]);
    expect(files.reads).toEqual([]);
    // each look-up closed what it opened; reads of a few bytes each
    expect(files.closed).toEqual(Array(6).fill(ID_INDEX_PATH));
    expect(Math.max(...files.ranges.map(([, , length]) => length))).toBeLessThan(120);
  });

  it('answers nothing (the caller reads the whole file) without ranges from the store, a file, a table, or with a table that does not check out', async () => {
    const files = await rangedVault();
    const plain = new MemoryFileStore();
    plain.files.set(ID_INDEX_PATH, files.files.get(ID_INDEX_PATH)!);
    expect(await rowsFromTable(plain, 'mem-aaaaaaaaaaaa')).toBeUndefined();
    expect(await rowsFromTable(new RangeStore(), 'mem-aaaaaaaaaaaa')).toBeUndefined();
    expect(await rowsFromTable(files, 'not-an-id')).toBeUndefined();
    const text = files.files.get(ID_INDEX_PATH)!;
    const table = text.indexOf(',"byId":"') + ',"byId":"'.length;
    const variants: Record<string, string> = {
      // an older build's file
      'no table': `${JSON.stringify({ format: 1, rows: rowsOf(text) })}`,
      'cut short': text.slice(0, -1),
      'a count that overruns the table': `${text.slice(0, -12)}0000000007"}`,
      'an entry not in its form': `${text.slice(0, table + 12)}x${text.slice(table + 13)}`,
      // the first entry (mem-000000000000) pointing at the row of mem-aaaaaaaaaaaa
      'an entry pointing at another id': `${text.slice(0, table + 12)}${text.slice(table + 24 + 12, table + 48)}${text.slice(table + 24)}`,
    };
    for (const [what, variant] of Object.entries(variants)) {
      files.files.set(ID_INDEX_PATH, variant);
      expect([what, await rowsFromTable(files, 'mem-000000000000')]).toEqual([what, undefined]);
    }
  });

  it('is left out when a row is too long for its entry, and find reads the whole file as before', async () => {
    const files = await rangedVault();
    const long = `episodic/${'\u0001'.repeat(11_000)}.md`; // escaped as \u0001: 66,000 bytes of row
    files.files.set(long, note('mem-dddddddddddd'));
    await new IdIndex(files).refresh();
    expect(files.files.get(ID_INDEX_PATH)!.endsWith(']}')).toBe(true);
    files.reads.length = 0;
    expect(await rowsFromTable(files, 'mem-dddddddddddd')).toBeUndefined();
    expect(await new IdIndex(files).find('mem-dddddddddddd')).toBe(long);
    expect(files.reads).toEqual([ID_INDEX_PATH]);
  });

  it('lets find answer as the whole file would, without reading it', async () => {
    const files = await rangedVault();
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 3));
    const whole = new CountingStore();
    for (const [path, text] of files.files) whole.files.set(path, text);
    for (const id of ['mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb', 'mem-cccccccccccc', 'mem-ffffffffffff', 'mem-000000000000']) {
      expect([id, await new IdIndex(files).find(id)]).toEqual([id, await new IdIndex(whole).find(id)]);
    }
    // the changed file read once to see it still holds its id; ids.json never whole
    expect(files.reads).toEqual(['episodic/mem-aaaaaaaaaaaa.md']);
    expect(whole.reads.filter((p) => p === ID_INDEX_PATH)).toHaveLength(5);
  });

  it('keeps the rows of an id it looked up, and the size and mtime a read of a changed file confirmed, for the next look-up', async () => {
    const files = await rangedVault();
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 3));
    const index = new IdIndex(files);
    expect(await index.find('mem-aaaaaaaaaaaa')).toBe('episodic/mem-aaaaaaaaaaaa.md');
    const ranges = files.ranges.length;
    expect(files.reads).toEqual(['episodic/mem-aaaaaaaaaaaa.md']);
    // again (a touch's update, under its lock): neither the table nor the file read again
    expect(await index.find('mem-aaaaaaaaaaaa')).toBe('episodic/mem-aaaaaaaaaaaa.md');
    expect([files.ranges.length, files.reads]).toEqual([ranges, ['episodic/mem-aaaaaaaaaaaa.md']]);
    // written again since: read once more, then trusted
    files.files.set('episodic/mem-aaaaaaaaaaaa.md', note('mem-aaaaaaaaaaaa', 5));
    expect(await index.find('mem-aaaaaaaaaaaa')).toBe('episodic/mem-aaaaaaaaaaaa.md');
    expect(await index.find('mem-aaaaaaaaaaaa')).toBe('episodic/mem-aaaaaaaaaaaa.md');
    expect([files.ranges.length, files.reads]).toEqual([ranges, ['episodic/mem-aaaaaaaaaaaa.md', 'episodic/mem-aaaaaaaaaaaa.md']]);
    // another id is looked up in the table
    expect(await index.find('mem-bbbbbbbbbbbb')).toBe('episodic/[draft] "b".md');
    expect(files.ranges.length).toBeGreaterThan(ranges);
    // a file that no longer holds the id: the full look-up, as before
    files.files.set('episodic/[draft] "b".md', note('mem-eeeeeeeeeeee', 7));
    expect(await index.find('mem-bbbbbbbbbbbb')).toBeNull();
  });

  it('sorts the table by id, then by place: entries compared as strings when every id is mem- and 12 characters, by the ids otherwise', () => {
    type Rows = Map<string, [number, number, string | null]>;
    const table = (text: string) => (JSON.parse(text) as { byId?: string }).byId;
    // the rows' offsets: 20, 54 and 88 (0x14, 0x36, 0x58), each row 33 bytes long (0x21)
    const rows: Rows = new Map([
      ['a/x.md', [1, 2, 'mem-bbbbbbbbbbbb']],
      ['a/y.md', [1, 2, 'mem-aaaaaaaaaaaa']],
      ['a/z.md', [1, 2, 'mem-bbbbbbbbbbbb']],
    ]);
    expect(table(idCacheText(rows))).toBe('aaaaaaaaaaaa000000360021' + 'bbbbbbbbbbbb000000140021' + 'bbbbbbbbbbbb000000580021' + '0000000003');
    // an id of another form (a hand-edited ids.json) is sorted as a whole: 'mem-a' before
    // 'mem-a00000000000', though as strings its entry ('a', then the offset 00000014) sorts after
    // the other's ('a00000000000')
    const odd: Rows = new Map([
      ['a/x.md', [1, 2, 'mem-a']],
      ['a/y.md', [1, 2, 'mem-a00000000000']],
    ]);
    expect(table(idCacheText(odd))).toBe('a' + '000000140016' + 'a00000000000' + '0000002b0021' + '0000000002');
    // an id of 16 characters that does not start with mem- (a hand-edited frontmatter): by the
    // whole id, 'mem-…' before 'xyz-…', though its entry (the same 12 characters, then a later
    // offset) sorts after the other's as a string
    const foreign: Rows = new Map([
      ['a/x.md', [1, 2, 'xyz-aaaaaaaaaaaa']],
      ['a/y.md', [1, 2, 'mem-aaaaaaaaaaaa']],
    ]);
    expect(table(idCacheText(foreign))).toBe('aaaaaaaaaaaa000000360021' + 'aaaaaaaaaaaa000000140021' + '0000000002');
  });

  it('writes the same text as the comparator sort of every entry did, for random rows', () => {
    const reference = (rows: Map<string, [number, number, string | null]>): string => {
      const head = '{"format":1,"rows":[';
      const parts: string[] = [];
      const entries: Array<{ id: string; at: number; length: number }> = [];
      let at = head.length;
      for (const [path, [size, mtimeMs, id]] of rows) {
        const row = JSON.stringify([path, size, mtimeMs, id]);
        const length = Buffer.byteLength(row);
        if (id !== null) entries.push({ id, at, length });
        parts.push(row);
        at += length + 1;
      }
      entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.at - b.at));
      const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
      const table = entries.map((e) => `${e.id.slice(4)}${hex(e.at, 8)}${hex(e.length, 4)}`).join('');
      return `${head}${parts.join(',')}]${',"byId":"'}${table}${String(entries.length).padStart(10, '0')}"}`;
    };
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const names = ['a', 'Zoë', '日本', '"q"', 'b\\c', 'x y'];
    for (let round = 0; round < 30; round++) {
      const rows = new Map<string, [number, number, string | null]>();
      const ids = Array.from({ length: 1 + random(8) }, () => `mem-${random(1e6).toString(36).padStart(12, '0')}`);
      if (round % 3 === 0) ids.push('mem-short', 'not-an-id');
      for (let i = 0; i < 1 + random(60); i++) {
        const id = random(6) === 0 ? null : ids[random(ids.length)]!;
        rows.set(`episodic/${names[random(names.length)]} ${i}.md`, [random(5000), 1.7e12 + random(1e6) / 7, id]);
      }
      expect(idCacheText(rows)).toBe(reference(rows));
    }
  });

  it('is written for no rows too, and read as holding nothing', async () => {
    const files = new RangeStore();
    expect(idCacheText(new Map())).toBe('{"format":1,"rows":[],"byId":"0000000000"}');
    files.files.set(ID_INDEX_PATH, idCacheText(new Map()));
    expect(JSON.parse(files.files.get(ID_INDEX_PATH)!)).toEqual({ format: 1, rows: [], byId: '0000000000' });
    expect([...(await rowsFromTable(files, 'mem-aaaaaaaaaaaa'))!]).toEqual([]);
  });
});
