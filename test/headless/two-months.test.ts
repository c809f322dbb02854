import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, tempDir } from '../helpers/cli';
import { ASK_DAY, QUESTIONS, at, writeTwoMonths } from './two-months.scenario';

/** The file names remember gave two of the memories (their titles, ADR 0005); archive and revive keep them. */
const PGBOSS = 'Chose pg-boss for background jobs after comparing it with.md';
const PORT = 'The local development database listens on port 5433, because.md';

/*
 * Everyday recall over two months of a team's work (two-months.scenario.ts), asked on day 62
 * the way an agent asks: plain `engram recall QUESTION`, no flags. Before tiers followed
 * strength and plain recall widened, 3 of these 13 first questions found their answer in the
 * top 3 (the 12 days-old episodes did; decisions taken in the first week had left the default
 * radius at day 22), against 13 of 13 with `--radius all`.
 */
jest.setTimeout(120_000);

describe('two months of everyday use, asked on day 62', () => {
  const { dir, cleanup } = tempDir('engram-two-months-');
  const vault = path.join(dir, 'vault');
  const now = at(ASK_DAY, 10);
  let ids: Record<string, string> = {};
  const key = (id: string) => Object.entries(ids).find(([, v]) => v === id)?.[0] ?? id;
  const recall = async (question: string, ...flags: string[]) => (await engram(vault, ['--json', '--now', now, 'recall', question, ...flags])).json();

  beforeAll(async () => {
    ids = await writeTwoMonths(vault);
  });
  afterAll(() => cleanup());

  it('answers plain questions with the memory that answers them in the top 3', async () => {
    const misses: string[] = [];
    for (const [question, expected] of QUESTIONS) {
      const ranked = (await recall(question)).map((r: { id: string }) => key(r.id));
      const rank = ranked.indexOf(expected) + 1;
      if (rank < 1 || rank > 3) misses.push(`${question} -> ${expected} at ${rank || 'none'}; top 3: ${ranked.slice(0, 3).join(', ')}`);
    }
    expect(misses).toEqual([]);
  });

  it('reaches into the archive for old episodes nobody used since, and says so', async () => {
    expect(existsSync(path.join(vault, 'archive', PGBOSS))).toBe(true);
    const [top] = await recall('Why did we pick pg-boss over BullMQ?');
    expect(top).toMatchObject({ id: ids.pgboss, tier: 'archive', widened: true, created_at: at(3, 10) });
    // a verified decision two months old is not widened: it is still as strong as a week-old episode
    const [mocks] = await recall('Can I mock the database in the integration tests?');
    expect(mocks).toMatchObject({ id: ids.mocks, tier: 'active', widened: false, confidence: 'verified', tags: ['testing'] });
  });

  it('puts the newer of two similar memories first', async () => {
    const ranked = (await recall('When is the standup?')).map((r: { id: string }) => r.id);
    expect(ranked).toContain(ids['standup-old']);
    expect(ranked.indexOf(ids['standup-new'])).toBeLessThan(ranked.indexOf(ids['standup-old']));
  });

  it('keeps what the agent knows in the context block after two months', async () => {
    const known = (await engram(vault, ['--json', '--now', now, 'context', '--peek'])).json();
    for (const decision of ['mocks', 'deploy', 'errors', 'secrets']) expect(known.included.map(key)).toContain(decision);
    const task = (await engram(vault, ['--json', '--now', now, 'context', 'write an integration test for the refunds repository', '--peek'])).json();
    expect(task.included.map(key)[0]).toBe('mocks');
    expect(task.block.split('\n')[2]).toMatch(/^\[VERIFIED · relative score 1\.00\] Integration tests must run against a real PostgreSQL/);
  });

  it('brings an archived memory back when it is used, and the next nights leave it there', async () => {
    const [hit] = await recall('Why did we pick pg-boss over BullMQ?', '--touch');
    expect(hit).toMatchObject({ id: ids.pgboss, tier: 'archive', widened: true, path: `episodic/${PGBOSS}` });
    expect(existsSync(path.join(vault, 'episodic', PGBOSS))).toBe(true);
    expect(existsSync(path.join(vault, 'archive', PGBOSS))).toBe(false);
    for (const night of [ASK_DAY + 1, ASK_DAY + 2]) await engram(vault, ['--now', at(night, 3), 'consolidate']);
    expect(existsSync(path.join(vault, 'episodic', PGBOSS))).toBe(true);
    // one step up from archive: cold (beyond the default radius), and strong again
    const [again] = (await engram(vault, ['--json', '--now', at(ASK_DAY + 2, 10), 'recall', 'Why did we pick pg-boss over BullMQ?'])).json();
    expect(again).toMatchObject({ id: ids.pgboss, tier: 'cold', widened: true, path: `episodic/${PGBOSS}` });
    expect(again.strength).toBeGreaterThan(0.85);
  });

  it('merges what remembering a known fact again adds', async () => {
    const run = await engram(vault, [
      '--json', '--now', now, 'remember', 'The local development database listens on port 5433, because the system PostgreSQL already holds 5432.',
      '--category', 'decision', '--confidence', 'verified', '--tags', 'database', '--path', 'docker-compose.yml', '--source', 'onboarding guide',
    ]);
    expect(run.json()).toEqual({ id: ids.port, path: `decisions/${PORT}`, action: 'reinforced' });
    const [port] = await recall('Which port does the local database use?');
    expect(port).toMatchObject({ id: ids.port, confidence: 'verified', tags: ['dev-setup', 'database'], related_paths: ['docker-compose.yml'], source: 'onboarding guide', last_accessed_at: now });
    expect(readFileSync(path.join(vault, 'decisions', PORT), 'utf8')).toContain('\nremembered_again: 1\n');
  });
});
