import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openVault } from '../../headless/runtime';
import { partsFromDocs, RecallEngine } from '../../src/core/recall/recall';
import { MemoryIndex } from '../../src/plugin/memory-index';

/*
 * The plugin's recall engine follows every change in place (LiveIndex: a touch patches a row, an
 * edit re-indexes it, a new memory takes the next row, a delete or a move empties one): after
 * each change it is ready at once, and its answers are exactly those of an engine built from
 * scratch.
 */
const NOW = '2026-11-29T12:00:00Z';
const note = (id: string, body: string, extra = '') =>
  `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-11-20T10:00:00Z"\nlast_accessed_at: "2026-11-20T10:00:00Z"\naccess_count: 0\nconfidence: observed\n${extra}---\n${body}\n`;

const BODIES = [
  'The payment worker retried the refund webhook after the timeout.',
  'Ledger balance checks run before each settlement job.',
  'The deploy rolled back because the migration locked the index.',
  'Flaky test in the outbox worker: the retry timeout was too short.',
  'Cache the partner rates for five minutes, not an hour.',
  'The webhook signature uses HMAC over the raw body.',
];

describe('the plugin index follows changes in place, answering as a full build', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-index-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('touch, co-access, new memories, edits and deletes', async () => {
    const { vault } = openVault({ vault: dir, now: NOW, cwd: dir, env: {} } as never, false);
    await vault.init({ obsidianConfigDir: null });
    BODIES.forEach((body, i) => fs.writeFileSync(path.join(dir, 'episodic', `mem-00000000000${i}.md`), note(`mem-00000000000${i}`, body, i === 5 ? 'session: "s1"\n' : '')));
    const index = new MemoryIndex(() => vault);
    await index.load();
    const queries = ['retry timeout', 'webhook', 'ledger settlement', 'partner cache', 'migration index deploy', 'hmac keys rotate', 'webhook signature monthly', 'refund retries'];
    const answers = (engine: RecallEngine) => queries.map((q) => engine.recall(q, { limit: 5, radius: 'all' }, vault.now()).map((h) => `${h.doc.id} ${h.score.toFixed(6)}`));
    const scratch = () => answers(new RecallEngine(partsFromDocs([...index.all()], vault.settings), vault.settings));
    expect(index.engineReady).toBe(false);
    answers(index.engine());
    expect(index.engineReady).toBe(true);

    // each change alone, then the engine asked (as recall opening would)
    const steps: Array<[string, string, string, boolean]> = [
      // [what, path, text, engine ready: nothing to build]
      ['a touch', 'episodic/mem-000000000003.md', note('mem-000000000003', BODIES[3]!, '').replace('access_count: 0', 'access_count: 4').replace('last_accessed_at: "2026-11-20T10:00:00Z"', 'last_accessed_at: "2026-11-29T11:00:00Z"'), true],
      ['new co-access', 'episodic/mem-000000000000.md', note('mem-000000000000', BODIES[0]!, 'co_access:\n  mem-000000000003: 2\n'), true],
      ['a new memory without an episode', 'episodic/mem-000000000006.md', note('mem-000000000006', 'The refund timeout is thirty seconds.'), true],
      ['a second touch of the new memory', 'episodic/mem-000000000006.md', note('mem-000000000006', 'The refund timeout is thirty seconds.').replace('access_count: 0', 'access_count: 2'), true],
      ['a new memory joining an episode', 'episodic/mem-000000000007.md', note('mem-000000000007', 'HMAC keys rotate monthly.', 'session: "s1"\n'), true],
      ['an edited text', 'episodic/mem-000000000001.md', note('mem-000000000001', `${BODIES[1]} Settlement retries twice.`), true],
      ['an edited member of an episode', 'episodic/mem-000000000005.md', note('mem-000000000005', `${BODIES[5]} The partner rotates keys.`, 'session: "s1"\n'), true],
      ['a memory joining an episode', 'episodic/mem-000000000004.md', note('mem-000000000004', BODIES[4]!, 'session: "s1"\n'), true],
      ['a touch after all that', 'episodic/mem-000000000002.md', note('mem-000000000002', BODIES[2]!).replace('access_count: 0', 'access_count: 1'), true],
    ];
    for (const [what, file, text, carried] of steps) {
      index.changed(file, text);
      expect([what, index.engineReady]).toEqual([what, carried]);
      expect([what, answers(index.engine())]).toEqual([what, scratch()]);
    }
    // a move to archive/ (same words): a row emptied, one added
    fs.mkdirSync(path.join(dir, 'archive'), { recursive: true });
    index.renamed('episodic/mem-000000000000.md', 'archive/mem-000000000000.md');
    expect(index.engineReady).toBe(true);
    expect(answers(index.engine())).toEqual(scratch());
    index.removed('episodic/mem-000000000002.md');
    expect(index.engineReady).toBe(true);
    expect(answers(index.engine())).toEqual(scratch());
    expect(answers(index.engine())[0]![0]).toMatch(/^mem-00000000000[36] /);
    // several changes, then one opening
    index.engine();
    index.changed('episodic/mem-000000000003.md', note('mem-000000000003', BODIES[3]!).replace('access_count: 0', 'access_count: 9'));
    index.changed('episodic/mem-000000000007.md', note('mem-000000000007', 'HMAC keys rotate monthly; the ledger checks them.', 'session: "s1"\n'));
    index.changed('episodic/mem-000000000008.md', note('mem-000000000008', 'Refund retries back off exponentially.', 'session: "s2"\n'));
    expect(index.engineReady).toBe(true);
    expect(answers(index.engine())).toEqual(scratch());
  });
  it('loads in slices of its budget (documents here): empty until loaded, then every memory, one change emitted per memory', async () => {
    const { vault } = openVault({ vault: dir, now: NOW, cwd: dir, env: {} } as never, false);
    await vault.init({ obsidianConfigDir: null });
    BODIES.forEach((body, i) => fs.writeFileSync(path.join(dir, 'episodic', `mem-00000000000${i}.md`), note(`mem-00000000000${i}`, body)));
    await new MemoryIndex(() => vault).load(); // writes the catalog
    const seen: number[] = [];
    let index: MemoryIndex | null = null;
    // the turn between two slices: what the index shows meanwhile
    index = new MemoryIndex(() => vault, async () => void seen.push(index!.size), 4);
    const emitted: string[][] = [];
    index.subscribe((changes) => emitted.push(changes.map((c) => `${c.id} ${c.before === null} ${c.after?.path}`)));
    await index.load();
    // 6 files listed (+1: sorted), 6 cached rows (+1: the catalog's one chunk), 6 files, 6 ids, 6 paths: 32 units, 8 slices of 4
    expect(seen).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(index.size).toBe(6);
    expect(index.idAt('episodic/mem-000000000004.md')).toBe('mem-000000000004');
    expect(emitted).toEqual([BODIES.map((_, i) => `mem-00000000000${i} true episodic/mem-00000000000${i}.md`)]);
  });
});
