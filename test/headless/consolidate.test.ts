import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, tempDir } from '../helpers/cli';

const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const NOW = '2026-11-29T12:00:00Z';

describe('engram consolidate (SPEC §8)', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  const ids: Record<string, string> = {} as Record<string, string>;
  /** The file name remember gives each (its title, ADR 0005); prune and revive keep it. */
  const NAMES: Record<string, string> = {
    forgotten: 'A passing remark about the build cache',
    fresh: 'The deploy pipeline was green today',
    verified: 'Decision money is stored in cents',
    core: 'Never log card numbers',
    hub: 'The outbox worker drains 500 rows a tick',
    warm: 'Staging was slow last week',
  };

  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
    const add = async (key: string, text: string, at: string, extra: string[] = []) => {
      const created = (await engram(vault, ['--json', '--now', at, 'remember', text, ...extra])).json();
      expect(created.path).toBe(`${extra.includes('decision') ? 'decisions' : 'episodic'}/${NAMES[key]}.md`);
      ids[key] = created.id;
    };
    await add('forgotten', 'A passing remark about the build cache.', '2026-08-01T00:00:00Z');
    await add('fresh', 'The deploy pipeline was green today.', '2026-11-28T00:00:00Z');
    // 546.5 days untouched: strength 0.5^(546.5/90) = 0.015, under the prune threshold; kept only because it is a verified decision
    await add('verified', 'Decision: money is stored in cents.', '2025-06-01T00:00:00Z', ['--category', 'decision', '--confidence', 'verified']);
    await add('core', 'Never log card numbers.', '2026-01-01T00:00:00Z');
    await add('hub', 'The outbox worker drains 500 rows a tick.', '2026-07-01T00:00:00Z');
    await add('warm', 'Staging was slow last week.', '2026-11-15T00:00:00Z');
    const core = path.join(vault, 'episodic', `${NAMES.core}.md`);
    writeFileSync(core, readFileSync(core, 'utf8').replace(/tier: \w+/, 'tier: core'));
    const hub = path.join(vault, 'episodic', `${NAMES.hub}.md`);
    writeFileSync(hub, `${readFileSync(hub, 'utf8')}\n[[${ids.fresh}|related]] [[${ids.warm}|related]] [[${ids.verified}|related]]\n`);
  });
  afterEach(() => cleanup());

  const files = () =>
    Object.fromEntries(
      ['episodic', 'decisions', 'archive'].flatMap((f) => readdirSync(path.join(vault, f)).filter((n) => n.endsWith('.md')).map((n) => [`${f}/${n}`, readFileSync(path.join(vault, f, n), 'utf8')])),
    );

  it('--dry-run prints the plan and writes nothing', async () => {
    const before = files();
    const run = await engram(vault, ['--json', '--now', NOW, 'consolidate', '--dry-run']);
    expect(run.code).toBe(0);
    const report = run.json();
    expect(report.dry_run).toBe(true);
    expect(report.steps.find((s: { step: string }) => s.step === 'prune').count).toBe(1);
    expect(files()).toEqual(before);
    expect(existsSync(path.join(vault, '.engram', 'runs.jsonl'))).toBe(false);
  });

  it('--dry-run --verbose and --json list the memories each step would change', async () => {
    const report = (await engram(vault, ['--json', '--now', NOW, 'consolidate', '--dry-run'])).json();
    const changes = Object.fromEntries(report.steps.map((s: { step: string; changes: unknown }) => [s.step, s.changes]));
    expect(changes.prune).toEqual([{ id: ids.forgotten, change: `episodic/${NAMES.forgotten}.md -> archive/${NAMES.forgotten}.md` }]);
    expect(changes.tiers).toHaveLength(report.steps.find((s: { step: string }) => s.step === 'tiers').count);
    expect(changes.tiers).toContainEqual({ id: ids.forgotten, change: 'active -> archive' });
    expect(changes.strengthen).toEqual([]);
    const human = await engram(vault, ['--now', NOW, 'consolidate', '--dry-run', '--verbose']);
    const lines = human.stdout.split('\n');
    const pruned = lines.findIndex((l) => l.startsWith('✓ pruned 1'));
    expect(lines[pruned + 1]).toBe(`    ${ids.forgotten}  episodic/${NAMES.forgotten}.md -> archive/${NAMES.forgotten}.md`);
    expect(human.stdout).toContain(`    ${ids.forgotten}  active -> archive\n`);
    // the hub's links name ids, and no file has that name now (ADR 0005): they would point at the files
    expect(lines[1]).toBe('✓ repaired 3 links (in 1 notes, pointed at the files their memories have now: dry run)');
    expect((await engram(vault, ['--now', NOW, 'consolidate', '--dry-run'])).stdout).not.toContain(`    ${ids.forgotten}`);
    // a note a person wrote without a tier gets the tier it is in: 'no tier -> active', not 'active -> active'
    writeFileSync(path.join(vault, 'semantic', 'Hand written.md'), '---\nid: mem-handwritten1\ncategory: semantic\ncreated_at: "2026-11-27T10:00:00Z"\n---\nThe deploy window is Tuesday.\n');
    const hand = (await engram(vault, ['--json', '--now', NOW, 'consolidate', '--dry-run'])).json();
    expect(hand.steps.find((s: { step: string }) => s.step === 'tiers').changes).toContainEqual({ id: 'mem-handwritten1', change: 'no tier -> active' });
  });

  it('stats names its two archive numbers: files in archive/ and memories the next consolidation moves there; tiers are the tiers now', async () => {
    const stats = async () => (await engram(vault, ['--json', '--now', NOW, 'stats'])).json();
    const tiers = { core: 1, active: 1, warm: 1, cold: 1, archive: 2 }; // the hub's tier is archive too, but its links keep it out of archive/
    expect(await stats()).toMatchObject({ memories: 6, archived: 0, archive_due: 1, by_tier: tiers });
    const human = (await engram(vault, ['--now', NOW, 'stats'])).stdout.split('\n');
    expect(human[0]).toMatch(/^memories {4}6 \(0 in archive\/, 1 due to move there at the next consolidation, 0 errors, \d+ bytes of text\)$/);
    expect(human[2]).toBe('tier now    core 1  active 1  warm 1  cold 1  archive 2');
    expect(human[4]).toBe('daily       0 files');
    await engram(vault, ['--now', NOW, 'log', 'one line']);
    expect((await engram(vault, ['--now', NOW, 'stats'])).stdout.split('\n')[4]).toBe('daily       1 file');
    const verbose = (await engram(vault, ['--now', NOW, 'consolidate', '--verbose'])).stdout.split('\n');
    expect(verbose).toContain('✓ pruned 1 (strength under 0.05: moved to archive/)');
    expect(verbose).toContain('✓ tiers: 4 demoted (tier written in the file -> new tier; engram list shows the tier each memory is in now)');
    expect(await stats()).toMatchObject({ memories: 6, archived: 1, archive_due: 0, by_tier: tiers });
    expect((await engram(vault, ['--now', NOW, 'list', '--limit', '1'])).stdout.split('\n')[0]).toBe('ID                CATEGORY  TIER NOW  CONFIDENCE  STRENGTH  CREATED     TEXT');
  });

  it('moves only the forgotten memory to archive/, keeping core, verified decisions and well-connected ones', async () => {
    const report = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
    expect(Object.fromEntries(report.steps.map((s: { step: string; count: number }) => [s.step, s.count]))).toMatchObject({ prune: 1, strengthen: 0, tiers: 4 }); // forgotten and hub to archive, verified to cold, warm to warm
    const after = files();
    expect(Object.keys(after).filter((p) => p.startsWith('archive/'))).toEqual([`archive/${NAMES.forgotten}.md`]);
    expect(after[`archive/${NAMES.forgotten}.md`]).toContain('tier: archive\n');
    expect(after[`episodic/${NAMES.core}.md`]).toContain('tier: core\n');
    // kept in decisions/ though its strength is under 0.05; 546.5 days with a 90-day half-life are 42.5 days of an episode: cold
    expect((await engram(vault, ['--json', '--now', NOW, 'show', ids.verified!])).json()).toMatchObject({ path: `decisions/${NAMES.verified}.md`, tier: 'cold', strength: 0.0149 });
    expect(after[`episodic/${NAMES.hub}.md`]).toContain('tier: archive\n');
    expect(after[`episodic/${NAMES.warm}.md`]).toContain('tier: warm\n');
    expect(after[`episodic/${NAMES.fresh}.md`]).toContain('tier: active\n');
    // the archived memory is still found by id and in the `all` radius
    expect((await engram(vault, ['--json', '--now', NOW, 'show', ids.forgotten!])).json().path).toBe(`archive/${NAMES.forgotten}.md`);
    expect((await engram(vault, ['--json', '--now', NOW, 'recall', 'build cache', '--radius', 'all'])).json()[0].id).toBe(ids.forgotten);
  });

  it('a second run with nothing new changes no memory file, and each run is logged', async () => {
    await engram(vault, ['--now', NOW, 'consolidate']);
    const before = files();
    const mtimes = Object.keys(before).map((p) => statSync(path.join(vault, p)).mtimeMs);
    const second = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
    expect(second.steps.filter((s: { count: number; step: string }) => s.step !== 'log').map((s: { count: number }) => s.count)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(files()).toEqual(before);
    expect(Object.keys(before).map((p) => statSync(path.join(vault, p)).mtimeMs)).toEqual(mtimes);
    const runs = readFileSync(path.join(vault, '.engram', 'runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(runs.map((r) => [r.prune, r.tiers])).toEqual([[1, 4], [0, 0]]);
  });

  it('strengthens memories used since the last run', async () => {
    await engram(vault, ['--now', NOW, 'consolidate']);
    await engram(vault, ['--now', '2026-11-30T10:00:00Z', 'touch', ids.fresh!]);
    const report = (await engram(vault, ['--json', '--now', '2026-11-30T12:00:00Z', 'consolidate'])).json();
    expect(report.steps.find((s: { step: string }) => s.step === 'strengthen').count).toBe(1);
    expect(readFileSync(path.join(vault, 'episodic', `${NAMES.fresh}.md`), 'utf8')).toContain('half_life_days: 9\n');
  });

  it('completes a plan left by a killed run, without duplicating anything', async () => {
    const plan = { format: 1, started_at: NOW, prune: [{ id: ids.forgotten, from: `episodic/${NAMES.forgotten}.md`, to: `archive/${NAMES.forgotten}.md` }], strengthen: [], tiers: [{ id: ids.forgotten, from: 'archive', to: 'archive' }] };
    writeFileSync(path.join(vault, '.engram', 'consolidation-plan.json'), JSON.stringify(plan));
    // killed between the link and the unlink of the move: both names exist
    writeFileSync(path.join(vault, 'archive', `${NAMES.forgotten}.md`), readFileSync(path.join(vault, 'episodic', `${NAMES.forgotten}.md`)));
    const report = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
    expect(report.resumed).toBe(true);
    expect(existsSync(path.join(vault, 'episodic', `${NAMES.forgotten}.md`))).toBe(false);
    expect(existsSync(path.join(vault, 'archive', `${NAMES.forgotten}.md`))).toBe(true);
    expect(existsSync(path.join(vault, '.engram', 'consolidation-plan.json'))).toBe(false);
  });

  it('never overlaps: a second run says who holds the lock and exits 1; a dead holder is taken over', async () => {
    const lockDir = path.join(vault, '.engram', 'locks');
    // a live holder: this test process
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(lockDir, 'consolidate.lock'), { recursive: true });
    writeFileSync(path.join(lockDir, 'consolidate.holder.json'), JSON.stringify({ pid: process.pid, host: require('node:os').hostname(), holder: 'engram consolidate started 2026-11-29T11:59:00Z' }));
    const held = spawnSync(process.execPath, [ENGRAM, '--vault', vault, '--now', NOW, 'consolidate'], { encoding: 'utf8' });
    expect([held.status, held.stderr]).toEqual([1, `engram: another consolidation is running: engram consolidate started 2026-11-29T11:59:00Z (pid ${process.pid} on ${require('node:os').hostname()})\n`]);
    // a dead holder: a process that has exited
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    writeFileSync(path.join(lockDir, 'consolidate.holder.json'), JSON.stringify({ pid: dead.pid, host: require('node:os').hostname(), holder: 'a run that was killed' }));
    const takeover = spawnSync(process.execPath, [ENGRAM, '--vault', vault, '--now', NOW, 'consolidate'], { encoding: 'utf8' });
    expect([takeover.status, takeover.stderr]).toEqual([0, '']);
    expect(existsSync(path.join(lockDir, 'consolidate.lock'))).toBe(false);
  });
});

