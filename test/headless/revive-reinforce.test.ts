import { existsSync, linkSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { openVault } from '../../headless/runtime';
import { reviveFromArchive } from '../../src/core/touch';
import { engram, tempDir } from '../helpers/cli';

/*
 * Archive revives (SPEC §4) and reinforcement merges (SPEC §6), through the CLI as a person
 * and an agent use it: a memory forgotten long enough to be pruned comes back out of archive/
 * when it is touched, recalled and used, injected, or remembered again, and the next nights
 * leave it out until it fades again.
 */
const T0 = '2026-01-05T09:00:00Z';
const LATER = '2026-03-20T09:00:00Z'; // 74 days on: the episode was pruned long ago
/** The file name remember gives the memory (its title, ADR 0005); archive and revive keep it. */
const NAME = 'Chose pg-boss for background jobs BullMQ would need Redis';

describe('an archived memory comes back when it is used', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  let id: string;
  let other: string;
  const file = (rel: string) => path.join(vault, rel);

  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    await engram(vault, ['--now', T0, 'init']);
    const created = (await engram(vault, ['--json', '--now', T0, 'remember', 'Chose pg-boss for background jobs: BullMQ would need Redis.', '--tags', 'jobs'])).json();
    expect(created.path).toBe(`episodic/${NAME}.md`);
    id = created.id;
    other = (await engram(vault, ['--json', '--now', T0, 'remember', 'The staging database is refreshed every Sunday.'])).json().id;
    // the note links the other one: the link must keep resolving wherever the file is
    writeFileSync(file(`episodic/${NAME}.md`), `${readFileSync(file(`episodic/${NAME}.md`), 'utf8')}\n[[${other}|related]]\n`);
    await engram(vault, ['--now', '2026-02-20T03:00:00Z', 'consolidate']);
    expect(existsSync(file(`archive/${NAME}.md`))).toBe(true);
  });
  afterEach(() => cleanup());

  it('touch: one tier up, the file back in its folder, and the next consolidations leave it there', async () => {
    const before = readFileSync(file(`archive/${NAME}.md`), 'utf8');
    const touched = await engram(vault, ['--json', '--now', LATER, 'touch', id]);
    expect(touched.json()[0]).toMatchObject({ id, path: `episodic/${NAME}.md`, tier_before: 'archive', tier: 'cold', access_count: 1, revived_from: `archive/${NAME}.md` });
    expect(existsSync(file(`archive/${NAME}.md`))).toBe(false);
    const after = readFileSync(file(`episodic/${NAME}.md`), 'utf8');
    expect(after.slice(after.indexOf('\n---\n'))).toBe(before.slice(before.indexOf('\n---\n'))); // the body, byte for byte
    expect(after).toContain(`last_accessed_at: "${LATER}"\n`);
    expect((await engram(vault, ['--now', LATER, 'touch', id])).stdout).toBe(`${id}  cold -> warm  access_count 2  activation 0.5  spread to 1\n`);
    // consolidation the same night and a week later: not pruned, not demoted (it is strong again)
    for (const night of ['2026-03-21T03:00:00Z', '2026-03-27T03:00:00Z']) {
      const report = (await engram(vault, ['--json', '--now', night, 'consolidate'])).json();
      expect(report.steps.find((s: { step: string }) => s.step === 'prune').count).toBe(0);
    }
    expect(readFileSync(file(`episodic/${NAME}.md`), 'utf8')).toContain('tier: warm\n');
    const [shown] = [(await engram(vault, ['--json', '--now', '2026-03-27T09:00:00Z', 'show', id])).json()];
    expect(shown).toMatchObject({ path: `episodic/${NAME}.md`, tier_now: 'warm', links: [{ target: other, kind: 'related' }] });
    // plain recall finds it near, not widened
    const [hit] = (await engram(vault, ['--json', '--now', '2026-03-27T09:00:00Z', 'recall', 'background jobs pg-boss'])).json();
    expect(hit).toMatchObject({ id, tier: 'warm', widened: false });
  });

  it('recall --touch brings back what it returns; context shows without moving anything (injection is not use)', async () => {
    const [hit] = (await engram(vault, ['--json', '--now', LATER, 'recall', 'why pg-boss for background jobs', '--touch'])).json();
    // found in archive (tier, widened), and the path says where the file is now that the touch moved it
    expect(hit).toMatchObject({ id, tier: 'archive', widened: true, path: `episodic/${NAME}.md` });
    expect(existsSync(file(`episodic/${NAME}.md`))).toBe(true);
    expect(existsSync(file(`archive/${NAME}.md`))).toBe(false);

    const again = path.join(dir, 'again');
    await engram(again, ['--now', T0, 'init']);
    const other2 = (await engram(again, ['--json', '--now', T0, 'remember', 'Chose pg-boss for background jobs: BullMQ would need Redis.'])).json().id;
    await engram(again, ['--now', '2026-02-20T03:00:00Z', 'consolidate']);
    const ctx = (await engram(again, ['--json', '--now', LATER, 'context', 'background jobs library'])).json();
    expect(ctx.included).toEqual([other2]);
    expect(ctx.block).toContain('· from 2026-01-05] Chose pg-boss');
    expect(existsSync(path.join(again, 'archive', `${NAME}.md`))).toBe(true);
    // --peek (kept for compatibility) is the same: nothing moves
    await engram(again, ['--now', '2026-06-20T03:00:00Z', 'consolidate']);
    expect(existsSync(path.join(again, 'archive', `${NAME}.md`))).toBe(true);
    await engram(again, ['--json', '--now', '2026-06-21T09:00:00Z', 'context', 'background jobs library', '--peek']);
    expect(existsSync(path.join(again, 'archive', `${NAME}.md`))).toBe(true);
    // recall --batch --touch: each line printed after its touch, with the path the file has now
    const questions = path.join(dir, 'questions.jsonl');
    writeFileSync(questions, `${JSON.stringify({ id: 'q1', query: 'which library runs background jobs' })}\n`);
    const batch = await engram(again, ['--now', '2026-06-21T09:00:00Z', 'recall', '--batch', questions, '--touch']);
    expect(JSON.parse(batch.stdout).results.map((r: { id: string; path: string; tier: string }) => [r.id, r.path, r.tier])).toEqual([[other2, `episodic/${NAME}.md`, 'archive']]);
    expect(existsSync(path.join(again, 'episodic', `${NAME}.md`))).toBe(true);
  });

  it('remembering the same thing again reinforces and revives it: no duplicate, what the new call adds merged', async () => {
    const run = await engram(vault, ['--json', '--now', LATER, 'remember', 'Chose pg-boss for background jobs: BullMQ would need Redis.', '--tags', 'Jobs,queues', '--confidence', 'verified', '--path', 'src/jobs/boss.ts', '--source', 'adr-7', '--role', 'architect']);
    expect(run.json()).toEqual({ id, path: `episodic/${NAME}.md`, action: 'reinforced', revived: true });
    expect(existsSync(file(`archive/${NAME}.md`))).toBe(false);
    const text = readFileSync(file(`episodic/${NAME}.md`), 'utf8');
    for (const line of [
      `last_accessed_at: "${LATER}"`, 'agent_role: architect', 'confidence: verified', 'tags: ["jobs", "queues"]', 'access_count: 1', 'tier: cold',
      'related_paths: ["src/jobs/boss.ts"]', 'amplitude: 2', 'source: adr-7', 'remembered_again: 1',
    ]) expect(text).toContain(`\n${line}\n`);
    // a second source is recorded beside the first; confidence is never lowered
    await engram(vault, ['--now', LATER, 'remember', 'Chose pg-boss for background jobs: BullMQ would need Redis.', '--source', 'standup', '--confidence', 'inferred']);
    const twice = readFileSync(file(`episodic/${NAME}.md`), 'utf8');
    expect(twice).toContain('\nsource: adr-7\n');
    expect(twice).toContain('\nsources: ["standup"]\n');
    expect(twice).toContain('\nconfidence: verified\n');
    expect(twice).toContain('\naccess_count: 2\n');
    expect(twice).toContain('\nremembered_again: 2\n');
    // two reinforcements and no recall: the context block does not say "recalled"
    const ctx = (await engram(vault, ['--json', '--now', LATER, 'context', 'background jobs', '--peek'])).json();
    expect(ctx.block).not.toMatch(/recalled \d+x/);
    await engram(vault, ['--now', LATER, 'touch', id]);
    const peek = (await engram(vault, ['--json', '--now', LATER, 'context', 'background jobs', '--peek'])).json();
    expect(peek.block).toContain('(recalled 1x)');
    // one memory with this text, in one place
    const stats = (await engram(vault, ['--json', '--now', LATER, 'stats'])).json();
    expect([stats.memories, stats.archived]).toEqual([2, 1]);
  });

  it('an import line that matches it does the same as remember: reinforced, merged, back out of archive/', async () => {
    const lines = path.join(dir, 'lines.jsonl');
    writeFileSync(lines, `${JSON.stringify({ text: 'Chose pg-boss for background jobs: BullMQ would need Redis.', tags: ['queues'], source: 'wiki' })}\n`);
    const run = (await engram(vault, ['--json', '--now', LATER, 'import', lines])).json();
    expect(run.results).toEqual([{ id, path: `episodic/${NAME}.md`, action: 'reinforced' }]);
    const text = readFileSync(file(`episodic/${NAME}.md`), 'utf8');
    for (const line of ['tags: ["jobs", "queues"]', 'source: wiki', 'tier: cold', 'access_count: 1', 'remembered_again: 1', `last_accessed_at: "${LATER}"`]) expect(text).toContain(`\n${line}\n`);
    expect(existsSync(file(`archive/${NAME}.md`))).toBe(false);
  });

  it('the move is under the memory\'s lock and idempotent: a move cut short is completed, a second revive changes nothing', async () => {
    const { vault: v } = openVault({ vault, now: LATER, cwd: dir, env: {} });
    // a move killed between link and unlink: both names, the same bytes
    linkSync(file(`archive/${NAME}.md`), file(`episodic/${NAME}.md`));
    expect(await reviveFromArchive(v, id)).toBe(`episodic/${NAME}.md`);
    expect(existsSync(file(`archive/${NAME}.md`))).toBe(false);
    expect(await reviveFromArchive(v, id)).toBe(`episodic/${NAME}.md`);
    expect(existsSync(file(`episodic/${NAME}.md`))).toBe(true);
  });
});

