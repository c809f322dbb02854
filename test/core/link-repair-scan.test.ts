import { linksStand, names, repairLinks, type Names } from '../../src/core/link-repair';
import type { Memory } from '../../src/core/memory';
import { seededRandom } from '../../src/core/random';
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

describe('linksStand: a memory whose links all stand is left without planning', () => {
  const A = 'mem-aaaaaaaaaaaa';
  const crafted: Names = {
    nameOf: new Map([[A, 'Alpha'], ['mem-bbbbbbbbbbbb', 'Beta'], ['mem-ODD', 'Odd']]),
    byName: new Map<string, string | null>([['alpha', A], ['beta', 'mem-bbbbbbbbbbbb'], ['odd', 'mem-ODD'], ['daily note', null]]),
  };
  const stands = (body: string, linkIds?: unknown, decaysFrom?: string): boolean =>
    linksStand({ body, extra: { ...(linkIds !== undefined ? { link_ids: linkIds } : {}), ...(decaysFrom !== undefined ? { decays_from: decaysFrom } : {}) } } as unknown as Memory, crafted);
  const related = [`related ${A}`];

  it('stands: no link, exact names with their kinds recorded, untyped labels, notes without a memory', () => {
    expect(stands('No links, [single] brackets.')).toBe(true);
    expect(stands('See [[Alpha]].', related)).toBe(true);
    expect(stands('See [[Alpha#Part|related]] and [[Alpha]].', related)).toBe(true);
    expect(stands('See [[Alpha|in other words]].')).toBe(true);
    expect(stands('See [[Alpha|supersedes]].', [`supersedes ${A}`])).toBe(true);
    expect(stands('See [[Daily note]] and [[daily NOTE|related]].')).toBe(true);
    expect(stands('Text.', [`decays_from ${A}`], '[[Alpha]]')).toBe(true);
  });

  it('does not stand: a name to rewrite, one that resolves nowhere, a path or .md, an id to record', () => {
    expect(stands('See [[alpha]].', related)).toBe(false);
    expect(stands(`See [[${A}]].`, related)).toBe(false);
    expect(stands('See [[Alpha.md]].', related)).toBe(false);
    expect(stands('See [[Alpha.MD]].', related)).toBe(false);
    expect(stands('See [[notes/Alpha]].', related)).toBe(false);
    expect(stands('See [[ Alpha]].', related)).toBe(false);
    expect(stands('See [[Nowhere]].', related)).toBe(false);
    expect(stands('See [[Alpha]].')).toBe(false);
    expect(stands('See [[Alpha]].', `related ${A}`)).toBe(false);
    expect(stands('See [[Alpha| ]].', [])).toBe(false);
    expect(stands('See [[Alpha|supersedes]].', related)).toBe(false);
    expect(stands('See [[Alpha]].', [` related ${A}`])).toBe(false);
    expect(stands('See [[Odd]].', ['related mem-ODD'])).toBe(false);
    expect(stands('See [[Alpha]] and [[Beta]].', related)).toBe(false);
    expect(stands('Text.', related, '[[Alpha]]')).toBe(false);
    expect(stands('Text.', [`decays_from ${A}`], '[[alpha]]')).toBe(false);
  });

  it('finds the link recorded as `kind id` exactly, among entries of any kind', () => {
    // recorded among other values: numbers, null, a hole, other links
    expect(stands('See [[Alpha]].', [42, null, , 'related mem-bbbbbbbbbbbb', `related ${A}`])).toBe(true);
    expect(stands('See [[Alpha|supersedes]].', [`related ${A}`, `supersedes ${A}`])).toBe(true);
    // the same length, one character off: the separator, the kind, the id; longer, shorter
    expect(stands('See [[Alpha]].', [`related_${A}`])).toBe(false);
    expect(stands('See [[Alpha]].', [`relates ${A}`])).toBe(false);
    expect(stands('See [[Alpha]].', ['related mem-aaaaaaaaaaab'])).toBe(false);
    expect(stands('See [[Alpha]].', [`related ${A} `, `related  ${A}`, `related ${A.slice(0, -1)}`])).toBe(false);
    expect(stands('See [[Alpha]].', [[`related ${A}`], { [`related ${A}`]: true }])).toBe(false);
  });

  it('agrees with the full plan on random vaults: what it lets stand, a repair of every link leaves too', async () => {
    const random = seededRandom('links-stand');
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const counts = { stands: 0, planned: 0 };
    const rewrites: number[] = [];
    for (let round = 0; round < 12; round++) {
      const { vault, files } = memoryVault(NOW);
      const ids = Array.from({ length: 14 }, (_, i) => `mem-${String(round).padStart(2, '0')}${'abcdefghijklmn'[i]!.repeat(10)}`);
      const nameOf = new Map(ids.map((id, i) => [id, `Note ${i}`]));
      files.files.set('daily/Day one.md', '# a daily note\n');
      for (const [i, id] of ids.entries()) {
        const targets: string[] = [];
        const links = Array.from({ length: Math.floor(random() * 4) }, () => {
          const to = pick(ids);
          const name = nameOf.get(to)!;
          const target = pick([name, name, name, name.toLowerCase(), `${name}.md`, `episodic/${name}`, to, 'Nowhere', 'Day one', 'Note 0 2']);
          const label = pick([undefined, undefined, 'related', 'supersedes', 'decays_from', ' ', 'in words']);
          if (target !== 'Nowhere' && target !== 'Day one' && target !== 'Note 0 2') targets.push(`${label === undefined || label === ' ' || label === 'in words' ? 'related' : label} ${to}`);
          return `[[${target}${pick(['', '', '#Part'])}${label === undefined ? '' : `|${label}`}]]`;
        });
        const recorded = targets.filter(() => random() < 0.85);
        const fields: Record<string, string> = { id, category: 'episodic', created_at: '2026-11-01T00:00:00Z' };
        if (recorded.length > 0) fields.link_ids = JSON.stringify(recorded);
        if (random() < 0.2) {
          const to = pick(ids);
          fields.decays_from = JSON.stringify(`[[${pick([nameOf.get(to)!, nameOf.get(to)!.toLowerCase()])}]]`);
          if (random() < 0.8) fields.link_ids = JSON.stringify([...recorded, `decays_from ${to}`]);
        }
        files.files.set(`episodic/Note ${i}.md`, memoryNote(fields, `Text ${i}. ${links.join(' ')}\n`));
      }
      // a copy of a memory (a sync tool's): its name is listed, and resolves to no memory
      files.files.set('episodic/Note 0 2.md', files.files.get('episodic/Note 0.md')!);
      const loaded = await vault.loadAll({ keep: true });
      const given = { loaded: { memories: loaded.memories, paths: loaded.paths!, read: loaded.read! } };
      const n = await names(vault, new Map(), given);
      const standing = new Set(loaded.memories.filter((m) => linksStand(m, n)).map((m) => m.path));
      counts.stands += standing.size;
      counts.planned += loaded.memories.length - standing.size;
      // every link planned (no fast path): rewrites and recorded ids, none in a memory that stands
      const full = await repairLinks(vault, { apply: false, ...given });
      expect(full.rewritten.filter((r) => standing.has(r.path))).toEqual([]);
      expect(full.recorded.filter((path) => standing.has(path))).toEqual([]);
      const quick = await repairLinks(vault, { apply: false, rewritesOnly: true, ...given });
      expect(quick.rewritten).toEqual(full.rewritten);
      expect(quick.skipped).toEqual([]);
      rewrites.push(quick.rewritten.length);
    }
    expect(counts).toEqual({ stands: 74, planned: 94 });
    expect(rewrites).toEqual([10, 7, 12, 6, 14, 13, 15, 4, 13, 4, 8, 9]);
  });
});
