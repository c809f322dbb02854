import { createHash } from 'node:crypto';
import type { FileStat } from '../../src/core/ports';
import { importLines } from '../../src/core/import';
import { AnalysedText } from '../../src/core/resonance';
import { CATEGORY_FOLDERS, memoryText, parseMemory } from '../../src/core/memory';
import { renderMemoryFile } from '../../src/core/memory-file';
import type { MemoryLink } from '../../src/core/links';
import { loadWriteContext, normaliseInput, remember, type RememberInput, type RememberResult } from '../../src/core/remember';
import { Vault } from '../../src/core/vault';
import { PIECE_LINES, SAVE_AFTER, WRITE_ANALYSIS_VERSION, WRITE_INDEX_PATH, WriteIndex, joined, renderedBodyText, savedRows } from '../../src/core/write-index';
import { MemoryFileStore, memoryNote, memoryVault } from '../helpers/memory-ports';

/**
 * The write index (write-index.ts): remember and import decide from rows kept in
 * .engram/cache/write-index.json, each trusted only while its file has the size and mtime of
 * the row. These tests state when a row is used, when the file is read again, and that a
 * vault written to by others meanwhile (another agent, a cron, Obsidian) is decided on as it is.
 */

/** The in-memory store with real mtimes: each write of a file gives it the next mtime, as a clock would. */
class TimedFileStore extends MemoryFileStore {
  readonly mtimes = new Map<string, number>();
  private tick = 1_000;
  /** Files the index read (the files a load parsed). */
  reads: string[] = [];

