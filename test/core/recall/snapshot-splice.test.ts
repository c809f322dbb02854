import type { FileStat } from '../../../src/core/ports';
import { CATALOG_PATH, catalogFingerprint, listMemoryFiles } from '../../../src/core/recall/catalog';
import type { RecallEngine } from '../../../src/core/recall/recall';
import { hydrate, openRecall, toResult } from '../../../src/core/recall/results';
import { decodeSnapshot, PackedStrings, SNAPSHOT_PATH, type ListedFile, type SnapshotHeader } from '../../../src/core/recall/snapshot';
import { unresolvedNames } from '../../../src/core/recall/snapshot-splice';
import { resolveSettings } from '../../../src/core/settings';
import { Vault } from '../../../src/core/vault';
import { at, memoryVault, MemoryFileStore } from '../../helpers/memory-ports';

/**
 * The recall snapshot spliced with the files a remember, a touch, an edit or a forget changed
 * (snapshot-splice.ts): each step below changes the vault, opens recall (which splices: the
 * catalog, removed before, is not written again), then checks that the snapshot written is the
 * one a rebuild from the same files writes, byte for byte, and that both answer alike.
 */

const NOW = '2026-05-03T00:00:00Z';
const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;

/** A file store whose files have an mtime of their own, moved on by each write (as a disk's). */
class StampedStore extends MemoryFileStore {
  readonly stamps = new Map<string, number>();
  private tick = 1;
  put(path: string, text: string): void {
    this.files.set(path, text);
    this.stamps.set(path, this.tick++);
  }
  override async stat(path: string): Promise<FileStat | null> {
    const stat = await super.stat(path);
    return stat && this.files.has(path) ? { ...stat, mtimeMs: this.stamps.get(path) ?? 0 } : stat;
  }
  override async write(path: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<FileStat | void> {
    await super.write(path, data, options);
    if (typeof data === 'string') this.stamps.set(path, this.tick++);
  }
}

function stampedVault() {
  const { vault, files } = memoryVault(NOW);
  const store = new StampedStore();
  (vault.ports as { files: unknown }).files = store;
  void files;
  return { vault, store };
}

const note = (n: number, body: string, extra = '') => `---\nid: ${id(n)}\ncategory: episodic\ncreated_at: "2026-05-01T00:${String(n).padStart(2, '0')}:00Z"\n${extra}---\n${body}\n`;

function seed(store: StampedStore): void {
  store.put(`episodic/b payments retries.md`, note(1, 'The payments service retries three times with backoff.', 'session: s1\n'));
  store.put(`episodic/d backoff.md`, note(2, `Backoff starts at 200 milliseconds. [[${id(1)}|related]]`, 'session: s1\n'));
  store.put(`episodic/f lunch.md`, note(3, 'Lunch was pizza on Friday.', `co_access: {"${id(1)}": 3, "${id(40)}": 2}\n`));
  store.put(`episodic/h grafana.md`, note(4, `Payments dashboards are in Grafana. [[${id(3)}|related]]`, 'agent_role: sre\ntags: [dashboards]\n'));
  store.put(`episodic/j broken.md`, '---\nid: [unclosed\n---\nnot a memory\n');
  store.put(`semantic/k deploys.md`, note(5, 'Deploys go out on Tuesdays after the freeze.', `superseded_by: ${id(41)}\n`).replace('episodic', 'semantic'));
  store.put(`archive/episodic/m old.md`, note(6, 'The old payments gateway timed out after 30 seconds.', 'tier: archive\n'));
}

const QUERIES = ['payments retries', 'backoff', 'lunch pizza', 'grafana dashboards', 'deploys tuesday', 'ledger export queue', 'gateway timeout'];

function answers(engine: RecallEngine): string {
  return JSON.stringify(QUERIES.map((q) => engine.recall(q, { limit: 10, radius: 'all' }, at(NOW)).map((h) => toResult(h, true))));
}

/** The answers as the CLI gives them: each hit's text read from its file (a row patched from its file holds it already, a rebuilt one does not). */
async function hydrated(vault: ReturnType<typeof stampedVault>['vault'], engine: RecallEngine): Promise<string> {
  const out = [];
  for (const q of QUERIES) out.push((await hydrate(vault, engine.recall(q, { limit: 10, radius: 'all' }, at(NOW)))).map((h) => toResult(h, true)));
  return JSON.stringify(out);
}

/** Open recall after a change: whether it spliced (the catalog stayed away), and the snapshot against a rebuild's. */
async function openAndCompare(vault: ReturnType<typeof stampedVault>['vault'], store: StampedStore): Promise<{ spliced: boolean; header: SnapshotHeader }> {
  store.files.delete(CATALOG_PATH);
  const engine = await openRecall(vault);
  const spliced = !store.files.has(CATALOG_PATH);
  const bytes = store.binary.get(SNAPSHOT_PATH)!;
  const header = decodeSnapshot(bytes)!.raw.header as SnapshotHeader;
  const said = answers(engine);
  store.binary.delete(SNAPSHOT_PATH);
  store.files.delete(CATALOG_PATH);
  const rebuilt = await openRecall(vault);
  expect(Buffer.from(bytes)).toEqual(Buffer.from(store.binary.get(SNAPSHOT_PATH)!));
  expect(said).toBe(answers(rebuilt));
  return { spliced, header };
}

/** The snapshot as an older build wrote it: the header without its unresolved names, the sections left where they are (same length: padded with spaces). */
function olderSnapshot(store: StampedStore): Uint8Array {
  const bytes = store.binary.get(SNAPSHOT_PATH)!;
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  const json = new TextDecoder().decode(bytes.subarray(12, 12 + length));
  const older = json.replace(/,"unresolved":\[[^\]]*(\][^\]]*)*?\]\]/, '');
  expect(older).not.toContain('unresolved');
  const copy = bytes.slice();
  copy.set(new TextEncoder().encode(older.padEnd(length, ' ')), 12);
  store.binary.set(SNAPSHOT_PATH, copy);
  expect(decodeSnapshot(copy)!.raw.header.unresolved).toBeUndefined();
  return copy;
}

