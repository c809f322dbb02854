import { CATALOG_PATH, catalogFingerprint, loadCatalog } from '../../../src/core/recall/catalog';
import { RecallEngine } from '../../../src/core/recall/recall';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at, memoryVault } from '../../helpers/memory-ports';

/**
 * The catalog keeps each memory's terms: a change to what analysis makes of a text (here the
 * stemmer's reading of a 3 inside a word) raises ANALYSIS_VERSION, and a catalog written under
 * the version before is parsed again instead of answering with the old terms.
 */

const NOW = at('2026-05-20T00:00:00Z');
const note = (id: string, body: string) => `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-05-01T00:00:00Z"\n---\n${body}\n`;

describe('the catalog and the analysis version', () => {
  it('finds "mp3" in the note that says mp3, not in the one about MPI, and rebuilds a catalog of the version before', async () => {
    const { vault, files } = memoryVault('2026-05-20T00:00:00Z');
    files.files.set('episodic/a.md', note('mem-aaaaaaaaaaaa', 'The mp3 export of the podcast broke on build 413.'));
    files.files.set('episodic/b.md', note('mem-bbbbbbbbbbbb', 'MPI jobs hang on the cluster after build 41.'));
    expect(catalogFingerprint(S)).toBe(`{"maxFileBytes":262144,"halfLifeDays":{"episodic":7,"semantic":30,"decision":90},"analysis":4}`);
    const first = await loadCatalog(vault);
    expect(first.parsed).toBe(2);
    const ids = (q: string) => new RecallEngine(first.docs, S).search(q, { limit: 5 }, NOW).hits.map((h) => h.doc.id);
    expect([ids('mp3'), ids('mpi'), ids('413'), ids('41i')]).toEqual([['mem-aaaaaaaaaaaa'], ['mem-bbbbbbbbbbbb'], ['mem-aaaaaaaaaaaa'], []]);
    const written = files.files.get(CATALOG_PATH)!;
    expect(written).toContain('"analysis\\":4');
    expect((await loadCatalog(vault)).parsed).toBe(0);
    files.files.set(CATALOG_PATH, written.replace('"analysis\\":4', '"analysis\\":3'));
    expect((await loadCatalog(vault)).parsed).toBe(2);
    expect(files.files.get(CATALOG_PATH)).toBe(written);
  });
});