  override async read(path: string): Promise<Uint8Array | null> {
    if (!path.startsWith('.engram/')) this.reads.push(path);
    return super.read(path);
  }
  override async stat(path: string): Promise<FileStat | null> {
    const stat = await super.stat(path);
    return stat && this.files.has(path) ? { size: stat.size, mtimeMs: this.mtimes.get(path) ?? 0 } : stat;
  }
  override async write(path: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<FileStat> {
    await super.write(path, data, options);
    this.mtimes.set(path, ++this.tick);
    return (await this.stat(path)) ?? { size: 0, mtimeMs: 0 };
  }
  override async move(from: string, to: string): Promise<void> {
    await super.move(from, to);
    this.mtimes.set(to, this.mtimes.get(from) ?? 0);
  }
  /** Another program writes a file in place (no stat returned to us). */
  put(path: string, text: string, mtimeMs?: number): void {
    this.files.set(path, text);
    this.mtimes.set(path, mtimeMs ?? ++this.tick);
  }
}

const NOW = '2026-11-30T12:00:00Z';

function timedVault() {
  const { vault, files } = memoryVault(NOW);
  const timed = new TimedFileStore();
  Object.assign(vault.ports, { files: timed });
  void files;
  return { vault, files: timed };
}

const note = (id: string, body: string, fields: Record<string, string> = {}) =>
  memoryNote({ id, category: 'episodic', created_at: '2026-11-01T00:00:00Z', last_accessed_at: '2026-11-01T00:00:00Z', confidence: 'observed', ...fields }, `${body}\n`);

/** Writes `n` memories, each in its own file, and loads (and saves) the index once. */
async function seeded(n: number) {
  const { vault, files } = timedVault();
  for (let i = 0; i < n; i++) files.put(`episodic/m${String(i).padStart(3, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `The cache of service ${i} holds ${i * 7} entries.`));
  const index = await WriteIndex.load(vault);
  await index.save(vault);
  files.reads = [];
  return { vault, files, index };
}

describe('write index: which rows are trusted', () => {
  it('reads no memory file when every row matches its file, and reads again exactly the files written since', async () => {
    const { vault, files, index } = await seeded(40);
    expect(index.parsed).toBe(40);
    expect(files.files.has(WRITE_INDEX_PATH)).toBe(true);

    const again = await WriteIndex.load(vault);
    expect([again.parsed, again.memories.length, files.reads]).toEqual([0, 40, []]);

    // another program edits one (new size), rewrites one at its size (new mtime), adds one, deletes one
    files.put('episodic/m001.md', note('mem-000000000001', 'The cache of service 1 now holds no entries at all.'));
    const same = note('mem-000000000002', 'The queue of service 2 holds 14 entries.');
    expect(same.length).toBe(files.files.get('episodic/m002.md')!.length);
    files.put('episodic/m002.md', same);
    files.put('episodic/m999.md', note('mem-000000000999', 'A memory another agent wrote.'));
    files.files.delete('episodic/m003.md');

    const fresh = await WriteIndex.load(vault);
    expect(fresh.parsed).toBe(3);
    expect(files.reads.sort()).toEqual(['episodic/m001.md', 'episodic/m002.md', 'episodic/m999.md']);
    const byId = new Map(fresh.memories.map((m) => [m.id, m]));
    expect(byId.has('mem-000000000003')).toBe(false);
    expect([...byId.get('mem-000000000001')!.analysis.polarity.negated]).toEqual(['entri']);
    expect([...byId.get('mem-000000000002')!.analysis.polarity.terms]).toEqual(['queue', 'servic', '2', 'hold', '14', 'entri']);
    expect(byId.get('mem-000000000999')!.path).toBe('episodic/m999.md');
  });

  it('trusts a row only at the same size and mtime: a file put back with its old mtime but another size is read again', async () => {
    const { vault, files } = await seeded(SAVE_AFTER);
    const mtime = files.mtimes.get('episodic/m000.md')!;
    files.put('episodic/m000.md', note('mem-000000000000', 'The cache of service 0 was emptied on purpose.'), mtime);
    const index = await WriteIndex.load(vault);
    expect([index.parsed, files.reads]).toEqual([1, ['episodic/m000.md']]);
  });

  it('rebuilds from the markdown when the cache is damaged, of another format, or made for another file size limit', async () => {
    const { vault, files } = await seeded(SAVE_AFTER);
    const saved = files.files.get(WRITE_INDEX_PATH)!;
    files.files.set(WRITE_INDEX_PATH, saved.slice(0, 100));
    expect((await WriteIndex.load(vault)).parsed).toBe(SAVE_AFTER);
    files.files.set(WRITE_INDEX_PATH, saved.replace('"format":2', '"format":1'));
    expect((await WriteIndex.load(vault)).parsed).toBe(SAVE_AFTER);
    files.files.set(WRITE_INDEX_PATH, saved);
    expect((await WriteIndex.load(vault)).parsed).toBe(0);
    Object.assign(vault.settings, { maxFileBytes: vault.settings.maxFileBytes + 1 });
    expect((await WriteIndex.load(vault)).parsed).toBe(SAVE_AFTER);
  });

  it(`is written again once ${SAVE_AFTER} rows changed (or 1/256 of them), not for every remember`, async () => {
    const { vault, files } = await seeded(20);
    const before = files.files.get(WRITE_INDEX_PATH);
    for (let i = 0; i < SAVE_AFTER - 1; i++) await remember(vault, { text: `Note ${i} about the release train.` });
    expect(files.files.get(WRITE_INDEX_PATH)).toBe(before);
    // the next load reads the 15 files written since the save, each once, and the remember saves
    files.reads = [];
    await remember(vault, { text: 'Note 15 about the release train.' });
    expect(files.reads.filter((p) => p.startsWith('episodic/') && !p.startsWith('episodic/m')).length).toBe(SAVE_AFTER - 1);
    expect(files.files.get(WRITE_INDEX_PATH)).not.toBe(before);
    files.reads = [];
    const index = await WriteIndex.load(vault);
    expect([index.parsed, index.memories.length]).toEqual([0, 36]);
  });

  it('keeps a row for each file an import wrote, from the stat the store returned, so the next load parses none', async () => {
    const { vault, files } = timedVault();
    await importLines(vault, Array.from({ length: 30 }, (_, i) => ({ text: `Imported line ${i}: the ${['cache', 'queue', 'index'][i % 3]} keeps ${i} items.`, session: `s${i >> 2}` })));
    files.reads = [];
    const index = await WriteIndex.load(vault);
    expect([index.parsed, index.memories.length, files.reads.length]).toEqual([0, 30, 0]);
  });
});

describe('write index: the saved file (format 2)', () => {
  it('keeps in columns what a line can hold and the rest as odd rows, reads back the rows a full parse makes, and rebuilds when a column does not line up', async () => {
    const { vault, files } = timedVault();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`episodic/m${i}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Plain memory ${i}: the c++ build of service.${i} takes ${i} minutes.`));
    // a file name with a line break, import keys with a tab and an empty one, a memory from 1969, one that cannot be read
    files.put('episodic/two\nlines.md', note('mem-0000000000a1', 'A name with a line break.'));
    files.put('episodic/tab.md', note('mem-0000000000a2', 'Keys with a tab.', { import_keys: '["a\\tb", "c"]' }));
    files.put('episodic/empty.md', note('mem-0000000000a3', 'An empty key.', { import_keys: '[""]' }));
    files.put('semantic/old.md', note('mem-0000000000a4', 'The first moon landing.', { category: 'semantic', created_at: '1969-07-20T20:17:00Z' }));
    files.put('episodic/broken.md', '---\nid: mem-0000000000a5\ncategory: [unclosed\n---\nA broken memory.\n');
    files.put('decisions/kept.md', note('mem-0000000000a6', 'We no longer use yarn; switched from yarn to pnpm.', { category: 'decision', confidence: 'verified', import_keys: '["k1", "k2"]' }));
    const full = await WriteIndex.load(vault);
    await full.save(vault);
    const text = files.files.get(WRITE_INDEX_PATH)!;
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { format: number; rows: number; odd: unknown[][] };
    expect([header.format, header.rows, header.odd.map((row) => row[0]).sort()]).toEqual([2, SAVE_AFTER + 1, ['episodic/broken.md', 'episodic/empty.md', 'episodic/tab.md', 'episodic/two\nlines.md', 'semantic/old.md']]);
    const again = await WriteIndex.load(vault);
    const view = (index: WriteIndex) => index.memories.map((m) => ({ ...m, analysis: [m.analysis.polarity, m.analysis.signals] }));
    expect([again.parsed, view(again), again.problems]).toEqual([0, view(full), full.problems]);
    expect(view(again).find((m) => m.id === 'mem-0000000000a6')).toMatchObject({ category: 'decision', confidence: 'verified', importKeys: ['k1', 'k2'] });
    // one line break of the terms' column made a space: the same length, a line less
    const terms = text.indexOf('\n', text.indexOf(' plain memori '));
    files.files.set(WRITE_INDEX_PATH, `${text.slice(0, terms)} ${text.slice(terms + 1)}`);
    expect((await WriteIndex.load(vault)).parsed).toBe(SAVE_AFTER + 6);
  });

  it('finds the text\'s terms in the saved column as in each row, terms with pattern characters too', async () => {
    const { vault, files } = timedVault();
    const texts = ['The c++ build of service.3 takes 3 minutes.', 'The (c) notice of v1.2 is kept.', 'A build of c takes minutes.', 'Service 3 is down.'];
    texts.forEach((text, i) => files.put(`episodic/n${i}.md`, note(`mem-${String(i).padStart(12, '0')}`, text)));
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`episodic/z${i}.md`, note(`mem-${String(100 + i).padStart(12, '0')}`, `Filler ${i}.`));
    await (await WriteIndex.load(vault)).save(vault);
    const focus = new AnalysedText('The c++ build of service.3 now takes 3 minutes (c).');
    const postings = async () => {
      const context = await loadWriteContext(vault, null, focus);
      return [...(context.index as unknown as { index: { postings: Map<string, Array<{ id: string }>> } }).index.postings].map(([term, list]) => [term, list.map((e) => e.id)]);
    };
    const saved = await postings();
    files.files.delete(WRITE_INDEX_PATH);
    expect(saved).toEqual(await postings());
    expect(saved.length).toBeGreaterThan(3);
  });
});

describe('write index: the saved file in pieces', () => {
  /** The store with writeChunks (as the Node one has): the pieces decoded as they come, then written as one text. */
  class ChunkedStore extends TimedFileStore {
    pieces = 0;
    async writeChunks(path: string, chunks: Iterable<Uint8Array>): Promise<void> {
      const decoder = new TextDecoder();
      let text = '';
      for (const chunk of chunks) {
        this.pieces++;
        text += decoder.decode(chunk, { stream: true });
      }
      await this.write(path, text + decoder.decode());
    }
  }

  it(`writes through writeChunks the bytes the joined text has, across pieces of ${PIECE_LINES} lines, and reads them back`, async () => {
    const n = 2 * PIECE_LINES + 1;
    const saved: string[] = [];
    for (const store of [new TimedFileStore(), new ChunkedStore()]) {
      const { vault } = memoryVault(NOW);
      Object.assign(vault.ports, { files: store });
      for (let i = 0; i < n; i++) {
        // the last row of the first piece and the first of the second hold letters of two and four UTF-8 bytes
        const text = i === PIECE_LINES - 1 ? 'Le café de la gare ferme à 18 h.' : i === PIECE_LINES ? 'The 🚀 launch of service moved to 9 am.' : `The cache of service ${i} holds ${i * 7} entries.`;
        store.put(`episodic/m${String(i).padStart(4, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, text, i === n - 1 ? { import_keys: '["k1", "k2"]' } : {}));
      }
      await (await WriteIndex.load(vault)).save(vault);
      saved.push(store.files.get(WRITE_INDEX_PATH)!);
      if (store instanceof ChunkedStore) expect(store.pieces).toBe(1); // the file's bytes in one view (encodePieces: 64 KB)
    }
    expect(saved[1]).toBe(saved[0]);
    const rows = savedRows(saved[1]!)!;
    expect(rows).toHaveLength(n);
    const at = (i: number) => [rows[i]![0], rows[i]![3], rows[i]![8], rows[i]![15]];
    expect([at(0), at(PIECE_LINES - 1), at(PIECE_LINES), at(n - 1)]).toEqual([
      ['episodic/m0000.md', 'mem-000000000000', 'cach servic 0 hold entri', []],
      ['episodic/m0255.md', 'mem-000000000255', 'le café de la gare ferm à 18 h', []],
      ['episodic/m0256.md', 'mem-000000000256', 'launch servic move 9', []],
      ['episodic/m0512.md', 'mem-000000000512', 'cach servic 512 hold 3584 entri', ['k1', 'k2']],
    ]);
  });
});