describe('a snapshot spliced with the files that changed', () => {
  it('follows a remember, several remembers, a touch, an edit of words, a forget and a move, each as a rebuild would', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    expect(decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.raw.header.unresolved).toEqual([
      [2, id(40)],
      [4, id(41)],
    ]);

    // a remember: a new file between others, new words, a link to a memory and to none
    store.put(`episodic/c ledger.md`, note(7, `The ledger export queue drains every 12 minutes. [[${id(4)}|related]] [[${id(42)}|related]]`));
    let step = await openAndCompare(vault, store);
    expect(step.spliced).toBe(true);
    expect(step.header.unresolved).toEqual([
      [1, id(42)],
      [3, id(40)],
      [5, id(41)],
    ]);

    // several remembers in a row, one of them first of all, one last of all
    store.put(`episodic/a queue.md`, note(8, 'The export queue is watched by the ledger team.'));
    store.put(`semantic/z zebra.md`, note(9, 'Zebra crossings near the office.', `superseded_by: ${id(43)}\n`).replace('episodic', 'semantic'));
    store.put(`episodic/e retries again.md`, note(10, 'Retries of the ledger export back off too.', `co_access: {"${id(7)}": 1}\n`));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);

    // a touch of a session's member: its fields change, not its words
    store.put(`episodic/d backoff.md`, note(2, `Backoff starts at 200 milliseconds. [[${id(1)}|related]]`, 'session: s1\naccess_count: 3\ntier: core\n'));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);

    // an edit of words (Obsidian): old postings out, new ones in; a term no one holds goes
    store.put(`episodic/f lunch.md`, note(3, 'Lunch was sushi on Monday.', `co_access: {"${id(1)}": 3, "${id(40)}": 2}\n`));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);

    // a forget: the memory others link to is gone, their links become unresolved
    store.files.delete(`episodic/h grafana.md`);
    step = await openAndCompare(vault, store);
    expect(step.spliced).toBe(true);
    expect(step.header.unresolved!.map((u) => u[1])).toContain(id(4));

    // a move (to the archive and back): the same id at another path, links follow it
    const text = store.files.get(`episodic/c ledger.md`)!;
    store.files.delete(`episodic/c ledger.md`);
    store.put(`archive/episodic/c ledger.md`, text);
    expect((await openAndCompare(vault, store)).spliced).toBe(true);

    // a supersession: the new memory links the old, the old names its successor
    store.put(`semantic/l deploys now.md`, note(11, `Deploys go out on Wednesdays now. [[${id(5)}|supersedes]]`).replace('episodic', 'semantic'));
    store.put(`semantic/k deploys.md`, note(5, 'Deploys go out on Tuesdays after the freeze.', `superseded_by: ${id(11)}\n`).replace('episodic', 'semantic'));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);

    // the unreadable file repaired: a memory now
    store.put(`episodic/j broken.md`, note(12, 'Repaired note about payments.'));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);
  });

  it('follows a memory broken by an edit, a self link, a successor gone and one come back elsewhere, each as a rebuild would', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    // a memory's frontmatter broken in an editor: its row goes, the file stays listed; its links become unresolved
    const lunch = store.files.get(`episodic/f lunch.md`)!;
    store.put(`episodic/f lunch.md`, lunch.replace(`id: ${id(3)}`, 'id: [unclosed'));
    let step = await openAndCompare(vault, store);
    expect(step.spliced).toBe(true);
    expect(step.header.unresolved).toEqual([
      [2, id(3)],
      [3, id(41)],
    ]);
    // a new memory naming itself (a link, a co-access, a successor): no edge, nothing unresolved
    store.put(`episodic/c self.md`, note(7, `Self reference about queues. [[${id(7)}|related]]`, `co_access: {"${id(7)}": 2}\nsuperseded_by: ${id(7)}\n`));
    step = await openAndCompare(vault, store);
    expect(step.spliced).toBe(true);
    expect(step.header.unresolved).toEqual([
      [3, id(3)],
      [4, id(41)],
    ]);
    // a successor written (the superseded memory naming it); moved to the archive: found again by id; then gone: unresolved
    store.put(`semantic/l deploys now.md`, note(11, 'Deploys go out on Wednesdays now.').replace('episodic', 'semantic'));
    store.put(`semantic/k deploys.md`, note(5, 'Deploys go out on Tuesdays after the freeze.', `superseded_by: ${id(11)}\n`).replace('episodic', 'semantic'));
    step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.unresolved]).toEqual([true, [[3, id(3)]]]);
    const successor = store.files.get(`semantic/l deploys now.md`)!;
    store.files.delete(`semantic/l deploys now.md`);
    store.put(`archive/semantic/l deploys now.md`, successor);
    step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.unresolved]).toEqual([true, [[3, id(3)]]]);
    store.files.delete(`archive/semantic/l deploys now.md`);
    step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.unresolved]).toEqual([
      true,
      [
        [3, id(3)],
        [4, id(11)],
      ],
    ]);
    // the repair: the links to it resolve again
    store.put(`episodic/f lunch.md`, lunch);
    step = await openAndCompare(vault, store);
    expect(step.spliced).toBe(false); // its id was named, unresolved, by a kept memory
  });

  it('follows the first row touched, a rename keeping size and mtime, files past the last, an empty file, new words at the end, each link kind, names gone twice from one row', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    const splices = async (): Promise<boolean> => (await openAndCompare(vault, store)).spliced;
    const steps: boolean[] = [];
    // the first row, a session's member, touched: its fields and a co-access partner no file holds
    store.put(`episodic/b payments retries.md`, note(1, 'The payments service retries three times with backoff.', `session: s1\naccess_count: 2\nco_access: {"${id(59)}": 1}\n`));
    steps.push(await splices());
    // a memory superseded by the first row's
    store.put(`semantic/k deploys.md`, note(5, 'Deploys go out on Tuesdays after the freeze.', `superseded_by: ${id(1)}\n`).replace('episodic', 'semantic'));
    steps.push(await splices());
    // a rename to a name of the same length, the size and mtime kept (as a rename keeps them)
    const grafana = store.files.get(`episodic/h grafana.md`)!;
    const stamp = store.stamps.get(`episodic/h grafana.md`)!;
    store.files.delete(`episodic/h grafana.md`);
    store.files.set(`episodic/h grafanb.md`, grafana);
    store.stamps.set(`episodic/h grafanb.md`, stamp);
    steps.push(await splices());
    // a file listed after every other, an empty file (no memory)
    store.put(`archive/episodic/z late.md`, note(20, 'A late archived note about queues.', 'tier: archive\n'));
    store.put(`episodic/e empty.md`, '');
    steps.push(await splices());
    // new words past every word known, not in alphabetical order; then an edit adding another, no word gone
    store.put(`episodic/g words.md`, note(21, 'Zulu zebra.'));
    steps.push(await splices());
    store.put(`episodic/f lunch.md`, note(3, 'Lunch was pizza on Friday, zymurgy.', `co_access: {"${id(1)}": 3, "${id(40)}": 2}\n`));
    steps.push(await splices());
    // decays_from and contradicts links; a row naming one memory twice (a link and a co-access) and another after it
    store.put(`episodic/c decays.md`, note(22, `Decays note. [[${id(2)}|decays_from]] [[${id(4)}|contradicts]]`));
    store.put(`episodic/x names.md`, note(23, `Names note. [[${id(4)}|related]]`, `co_access: {"${id(4)}": 1, "${id(3)}": 2}\n`));
    steps.push(await splices());
    store.files.delete(`episodic/h grafanb.md`);
    store.files.delete(`episodic/f lunch.md`);
    const gone = await openAndCompare(vault, store);
    steps.push(gone.spliced);
    expect(gone.header.unresolved!.filter(([, name]) => name === id(3) || name === id(4))).toEqual([
      [1, id(4)],
      [4, id(3)],
      [4, id(4)],
    ]);
    expect(steps).toEqual([true, true, true, true, true, true, true, true]);
    // declined: the first row's id in a second file; the id it names, unresolved, in a new file; a memory gaining a session
    store.put(`episodic/zz copy.md`, note(1, 'A sync copy.'));
    expect(await splices()).toBe(false);
    store.files.delete(`episodic/zz copy.md`);
    expect(await splices()).toBe(false); // the snapshot does not know the ids distinct
    store.put(`episodic/y ninety.md`, note(59, 'The partner of the first memory.'));
    expect(await splices()).toBe(false);
    store.put(`episodic/g words.md`, note(21, 'Zulu zebra.', 'session: s2\n'));
    expect(await splices()).toBe(false);
    // a memory listed before the first: the successor's row moves
    store.put(`episodic/a first.md`, note(24, 'First of all.'));
    expect(await splices()).toBe(true);
  });

  it('names a gone memory once for each row that named it; a file that names an id leaving as the id comes is no decline', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    store.put(`episodic/c one.md`, note(7, `One names grafana. [[${id(4)}|related]]`));
    store.put(`episodic/e two.md`, note(8, `Two names grafana. [[${id(4)}|related]]`));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);
    store.files.delete(`episodic/h grafana.md`);
    let step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.unresolved]).toEqual([
      true,
      [
        [1, id(4)],
        [3, id(4)],
        [4, id(40)],
        [5, id(41)],
      ],
    ]);
    // lunch, which named id(40) while no file held it, goes as id(40)'s file comes
    store.files.delete(`episodic/f lunch.md`);
    store.put(`episodic/n partner.md`, note(40, 'The partner memory comes back.'));
    step = await openAndCompare(vault, store);
    expect(step.spliced).toBe(true);
  });

  it('tells a new path from a listed one it begins (a name that goes on past ".md")', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    store.put(`episodic/c ledger.md x.md`, note(7, 'The ledger export queue drains every 12 minutes.'));
    await openRecall(vault);
    store.put(`episodic/c ledger.md`, note(8, 'The ledger team watches the export queue.'));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);
  });

  it('keeps the episode index\'s terms apart, or as the word index\'s, as a rebuild finds them', async () => {
    const { vault, store } = stampedVault();
    store.put(`episodic/a.md`, note(1, 'Payments retry with backoff.', 'session: s1\n'));
    store.put(`episodic/b.md`, note(2, 'Backoff doubles each time.', 'session: s2\n'));
    await openRecall(vault);
    expect(decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.raw.header.sameTerms).toBe(true);
    // a memory of no session with words of its own: the word index's terms are no longer the episodes'
    store.put(`episodic/c.md`, note(3, 'Zebra crossings outside.'));
    let step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.sameTerms]).toEqual([true, false]);
    // and gone again: they are
    store.files.delete(`episodic/c.md`);
    step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.sameTerms]).toEqual([true, true]);
  });

  it('declines what it cannot follow, and recall rebuilds: an id others named while it was missing, a session gained or lost, a new session, an id held twice', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    // id(40) is a co-access partner of memory 3 that no file held: its file brings the link to life
    store.put(`episodic/n partner.md`, note(40, 'The partner memory comes back.'));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    // a new memory of a session
    store.put(`episodic/o session.md`, note(13, 'A new member of the session.', 'session: s1\n'));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    // a member leaves its session (its words kept)
    store.put(`episodic/b payments retries.md`, note(1, 'The payments service retries three times with backoff.'));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    // a session member's words change
    store.put(`episodic/d backoff.md`, note(2, `Backoff starts at 300 milliseconds. [[${id(1)}|related]]`, 'session: s1\n'));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    // a session member removed
    store.files.delete(`episodic/o session.md`);
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    // a second file with an id a kept memory holds (a sync copy)
    store.put(`episodic/p copy.md`, note(3, 'A copy of lunch.'));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
  });

  it('declines a vault where two files hold one id, then splices once the copy is gone and the rebuild knows the ids distinct', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    store.put(`episodic/g copy.md`, note(3, 'A sync copy of lunch.'));
    await openRecall(vault);
    expect(decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.raw.header.uniqueIds).toBe(false);
    store.put(`episodic/c ledger.md`, note(7, 'The ledger export queue drains every 12 minutes.'));
    let step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.uniqueIds]).toEqual([false, false]);
    store.files.delete(`episodic/g copy.md`);
    step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.uniqueIds]).toEqual([false, true]);
    store.put(`episodic/e queue.md`, note(8, 'The export queue is watched by the ledger team.'));
    step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.uniqueIds]).toEqual([true, true]);
  });

  it('declines two new files holding one id (a rebuild keeps both rows)', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    store.put(`episodic/c ledger.md`, note(7, 'The ledger export queue drains every 12 minutes.'));
    store.put(`episodic/e ledger copy.md`, note(7, 'The ledger export queue drains every 12 minutes, a copy.'));
    const step = await openAndCompare(vault, store);
    expect([step.spliced, step.header.uniqueIds]).toEqual([false, false]);
  });

  it('declines a new file whose role holds a lone surrogate (the rebuild keeps that column as JSON), and then any change while it is', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    store.put(`episodic/c ledger.md`, note(7, 'The ledger export queue drains every 12 minutes.', 'agent_role: "sre\\ud800"\n'));
    let step = await openAndCompare(vault, store);
    expect([step.spliced, Object.keys(step.header.json)]).toEqual([false, ['role']]);
    store.put(`episodic/e queue.md`, note(8, 'The export queue is watched by the ledger team.'));
    step = await openAndCompare(vault, store);
    expect([step.spliced, Object.keys(step.header.json)]).toEqual([false, ['role']]);
    store.files.delete(`episodic/c ledger.md`);
    step = await openAndCompare(vault, store);
    expect([step.spliced, Object.keys(step.header.json)]).toEqual([false, []]);
  });

  it('declines a listing without sizes and mtimes (a scan for a load that reads every file), which the rebuild fills in', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    store.put(`episodic/c ledger.md`, note(7, 'The ledger export queue drains every 12 minutes.'));
    const unstated: ListedFile[] = (await listMemoryFiles(vault)).map(([path]) => [path, -1, -1]);
    store.files.delete(CATALOG_PATH);
    const said = answers(await openRecall(vault, unstated));
    expect(store.files.has(CATALOG_PATH)).toBe(true);
    const bytes = store.binary.get(SNAPSHOT_PATH)!;
    store.binary.delete(SNAPSHOT_PATH);
    store.files.delete(CATALOG_PATH);
    expect(answers(await openRecall(vault))).toBe(said);
    expect(Buffer.from(bytes)).toEqual(Buffer.from(store.binary.get(SNAPSHOT_PATH)!));
  });

  it('declines a new file with a word more often than a posting counts (16 bits), which the rebuild counts as 65,535', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    store.put(`episodic/c many.md`, note(7, `Payments ${'qz '.repeat(65_536)}`));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    const raw = decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.raw;
    expect(Math.max(...(raw.view('lexTfs') as Uint16Array))).toBe(65_535);
    // one fewer: spliced
    store.put(`episodic/e fewer.md`, note(8, `${'qy '.repeat(65_535)}`));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);
  });

  it('neither opens nor splices a snapshot made under other settings: the rebuild writes the catalog and the new fingerprint', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    const before = decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.fingerprint;
    const other = new Vault(vault.ports, resolveSettings({ maxFileBytes: 128 * 1024 }));
    store.files.delete(CATALOG_PATH);
    await openRecall(other);
    expect(store.files.has(CATALOG_PATH)).toBe(true);
    const after = decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.fingerprint;
    expect([after === before, after]).toEqual([false, catalogFingerprint(other.settings)]);
    // and with a file changed too (a splice would follow it)
    store.put(`episodic/c ledger.md`, note(7, 'The ledger export queue drains every 12 minutes.'));
    store.files.delete(CATALOG_PATH);
    await openRecall(vault);
    expect([store.files.has(CATALOG_PATH), decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.fingerprint]).toEqual([true, before]);
  });

  it('declines a snapshot written without its unresolved names (an older build), which the rebuild then writes', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    olderSnapshot(store);
    store.put(`episodic/c ledger.md`, note(7, 'The ledger export queue drains every 12 minutes.'));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    expect(decodeSnapshot(store.binary.get(SNAPSHOT_PATH)!)!.raw.header.unresolved).toBeDefined();
  });

  it('after a declined splice, patches the rows of files changed in their fields only (a touch), without the catalog, answering as a rebuild', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    const older = olderSnapshot(store); // the splice declines it
    // a touch of memory 4: its fields change, its words, dates and episode do not
    store.put(`episodic/h grafana.md`, note(4, `Payments dashboards are in Grafana. [[${id(3)}|related]]`, 'agent_role: sre\ntags: [dashboards]\naccess_count: 5\ntier: core\n'));
    store.files.delete(CATALOG_PATH);
    const engine = await openRecall(vault);
    // patched: no catalog read or written, the snapshot written again in the older form, with the file's new stamp and tier
    expect(store.files.has(CATALOG_PATH)).toBe(false);
    const patched = store.binary.get(SNAPSHOT_PATH)!;
    expect(Buffer.from(patched)).not.toEqual(Buffer.from(older));
    const raw = decodeSnapshot(patched)!.raw;
    expect(raw.header.unresolved).toBeUndefined();
    expect(Array.from(raw.view('listMtime') as Float64Array)).toEqual([1, 2, 3, 9, 5, 6, 7]);
    expect(Array.from(raw.view('accessCount') as Float64Array)).toEqual([0, 0, 0, 5, 0, 0]);
    const said = await hydrated(vault, engine);
    expect(said).toContain('"tier":"core"');
    // the next recall opens it as it is
    expect((await openRecall(vault)) && store.binary.get(SNAPSHOT_PATH)).toBe(patched);
    store.binary.delete(SNAPSHOT_PATH);
    expect(await hydrated(vault, await openRecall(vault))).toBe(said);
    expect(store.files.has(CATALOG_PATH)).toBe(true);
  });

  it('declines more changed files than the share a rebuild costs no more than', async () => {
    const { vault, store } = stampedVault();
    seed(store);
    await openRecall(vault);
    for (let n = 0; n < 17; n++) store.put(`episodic/q${String(n).padStart(2, '0')}.md`, note(20 + n, `Bulk note ${n} about queues.`));
    expect((await openAndCompare(vault, store)).spliced).toBe(false);
    for (let n = 0; n < 16; n++) store.put(`episodic/r${String(n).padStart(2, '0')}.md`, note(50 + n, `Second bulk note ${n} about queues.`));
    expect((await openAndCompare(vault, store)).spliced).toBe(true);
  });
});

