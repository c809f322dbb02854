import { repairLinks } from '../../src/core/link-repair';
import { preferredPath } from '../../src/core/memory-files';
import { memoryNote, memoryVault } from '../helpers/memory-ports';

/*
 * Consolidation repairs the links of every memory each night (rewritesOnly, from the texts its
 * load read): each body is scanned once, rebuilt only when a link changes, and a memory with
 * nothing to repair is decided without splitting its text (issue 23).
 */

const NOW = '2026-11-29T12:00:00Z';
const note = (id: string, body: string, linkIds?: string) => memoryNote({ id, category: 'episodic', created_at: '2026-11-01T00:00:00Z', ...(linkIds ? { link_ids: linkIds } : {}) }, body);

async function setUp(extra: Record<string, string> = {}, gamma = 'Alpha') {
  const { vault, files } = memoryVault(NOW);
  files.files.set('episodic/Alpha.md', note('mem-aaaaaaaaaaaa', 'First. [[Beta]] and [[Gamma|related]].\n', '["related mem-bbbbbbbbbbbb", "related mem-cccccccccccc"]'));
  files.files.set('episodic/Beta.md', note('mem-bbbbbbbbbbbb', 'No links here, only [single] brackets.\n'));
  files.files.set('episodic/Gamma.md', note('mem-cccccccccccc', `Back to [[${gamma}]] (another case).\n`, '["related mem-aaaaaaaaaaaa"]'));
  for (const [path, text] of Object.entries(extra)) files.files.set(path, text);
  const loaded = await vault.loadAll({ keep: true });
  return { vault, files, given: { loaded: { memories: loaded.memories, paths: loaded.paths!, read: loaded.read! } } };
}

describe('link repair in consolidation', () => {
  it('leaves a vault whose links all resolve as it is, without splitting any text', async () => {
    const { vault, files, given } = await setUp();
    const before = new Map(files.files);
    // texts that throw when used: a memory with nothing to repair never needs its text
    // (without the fast path each was split first, and the failure reported as skipped)
    const trap = new Proxy({}, { get: () => { throw new Error('the text was used'); } }) as unknown as string;
    const read = new Map([...given.loaded.read].map(([path, note]) => [path, { ...note, text: trap }]));
    const report = await repairLinks(vault, { apply: true, rewritesOnly: true, loaded: { ...given.loaded, read } });
    expect(report).toEqual({ rewritten: [], recorded: [], written: [], skipped: [] });
    // and with the texts, the same
    expect(await repairLinks(vault, { apply: true, rewritesOnly: true, ...given })).toEqual(report);
    // no note written (the id index wrote its rows)
    expect([...files.files].filter(([path]) => path.endsWith('.md'))).toEqual([...before]);
  });

  it('rewrites only the links that changed, every other byte kept, and agrees with a repair that reads the files', async () => {
    // Beta renamed outside Obsidian: Alpha's [[Beta]] and a second memory's links follow it by id
    const extra = {
      'episodic/Delta.md': note('mem-dddddddddddd', '[[Old Beta#Part|related]] x [[Gamma]] y [[Old Beta]]\n[[Nowhere]] end', '["related mem-bbbbbbbbbbbb", "related mem-cccccccccccc", "related mem-bbbbbbbbbbbb"]'),
    };
    const { vault, files, given } = await setUp(extra, 'alpha');
    files.files.set('episodic/Beta renamed.md', files.files.get('episodic/Beta.md')!);
    files.files.delete('episodic/Beta.md');
    const again = await setUp(extra, 'alpha');
    again.files.files.set('episodic/Beta renamed.md', again.files.files.get('episodic/Beta.md')!);
    again.files.files.delete('episodic/Beta.md');
    const fromFiles = await repairLinks(again.vault, { apply: false, rewritesOnly: true });
    const report = await repairLinks(vault, { apply: false, rewritesOnly: true, loaded: { ...given.loaded, memories: given.loaded.memories.map((m) => (m.path === 'episodic/Beta.md' ? { ...m, path: 'episodic/Beta renamed.md' } : m)), paths: given.loaded.paths.map((p) => (p === 'episodic/Beta.md' ? 'episodic/Beta renamed.md' : p)) } });
    expect(report.rewritten).toEqual([
      { path: 'episodic/Alpha.md', from: '[[Beta]]', to: '[[Beta renamed]]' },
      { path: 'episodic/Delta.md', from: '[[Old Beta#Part|related]]', to: '[[Beta renamed#Part|related]]' },
      // one recorded id left for two links that resolve nowhere: the second stays as written
      { path: 'episodic/Gamma.md', from: '[[alpha]]', to: '[[Alpha]]' },
    ]);
    expect(fromFiles.rewritten).toEqual(report.rewritten);
    await repairLinks(again.vault, { apply: true, rewritesOnly: true });
    expect(again.files.files.get('episodic/Delta.md')).toBe(note('mem-dddddddddddd', '[[Beta renamed#Part|related]] x [[Gamma]] y [[Old Beta]]\n[[Nowhere]] end', '["related mem-bbbbbbbbbbbb", "related mem-cccccccccccc", "related mem-bbbbbbbbbbbb"]'));
    expect(again.files.files.get('episodic/Alpha.md')).toBe(note('mem-aaaaaaaaaaaa', 'First. [[Beta renamed]] and [[Gamma|related]].\n', '["related mem-aaaaaaaaaaaa"]'.replace('mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb", "related mem-cccccccccccc')));
    expect(again.files.files.get('episodic/Gamma.md')).toBe(note('mem-cccccccccccc', 'Back to [[Alpha]] (another case).\n', '["related mem-aaaaaaaaaaaa"]'));
  });

  it('preferredPath: one file is that file; of several, the live, uncopied, shallowest', () => {
    expect(preferredPath(['archive/x/A.md'])).toBe('archive/x/A.md');
    expect(preferredPath(['archive/A.md', 'episodic/A 2.md', 'episodic/A.md'])).toBe('episodic/A.md');
  });
});
