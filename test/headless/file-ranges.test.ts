import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { PathError } from '../../src/core/errors';
import { ID_INDEX_PATH, IdIndex, rowsFromTable } from '../../src/core/memory-files';

/**
 * NodeFileStore.openRanges: a file held open for positioned reads (the id index's table at the
 * end of ids.json, read by a cold touch a few bytes at a time), under read()'s rules.
 */
describe('NodeFileStore.openRanges', () => {
  let root: string;
  let files: NodeFileStore;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'engram-ranges-'));
    files = new NodeFileStore(root);
    mkdirSync(path.join(root, 'episodic'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads byte ranges of the version it opened until closed, fewer at its end', async () => {
    writeFileSync(path.join(root, 'episodic/a.md'), 'héllo, world');
    const reader = (await files.openRanges('episodic/a.md'))!;
    expect(reader.size).toBe(13);
    expect(Buffer.from(await reader.read(1, 2)).toString('utf8')).toBe('é');
    expect(Buffer.from(await reader.read(8, 100)).toString('utf8')).toBe('world');
    expect((await reader.read(13, 4)).length).toBe(0);
    // another version renamed over the name meanwhile (a refresh's write) is not seen
    writeFileSync(path.join(root, 'episodic/b.md'), 'another text');
    renameSync(path.join(root, 'episodic/b.md'), path.join(root, 'episodic/a.md'));
    expect(Buffer.from(await reader.read(0, 6)).toString('utf8')).toBe('héllo');
    await reader.close();
    expect(Buffer.from(await (await files.openRanges('episodic/a.md'))!.read(0, 7)).toString('utf8')).toBe('another');
  });

  it('gives null for a missing file and refuses what read() refuses', async () => {
    expect(await files.openRanges('episodic/none.md')).toBeNull();
    const outside = mkdtempSync(path.join(tmpdir(), 'engram-outside-'));
    try {
      writeFileSync(path.join(outside, 'secret.md'), 'secret');
      symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'episodic/link.md'));
      await expect(files.openRanges('episodic/link.md')).rejects.toThrow(PathError);
      await expect(files.read('episodic/link.md')).rejects.toThrow(PathError);
      await expect(files.openRanges('episodic')).rejects.toThrow('is a folder, not a file');
      await expect(files.openRanges('../x')).rejects.toThrow(PathError);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("lets the id index find a memory from ids.json's table without reading the file whole", async () => {
    writeFileSync(path.join(root, 'episodic/Zoë.md'), '---\nid: mem-aaaaaaaaaaaa\ncategory: episodic\n---\nWords\n');
    writeFileSync(path.join(root, 'episodic/b.md'), '---\nid: mem-bbbbbbbbbbbb\ncategory: episodic\n---\nWords\n');
    await new IdIndex(files).refresh();
    const reads: string[] = [];
    const read = files.read.bind(files);
    files.read = async (rel, options) => (reads.push(rel), read(rel, options));
    expect([...(await rowsFromTable(files, 'mem-bbbbbbbbbbbb'))!.keys()]).toEqual(['episodic/b.md']);
    expect(await new IdIndex(files).find('mem-aaaaaaaaaaaa')).toBe('episodic/Zoë.md');
    expect(reads).not.toContain(ID_INDEX_PATH);
  });
});
