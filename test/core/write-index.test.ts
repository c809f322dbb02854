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
      ['episodic/m0512.md', 'mem-000000000512', 'cach servic 512 hold y584 entri', ['k1', 'k2']],
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
    ];
    const analysis = sample.map((text) => {
      const a = new AnalysedText(text);
      const { terms, negated, affirmed } = a.polarity;
      const s = a.signals;
      return [[...terms], [...negated].sort(), [...affirmed].sort(), s.cue, [...s.rejected].sort(), [...s.values].sort(), [...s.dates].sort()];
    });
    expect(WRITE_ANALYSIS_VERSION).toBe(1);
    expect(createHash('sha256').update(JSON.stringify(analysis)).digest('hex').slice(0, 16)).toBe('fe657f5736fe5028');
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
