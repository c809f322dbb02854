import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { consolidate } from '../../src/core/consolidation/consolidate';
import { resolveSettings } from '../../src/core/settings';
import { useMemories, type UseResult } from '../../src/core/touch';
import { Vault } from '../../src/core/vault';
import { at } from '../helpers/memory-ports';
import { engram, initVault } from '../helpers/cli';

/**
 * One bad file never stops the night, and a killed night is completed exactly once
 * (conflict-note-typo-bricks-consolidation.sh, consolidate-kill-double-strengthen.sh,
 * prune-move-loses-touch.sh, prune-kill-dup-forever.sh, giant-semantic-unreadable.sh,
 * fifo-symlink-hang.sh, symlink-loop-breaks-recall.sh, and the temp files kills leave).
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

const memory = (id: string, created: string, body: string, extra = '') => `---\nid: ${id}\ncategory: episodic\ncreated_at: "${created}"\n${extra}---\n${body}\n`;

function field(file: string, name: string): string | undefined {
  return new RegExp(`^${name}: (.*)$`, 'm').exec(readFileSync(file, 'utf8'))?.[1];
}

function mkfifo(file: string): void {
  expect(spawnSync('mkfifo', [file]).status).toBe(0);
}

function cli(vault: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [ENGRAM, '--vault', vault, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 20_000 });
}

describe('consolidation faults', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => ({ dir, vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  it('a typo in a person-resolved conflict note is reported and skipped, every night (conflict-note-typo-bricks-consolidation.sh)', async () => {
    writeFileSync(path.join(vault, 'episodic', 'mem-aaaaaaaaaaaa.md'), memory('mem-aaaaaaaaaaaa', '2026-11-01T10:00:00Z', 'We deploy on Fridays.', 'tier: active\n'));
    writeFileSync(
      path.join(vault, 'conflicts', 'conflict-typo.md'),
      '---\nid: conflict-typo\nstatus: resolved\nsides: [mem-aaaaaaaaaaaa, mem-bbbbbbbbbbb]\nwinner: mem-aaaaaaaaaaaa\n---\n# Conflict\n',
    );
    for (const night of ['20', '21', '22']) {
      const run = await engram(vault, ['--json', '--now', `2026-11-${night}T03:00:00Z`, 'consolidate']);
      expect(run.code).toBe(3);
      expect(run.json().exit_status).toBe(3);
      expect(run.stderr).toBe(
        'engram: consolidate skipped 1 file it could not read or change (exit 3):\n' +
          '  conflicts/conflict-typo.md (conflicts): "mem-bbbbbbbbbbb" is not a memory id (mem- and 12 lowercase letters or digits): fix the note\n' +
          'fix or remove them (engram doctor says what is wrong with each); the next consolidation tries them again\n',
      );
      expect(run.json().skipped).toEqual([
        { step: 'conflicts', path: 'conflicts/conflict-typo.md', reason: '"mem-bbbbbbbbbbb" is not a memory id (mem- and 12 lowercase letters or digits): fix the note' },
      ]);
    }
    expect(field(path.join(vault, 'episodic', 'mem-aaaaaaaaaaaa.md'), 'tier')).toBe('warm');
    expect(existsSync(path.join(vault, '.engram', 'consolidation-plan.json'))).toBe(false);
  });

  it('a run killed after strengthening is completed without strengthening twice (consolidate-kill-double-strengthen.sh)', async () => {
    const halfLives: string[] = [];
    for (const killed of [false, true]) {
      const v = path.join(dir, `v-${killed}`);
      await engram(v, ['init']);
      const file = path.join(v, 'decisions', 'mem-strength0001.md');
      writeFileSync(file, '---\nid: mem-strength0001\ncategory: decision\ncreated_at: "2026-10-01T10:00:00Z"\nconfidence: verified\ntier: active\n---\nUse Postgres for the outbox.\n');
      // only the killed run needs a process of its own; the others run in process
      expect((await engram(v, ['--now', '2026-11-28T03:00:00Z', 'consolidate'])).code).toBe(0);
      expect((await engram(v, ['--now', '2026-11-29T10:00:00Z', 'touch', 'mem-strength0001'])).code).toBe(0);
      if (killed) {
        expect(cli(v, ['--now', '2026-11-30T03:00:00Z', 'consolidate'], { ENGRAM_CRASH_AT: 'tiers-written' }).signal).toBe('SIGKILL');
        expect(field(file, 'half_life_days')).toBe('92');
      }
      const next = await engram(v, ['--json', '--now', '2026-11-30T03:00:00Z', 'consolidate']);
      expect(next.json().resumed).toBe(killed);
      halfLives.push(field(file, 'half_life_days')!);
    }
    expect(halfLives).toEqual(['92', '92']);
  }, 60_000);

  // The agent's first lock comes during the moves (the run moves alone, under the gate: the touch
  // waits for it), or it took a lock before the run (its holder file is there: the run holds each
  // memory's lock, and the touch waits for that one)
  it.each([['during the run', false], ['before the run', true]])('a touch arriving while prune moves the memory is kept, the agent locking first %s (prune-move-loses-touch.sh)', async (_, lockedBefore) => {
    for (let i = 1; i <= 3; i++) {
      writeFileSync(path.join(vault, 'episodic', `mem-prune000000${i}.md`), memory(`mem-prune000000${i}`, '2026-07-01T10:00:00Z', `Ancient memory ${i}`, 'tier: cold\n'));
    }
    // an agent (its own file port and locks) touches the memory between the move's link and its
    // unlink; the move goes on only once the touch has finished (a move that does not hold the
    // memory's lock: it then deletes what the touch wrote) or waits for that lock (the prune holds it)
    let waits!: () => void;
    const waiting = new Promise<void>((resolve) => (waits = resolve));
    const agentLocks = new NodeLocks(vault, undefined, { waiting: (key) => key === 'mem-prune0000001' && waits() });
    const agent = new Vault({ files: new NodeFileStore(vault), locks: agentLocks, clock: { now: () => at('2026-11-30T00:00:01Z') }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    if (lockedBefore) await agentLocks.withLock('daily-2026-11-29', async () => undefined);
    const gate = path.join(vault, '.engram', 'locks', 'moves.gate.lock');
    let gated: boolean | null = null;
    let touch: Promise<UseResult[]> | null = null;
    let arrived: 'finished' | 'waiting' | null = null;
    const files = new NodeFileStore(vault, {
      afterLink: async (target) => {
        if (touch || !target.endsWith('mem-prune0000001.md')) return;
        gated = existsSync(gate);
        touch = useMemories(agent, ['mem-prune0000001'], { use: 'read', touch: true, coAccess: false });
        arrived = await Promise.race([touch.then(() => 'finished' as const), waiting.then(() => 'waiting' as const)]);
      },
    });
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at('2026-11-30T00:00:00Z') }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const report = await consolidate(v, { dryRun: false, holder: 'test', elapsed: () => 0 });
    expect(report.steps.find((s) => s.step === 'prune')!.count).toBe(3);
    const [touched] = await touch!;
    // the touch is in the memory's one file: let in after the move, it found the memory in
    // archive/ and brought it back
    expect(readdirSync(path.join(vault, 'archive')).sort()).toEqual(['mem-prune0000002.md', 'mem-prune0000003.md']);
    expect(readdirSync(path.join(vault, 'episodic'))).toEqual(['mem-prune0000001.md']);
    const file = path.join(vault, 'episodic', 'mem-prune0000001.md');
    expect([field(file, 'access_count'), field(file, 'last_accessed_at')]).toEqual(['1', '"2026-11-30T00:00:01Z"']);
    expect([touched!.path, touched!.access_count, touched!.revived_from]).toEqual(['episodic/mem-prune0000001.md', 1, 'archive/mem-prune0000001.md']);
    expect([arrived, gated, existsSync(gate)]).toEqual(['waiting', !lockedBefore, false]);
  });

  it('a move cut between its link and its unlink, then touched, ends as one memory (prune-kill-dup-forever.sh)', async () => {
    for (let i = 1; i <= 3; i++) writeFileSync(path.join(vault, 'episodic', `mem-dupli000000${i}.md`), memory(`mem-dupli000000${i}`, '2026-07-01T10:00:00Z', `Ancient memory number ${i} about kites`));
    // the run is killed after writing its plan; then the first move's link is done, not its unlink
    expect(cli(vault, ['--now', '2026-11-30T00:00:00Z', 'consolidate'], { ENGRAM_CRASH_AT: 'plan-written' }).signal).toBe('SIGKILL');
    linkSync(path.join(vault, 'episodic', 'mem-dupli0000001.md'), path.join(vault, 'archive', 'mem-dupli0000001.md'));
    const stats = (await engram(vault, ['--json', '--now', '2026-11-30T01:00:00Z', 'stats'])).json();
    expect([stats.memories, stats.invalid]).toEqual([3, [{ path: 'archive/mem-dupli0000001.md', reason: 'a second copy of mem-dupli0000001 (the memory is episodic/mem-dupli0000001.md)' }]]);
    expect((await engram(vault, ['--now', '2026-11-30T08:00:00Z', 'touch', 'mem-dupli0000001'])).code).toBe(0);
    const resumed = (await engram(vault, ['--json', '--now', '2026-12-01T03:15:00Z', 'consolidate'])).json();
    expect([resumed.resumed, resumed.skipped]).toEqual([true, []]);
    expect(readdirSync(path.join(vault, 'episodic'))).toEqual(['mem-dupli0000001.md']);
    expect(readdirSync(path.join(vault, 'archive')).sort()).toEqual(['mem-dupli0000002.md', 'mem-dupli0000003.md']);
    expect(field(path.join(vault, 'episodic', 'mem-dupli0000001.md'), 'access_count')).toBe('1');
    const recalled = (await engram(vault, ['--json', '--now', '2026-12-01T04:00:00Z', 'recall', 'kites', '--radius', 'all'])).json();
    expect(recalled.map((r: { id: string }) => r.id).sort()).toEqual(['mem-dupli0000001', 'mem-dupli0000002', 'mem-dupli0000003']);
  }, 30_000);

  it('an id found in two folders without a plan is settled by the next run, the copy a touch reached kept', async () => {
    writeFileSync(path.join(vault, 'archive', 'mem-twice0000001.md'), memory('mem-twice0000001', '2026-07-01T10:00:00Z', 'Twice.', 'tier: archive\n'));
    linkSync(path.join(vault, 'archive', 'mem-twice0000001.md'), path.join(vault, 'episodic', 'mem-twice0000001.md'));
    const run = (await engram(vault, ['--json', '--now', '2026-11-30T03:00:00Z', 'consolidate'])).json();
    expect(run.skipped).toEqual([]);
    expect(['episodic', 'archive'].filter((f) => existsSync(path.join(vault, f, 'mem-twice0000001.md')))).toHaveLength(1);
  });

  it('a pattern of many episodes becomes a semantic memory Engram can read, reinforced the next night (giant-semantic-unreadable.sh)', async () => {
    // scaled down from 15,000 episodes and 256 KB: 300 episodes chained into one cluster, a
    // 4 KB file limit (listing every member would take 6.3 KB)
    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ maxFileBytes: 4096 }));
    for (let i = 0; i < 300; i++) {
      const id = `mem-g${String(i).padStart(11, '0')}`;
      writeFileSync(path.join(vault, 'episodic', `${id}.md`), memory(id, '2026-11-10T10:00:00Z', `Episode ${i} of topic ${i % 20} with detail ${(i * 7) % 997}`));
    }
    const first = (await engram(vault, ['--json', '--now', '2026-11-30T03:00:00Z', 'consolidate'])).json();
    expect(first.skipped).toEqual([]);
    const semantic = readdirSync(path.join(vault, 'semantic'));
    expect(semantic).toHaveLength(1);
    const text = readFileSync(path.join(vault, 'semantic', semantic[0]!), 'utf8');
    expect(text).toMatch(/Consolidated from 300 episodes: (\[\[mem-g\d{11}\]\] ){49}\[\[mem-g\d{11}\]\] and 250 more \(each links here with decays_from\)\n$/);
    for (let i = 1; i <= 3; i++) writeFileSync(path.join(vault, 'episodic', `mem-newday00000${i}.md`), memory(`mem-newday00000${i}`, '2026-11-30T12:00:00Z', `Episode ${300 + i} of topic ${i} with detail 5`));
    const next = (await engram(vault, ['--json', '--now', '2026-12-01T03:00:00Z', 'consolidate'])).json();
    expect(next.steps.find((s: { step: string }) => s.step === 'cluster').note).toMatch(/^0 new semantic, 1 reinforced/);
    expect(readdirSync(path.join(vault, 'semantic'))).toEqual(semantic);
    expect((await engram(vault, ['--json', 'stats'])).json().invalid).toEqual([]);
  }, 60_000);

  it('FIFOs, links to FIFOs, symlink loops and folders named like notes are reported, never waited on (fifo-symlink-hang.sh, symlink-loop-breaks-recall.sh)', () => {
    writeFileSync(path.join(vault, 'episodic', 'mem-fine00000001.md'), memory('mem-fine00000001', '2026-11-29T10:00:00Z', 'Kites fly in the wind.'));
    mkfifo(path.join(vault, '.engram', 'pipe'));
    symlinkSync('../.engram/pipe', path.join(vault, 'episodic', 'mem-fifolink0001.md'));
    mkfifo(path.join(vault, 'episodic', 'mem-fifo00000001.md'));
    symlinkSync('mem-loop00000001.md', path.join(vault, 'episodic', 'mem-loop00000001.md'));
    mkdirSync(path.join(vault, 'episodic', 'mem-folder000001.md'));
    const stats = cli(vault, ['--json', '--now', '2026-11-30T00:00:00Z', 'stats']);
    expect(stats.status).toBe(0);
    expect(JSON.parse(stats.stdout).invalid).toEqual([
      { path: 'episodic/mem-fifo00000001.md', reason: 'not a regular file (a FIFO)' },
      { path: 'episodic/mem-fifolink0001.md', reason: 'not a regular file (a FIFO)' },
      { path: 'episodic/mem-folder000001.md', reason: 'is a folder, not a file' },
      { path: 'episodic/mem-loop00000001.md', reason: 'a symbolic link loop' },
    ]);
    const recall = cli(vault, ['--json', '--now', '2026-11-30T00:00:00Z', 'recall', 'kites']);
    expect([recall.status, JSON.parse(recall.stdout).map((r: { id: string }) => r.id)]).toEqual([0, ['mem-fine00000001']]);
    expect(cli(vault, ['--now', '2026-11-30T00:00:00Z', 'context', 'kites', '--peek']).status).toBe(0);
    // it goes through, and says (exit 3) that it skipped the files it could not read
    expect(cli(vault, ['--now', '2026-11-30T00:00:00Z', 'consolidate']).status).toBe(3);
    const show = cli(vault, ['show', 'mem-fifolink0001']);
    expect([show.status, show.stderr]).toEqual([1, 'engram: episodic/mem-fifolink0001.md: not a regular file (a FIFO)\n']);
    const byPath = cli(vault, ['show', 'episodic/mem-fifolink0001.md']);
    expect([byPath.status, byPath.stderr]).toEqual([1, 'engram: episodic/mem-fifolink0001.md: not a regular file (a FIFO)\n']);
  }, 60_000);

  it('removes the temp files killed writers left, and only those', async () => {
    const dead = path.join(vault, 'episodic', '.mem-aaaaaaaaaaaa.md.4194305.1.tmp');
    const old = path.join(vault, '.engram', '.runs.jsonl.4194305.7.tmp');
    const live = path.join(vault, 'episodic', `.mem-bbbbbbbbbbbb.md.${process.pid}.1.tmp`);
    const fresh = path.join(vault, 'episodic', '.mem-cccccccccccc.md.4194305.2.tmp');
    for (const f of [dead, old, live, fresh]) writeFileSync(f, 'partial');
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    for (const f of [dead, old, live]) utimesSync(f, twoMinutesAgo, twoMinutesAgo);
    const run = (await engram(vault, ['--json', '--now', '2026-11-30T00:00:00Z', 'consolidate'])).json();
    expect(run.temp_removed).toBe(2);
    expect([dead, old, live, fresh].map((f) => existsSync(f))).toEqual([false, false, true, true]);
  });
});
