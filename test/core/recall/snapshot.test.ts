import { parseMemory } from '../../../src/core/memory';
import { CATALOG_PATH, toRecallDoc } from '../../../src/core/recall/catalog';
import { bm25Params, partsFromDocs, RecallEngine } from '../../../src/core/recall/recall';
import { openRecall } from '../../../src/core/recall/results';
import { decodeSnapshot, encodeSnapshot, SNAPSHOT_PATH } from '../../../src/core/recall/snapshot';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at, memoryVault } from '../../helpers/memory-ports';

const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
const note = (n: number, body: string, extra = '') =>
  `---\nid: ${id(n)}\ncategory: episodic\ncreated_at: "2026-05-01T00:0${n}:00Z"\nsession: s${n % 2}\n${extra}---\n${body}\n`;
const bodies = [
  'The payments service retries three times with backoff.',
  `Backoff starts at 200 milliseconds. [[${id(0)}|related]]`,
  'Lunch was pizza on Friday.',
  'Payments dashboards are in Grafana.',
];
const NOW = at('2026-05-03T00:00:00Z');

describe('recall snapshot', () => {
  // built before the tests, not while the file is collected: under a mutant that breaks them the
  // tests fail, rather than the file failing to run (Stryker's RuntimeError, out of the score)
  let parts: ReturnType<typeof partsFromDocs>;
  let files: Array<[string, number, number]>;
  beforeAll(() => {
    const docs = bodies.map((b, n) => toRecallDoc(parseMemory(`episodic/${id(n)}.md`, note(n, b, n === 3 ? `co_access: {"${id(0)}": 3}\nagent_role: sre\n` : ''), S), false));
    parts = partsFromDocs(docs, S);
    files = docs.map((d, n) => [d.path, n, 0]);
  });

  it('round-trips: an engine from the snapshot answers exactly as the one it was saved from', () => {
    const snapshot = decodeSnapshot(encodeSnapshot(parts, files, 'fp'))!;
    expect(snapshot.fingerprint).toBe('fp');
    expect(snapshot.matches(files)).toBe(true);
    expect(snapshot.matches(files.map((f, i) => (i === 1 ? [f[0], f[1], 5] : f)))).toBe(false);
    expect(snapshot.matches(files.slice(1))).toBe(false);
    const fresh = new RecallEngine(parts, S);
    const restored = new RecallEngine(snapshot.parts(bm25Params(S)), S);
    for (const query of ['payments retries', 'backoff', 'grafana sre', 'pizza']) {
      const strip = (hits: ReturnType<RecallEngine['recall']>) => hits.map((h) => [h.doc.id, h.score, h.explain.spread?.path ?? null]);
      expect(strip(restored.recall(query, { limit: 10, radius: 'all' }, NOW))).toEqual(strip(fresh.recall(query, { limit: 10, radius: 'all' }, NOW)));
    }
    expect(restored.doc(3).co_access).toEqual({ [id(0)]: 3 });
  });

  it('rejects a truncated or foreign file', () => {
    const bytes = encodeSnapshot(parts, files, 'fp');
    expect(decodeSnapshot(bytes.subarray(0, bytes.length - 16))).toBeNull();
    expect(decodeSnapshot(new TextEncoder().encode('not a snapshot at all'))).toBeNull();
  });

  it('is written on first open and used while the listing is unchanged; a changed file rebuilds it', async () => {
    const { vault, files: store } = memoryVault('2026-05-03T00:00:00Z');
    bodies.forEach((b, n) => store.files.set(`episodic/${id(n)}.md`, note(n, b)));
    await openRecall(vault);
    const first = store.binary.get(SNAPSHOT_PATH)!;
    expect(first).toBeDefined();
    await openRecall(vault);
    expect(store.binary.get(SNAPSHOT_PATH)).toBe(first);
    store.files.set(`episodic/${id(2)}.md`, note(2, 'Lunch was sushi on Friday, with the payments team.'));
    const engine = await openRecall(vault);
    expect(store.binary.get(SNAPSHOT_PATH)).not.toBe(first);
    expect(engine.recall('sushi', { limit: 5, radius: 'all' }, NOW).map((h) => h.doc.id)).toEqual([id(2)]);
  });

  it('patches the rows of files changed only in their fields (a touch), writing what a rebuild would', async () => {
    const { vault, files: store } = memoryVault('2026-05-03T00:00:00Z');
    bodies.forEach((b, n) => store.files.set(`episodic/${id(n)}.md`, note(n, b)));
    await openRecall(vault);
    store.files.delete(CATALOG_PATH);
    // touched: memory 2 gains accesses and a co-access link to memory 0; memory 3 changes tier and role
    store.files.set(`episodic/${id(2)}.md`, note(2, bodies[2]!, `access_count: 4\nlast_accessed_at: "2026-05-02T00:00:00Z"\nco_access: {"${id(0)}": 2}\n`));
    store.files.set(`episodic/${id(3)}.md`, note(3, bodies[3]!, 'tier: cold\nagent_role: sre\n'));
    const patched = await openRecall(vault);
    expect(store.files.has(CATALOG_PATH)).toBe(false); // the catalog was not needed
    const patchedBytes = store.binary.get(SNAPSHOT_PATH)!;
    expect(patched.doc(2).access_count).toBe(4);
    expect(patched.doc(2).co_access).toEqual({ [id(0)]: 2 });
    expect(patched.doc(3).tier).toBe('cold');
    expect(patched.doc(3).agent_role).toBe('sre');
    store.binary.delete(SNAPSHOT_PATH);
    const rebuilt = await openRecall(vault);
    expect(store.files.has(CATALOG_PATH)).toBe(true);
    expect(Buffer.from(patchedBytes)).toEqual(Buffer.from(store.binary.get(SNAPSHOT_PATH)!));
    const strip = (hits: ReturnType<RecallEngine['recall']>) => hits.map((h) => [h.doc.id, h.score, h.explain.spread?.path ?? null]);
    for (const query of ['payments retries', 'backoff', 'lunch pizza', 'grafana']) {
      expect(strip(patched.recall(query, { limit: 10, radius: 'all' }, NOW))).toEqual(strip(rebuilt.recall(query, { limit: 10, radius: 'all' }, NOW)));
    }
  });

  it('rebuilds instead of patching when a changed file indexes differently (its session) or a file is added', async () => {
    const { vault, files: store } = memoryVault('2026-05-03T00:00:00Z');
    bodies.forEach((b, n) => store.files.set(`episodic/${id(n)}.md`, note(n, b)));
    await openRecall(vault);
    store.files.delete(CATALOG_PATH);
    store.files.set(`episodic/${id(2)}.md`, note(2, bodies[2]!).replace('session: s0', 'session: s21'));
    expect((await openRecall(vault)).doc(2).session).toBe('s21');
    expect(store.files.has(CATALOG_PATH)).toBe(true);
    store.files.delete(CATALOG_PATH);
    store.files.set(`episodic/${id(4)}.md`, note(4, 'A new memory about pizza.'));
    expect((await openRecall(vault)).recall('pizza', { limit: 5, radius: 'all' }, NOW).map((h) => h.doc.id).sort()).toEqual([id(2), id(4)]);
    expect(store.files.has(CATALOG_PATH)).toBe(true);
  });
});