describe('write index: decisions', () => {
  const texts = [
    'Use pnpm workspaces for the monorepo, not yarn.',
    'We no longer use pnpm workspaces for the monorepo.',
    'The staging database is db-staging-2.internal.',
    'The staging database moved to db-staging-3.internal.',
    'Use pnpm workspaces for the monorepo, not yarn.',
    'Integration tests must use Testcontainers.',
    'Integration tests must not use Testcontainers.',
    'The retry budget of the webhook worker is 3 attempts.',
    'The retry budget of the webhook worker changed to 5 attempts.',
    'Stopped using LaunchDarkly for feature flags.',
  ];

  /** Every text remembered in turn, the index kept (true) or the cache removed before each (false). */
  async function decisions(keep: boolean, others?: (files: TimedFileStore, i: number) => void, full = false): Promise<RememberResult[]> {
    const { vault, files } = timedVault();
    const out: RememberResult[] = [];
    for (const [i, text] of texts.entries()) {
      others?.(files, i);
      if (!keep) files.files.delete(WRITE_INDEX_PATH);
      const category = [0, 3, 4, 6, 9].includes(i) ? 'decision' : 'episodic';
      const at = vault.at(Date.parse(NOW) + i * 60_000);
      // full: a context of every memory's postings (as import builds), not the remember's own (its words only)
      out.push(await remember(at, { text, category }, full ? await loadWriteContext(at) : null));
    }
    return out;
  }

  it('decides from the postings of its own words as from an index of every memory', async () => {
    const other = (files: TimedFileStore, i: number) => {
      if (i === 5) files.put('episodic/by another agent.md', note('mem-0000000000ab', 'Integration tests must use Testcontainers.'));
    };
    expect(await decisions(true, other)).toEqual(await decisions(true, other, true));
  });

  it('indexes a single text under its own words only, and takes every id', async () => {
    const { vault, files } = timedVault();
    files.put('episodic/a.md', note('mem-00000000000a', 'The webhook worker retries 3 times.'));
    files.put('episodic/b.md', note('mem-00000000000b', 'The nightly backup runs at two.'));
    files.put('semantic/c.md', note('mem-00000000000c', 'Webhook payloads are signed with HMAC.', { category: 'semantic' }));
    files.put('episodic/d.md', note('mem-00000000000d', 'The worker does not retry on a 4xx answer.'));
    const focus = new AnalysedText('The webhook worker retries 5 times now.');
    const context = await loadWriteContext(vault, null, focus);
    const postings = (context.index as unknown as { index: { postings: Map<string, Array<{ id: string }>> } }).index.postings;
    expect([[...context.taken].sort(), context.index.size, [...postings].map(([term, list]) => [term, list.map((e) => e.id)])]).toEqual([
      ['mem-00000000000a', 'mem-00000000000b', 'mem-00000000000c', 'mem-00000000000d'],
      3,
      // the text's words (webhook worker retri 5 time now); "3", "nightli", "hmac" ... have no postings
      [
        ['webhook', ['mem-00000000000a', 'mem-00000000000c']],
        ['worker', ['mem-00000000000a', 'mem-00000000000d']],
        ['retri', ['mem-00000000000a', 'mem-00000000000d']],
        ['time', ['mem-00000000000a']],
      ],
    ]);
    expect(context.memories.map((m) => m.id)).toEqual(['mem-00000000000a', 'mem-00000000000b', 'mem-00000000000d', 'mem-00000000000c']);
  });

  it('decides as a full read of the vault does', async () => {
    const kept = await decisions(true);
    expect(kept).toEqual(await decisions(false));
    expect(kept.map((r) => r.action)).toEqual(['created', 'created', 'created', 'created', 'reinforced', 'created', 'conflict', 'created', 'created', 'created']);
    expect(kept.map((r) => r.supersedes?.length ?? 0)).toEqual([0, 1, 0, 1, 0, 0, 0, 0, 1, 0]);
  });

  it('sees what another writer wrote between two remembers, and forgets what it removed', async () => {
    // another agent writes the text remembered next, and removes a memory this process wrote
    const other = (files: TimedFileStore, i: number) => {
      if (i === 5) files.put('episodic/by another agent.md', note('mem-0000000000ab', 'Integration tests must use Testcontainers.'));
      if (i === 8) for (const path of [...files.files.keys()]) if (files.files.get(path)!.includes('retry budget')) files.files.delete(path);
    };
    const kept = await decisions(true, other);
    expect(kept).toEqual(await decisions(false, other));
    expect([kept[5]!.action, kept[5]!.id]).toEqual(['reinforced', 'mem-0000000000ab']);
    expect([kept[8]!.action, kept[8]!.supersedes]).toEqual(['created', undefined]);
  });

  it('takes the id and the text of a file that cannot be read, as the loader does, and reads it again once repaired', async () => {
    const { vault, files } = timedVault();
    files.put('episodic/broken.md', '---\nid: mem-00000000000b\ncategory: [unclosed\n---\nThe nightly backup runs at two.\n');
    const context = await loadWriteContext(vault);
    expect([context.taken.has('mem-00000000000b'), [...context.unreadable!]]).toEqual([true, [['episodic/broken.md', { text: 'The nightly backup runs at two.', id: 'mem-00000000000b' }]]]);
    await context.writeIndex!.save(vault);
    files.put('episodic/broken.md', note('mem-00000000000b', 'The nightly backup runs at two.'));
    const repaired = await loadWriteContext(vault);
    expect([repaired.writeIndex!.parsed, repaired.memories.map((m) => m.id), repaired.unreadable!.size]).toEqual([1, ['mem-00000000000b'], 0]);
  });
});