describe('engram consolidate: episodes into semantic memories', () => {
  it('creates one inferred semantic memory from repeated episodes, links them, and reinforces it later', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const vault = path.join(dir, 'vault');
      await engram(vault, ['init']);
      const texts = [
        // similar (lexical cosine 0.62-0.80) but not near-identical (0.9 would merge them on write)
        'The session expiry test flaked on CI because its timeout is too short.',
        'Session expiry test failed in the nightly pipeline; timeout too short.',
        'The nightly CI run flaked: session expiry timeout is too short.',
      ];
      const ids: string[] = [];
      const files: string[] = [];
      const paths = [['--path', 'test/auth/session.test.ts', '--role', 'tester'], ['--role', 'tester'], ['--path', 'ci/nightly.yml', '--role', 'code-reviewer']];
      for (const [i, text] of texts.entries()) {
        const created = (await engram(vault, ['--json', '--now', `2026-11-2${i}T10:00:00Z`, 'remember', text, '--tags', 'testing,flaky', ...paths[i]!])).json();
        ids.push(created.id);
        files.push(created.path);
      }
      expect(files).toEqual([
        'episodic/The session expiry test flaked on CI because its timeout is.md',
        'episodic/Session expiry test failed in the nightly pipeline; timeout.md',
        'episodic/The nightly CI run flaked session expiry timeout is too.md',
      ]);
      const nameOf = (m: string) => path.basename(files[ids.indexOf(m)]!, '.md');
      await engram(vault, ['--json', '--now', '2026-11-25T10:00:00Z', 'remember', 'Lunch was pizza.']);
      const first = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
      expect(first.steps.find((s: { step: string }) => s.step === 'cluster')).toMatchObject({ count: 1, note: '1 new semantic, 0 reinforced (lexical similarity)' });
      const semantic = readdirSync(path.join(vault, 'semantic'));
      // named after its most representative episode (not "Recurring pattern in 3 episodes ...", which every pattern would share)
      expect(semantic).toEqual(['The session expiry test flaked on CI because its (pattern).md']);
      const note = readFileSync(path.join(vault, 'semantic', semantic[0]!), 'utf8');
      const id = /\nid: (mem-[a-z0-9]{12})\n/.exec(note)![1]!;
      expect(note).toContain('category: semantic\n');
      expect(note).toContain('confidence: inferred\n');
      expect(note).toContain('tags: ["flaky", "testing"]\n');
      expect(note).toContain('reinforcement_count: 1\ncluster_size: 3\n');
      expect(note).toContain('related_paths: ["ci/nightly.yml", "test/auth/session.test.ts"]\n');
      expect(note).toContain('agent_role: tester\n');
      // the pattern stated, not one episode copied: what recurs, how often, when, who, an example
      expect(note.slice(note.indexOf('\n---\n') + 5)).toBe(
        'Recurring pattern in 3 episodes between 2026-11-20 and 2026-11-22: session (3 of 3), expiry (3 of 3), timeout (3 of 3), short (3 of 3), test (2 of 3), flaked (2 of 3), ci (2 of 3), nightly (2 of 3).\n' +
          'Roles: tester (2), code-reviewer (1).\n' +
          'Tags: flaky, testing.\n' +
          'Example (the most representative episode): "The session expiry test flaked on CI because its timeout is too short."\n\n' +
          `Consolidated from 3 episodes: ${[...ids].sort().map((m) => `[[${nameOf(m)}]]`).join(' ')}\n`,
      );
      for (const file of files) expect(readFileSync(path.join(vault, file), 'utf8')).toContain('decays_from: "[[The session expiry test flaked on CI because its (pattern)]]"\n');

      const again = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
      expect(again.steps.find((s: { step: string }) => s.step === 'cluster').count).toBe(0);

      const fourth = (await engram(vault, ['--json', '--now', NOW, 'remember', 'Session expiry test flaky on CI again; the timeout is short.'])).json().path;
      const third = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
      expect(third.steps.find((s: { step: string }) => s.step === 'cluster')).toMatchObject({ count: 1, note: '0 new semantic, 1 reinforced (lexical similarity)' });
      expect(readFileSync(path.join(vault, 'semantic', semantic[0]!), 'utf8')).toContain('reinforcement_count: 2\n');
      expect(readFileSync(path.join(vault, fourth), 'utf8')).toContain('decays_from: "[[The session expiry test flaked on CI because its (pattern)]]"\n');
      // reinforcing the pattern renames nothing
      expect(readdirSync(path.join(vault, 'semantic'))).toEqual(semantic);
      // recall follows the new links: the pattern comes up with its episodes
      const recalled = (await engram(vault, ['--json', '--now', NOW, 'recall', 'session expiry flaky', '--explain'])).json().map((r: { id: string }) => r.id);
      expect(recalled).toContain(id);
    } finally {
      cleanup();
    }
  });
});