describe('the snapshot written in pieces', () => {
  it('writes by writeChunks, where the store has it, the bytes encodeSnapshot gives, each array a view of its own (no copy), padded to 8 bytes', async () => {
    const { snapshotPieces, joinPieces } = await import('../../../src/core/recall/snapshot');
    const docs = bodies.map((b, n) => toRecallDoc(parseMemory(`episodic/${id(n)}.md`, note(n, b), S), false));
    const parts = partsFromDocs(docs, S);
    const files: Array<[string, number, number]> = docs.map((d, n) => [d.path, n, 0]);
    const signatures = Float64Array.from(docs, (_, n) => n + 0.5);
    const pieces = snapshotPieces(parts, files, 'fp', signatures);
    const whole = encodeSnapshot(parts, files, 'fp', signatures);
    expect(Buffer.from(joinPieces(pieces))).toEqual(Buffer.from(whole));
    expect(decodeSnapshot(whole)!.signatures).toEqual(signatures);
    // the head (magic and length), the header, its padding, then arrays and their padding
    expect(pieces[0]!.length).toBe(12);
    expect(pieces.some((p) => p.buffer === parts.table.createdMs.buffer)).toBe(true);
    expect(pieces.some((p) => p.buffer === signatures.buffer)).toBe(true);
    let at = 0;
    for (const piece of pieces) {
      if (piece.buffer === parts.table.createdMs.buffer) expect(at % 8).toBe(0);
      at += piece.length;
    }
    expect(whole.length % 8).toBe(0);
    expect(joinPieces([])).toEqual(new Uint8Array(0));
    expect(Array.from(joinPieces([Uint8Array.of(1, 2), Uint8Array.of(), Uint8Array.of(3)]))).toEqual([1, 2, 3]);

    // openRecall through writeChunks and through write: the same file
    const chunked = memoryVault('2026-05-03T00:00:00Z');
    const plain = memoryVault('2026-05-03T00:00:00Z');
    let calls = 0;
    (chunked.files as unknown as { writeChunks: (p: string, c: Iterable<Uint8Array>) => Promise<void> }).writeChunks = async (path, chunks) => {
      const list = [...chunks].map((c) => c.slice());
      if (path === SNAPSHOT_PATH) {
        calls++;
        expect(list.length).toBeGreaterThan(2);
      }
      await chunked.files.write(path, joinPieces(list));
    };
    for (const { files: store } of [chunked, plain]) bodies.forEach((b, n) => store.files.set(`episodic/${id(n)}.md`, note(n, b)));
    await openRecall(chunked.vault);
    await openRecall(plain.vault);
    expect(calls).toBe(1);
    expect(Buffer.from(chunked.files.binary.get(SNAPSHOT_PATH)!)).toEqual(Buffer.from(plain.files.binary.get(SNAPSHOT_PATH)!));
  });
});