describe('write index: the analysis a row keeps', () => {
  // A row keeps what analyze, polarity and changeSignals say of a text. When this hash changes,
  // rows written by the previous code would decide for the new one: raise WRITE_ANALYSIS_VERSION
  // in write-index.ts, then update the hash and the version here.
  it('is pinned: a change to the analysis must raise WRITE_ANALYSIS_VERSION', () => {
    const sample = [
      'Use pnpm workspaces for the monorepo, not yarn.',
      "We don't use pnpm workspaces anymore; we switched from pnpm to npm.",
      'Replaced LaunchDarkly with our own flag service on March 4.',
      'The staging database is db-staging-3.internal now (was db-staging-2.internal).',
      'Decided: stop using mocks in integration tests, however keep them in unit tests.',
      'No errors yesterday. Build 412 failed on Monday.',
      'Rather than retrying forever, give up after 5 attempts instead of 10.',
      'Ünïcödé wörds and CamelCase names like PostgreSQL and iOS 17.2.',
      'The billing service is not on Postgres any longer.',
      'Our Jenkinsfile lint stays, but we replaced Jenkins with GitHub Actions.',
      'We no longer deploy to staging\nevery Friday for now.',
      'We are in favour of pnpm workspaces; we are not in favour of yarn.',
      'Since 2023 the mp3 export runs on HTTP3, not on build 413.',
    ];
    const analysis = sample.map((text) => {
      const a = new AnalysedText(text);
      const { terms, negated, affirmed } = a.polarity;
      const s = a.signals;
      return [[...terms], [...negated].sort(), [...affirmed].sort(), s.cue, [...s.rejected].sort(), [...s.values].sort(), [...s.dates].sort()];
    });
    expect(WRITE_ANALYSIS_VERSION).toBe(5);
    expect(createHash('sha256').update(JSON.stringify(analysis)).digest('hex').slice(0, 16)).toBe('7fd6c1cc13267243');
  });
});