describe('engram consolidate: conflicts', () => {
  it('resolves a conflict one side clearly dominates, leaves a close one to a person, then carries out their decision', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const vault = path.join(dir, 'vault');
      await engram(vault, ['init']);
      const say = async (text: string, extra: string[] = []) => (await engram(vault, ['--json', '--now', NOW, 'remember', text, '--category', 'decision', ...extra])).json();
      const strong = await say('Integration tests must use Testcontainers with a real database.', ['--confidence', 'verified']);
      await say('Integration tests must use Testcontainers with a real database.');
      const weak = await say('Integration tests must not use Testcontainers with a real database.');
      const close = await say('Deploys must run on Fridays after the weekly review.');
      const other = await say('Deploys must not run on Fridays after the weekly review.');
      expect([weak.action, other.action]).toEqual(['conflict', 'conflict']);

      const run = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
      expect(run.steps.find((s: { step: string }) => s.step === 'conflicts')).toMatchObject({ count: 1, note: '1 left open for a person' });
      const decided = readFileSync(path.join(vault, weak.conflict_path), 'utf8');
      expect(decided).toContain(`status: resolved\n`);
      expect(decided).toContain(`winner: ${strong.id}\n`);
      expect(decided).toContain('resolution: "consolidation: verified × amplitude 2 outweighs observed × amplitude 1"\n');
      expect(readFileSync(path.join(vault, weak.path), 'utf8')).toContain('confidence: stale\n');
      expect(readFileSync(path.join(vault, other.conflict_path), 'utf8')).toContain('status: open\n');

      const note = path.join(vault, other.conflict_path);
      writeFileSync(note, readFileSync(note, 'utf8').replace('status: open', `status: resolved\nwinner: ${other.id}`));
      const after = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
      expect(after.steps.find((s: { step: string }) => s.step === 'conflicts')).toMatchObject({ count: 1, note: '0 left open for a person' });
      expect(readFileSync(path.join(vault, close.path), 'utf8')).toContain('confidence: stale\n');
      expect(readFileSync(path.join(vault, other.path), 'utf8')).toContain('confidence: observed\n');
      const quiet = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
      expect(quiet.steps.find((s: { step: string }) => s.step === 'conflicts').count).toBe(0);
    } finally {
      cleanup();
    }
  });
});
