import { parseMemory } from '../../src/core/memory';
import type { Memory } from '../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';
import type { MemoryChange } from '../../src/core/vault';
import { memoryNote, memoryVault } from '../helpers/memory-ports';

/*
 * Vault.updateKnown: consolidation's field writes from the text its loadAll read. The write is
 * update()'s (compare-and-swap on the text), without reading the file first; whenever the
 * file is not what was read, or the change cannot be made from it, update() does it from the file.
 */

const A = 'mem-aaaaaaaaaaaa';
const PATH = `episodic/${A}.md`;
const TEXT = memoryNote({ id: A, category: 'episodic', created_at: '2026-05-01T00:00:00Z', tier: 'active' }, 'Words of the memory.\n');
/** The tier write consolidation makes: only on a memory still at `from`. */
const demote = (from: string, to: string): MemoryChange => (m: Memory) => (m.tier === from ? { tier: to } : null);

async function setup() {
  const { vault, files } = memoryVault('2026-06-01T00:00:00Z');
  files.files.set(PATH, TEXT);
  // the id index knows the file, as after consolidation's loadAll
  await vault.idPaths();
  const reads: string[] = [];
  const read = files.read.bind(files);
  files.read = async (path: string) => (reads.push(path), read(path));
  return { vault, files, reads, known: { memory: parseMemory(PATH, TEXT, S), text: TEXT } };
}

describe('Vault.updateKnown', () => {
  it('writes the change made on the text read, reading no memory file', async () => {
    const { vault, files, reads, known } = await setup();
    await vault.updateKnown(known, demote('active', 'warm'));
    expect(files.files.get(PATH)).toBe(TEXT.replace('tier: active', 'tier: warm'));
    expect(reads).toEqual([]);
  });

  it('a file changed since it was read: the change is made on the file as it is (update)', async () => {
    const { vault, files, reads, known } = await setup();
    // a person added a line to the body in Obsidian after the plan was made
    files.files.set(PATH, `${TEXT}And a line of theirs.\n`);
    await vault.updateKnown(known, demote('active', 'warm'));
    expect(files.files.get(PATH)).toBe(`${TEXT.replace('tier: active', 'tier: warm')}And a line of theirs.\n`);
    // read to find the file again (it changed since the index saw it), then to change it
    expect(reads).toEqual([PATH, PATH]);
  });

  it('a change the file as read does not need, while the file now does: made on the file (update)', async () => {
    const { vault, files, known } = await setup();
    files.files.set(PATH, TEXT.replace('tier: active', 'tier: cold'));
    await vault.updateKnown({ ...known, memory: { ...known.memory, tier: 'cold' } }, demote('active', 'warm'));
    expect(files.files.get(PATH)).toBe(TEXT.replace('tier: active', 'tier: cold'));
    await vault.updateKnown(known, demote('cold', 'archive'));
    expect(files.files.get(PATH)).toBe(TEXT.replace('tier: active', 'tier: archive'));
  });

  it('a memory no longer at the path read (moved since): written where it is now', async () => {
    const { vault, files, known } = await setup();
    await files.move(PATH, `archive/${A}.md`);
    await vault.updateKnown(known, demote('active', 'archive'));
    expect([...files.files.keys()].filter((p) => p.endsWith('.md'))).toEqual([`archive/${A}.md`]);
    expect(files.files.get(`archive/${A}.md`)).toBe(TEXT.replace('tier: active', 'tier: archive'));
  });
});