describe('write index: the rows of the files an import creates', () => {
  // An import makes the row of each plain new memory from what it rendered (WriteIndex.created),
  // without parsing the file back; the row must be the one `wrote` makes of the parsed file.
  const odd: RememberInput[] = [
    { text: 'Plain words, nothing odd.' },
    { text: 'Windows lines\r\nsecond line\r\n\r\nthird paragraph\r\n' },
    { text: '---\nlooks: like frontmatter\n---\nand a body after it' },
    { text: 'A body holding a fence\n---\nin its middle, and another\n---' },
    { text: 'Typed links in the text: [[Some note|related]] and [[other|supersedes]] and [[kept|shown]] [[plain]]' },
    { text: '   spaces   and\ttabs\t\tand  trailing   ', tags: ['#code review', 'ops/oncall'] },
    { text: 'Quotes "double" and \'single\', a backslash \\ and a colon: here # not a comment' },
    { text: 'Ünïcödé wörds, emoji 🚀, CJK 日本語, RTL مرحبا, combining é', agent_role: 'Zoë "the" reviewer' },
    { text: 'We no longer use pnpm workspaces; switched from pnpm to npm on March 4.', category: 'decision', confidence: 'verified' },
    { text: 'The staging database is db-staging-3.internal now (was db-staging-2.internal).', category: 'semantic', created_at: '2026-03-04T10:00:00+02:00' },
    { text: 'null', source: 'true', related_paths: ['src/a.ts', ' src/b.ts '] },
    { text: '- a list item\n- another\n\n> a quote\n\n# a heading', category: 'semantic', is_error: true },
    { text: 'key: value\nother: [1, 2]', created_at: '2026-01-01' },
    { text: 'a' },
    { text: 'Ends with a link [[x]]' },
    { text: 'Tab\there, form\ffeed, vertical\vtab, no-break\u00a0space, line\u2028separator' },
    { text: 'Numbers 1,000 and 3.14 and v2.0.1 and 10:30 and 2026-11-30' },
  ];

  it('makes from what it rendered the row `wrote` makes of the parsed file', async () => {
    const { vault, files } = timedVault();
    const fast = await WriteIndex.load(vault);
    const parsed = await WriteIndex.load(vault);
    const now = Date.parse(NOW);
    for (const [i, input] of odd.entries()) {
      const memory = normaliseInput(input, now);
      // the links an import gives a memory of a session, a supersession and a conflict
      if (i % 3 === 0) memory.links = [{ target: 'mem-00000000000a', kind: 'related', name: 'Neighbour note' }];
      if (i % 4 === 1) memory.links = [{ target: 'mem-00000000000b', kind: 'supersedes', name: 'Old "note"' }, { target: 'mem-00000000000c', kind: 'contradicts' }];
      const id = `mem-${String(i).padStart(12, '0')}`;
      const path = `${CATEGORY_FOLDERS[memory.category]}/note ${i}.md`;
      const text = renderMemoryFile(id, memory, vault.settings, now);
      const stat = { size: i + 100, mtimeMs: 1000 + i };
      const analysis = new AnalysedText(memory.text);
      fast.created(path, id, memory, text, stat, analysis);
      parsed.wrote(parseMemory(path, text, vault.settings), stat, analysis);
    }
    await fast.save(vault);
    const fastRows = files.files.get(WRITE_INDEX_PATH);
    await parsed.save(vault);
    const parsedRows = files.files.get(WRITE_INDEX_PATH);
    expect(odd.length).toBeGreaterThanOrEqual(SAVE_AFTER);
    expect(savedRows(fastRows!)).toHaveLength(odd.length);
    expect(fastRows).toBe(parsedRows);
  });

  it('reads the text of a rendered body without the body where it is the text itself, and agrees with the parsed file', async () => {
    let seed = 17;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const pieces = ['word', 'x', '7', ' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '[', ']', '[[a|related]]', '[[b]]', '|', 'é', '🚀', '-', '---', ':', '"'];
    const names = ['Neighbour', 'with ] bracket', 'with [ bracket', 'pipe | name', undefined];
    // a kind bodyText would keep (none is written today): the body is worked out
    const kinds: Array<MemoryLink['kind']> = ['related', 'supersedes', 'contradicts', 'decays_from', 'shown' as MemoryLink['kind']];
    const { vault, files } = timedVault();
    const fast = await WriteIndex.load(vault);
    const parsed = await WriteIndex.load(vault);
    const now = Date.parse(NOW);
    let known = 0;
    for (let i = 0; i < 600; i++) {
      const raw = Array.from({ length: 1 + Math.floor(rand() * 10) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
      if (raw.trim() === '') continue;
      const memory = normaliseInput({ text: raw }, now);
      memory.links = Array.from({ length: Math.floor(rand() * 3) }, (_, k) => ({ target: `mem-00000000000${k}`, kind: kinds[Math.floor(rand() * (rand() < 0.8 ? 4 : 5))]!, name: names[Math.floor(rand() * names.length)] }));
      const id = `mem-${String(i).padStart(12, '0')}`;
      const path = `episodic/n${i}.md`;
      const text = renderMemoryFile(id, memory, vault.settings, now);
      const parsedMemory = parseMemory(path, text, vault.settings);
      const fromBody = renderedBodyText(memory);
      if (fromBody !== null) {
        expect([raw, fromBody]).toEqual([raw, memoryText(parsedMemory)]);
        known++;
      }
      const stat = { size: i, mtimeMs: i };
      fast.created(path, id, memory, text, stat, new AnalysedText(memory.text));
      parsed.wrote(parsedMemory, stat, new AnalysedText(memory.text));
    }
    await fast.save(vault);
    const fastRows = files.files.get(WRITE_INDEX_PATH);
    await parsed.save(vault);
    expect(fastRows).toBe(files.files.get(WRITE_INDEX_PATH));
    expect(known).toBeGreaterThan(60);
    // the plain text of an import line and its session link: no body split, no replace
    expect(renderedBodyText({ text: 'Observation 1: auth retry.', links: [{ target: 'mem-000000000001', kind: 'related', name: 'Observation 0' }] })).toBe('Observation 1: auth retry.');
    const memory = normaliseInput({ text: 'Observation 1: auth retry.' }, now);
    memory.links = [{ target: 'mem-000000000001', kind: 'related', name: 'Observation 0' }];
    const text = renderMemoryFile('mem-000000000002', memory, vault.settings, now);
    const analysis = new AnalysedText(memory.text);
    void [analysis.polarity, analysis.signals]; // analysed while planning
    const replace = jest.spyOn(String.prototype, 'replace');
    try {
      fast.created('episodic/o.md', 'mem-000000000002', memory, text, { size: 1, mtimeMs: 1 }, analysis);
      expect(replace).not.toHaveBeenCalled();
    } finally {
      replace.mockRestore();
    }
  });

  it('refuses a memory with further fields (those are parsed back)', async () => {
    const { vault } = timedVault();
    const index = await WriteIndex.load(vault);
    const memory = { ...normaliseInput({ text: 'Superseded already.' }, Date.parse(NOW)), extra: { superseded_by: 'mem-00000000000f' } };
    const text = renderMemoryFile('mem-00000000000e', memory, vault.settings, Date.parse(NOW));
    expect(() => index.created('episodic/e.md', 'mem-00000000000e', memory, text, { size: 1, mtimeMs: 1 })).toThrow('not a new memory');
  });

  it('an import creates its plain memories without parsing them back, and the next load reads none', async () => {
    const { vault, files } = timedVault();
    const createFile = jest.spyOn(Vault.prototype, 'createFile');
    try {
      await importLines(vault, odd.map((input, i) => ({ ...input, session: `s${i >> 2}` })));
      expect(createFile.mock.calls.map((call) => call[2])).toEqual(odd.map(() => ({ parse: false })));
    } finally {
      createFile.mockRestore();
    }
    files.reads = [];
    const index = await WriteIndex.load(vault);
    expect([index.parsed, index.memories.length, files.reads.length]).toEqual([0, odd.length, 0]);
    // the rows the import kept are those a load parsing every file makes
    const rows = (): unknown[] => savedRows(files.files.get(WRITE_INDEX_PATH)!)!.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
    const kept = rows();
    files.files.delete(WRITE_INDEX_PATH);
    const rebuilt = await WriteIndex.load(vault);
    await rebuilt.save(vault);
    expect([rebuilt.parsed, rows()]).toEqual([odd.length, kept]);
  });
});

describe('joined: a set as one string, as [...set].join(separator)', () => {
  it('crafted and random sets, in their order', () => {
    const sets: Set<string>[] = [new Set(), new Set(['']), new Set(['a']), new Set(['', '']), new Set(['', 'a']), new Set(['b', 'a']), new Set(['a|b', 'c'])];
    let seed = 5;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    for (let k = 0; k < 2000; k++) sets.push(new Set(Array.from({ length: Math.floor(random() * 5) }, () => ['a', 'b', '', 'c d', 'é'][Math.floor(random() * 5)]!)));
    for (const set of sets) for (const separator of [' ', '|']) expect(joined(set, separator)).toBe([...set].join(separator));
    expect(joined(new Set(['b', 'a']), '|')).toBe('b|a');
    expect(joined(new Set(['x']), ' ')).toBe('x');
    expect(joined(new Set(), ' ')).toBe('');
  });
});

describe('write index: a saved file read back only when every part of it lines up', () => {
  /** A saved index of SAVE_AFTER plain rows and one odd row (a memory from 1969), its header and its text after the header. */
  async function savedFile() {
    const { vault, files } = timedVault();
    for (let i = 1; i < SAVE_AFTER; i++) files.put(`episodic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Row ${i} of the cache.`));
    // every field of a row in use: superseded, a change cue, rejected terms, values, dates, import keys, affirmed not every other term
    files.put('decisions/m00.md', note('mem-000000000000', "We no longer use yarn, we don't use npm; switched to pnpm 9.1 on 2026-03-04.", { category: 'decision', confidence: 'verified', created_at: '2026-03-04T10:00:00.250Z', superseded_by: 'mem-0000000000ff', import_keys: '["k1", "k2"]' }));
    files.put('semantic/old.md', note('mem-0000000000a4', 'The first moon landing.', { category: 'semantic', created_at: '1969-07-20T20:17:00Z' }));
    await (await WriteIndex.load(vault)).save(vault);
    const text = files.files.get(WRITE_INDEX_PATH)!;
    const nl = text.indexOf('\n');
    type Header = { format: number; fingerprint: string; rows: number; lengths: number[]; odd: unknown[] };
    return { vault, files, text, header: JSON.parse(text.slice(0, nl)) as Header, body: text.slice(nl + 1) };
  }

  it('reads every row back as it was, and the next load parses none', async () => {
    const { vault, text, header, body } = await savedFile();
    expect([header.format, header.rows, header.lengths.length, header.odd.length, body.length]).toEqual([2, SAVE_AFTER, 8, 1, header.lengths.reduce((a, b) => a + b, 0)]);
    const rows = savedRows(text)!;
    expect(rows.map((row) => row[0])).toEqual([...Array.from({ length: SAVE_AFTER - 1 }, (_, i) => `episodic/m${String(i + 1).padStart(2, '0')}.md`), 'decisions/m00.md', 'semantic/old.md']);
    expect(rows[SAVE_AFTER - 1]!.slice(3, 16)).toEqual([
      'mem-000000000000', 'decision', 'verified', Date.parse('2026-03-04T10:00:00.250Z'), 1, 'longer use yarn npm switch pnpm 9 1 2026 03 04', 'use yarn npm',
      'switch pnpm 9 1 2026 03 04', 1, 'yarn', '9 1 2026 03 04', '2026-03-04', ['k1', 'k2'],
    ]);
    expect(rows[2]!.slice(3, 16)).toEqual(['mem-000000000003', 'episodic', 'observed', Date.parse('2026-11-01T00:00:00Z'), 0, 'row 3 cach', '', null, 0, '', '3', '', []]);
    expect(rows[SAVE_AFTER]!.slice(3, 8)).toEqual(['mem-0000000000a4', 'semantic', 'observed', Date.parse('1969-07-20T20:17:00Z'), 0]);
    expect((await WriteIndex.load(vault)).parsed).toBe(0);
  });

  it('is not read (null; a load parses every file again) when its header, a length or a column does not line up', async () => {
    const { vault, files, text, header, body } = await savedFile();
    const withHeader = (change: Record<string, unknown>, rest = body) => `${JSON.stringify({ ...header, ...change })}\n${rest}`;
    const lengths = (c: number, by: number) => header.lengths.map((n, k) => (k === c ? n + by : n));
    // where each column starts in the body
    const at = (c: number) => header.lengths.slice(0, c).reduce((a, b) => a + b, 0);
    /** The body with the first line break of column c (after its start) made a space: the same length, a line less. */
    const joinedLine = (c: number) => {
      const nl = body.indexOf('\n', at(c));
      expect(nl).toBeLessThan(at(c + 1));
      return `${body.slice(0, nl)} ${body.slice(nl + 1)}`;
    };
    const damaged: Array<[string, string]> = [
      ['no line break', text.replace(/\n/g, ' ')],
      ['another format', withHeader({ format: 1 })],
      ['odd rows not a list', withHeader({ odd: {} })],
      ['lengths not a list', withHeader({ lengths: 5 })],
      ['seven columns', withHeader({ lengths: header.lengths.slice(0, 7) }, body.slice(0, at(7)))],
      ['rows not a number', withHeader({ rows: String(SAVE_AFTER) })],
      ['rows not whole', withHeader({ rows: SAVE_AFTER - 0.5 })],
      ['rows below zero', withHeader({ rows: -1 })],
      ['a row more', withHeader({ rows: SAVE_AFTER + 1 })],
      ['a length not a number', withHeader({ lengths: header.lengths.map((n, k) => (k === 1 ? String(n) : n)) })],
      ['a length not whole', withHeader({ lengths: lengths(1, 0.5) })],
      ['a length below zero', withHeader({ lengths: lengths(7, -header.lengths[7]! - 1) }, body.slice(0, at(7)))],
      ['a column past the end', withHeader({ lengths: lengths(7, 1) })],
      ['text after the columns', `${text}x`],
      ['the meta column a character short', withHeader({ lengths: lengths(4, -1).map((n, k) => (k === 5 ? n + 1 : n)) })],
      ['a path line less', withHeader({}, joinedLine(0))],
      ['a size line less', withHeader({}, joinedLine(1))],
      ['an id line less', withHeader({}, joinedLine(3))],
      ['a negated-terms line less', withHeader({}, joinedLine(6))],
      ['a rest line less', withHeader({}, joinedLine(7))],
      ['a rest line more', withHeader({ lengths: lengths(7, 1) }, `${body}\n`)],
    ];
    expect(damaged.map(([what, file]) => [what, savedRows(file)])).toEqual(damaged.map(([what]) => [what, null]));
    for (const [, file] of damaged) {
      files.files.set(WRITE_INDEX_PATH, file);
      expect((await WriteIndex.load(vault)).parsed).toBe(SAVE_AFTER + 1);
    }
    // no rows in columns: the header says 0, and every column is empty
    const none = { ...header, rows: 0, lengths: [0, 0, 0, 0, 0, 0, 0, 0] };
    expect(savedRows(`${JSON.stringify(none)}\n`)).toEqual(header.odd);
    expect(savedRows(`${JSON.stringify({ ...none, lengths: [1, 0, 0, 0, 0, 0, 0, 0] })}\nx`)).toBeNull();
    expect(savedRows(`${JSON.stringify({ ...none, lengths: [0, 0, 0, 0, 0, 1, 0, 0] })}\nx`)).toBeNull();
    // odd rows of another shape are left out, the others kept
    const odd = [['a.md', 1, 2, null, null], ['b.md', 1, 2], 'c.md', [3, 1, 2, null, null], ['d.md', 1, 2, 'mem-00000000000d', 'text']];
    expect(savedRows(`${JSON.stringify({ ...none, odd })}\n`)).toEqual([odd[0], odd[4]]);
  });

  it('a vault whose every row is odd is saved with no column rows and read back without parsing', async () => {
    const { vault, files } = timedVault();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`semantic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Landing ${i}.`, { category: 'semantic', created_at: '1969-07-20T20:17:00Z' }));
    const full = await WriteIndex.load(vault);
    await full.save(vault);
    const text = files.files.get(WRITE_INDEX_PATH)!;
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { rows: number; lengths: number[]; odd: unknown[] };
    expect([header.rows, header.lengths, header.odd.length, text.endsWith('\n')]).toEqual([0, [0, 0, 0, 0, 0, 0, 0, 0], SAVE_AFTER, true]);
    const again = await WriteIndex.load(vault);
    expect([again.parsed, again.memories.map((m) => [m.id, m.createdMs])]).toEqual([0, full.memories.map((m) => [m.id, Date.parse('1969-07-20T20:17:00Z')])]);
  });
});