describe('unresolvedNames', () => {
  it('lists each name a document gives that no document holds, by row then id, once each; its own id and supersedes links are not named', () => {
    const doc = (docId: string, extra: Partial<{ links: Array<{ target: string; kind: 'related' | 'supersedes' | 'decays_from' | 'contradicts' }>; co_access: Record<string, number>; superseded_by: string | null }>) =>
      ({ id: docId, links: [], co_access: {}, superseded_by: null, ...extra }) as never;
    expect(
      unresolvedNames([
        doc('a', { links: [{ target: 'z', kind: 'related' }, { target: 'b', kind: 'related' }, { target: 'y', kind: 'supersedes' }], co_access: { z: 1, x: 2 } }),
        doc('b', { links: [{ target: 'b', kind: 'decays_from' }, { target: 'w', kind: 'contradicts' }], superseded_by: 'v' }),
        doc('c', {}),
        doc('d', { links: [{ target: 'u', kind: 'decays_from' }, { target: 't', kind: 'related' }], co_access: { s: 1 } }),
      ]),
    ).toEqual([
      [0, 'x'],
      [0, 'z'],
      [1, 'v'],
      [1, 'w'],
      [3, 's'],
      [3, 't'],
      [3, 'u'],
    ]);
    expect(unresolvedNames([doc('a', {}), doc('b', { superseded_by: 'a', co_access: { a: 1 } })])).toEqual([]);
    // names met in an order neither sorted nor reversed come out sorted
    expect(unresolvedNames([doc('a', { links: [{ target: 'm', kind: 'related' }], co_access: { n: 1, l: 2 } })])).toEqual([
      [0, 'l'],
      [0, 'm'],
      [0, 'n'],
    ]);
  });
});

describe('PackedStrings.find', () => {
  it('finds a whole entry only (not part of one, not across two), the first of equal ones; -1 for none or the empty string', () => {
    const packed = new PackedStrings('abcabcdbc', Int32Array.from([3, 7, ~7, 9]));
    expect(packed.find('abc')).toBe(0);
    expect(packed.find('abcd')).toBe(1);
    expect(packed.find('bc')).toBe(3);
    expect(packed.find('ca')).toBe(-1);
    expect(packed.find('b')).toBe(-1);
    expect(packed.find('')).toBe(-1);
    expect(new PackedStrings('xyxy', Int32Array.from([2, 4])).find('xy')).toBe(0);
    expect(new PackedStrings('xxy', Int32Array.from([1, 3])).find('xy')).toBe(1);
  });
});
