import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeLocks } from '../../headless/locks';
import { tempDir } from '../helpers/cli';

/**
 * The consolidation lock stays held while its holder's main thread computes without a turn
 * of its timers (consolidate-lock-starved.sh: 40,000 memories, 10 s stale time, scaled down
 * here to a 400 ms stale time and a holder blocked for 2.5 s), and no lock file is created
 * through a link planted in `.engram/` (symlink-follow-writes-outside.sh).
 */
const LIB = path.join(__dirname, '..', '..', 'dist', 'lib.js');

/** A process that takes the lock, blocks its main thread for `blockMs`, then releases. */
function blockingHolder(vault: string, blockMs: number): { started: Promise<void>; done: Promise<number> } {
  const script = `
    const { NodeLocks } = require(${JSON.stringify(LIB)});
    (async () => {
      const lock = await new NodeLocks(${JSON.stringify(vault)}, 400).tryLock('consolidate', 'blocked holder');
      if ('heldBy' in lock) { console.log('not taken'); process.exit(3); }
      console.log('taken');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${blockMs});
      await lock.release();
    })();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => (d.toString().includes('taken') && !d.toString().includes('not') ? resolve() : reject(new Error(d.toString()))));
  });
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { started, done };
}

describe('locks', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    mkdirSync(vault);
  });
  afterEach(() => cleanup());

  it('a holder whose main thread is blocked keeps the consolidation lock (consolidate-lock-starved.sh)', async () => {
    const holder = blockingHolder(vault, 2500);
    await holder.started;
    const locks = new NodeLocks(vault, 400);
    const answers: string[] = [];
    const deadline = Date.now() + 1500;
    while (Date.now() < deadline) {
      const lock = await locks.tryLock('consolidate', 'second run');
      if ('release' in lock) {
        await lock.release();
        answers.push('TAKEN');
        break;
      }
      answers.push(lock.heldBy.replace(/pid \d+/, 'pid N'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(new Set(answers)).toEqual(new Set([expect.stringMatching(/^blocked holder \(pid N on .+\)$/)]));
    expect(answers.length).toBeGreaterThan(5);
    expect(await holder.done).toBe(0);
    const after = await locks.tryLock('consolidate', 'after');
    expect('release' in after).toBe(true);
    if ('release' in after) await after.release();
  }, 30_000);

  it('a lock left by a process that died is taken over at once, not after the stale time', async () => {
    mkdirSync(path.join(vault, '.engram', 'locks'), { recursive: true });
    // pid 2^22 + 1 is above Linux's pid_max default: never a running process
    writeFileSync(path.join(vault, '.engram', 'locks', 'mem-aaaaaaaaaaaa.lock'), `4194305@${require('node:os').hostname()}`);
    const locks = new NodeLocks(vault, 60_000);
    const started = Date.now();
    expect(await locks.withLock('mem-aaaaaaaaaaaa', async () => 'ran')).toBe('ran');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(readdirSync(path.join(vault, '.engram', 'locks'))).toEqual([]);
  });

  it('refuses a locks folder that is a link out of the vault, creating nothing there', async () => {
    const outside = path.join(dir, 'outside');
    mkdirSync(outside);
    mkdirSync(path.join(vault, '.engram'));
    symlinkSync(outside, path.join(vault, '.engram', 'locks'));
    const locks = new NodeLocks(vault);
    await expect(locks.withLock('mem-aaaaaaaaaaaa', async () => 'ran')).rejects.toThrow(
      `${path.join(vault, '.engram', 'locks')} is a symbolic link: Engram keeps its locks in a real folder of the vault; remove it`,
    );
    await expect(locks.tryLock('consolidate', 'x')).rejects.toThrow('is a symbolic link');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('writes the holder description over a planted link, never through it', async () => {
    mkdirSync(path.join(vault, '.engram', 'locks'), { recursive: true });
    const victim = path.join(dir, 'precious.txt');
    writeFileSync(victim, 'precious user data\n');
    symlinkSync(victim, path.join(vault, '.engram', 'locks', 'consolidate.holder.json'));
    const lock = await new NodeLocks(vault).tryLock('consolidate', 'run');
    expect('release' in lock).toBe(true);
    if ('release' in lock) await lock.release();
    expect(require('node:fs').readFileSync(victim, 'utf8')).toBe('precious user data\n');
    expect(existsSync(path.join(vault, '.engram', 'locks', 'consolidate.lock'))).toBe(false);
  });
});