describe('write index: what a load makes of the saved rows and the files now', () => {
  type Entry = { id: string; termCount: number; category: string; archived: boolean; confidence: string; createdMs: number; superseded: boolean; focusTerms: string[] };
  /** The remember's index of `focus` (loadWriteContext): each entry's fields, its postings, and the negating lists. */
  async function focused(vault: Vault, text: string) {
    const context = await loadWriteContext(vault, null, new AnalysedText(text));
    const index = context.index as unknown as { entries: Map<string, Entry>; negating: Map<string, Entry[]>; index: { postings: Map<string, Array<{ id: string }>> } };
    return {
      size: context.index.size,
      entries: [...index.entries.values()].map(({ id, termCount, category, archived, confidence, createdMs, superseded, focusTerms }) => ({ id, termCount, category, archived, confidence, createdMs, superseded, focusTerms })),
      postings: [...index.index.postings].map(([term, list]) => [term, list.map((e) => e.id)]),
      negating: [...index.negating].map(([term, list]) => [term, list.map((e) => e.id)]),
      taken: [...context.taken].sort(),
    };
  }

  it('gives each memory holding a focus term the fields of its row, from the saved columns as from the files, and none to the others', async () => {
    const { vault, files } = timedVault();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`episodic/f${String(i).padStart(2, '0')}.md`, note(`mem-${String(100 + i).padStart(12, '0')}`, `Filler ${i} about lunch.`));
    files.put('decisions/a.md', note('mem-00000000000a', 'We no longer deploy the webhook worker on Fridays.', { category: 'decision', confidence: 'verified', created_at: '2026-02-03T04:05:06.789Z', superseded_by: 'mem-00000000000f' }));
    files.put('archive/episodic/b.md', note('mem-00000000000b', 'The webhook worker retries 3 times.', { created_at: '2025-01-01T00:00:00Z' }));
    files.put('semantic/c.md', note('mem-00000000000c', 'Webhook payloads are signed with HMAC, the worker does not retry.', { category: 'semantic', confidence: 'inferred' }));
    const text = 'The webhook worker retries 5 times now.';
    const fresh = await focused(vault, text);
    await (await WriteIndex.load(vault)).save(vault);
    expect(await focused(vault, text)).toEqual(fresh);
    expect(fresh).toEqual({
      size: 4,
      // in the order of the rows; "Filler 5" holds the text's "5"
      entries: [
        { id: 'mem-000000000105', termCount: 3, category: 'episodic', archived: false, confidence: 'observed', createdMs: Date.parse('2026-11-01T00:00:00Z'), superseded: false, focusTerms: ['5'] },
        { id: 'mem-00000000000c', termCount: 6, category: 'semantic', archived: false, confidence: 'inferred', createdMs: Date.parse('2026-11-01T00:00:00Z'), superseded: false, focusTerms: ['webhook', 'worker', 'retri'] },
        { id: 'mem-00000000000a', termCount: 5, category: 'decision', archived: false, confidence: 'verified', createdMs: Date.parse('2026-02-03T04:05:06.789Z'), superseded: true, focusTerms: ['webhook', 'worker'] },
        { id: 'mem-00000000000b', termCount: 5, category: 'episodic', archived: true, confidence: 'observed', createdMs: Date.parse('2025-01-01T00:00:00Z'), superseded: false, focusTerms: ['webhook', 'worker', 'retri', 'time'] },
      ],
      postings: [
        ['5', ['mem-000000000105']],
        ['webhook', ['mem-00000000000c', 'mem-00000000000a', 'mem-00000000000b']],
        ['worker', ['mem-00000000000c', 'mem-00000000000a', 'mem-00000000000b']],
        ['retri', ['mem-00000000000c', 'mem-00000000000b']],
        ['time', ['mem-00000000000b']],
      ],
      negating: [
        ['retri', ['mem-00000000000c']],
        ['webhook', ['mem-00000000000a']],
        ['worker', ['mem-00000000000a']],
      ],
      taken: [...Array.from({ length: SAVE_AFTER }, (_, i) => `mem-${String(100 + i).padStart(12, '0')}`), 'mem-00000000000a', 'mem-00000000000b', 'mem-00000000000c'].sort(),
    });
  });

  it('indexes nothing for a text of no words (no term, no posting), with the rows saved or not', async () => {
    const { vault, files } = timedVault();
    files.put('episodic/a.md', note('mem-00000000000a', 'The webhook worker retries 3 times.'));
    const none = await focused(vault, '... !!! ...');
    expect([none.size, none.entries, none.postings, none.negating, none.taken]).toEqual([0, [], [], [], ['mem-00000000000a']]);
  });

  it('reads again a file whose odd row no longer matches it: another size at the same mtime, the same size at another mtime', async () => {
    const { vault, files } = timedVault();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`semantic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Landing ${i}.`, { category: 'semantic', created_at: '1969-07-20T20:17:00Z' }));
    await (await WriteIndex.load(vault)).save(vault);
    const mtime = files.mtimes.get('semantic/m00.md')!;
    files.put('semantic/m00.md', note('mem-000000000000', 'Landing 0, delayed.', { category: 'semantic', created_at: '1969-07-20T20:17:00Z' }), mtime);
    files.put('semantic/m01.md', note('mem-000000000001', 'Landing 9.', { category: 'semantic', created_at: '1969-07-20T20:17:00Z' }));
    files.reads = [];
    const index = await WriteIndex.load(vault);
    expect([index.parsed, files.reads.sort(), [...index.memories[0]!.analysis.polarity.terms], [...index.memories[1]!.analysis.polarity.terms]]).toEqual([2, ['semantic/m00.md', 'semantic/m01.md'], ['land', '0', 'delay'], ['land', '9']]);
  });

  it('is saved again without the rows of removed files once enough are gone, odd rows counted', async () => {
    const { vault, files } = timedVault();
    for (let i = 0; i < SAVE_AFTER - 1; i++) files.put(`episodic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Row ${i} of the cache.`));
    files.put('semantic/old.md', note('mem-0000000000a4', 'The first moon landing.', { category: 'semantic', created_at: '1969-07-20T20:17:00Z' }));
    files.put('semantic/keep.md', note('mem-0000000000a5', 'Kept.', { category: 'semantic' }));
    await (await WriteIndex.load(vault)).save(vault);
    const before = files.files.get(WRITE_INDEX_PATH)!;
    expect(savedRows(before)!.length).toBe(SAVE_AFTER + 1);
    // 15 plain rows and the odd one gone: 16 rows changed
    for (const path of [...files.files.keys()]) if (path.startsWith('episodic/') || path === 'semantic/old.md') files.files.delete(path);
    await (await WriteIndex.load(vault)).save(vault);
    expect(savedRows(files.files.get(WRITE_INDEX_PATH)!)!.map((row) => row[0])).toEqual(['semantic/keep.md']);
  });

  it('keeps one row a path when a file it had a row for is written again', async () => {
    const { vault, files } = await seeded(SAVE_AFTER);
    const index = await WriteIndex.load(vault);
    for (let i = 0; i < SAVE_AFTER; i++) {
      const path = `episodic/m${String(i).padStart(3, '0')}.md`;
      const stat = await files.write(path, note(`mem-${String(i).padStart(12, '0')}`, `The queue of service ${i} was drained.`));
      index.wrote(parseMemory(path, files.files.get(path)!, vault.settings), stat);
    }
    await index.save(vault);
    const rows = savedRows(files.files.get(WRITE_INDEX_PATH)!)!;
    expect(rows.map((row) => [row[0], row[8]])).toEqual(Array.from({ length: SAVE_AFTER }, (_, i) => [`episodic/m${String(i).padStart(3, '0')}.md`, `queue servic ${i} drain`]));
    expect((await WriteIndex.load(vault)).parsed).toBe(0);
  });

  it('a memory made at 36^9 ms (5188) or later is kept as an odd row and read back', async () => {
    const { vault, files } = timedVault();
    const late = new Date(36 ** 9).toISOString();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`episodic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Row ${i}.`, i === 0 ? { created_at: late } : i === 1 ? { created_at: new Date(36 ** 9 - 1).toISOString() } : {}));
    await (await WriteIndex.load(vault)).save(vault);
    const text = files.files.get(WRITE_INDEX_PATH)!;
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { rows: number; odd: unknown[][] };
    expect([header.rows, header.odd.map((row) => [row[0], row[6]])]).toEqual([SAVE_AFTER - 1, [['episodic/m00.md', 36 ** 9]]]);
    const again = await WriteIndex.load(vault);
    expect([again.parsed, again.memories.slice(0, 2).map((m) => m.createdMs)]).toEqual([0, [36 ** 9, 36 ** 9 - 1]]);
  });
});

