import { saveVectors } from '../../src/core/embeddings/store';
import { importLines, type ImportLine, type ImportSummary } from '../../src/core/import';
import type { Embedder } from '../../src/core/ports';
import { remember } from '../../src/core/remember';
import { Vault } from '../../src/core/vault';
import { memoryVault, type MemoryFileStore } from '../helpers/memory-ports';

/**
 * An import writes as it goes (issue 22, finding 3): a run killed while it plans a later batch
 * keeps the batches it wrote, and running it again ends in the same vault as one run.
 *
 * The kill is a fault hook, not a race: the embedder, which the import calls once for each
 * batch it plans, never answers when asked about the batch starting at line 101, as a process
 * killed there never goes on. The vault is then read as a restarted process would find it.
 */
const T0 = '2026-11-30T00:00:00Z';
const SUBJECTS = ['cache', 'queue', 'schema', 'deploy', 'runner', 'index', 'gateway', 'backup'];

/** 200 lines: sessions of four, a repeat every ninth line (a reinforcement), now and then a change of value (a supersession). */
function fileLines(): ImportLine[] {
  return Array.from({ length: 200 }, (_, i) => {
    const subject = SUBJECTS[i % SUBJECTS.length]!;
    const text =
      i % 9 === 8
        ? `The ${SUBJECTS[(i - 8) % SUBJECTS.length]} of service ${i - 8} keeps its setting ${(i - 8) * 7919}!`
        : `The ${subject} of service ${i} keeps its setting ${i * 7919}.`;
    return { text, session: `s${Math.floor(i / 4)}`, created_at: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(), line: i + 1 };
  });
}

/** Every text the same vector, orthogonal to the stored one: the embedder decides nothing, it only marks the batches. */
class MarkingEmbedder implements Embedder {
  readonly model = 'marking';
  calls: string[][] = [];
  constructor(private readonly hangAt: string | null = null, private readonly onHang: () => void = () => {}) {}
  embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push(texts);
    if (this.hangAt !== null && texts[0] === this.hangAt) {
      this.onHang();
      return new Promise(() => {}); // killed: nothing after this point happens
    }
    return Promise.resolve(texts.map(() => Float32Array.from([0, 1])));
  }
}

async function seeded(): Promise<{ vault: Vault; files: MemoryFileStore }> {
  const { vault, files } = memoryVault(T0);
  const { id } = await remember(vault, { text: 'Seed memory about the office plants.' });
  await saveVectors(vault, { model: 'marking', dimensions: 2, ids: [id], hashes: ['x'], vectors: Float32Array.from([1, 0]) });
  return { vault, files };
}

function snapshot(files: MemoryFileStore): Record<string, string> {
  return Object.fromEntries([...files.files.entries()].filter(([p]) => !p.startsWith('.engram/')).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const lines = () => fileLines().map((l) => ({ ...l }));
const count = (summary: ImportSummary, action: string, from: number, to: number) => summary.results.slice(from, to).filter((r) => r.action === action).length;

describe('import writes batch by batch', () => {
  it('a run killed while planning its third batch keeps the first two; the same import again ends in the vault one run makes', async () => {
    const whole = await seeded();
    const one = await importLines(whole.vault, lines(), { embedder: new MarkingEmbedder(), batchLines: 50 });
    expect([one.created, one.reinforced, one.conflicts, one.unchanged]).toEqual([178, 22, 0, 0]);

    const killed = await seeded();
    let hung!: () => void;
    const hang = new Promise<string>((resolve) => (hung = () => resolve('killed')));
    const embedder = new MarkingEmbedder(fileLines()[100]!.text, hung);
    const run = importLines(killed.vault, lines(), { embedder, batchLines: 50 }).then(() => 'finished');
    expect(await Promise.race([hang, run])).toBe('killed');
    // lines 1-100 were written (the session of lines 49-52 waited for line 51 to be planned)
    expect(embedder.calls.map((texts) => texts.length)).toEqual([50, 50, 50]);
    const kept = Object.keys(snapshot(killed.files)).filter((p) => p.startsWith('episodic/')).length;
    expect(kept).toBe(1 + count(one, 'created', 0, 100));

    // a restarted process runs the same import
    const again = new Vault(killed.vault.ports, killed.vault.settings);
    const restEmbedder = new MarkingEmbedder();
    const rest = await importLines(again, lines(), { embedder: restEmbedder, batchLines: 50 });
    expect([rest.created, rest.reinforced, rest.unchanged]).toEqual([count(one, 'created', 100, 200), count(one, 'reinforced', 100, 200), 100]);
    // only the lines it may create are embedded: none of the 100 written (found at their id, or,
    // for a line that reinforced another memory, its key kept by that memory)
    expect(restEmbedder.calls.map((texts) => texts.length)).toEqual([50, 50]);
    expect(restEmbedder.calls[0]![0]).toBe(fileLines()[100]!.text);
    expect(snapshot(killed.files)).toEqual(snapshot(whole.files));
  });

  it('the batch size does not change what an import decides or writes', async () => {
    const small = await seeded();
    const big = await seeded();
    const a = await importLines(small.vault, lines(), { embedder: new MarkingEmbedder(), batchLines: 7 });
    const b = await importLines(big.vault, lines(), { embedder: new MarkingEmbedder(), batchLines: 1000 });
    expect(a.results).toEqual(b.results);
    expect(snapshot(small.files)).toEqual(snapshot(big.files));
  });
});

/*
 * StrykerJS on stop 37's loops in import.ts (91fac65): the survivors these tests leave are
 * equivalent by construction.
 * - planUpTo's `waiting` set from the start, or `f instanceof Promise` forced true: every batch
 *   goes through Promise.all, which resolves to the same values in the same order (one await more).
 * - allNamed answering false for a list whose links are all named (`link.name === undefined`
 *   forced true, `return true` made false): namedLinks then runs, and keeps every named link as
 *   it is (the same objects, in order): an equal list, written the same.
 */
describe('import: a supersession within one import', () => {
  it('marks the older memory superseded_by the newer one, whose link names the older file', async () => {
    const { vault, files } = memoryVault(T0);
    const summary = await importLines(vault, [
      { text: 'The staging database is db-staging-2.internal.', created_at: '2026-11-01T10:00:00Z', line: 1 },
      { text: 'The staging database moved to db-staging-3.internal.', created_at: '2026-11-02T10:00:00Z', line: 2 },
    ]);
    const older = 'episodic/The staging database is db-staging-2.internal.md';
    const newer = 'episodic/The staging database moved to db-staging-3.internal.md';
    expect(summary.results).toEqual([
      { id: 'mem-ba309722d8fd', path: older, action: 'created' },
      { id: 'mem-0b51e182cdf7', path: newer, action: 'created', supersedes: ['mem-ba309722d8fd'] },
    ]);
    expect(files.files.get(older)).toContain('\naliases: ["The staging database is db-staging-2.internal"]\nsuperseded_by: mem-0b51e182cdf7\n---\n');
    // the link found by supersession names only an id; the import names it by the older file
    expect(files.files.get(newer)).toContain('\nlink_ids: ["supersedes mem-ba309722d8fd"]\n---\nThe staging database moved to db-staging-3.internal.\n\n[[The staging database is db-staging-2.internal|supersedes]]\n');
  });
});