describe('reinforcement merges what the new call adds', () => {
  it('tags and paths appended, confidence raised never lowered, the access counted as a touch', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const vault = path.join(dir, 'vault');
      await engram(vault, ['init']);
      const first = (await engram(vault, ['--json', '--now', T0, 'remember', 'The payments API returns errors as problem+json.', '--tags', 'api', '--confidence', 'inferred', '--path', 'src/api/errors.ts'])).json();
      const second = (await engram(vault, ['--json', '--now', '2026-01-20T09:00:00Z', 'remember', 'The payments API returns errors as problem+json.', '--tags', 'API,errors', '--path', 'src/api/errors.ts', '--path', 'docs/api.md', '--error'])).json();
      expect(second).toEqual({ id: first.id, path: first.path, action: 'reinforced' });
      const text = readFileSync(path.join(vault, first.path), 'utf8');
      for (const line of [
        'last_accessed_at: "2026-01-20T09:00:00Z"', 'confidence: observed', 'tags: ["api", "errors"]', 'access_count: 1', 'is_error: true',
        // 15 days old: warm, and the touch brings it one step up
        'related_paths: ["src/api/errors.ts", "docs/api.md"]', 'amplitude: 2', 'remembered_again: 1', 'tier: active', 'activation: 0.25',
      ]) expect(text).toContain(`\n${line}\n`);
      expect(text).not.toContain('source:');
    } finally {
      cleanup();
    }
  });
});