describe('write index: files the loader reads as it finds them', () => {
  /** A store whose listing with stats leaves out some entries (a FIFO, a link to nothing regular), and whose reads of others fail. */
  class OddStore extends TimedFileStore {
    readonly irregular = new Set<string>();
    readonly failing = new Set<string>();
    override async listStats(dir: string): Promise<Array<FileStat & { name: string }>> {
      return (await super.listStats(dir)).filter((s) => !this.irregular.has(`${dir}/${s.name}`));
    }
    override async read(path: string): Promise<Uint8Array | null> {
      if (this.failing.has(path)) throw new Error(`EIO: ${path}`);
      return super.read(path);
    }
  }
  function oddVault() {
    const { vault } = memoryVault(NOW);
    const files = new OddStore();
    Object.assign(vault.ports, { files });
    return { vault, files };
  }
  const view = (index: WriteIndex) => [index.memories.map((m) => [m.path, m.id]), index.problems, index.paths];

  it('reads an entry listed without a stat every time, in listing order, and keeps no row of it', async () => {
    const { vault, files } = oddVault();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`episodic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Row ${i}.`));
    files.put('episodic/m05x.md', note('mem-0000000000f0', 'A memory behind a link.'));
    files.irregular.add('episodic/m05x.md');
    const first = await WriteIndex.load(vault);
    await first.save(vault);
    const paths = [...Array.from({ length: 6 }, (_, i) => `episodic/m0${i}.md`), 'episodic/m05x.md', ...Array.from({ length: SAVE_AFTER - 6 }, (_, i) => `episodic/m${String(i + 6).padStart(2, '0')}.md`)];
    expect([first.parsed, first.memories.map((m) => m.path), first.paths]).toEqual([SAVE_AFTER + 1, paths, paths]);
    expect(savedRows(files.files.get(WRITE_INDEX_PATH)!)!.map((row) => row[0])).toEqual(paths.filter((p) => p !== 'episodic/m05x.md'));
    files.reads = [];
    const again = await WriteIndex.load(vault);
    expect([again.parsed, files.reads, view(again)]).toEqual([1, ['episodic/m05x.md'], view(first)]);
    // one file read again is not worth a save
    const written = files.mtimes.get(WRITE_INDEX_PATH);
    await again.save(vault);
    expect(files.mtimes.get(WRITE_INDEX_PATH)).toBe(written);
    // a file changed since is read again there too
    files.put('episodic/m03.md', note('mem-000000000003', 'Row 3, rewritten.'));
    files.reads = [];
    const third = await WriteIndex.load(vault);
    expect([third.parsed, files.reads, view(third)]).toEqual([2, ['episodic/m03.md', 'episodic/m05x.md'], view(first)]);
  });

  it('makes a second file with an id a problem, read as the loader reads it, with the rows saved or not', async () => {
    const { vault, files } = oddVault();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`episodic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Row ${i}.`));
    // episodic/a.md, listed first and the shortest path, is the memory; episodic/m03.md becomes a problem
    files.put('episodic/a.md', note('mem-000000000003', 'Row 3, a copy.'));
    files.put('semantic/copy.md', note('mem-000000000003', 'Row 3, another copy.', { category: 'semantic' }));
    const first = await WriteIndex.load(vault);
    const loaded = await vault.loadAll();
    expect(view(first)).toEqual([
      loaded.memories.map((m) => [m.path, m.id]),
      [
        { path: 'episodic/m03.md', id: 'mem-000000000003', text: 'Row 3.' },
        { path: 'semantic/copy.md', id: 'mem-000000000003', text: 'Row 3, another copy.' },
      ],
      first.paths,
    ]);
    expect(first.memories.filter((m) => m.id === 'mem-000000000003').map((m) => m.path)).toEqual(['episodic/a.md']);
    // the id index decides between copies: no hint for that id, one for the others
    expect([first.locator()('mem-000000000003'), first.locator()('mem-000000000004')]).toEqual([null, 'episodic/m04.md']);
    await first.save(vault);
    const again = await WriteIndex.load(vault);
    expect([again.parsed, view(again)]).toEqual([0, view(first)]);
  });

  it('keeps no row of a file it cannot read, and names it a problem', async () => {
    const { vault, files } = oddVault();
    for (let i = 0; i < SAVE_AFTER; i++) files.put(`episodic/m${String(i).padStart(2, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Row ${i}.`));
    files.failing.add('episodic/m07.md');
    const first = await WriteIndex.load(vault);
    expect([first.memories.length, first.problems, first.paths.length]).toEqual([SAVE_AFTER - 1, [{ path: 'episodic/m07.md', id: null, text: null }], SAVE_AFTER]);
  });
});