describe('the signatures a first load writes', () => {
  it('are each document\'s indexSignature, from its catalog row', async () => {
    const { MemoryFileStore } = await import('../../helpers/memory-ports');
    const { Vault } = await import('../../../src/core/vault');
    const { loadCatalog } = await import('../../../src/core/recall/catalog');
    const { indexSignature, signatureOf } = await import('../../../src/core/recall/engine-update');
    const { resolveSettings } = await import('../../../src/core/settings');
    const files = new MemoryFileStore();
    const note = (id: string, body: string, session: string | null) =>
      `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-05-01T10:00:00Z"\n${session ? `session: ${session}\n` : ''}---\n${body}\n`;
    files.files.set('episodic/a.md', note('mem-aaaaaaaaaaaa', 'Retry the webhook on 3 May 2026 with Alice', 's1'));
    files.files.set('episodic/b.md', note('mem-bbbbbbbbbbbb', 'the', null));
    files.files.set('episodic/c.md', 'not a memory');
    const vault = new Vault({ files, locks: { withLock: <T>(_k: string, fn: () => Promise<T>) => fn(), tryLock: async () => ({ release: async () => {} }) }, clock: { now: () => 0 }, random: Math.random } as never, resolveSettings(undefined));
    const catalog = await loadCatalog(vault, { useCache: false });
    expect(Array.from(catalog.signatures())).toEqual(catalog.docs.map(indexSignature));
    expect(catalog.docs.map((d) => d.terms.length)).toEqual([6, 0]); // words, and none: an empty row string
    expect(signatureOf('', '', null)).toBe(indexSignature({ terms: [], facets: [], session: null } as never));
  });
});
