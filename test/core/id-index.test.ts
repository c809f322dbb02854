import { ID_INDEX_PATH, IdIndex } from '../../src/core/memory-files';
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
