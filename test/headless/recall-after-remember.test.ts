import { existsSync, readFileSync, renameSync, statSync, writeFileSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

/**
 * An agent's everyday pair: `remember`, then `recall` in a new process. The recall splices the
 * snapshot with the new file (src/core/recall/snapshot-splice.ts) instead of rebuilding every
 * index from the catalog; whatever the vault went through, it answers as a recall that rebuilt
 * from scratch (the cache removed) answers, byte for byte, and writes the same snapshot.
 */

const NOW = '2026-11-29T12:00:00Z';
const CACHE = '.engram/cache';
const SNAPSHOT = `${CACHE}/recall.snapshot`;
const CATALOG = `${CACHE}/catalog.json`;
const QUERIES = ['ledger export queue', 'deploy key rotation', 'payments retries backoff', 'flaky session test'];

describe('recall right after a remember', () => {
  let dir: string;
  let vault: string;
  let cleanup: () => void;
  let aside = 0;

  beforeEach(async () => {
    ({ dir, vault, cleanup } = await initVault());
    const texts = [
      'The payments service retries three times with backoff.',
      'The deploy key rotates every Monday at noon.',
      'The session expiry test is flaky on CI: its timeout is 50 ms.',
      'We use pnpm workspaces; CI fails on any other lockfile.',
      'Backoff for payments retries starts at 200 milliseconds.',
    ];
    for (const [i, text] of texts.entries()) expect((await engram(vault, ['--now', `2026-11-2${i}T10:00:00Z`, 'remember', text])).code).toBe(0);
    await engram(vault, ['--json', '--now', NOW, 'recall', 'payments']); // the snapshot, as an agent's first recall writes it
  });
  afterEach(() => cleanup());

  const recallAll = async (): Promise<string> => {
    const out: string[] = [];
    for (const query of QUERIES) out.push((await engram(vault, ['--json', '--explain', '--now', NOW, 'recall', query, '--radius', 'all'])).stdout);
    out.push((await engram(vault, ['--now', NOW, 'context', 'payments retries'])).stdout);
    return out.join('\n');
  };
  const file = (rel: string) => path.join(vault, rel);

  /** The answers and snapshot now, then the same with the cache gone (a rebuild from every file): equal. */
  const expectAsRebuilt = async (): Promise<string> => {
    const catalogBefore = existsSync(file(CATALOG)) ? readFileSync(file(CATALOG)) : null;
    const spliced = await recallAll();
    const snapshot = readFileSync(file(SNAPSHOT));
    const catalogAfter = existsSync(file(CATALOG)) ? readFileSync(file(CATALOG)) : null;
    renameSync(file(CACHE), path.join(dir, `cache-aside-${aside++}`));
    const rebuilt = await recallAll();
    expect(spliced).toBe(rebuilt);
    expect(Buffer.compare(snapshot, readFileSync(file(SNAPSHOT)))).toBe(0);
    return catalogBefore !== null && catalogAfter !== null && Buffer.compare(catalogBefore, catalogAfter) === 0 ? 'catalog kept' : 'catalog written';
  };

  it('answers as a rebuild after one remember, without the catalog; after several in a row; after a touch', async () => {
    const made = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The ledger export queue drains every 12 minutes.'])).json();
    expect(made.action).toBe('created');
    expect(await expectAsRebuilt()).toBe('catalog kept');
    expect((await engram(vault, ['--json', '--now', NOW, 'recall', 'ledger export'])).json()[0].id).toBe(made.id);
    for (const text of ['The deploy key rotation moved to Fridays.', 'A zebra crossing was painted outside.', 'Ledger exports are checked by finance.']) {
      expect((await engram(vault, ['--now', NOW, 'remember', text])).code).toBe(0);
    }
    expect(await expectAsRebuilt()).toBe('catalog kept');
    expect((await engram(vault, ['--now', NOW, 'touch', made.id])).code).toBe(0);
    expect(await expectAsRebuilt()).toBe('catalog kept');
  });

  it('shows no stale text when the remembered file is edited or deleted afterwards (as in Obsidian)', async () => {
    const made = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The ledger export queue drains every 12 minutes.'])).json();
    await engram(vault, ['--json', '--now', NOW, 'recall', 'ledger']); // spliced
    const note = file(made.path);
    // the body only (the title alias keeps the first words: engram does not own an edit)
    writeFileSync(note, readFileSync(note, 'utf8').replace('drains every 12 minutes.', 'empties at midnight, the ledger team says.'));
    const hits = (await engram(vault, ['--json', '--now', NOW, 'recall', 'ledger midnight'])).json();
    expect(hits[0].id).toBe(made.id);
    expect(hits[0].text).toBe('The ledger export queue empties at midnight, the ledger team says.');
    expect((await engram(vault, ['--json', '--now', NOW, 'recall', 'drains minutes'])).json().map((h: { id: string }) => h.id)).not.toContain(made.id);
    await expectAsRebuilt();
    unlinkSync(note);
    expect((await engram(vault, ['--json', '--now', NOW, 'recall', 'ledger midnight'])).json().map((h: { id: string }) => h.id)).not.toContain(made.id);
    await expectAsRebuilt();
  });

  it('keeps every memory of remembers run at once (one event loop, interleaved), as a rebuild does', async () => {
    const texts = ['First parallel note about queues.', 'Second parallel note about queues.', 'Third parallel note about queues.'];
    const runs = await Promise.all(texts.map((text) => engram(vault, ['--json', '--now', NOW, 'remember', text])));
    const ids = runs.map((run) => run.json().id as string);
    const found = (await engram(vault, ['--json', '--now', NOW, 'recall', 'parallel note queues'])).json().map((h: { id: string }) => h.id);
    expect([...found].sort()).toEqual([...ids].sort());
    await expectAsRebuilt();
  });

  it('rebuilds from a snapshot cut short (a crash mid-write leaves no such file: it is renamed in whole), answering the same', async () => {
    await engram(vault, ['--now', NOW, 'remember', 'The ledger export queue drains every 12 minutes.']);
    const bytes = readFileSync(file(SNAPSHOT));
    writeFileSync(file(SNAPSHOT), bytes.subarray(0, bytes.length >> 1));
    expect(await expectAsRebuilt()).toBe('catalog written');
  });

  it('answers as a rebuild after an import and a consolidation that follow remembers', async () => {
    await engram(vault, ['--now', NOW, 'remember', 'The ledger export queue drains every 12 minutes.']);
    await engram(vault, ['--json', '--now', NOW, 'recall', 'ledger']);
    const lines = ['The deploy key rotation is logged in the audit channel.', 'Payments retries are capped at five.'].map((text) => JSON.stringify({ text })).join('\n');
    const jsonl = path.join(dir, 'lines.jsonl');
    writeFileSync(jsonl, `${lines}\n`);
    expect((await engram(vault, ['--now', NOW, 'import', jsonl])).code).toBe(0);
    await expectAsRebuilt();
    await engram(vault, ['--now', NOW, 'remember', 'The deploy key rotates every Monday at noon.']); // reinforces
    expect((await engram(vault, ['--now', '2026-12-20T03:00:00Z', 'consolidate'])).code).toBe(0);
    await expectAsRebuilt();
  });

  it('forget --purge writes the catalog again without the memory (a splice would leave its row)', async () => {
    const made = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The zqxjv secret token is 1234.'])).json();
    await engram(vault, ['--json', '--now', NOW, 'recall', 'token']); // spliced: the catalog has no row for it yet
    await engram(vault, ['--json', '--now', NOW, 'recall', 'ledger']);
    renameSync(file(CATALOG), path.join(dir, 'catalog-aside'));
    await engram(vault, ['--now', NOW, 'recall', 'anything']); // nothing changed: the snapshot answers, no catalog made
    expect(existsSync(file(CATALOG))).toBe(false);
    // the catalog made with the memory in it, then the purge
    renameSync(file(SNAPSHOT), path.join(dir, 'snapshot-aside'));
    await engram(vault, ['--now', NOW, 'recall', 'anything']);
    expect(readFileSync(file(CATALOG), 'utf8')).toContain('zqxjv');
    const before = statSync(file(CATALOG)).mtimeMs;
    expect((await engram(vault, ['--now', NOW, 'forget', made.id, '--purge'])).code).toBe(0);
    expect(statSync(file(CATALOG)).mtimeMs).toBeGreaterThanOrEqual(before);
    expect(readFileSync(file(CATALOG), 'utf8')).not.toContain('zqxjv');
    expect(readFileSync(file(SNAPSHOT)).includes('zqxjv')).toBe(false);
  });
});