describe('write index: the save threshold in a large vault', () => {
  it('waits for 1/256 of the rows (kept and written) to change once that is more than SAVE_AFTER', async () => {
    const n = 17 * 256 - SAVE_AFTER; // with SAVE_AFTER written: 17 * 256 rows, a threshold of 17
    const { vault, files } = timedVault();
    for (let i = 0; i < n; i++) files.put(`episodic/m${String(i).padStart(4, '0')}.md`, note(`mem-${String(i).padStart(12, '0')}`, `Row ${i}.`));
    await (await WriteIndex.load(vault)).save(vault);
    const index = await WriteIndex.load(vault);
    const written = () => files.mtimes.get(WRITE_INDEX_PATH);
    const before = written();
    const write = async (i: number) => {
      const path = `episodic/w${i}.md`;
      const stat = await files.write(path, note(`mem-${String(90000 + i).padStart(12, '0')}`, `Written ${i}.`));
      index.wrote(parseMemory(path, files.files.get(path)!, vault.settings), stat);
      await index.save(vault);
    };
    for (let i = 0; i < SAVE_AFTER; i++) await write(i);
    expect(written()).toBe(before);
    await write(SAVE_AFTER);
    expect(written()).not.toBe(before);
    expect(savedRows(files.files.get(WRITE_INDEX_PATH)!)!.length).toBe(n + SAVE_AFTER + 1);
  });
});
