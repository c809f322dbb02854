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

  it('rebuilds instead of patching when a changed file indexes differently (its session) or a file of a session is added (no splice: snapshot-splice.test.ts)', async () => {
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

  it('hash the row\'s terms, facets and session as one text with newlines between', async () => {
    const { signatureOf } = await import('../../../src/core/recall/engine-update');
    // the figures of the hash of the joined text (c1aa2f6's signatureOf, which joined them):
    // snapshots written before keep their signatures
    expect([
      signatureOf('', '', null),
      signatureOf('observ auth', 'day:2025-12-01 month:2025-12', 's0'),
      signatureOf('a b', '', 'x\ny'),
      signatureOf('', '\u00e9\u0000', null),
      signatureOf('term\n', '\n', ''),
    ]).toEqual([7728068972349364, 4029372741359135, 7201179691035004, 3500400256640225, 2629419428022327]);
    // one text: parts that join to the same text hash the same, and a newline moved changes it
    expect(signatureOf('a\nb', 'c', 's')).toBe(signatureOf('a', 'b\nc', 's'));
    expect(signatureOf('ab', 'c', 's')).not.toBe(signatureOf('a', 'bc', 's'));
  });
});

describe('format 6: the string columns packed, made when read', () => {
  let parts: ReturnType<typeof partsFromDocs>;
  let files: Array<[string, number, number]>;
  beforeAll(() => {
    const docs = bodies.map((b, n) => toRecallDoc(parseMemory(`episodic/${id(n)}.md`, note(n, b, n === 3 ? `agent_role: sre\nsource: chat-${n}\n` : ''), S), false));
    parts = partsFromDocs(docs, S);
    files = docs.map((d, n) => [d.path, n, 0]);
  });

  it('packs strings and nulls as one text and the end of each, null where UTF-8 or the type would not give them back', async () => {
    const { packStrings, PackedStrings } = await import('../../../src/core/recall/snapshot');
    const packed = packStrings(['ab', null, '', 'c\u00e9d', undefined, '\u{1F680}x'])!;
    expect(Array.from(packed.ends)).toEqual([2, ~2, 2, 5, ~5, 8]);
    const text = new TextDecoder().decode(packed.text);
    expect(text).toBe('abc\u00e9d\u{1F680}x');
    const strings = new PackedStrings(text, packed.ends);
    expect([0, 1, 2, 3, 4, 5].map((i) => strings.at(i))).toEqual(['ab', null, '', 'c\u00e9d', null, '\u{1F680}x']);
    expect([strings.equals(0, 'ab'), strings.equals(0, 'a'), strings.equals(0, 'abc'), strings.equals(1, ''), strings.equals(2, ''), strings.equals(3, 'c\u00e9d'), strings.equals(5, '\u{1F680}x')]).toEqual([true, false, false, false, true, true, true]);
    expect([strings.start(0), strings.start(2), strings.start(5)]).toEqual([0, 2, 5]);
    expect(strings.allNull()).toBe(false);
    // every entry at once: the same values, each ending where it did (not only the same text joined)
    const paths = new PackedStrings('ab/cd/e', packStrings(['ab/c', 'd/e'])!.ends);
    expect([paths.equalsAll(['ab/c', 'd/e']), paths.equalsAll(['ab/', 'cd/e']), paths.equalsAll(['ab/c', 'd/f']), paths.equalsAll(['ab/c']), paths.equalsAll(['ab/c', 'd/e', ''])]).toEqual([true, false, false, false, false]);
    expect(new PackedStrings('ab/cd/e', packStrings(['ab/c', 'd/e', ''])!.ends).equalsAll(['ab/c', 'd/e'])).toBe(false);
    expect([strings.equalsAll(['ab', '', '', 'c\u00e9d', '', '\u{1F680}x']), new PackedStrings('', new Int32Array(0)).equalsAll([])]).toEqual([false, true]);
    expect(new PackedStrings('', packStrings([null, null])!.ends).allNull()).toBe(true);
    expect(new PackedStrings('', new Int32Array(0)).length).toBe(0);
    // a text that does not end where the last entry does is not the column
    expect(() => new PackedStrings('abc', packed.ends)).toThrow('a string column does not match its text');
    expect(packStrings(['a', 'b\uD800'])).toBeNull(); // a lone surrogate
    expect(packStrings(['a', 5 as unknown as string])).toBeNull();
    expect(Array.from(packStrings([])!.ends)).toEqual([]);
  });

  it('reads a lazy array as the array it stands for: entries made once, on first read', async () => {
    const { lazyArray } = await import('../../../src/core/recall/snapshot');
    const made: number[] = [];
    const list = lazyArray(4, (i) => (made.push(i), `s${i}`));
    expect(list.length).toBe(4);
    expect(Array.isArray(list)).toBe(true);
    expect([list[2], list[2], list[0]]).toEqual(['s2', 's2', 's0']);
    expect(made).toEqual([2, 0]);
    expect(list[4]).toBeUndefined();
    expect(made).toEqual([2, 0]);
    expect([1 in list, 4 in list, 'length' in list]).toEqual([true, false, true]);
    list[1] = 'set';
    expect(list[1]).toBe('set');
    expect(made).toEqual([2, 0]);
    expect(list.slice(0, 3)).toEqual(['s0', 'set', 's2']);
    expect(list.map((s) => s.toUpperCase())).toEqual(['S0', 'SET', 'S2', 'S3']);
    expect(made).toEqual([2, 0, 3]);
    expect(JSON.stringify(lazyArray(2, (i) => (i === 0 ? null : 'b')))).toBe('[null,"b"]');
    expect(Object.keys(lazyArray(2, (i) => `k${i}`))).toEqual(['0', '1']);
    expect(Object.entries(lazyArray(2, (i) => `k${i}`))).toEqual([['0', 'k0'], ['1', 'k1']]);
    expect([...lazyArray(3, (i) => i * 2)]).toEqual([0, 2, 4]);
    const counted: number[] = [];
    const keys = lazyArray(3, (i) => (counted.push(i), i));
    expect(['01' in keys, '1e0' in keys, '-0' in keys]).toEqual([false, false, false]);
    expect(counted).toEqual([]);
  });

  it('round-trips columns kept as JSON (a lone surrogate, a value not a string) and an episode index with terms of its own', () => {
    const t = parts.table;
    const odd = { ...parts, table: { ...t, source: t.source.map((s, i) => (i === 1 ? 'bad\uDC00' : i === 2 ? (7 as unknown as string) : s)), role: t.role.map((r, i) => (i === 0 ? 'ops' : r)) } };
    const snapshot = decodeSnapshot(encodeSnapshot(odd, files, 'fp'))!;
    const table = snapshot.parts(bm25Params(S)).table;
    expect([...table.source]).toEqual([...odd.table.source]);
    expect(table.source[2]).toBe(7);
    expect([...table.role]).toEqual(['ops', null, null, 'sre']);
    expect([...table.ids]).toEqual([0, 1, 2, 3].map(id));
    expect([...table.paths]).toEqual(files.map((f) => f[0]));
    expect([...table.session]).toEqual(['s0', 's1', 's0', 's1']);
    expect(snapshot.matches(files)).toBe(true);
    expect(snapshot.matches(files.map((f, i) => (i === 2 ? [`${f[0]}x`, f[1], f[2]] : f)))).toBe(false);
    expect(snapshot.matches(files.map((f, i) => (i === 2 ? ['episodic/other.md', f[1], f[2]] : f)))).toBe(false);
    expect(snapshot.matches(files.map((f, i) => (i === 3 ? [f[0], f[1], 1] : f)))).toBe(false);
    expect(snapshot.matches(files.map((f, i) => (i === 0 ? [f[0], 7, f[2]] : f)))).toBe(false);
    // two paths whose text joined is the same, split elsewhere
    const [first, second] = [files[0]![0], files[1]![0]];
    expect(snapshot.matches(files.map((f, i) => (i === 0 ? [`${first}${second.slice(0, 3)}`, f[1], f[2]] : i === 1 ? [second.slice(3), f[1], f[2]] : f)))).toBe(false);
    expect(snapshot.matches(files.slice(0, 3))).toBe(false);
    expect(snapshot.changedFiles(files.map((f, i) => (i === 3 ? [f[0], 9, f[2]] : f)))).toEqual([files[3]![0]]);
    expect(snapshot.changedFiles(files.map((f, i) => (i === 3 ? ['episodic/x.md', 9, f[2]] : f)))).toBeNull();
    // the episode index's terms differ from the word index's: both kept, each read back
    // (one term more, after the others, in no document)
    const arrays = parts.episodes.toArrays();
    const wider = { ...arrays, terms: [...arrays.terms, '\uffff'], offsets: Int32Array.from([...arrays.offsets, arrays.offsets[arrays.offsets.length - 1]!]) };
    const ownTerms = { ...parts, episodes: { toArrays: () => wider } as unknown as typeof parts.episodes };
    const same = decodeSnapshot(encodeSnapshot(parts, files, 'fp'))!;
    const own = decodeSnapshot(encodeSnapshot(ownTerms, files, 'fp'))!;
    const engines = [new RecallEngine(parts, S), new RecallEngine(same.parts(bm25Params(S)), S), new RecallEngine(own.parts(bm25Params(S)), S)];
    expect(own.parts(bm25Params(S)).episodes.df('\uffff')).toBe(0);
    expect((own.parts(bm25Params(S)).episodes.toArrays().terms as string[])[wider.terms.length - 1]).toBe('\uffff');
    expect(same.parts(bm25Params(S)).episodes.toArrays().terms).toBe(same.parts(bm25Params(S)).lexical.toArrays().terms);
    const answers = engines.map((e) => e.recall('payments retries backoff', { limit: 10, radius: 'all' }, NOW).map((h) => [h.doc.id, h.doc.path, h.doc.source, h.score]));
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('is not read from a snapshot of format 5 (recall rebuilds and writes format 6)', async () => {
    const bytes = encodeSnapshot(parts, files, 'fp');
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('ENGRAMS6');
    const five = bytes.slice();
    five.set(new TextEncoder().encode('ENGRAMS5'), 0);
    expect(decodeSnapshot(five)).toBeNull();
    const { vault, files: store } = memoryVault('2026-05-03T00:00:00Z');
    bodies.forEach((b, n) => store.files.set(`episodic/${id(n)}.md`, note(n, b)));
    const built = (await openRecall(vault)).recall('payments', { limit: 5, radius: 'all' }, NOW).map((h) => [h.doc.id, h.score]);
    const current = store.binary.get(SNAPSHOT_PATH)!;
    const old = current.slice();
    old.set(new TextEncoder().encode('ENGRAMS5'), 0);
    store.binary.set(SNAPSHOT_PATH, old);
    expect((await openRecall(vault)).recall('payments', { limit: 5, radius: 'all' }, NOW).map((h) => [h.doc.id, h.score])).toEqual(built);
    expect(Buffer.from(store.binary.get(SNAPSHOT_PATH)!)).toEqual(Buffer.from(current));
  });
});
