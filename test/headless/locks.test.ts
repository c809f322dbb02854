import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NodeLocks } from '../../headless/locks';
import { tempDir } from '../helpers/cli';

/**
 * The consolidation lock stays held while its holder's main thread computes without a turn
 * of its timers (consolidate-lock-starved.sh: 40,000 memories, 10 s stale time, scaled down
 * here to a 400 ms stale time and a holder blocked until the test lets it go), and no lock
 * file is created through a link planted in `.engram/` (symlink-follow-writes-outside.sh).
 * Nothing here depends on how fast the machine is: the holder blocks until told, the test
 * waits until the holder's worker has refreshed the lock three times, and the waiter judges the
 * lock's age on an injected clock (a 400 ms refresh window failed at load 15 on 2 cores).
 */
const LIB = path.join(__dirname, '..', '..', 'dist', 'lib.js');
const STALE_MS = 400;

/** A process that takes the lock, then blocks its main thread (no timer runs) until `release` is called. */
function blockingHolder(vault: string, gate: string): { started: Promise<void>; release: () => Promise<number> } {
  const script = `
    const fs = require('node:fs');
    const { NodeLocks } = require(${JSON.stringify(LIB)});
    (async () => {
      const lock = await new NodeLocks(${JSON.stringify(vault)}, ${STALE_MS}).tryLock('consolidate', 'blocked holder');
      if ('heldBy' in lock) { console.log('not taken'); process.exit(3); }
      lock.long(); // a long run: the lock is kept fresh without its main thread
      console.log('taken');
      const cell = new Int32Array(new SharedArrayBuffer(4));
      while (!fs.existsSync(${JSON.stringify(gate)})) Atomics.wait(cell, 0, 0, 20);
      await lock.release();
    })();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => (d.toString().includes('taken') && !d.toString().includes('not') ? resolve() : reject(new Error(d.toString()))));
  });
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return {
    started,
    release: () => {
      writeFileSync(gate, '');
      return done;
    },
  };
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
    const holder = blockingHolder(vault, path.join(dir, 'release'));
    try {
      await holderKeepsLock(holder);
    } finally {
      await holder.release(); // a failed assertion never leaves the holder blocked
    }
  }, 30_000);

  async function holderKeepsLock(holder: ReturnType<typeof blockingHolder>): Promise<void> {
    await holder.started;
    const lockDir = path.join(vault, '.engram', 'locks', 'consolidate.lock');
    // Its worker thread refreshes the lock while the holder's main thread is blocked: wait (however
    // long the machine takes) until its modification time has moved three times.
    const seen = [statSync(lockDir, { bigint: true }).mtimeNs];
    while (seen.length < 4) {
      const mtime = statSync(lockDir, { bigint: true }).mtimeNs;
      if (mtime !== seen[seen.length - 1]) seen.push(mtime);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen.every((t, i) => i === 0 || t > seen[i - 1]!)).toBe(true);
    // A waiter judges the lock by its age on its own clock (injected here, so that no answer
    // depends on how late the machine runs the refresh): within the stale time the lock is held
    // by the blocked holder, named; past it, and only then, it would be taken over.
    const refreshed = Number(statSync(lockDir, { bigint: true }).mtimeMs); // whole ms, as the lock code reads it
    let now = refreshed + STALE_MS;
    const locks = new NodeLocks(vault, STALE_MS, { now: () => now });
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) {
      const lock = await locks.tryLock('consolidate', 'second run');
      answers.push('release' in lock ? 'TAKEN' : lock.heldBy.replace(/pid \d+/, 'pid N'));
      if ('release' in lock) await lock.release();
    }
    expect(new Set(answers)).toEqual(new Set([expect.stringMatching(/^blocked holder \(pid N on .+\)$/)]));
    expect(await holder.release()).toBe(0);
    now = Date.now();
    const after = await locks.tryLock('consolidate', 'after');
    expect('release' in after).toBe(true);
    if ('release' in after) await after.release();
  }

  /** Worker threads made (worker_threads.Worker, wrapped while `fn` runs). */
  async function countingWorkers(fn: (made: import('node:worker_threads').Worker[]) => Promise<void>): Promise<void> {
    const threads = require('node:worker_threads') as { Worker: typeof import('node:worker_threads').Worker };
    const Original = threads.Worker;
    const made: import('node:worker_threads').Worker[] = [];
    threads.Worker = class extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        super(...args);
        made.push(this);
      }
    };
    try {
      await fn(made);
    } finally {
      threads.Worker = Original;
    }
  }

  it('the main thread stamps a consolidation lock when still() comes a quarter of the stale time after the last stamp, and only its own folder', async () => {
    let now = 1_000_000;
    const lock = await new NodeLocks(vault, STALE_MS, { now: () => now }).tryLock('consolidate', 'run');
    if (!('release' in lock)) throw new Error('not taken');
    const lockDir = path.join(vault, '.engram', 'locks', 'consolidate.lock');
    const old = new Date('2000-01-01T00:00:00Z');
    const mtime = () => statSync(lockDir).mtimeMs;
    utimesSync(lockDir, old, old);
    now += STALE_MS / 4 - 1;
    lock.still!();
    expect(mtime()).toBe(old.getTime());
    now += 1;
    lock.still!();
    expect(mtime()).toBeGreaterThan(old.getTime());
    // the next stamp a quarter of the stale time after this one
    utimesSync(lockDir, old, old);
    now += STALE_MS / 4 - 1;
    lock.still!();
    expect(mtime()).toBe(old.getTime());
    now += 1;
    lock.still!();
    expect(mtime()).toBeGreaterThan(old.getTime());
    // another folder at the lock's name (taken over meanwhile): left as it is
    rmSync(lockDir, { recursive: true });
    mkdirSync(path.join(dir, 'spacer'));
    mkdirSync(lockDir);
    utimesSync(lockDir, old, old);
    now += STALE_MS;
    lock.still!();
    expect(mtime()).toBe(old.getTime());
    rmSync(lockDir, { recursive: true });
    await lock.release();
  });

  it('an idle main thread keeps the consolidation lock fresh by its timer, without a worker thread', async () => {
    await countingWorkers(async (made) => {
      const lock = await new NodeLocks(vault, STALE_MS).tryLock('consolidate', 'run');
      if (!('release' in lock)) throw new Error('not taken');
      const lockDir = path.join(vault, '.engram', 'locks', 'consolidate.lock');
      const old = new Date('2000-01-01T00:00:00Z');
      utimesSync(lockDir, old, old);
      // waits (however long the machine takes) for the timer's stamp
      while (statSync(lockDir).mtimeMs === old.getTime()) await new Promise((resolve) => setTimeout(resolve, 20));
      lock.still!();
      expect(made).toHaveLength(0);
      await lock.release();
      expect(existsSync(lockDir)).toBe(false);
    });
  });

  it('long() starts one worker thread, which stamps the lock at once and is stopped by release', async () => {
    await countingWorkers(async (made) => {
      const lock = await new NodeLocks(vault, 3_600_000).tryLock('consolidate', 'run');
      if (!('release' in lock)) throw new Error('not taken');
      const lockDir = path.join(vault, '.engram', 'locks', 'consolidate.lock');
      const old = new Date('2000-01-01T00:00:00Z');
      utimesSync(lockDir, old, old);
      lock.long!();
      lock.long!();
      expect(made).toHaveLength(1);
      // the worker's first stamp (its interval here is 15 minutes): waited for, however long it takes
      while (statSync(lockDir).mtimeMs === old.getTime()) await new Promise((resolve) => setTimeout(resolve, 20));
      const exited = new Promise<number>((resolve) => made[0]!.once('exit', resolve));
      await lock.release();
      expect(await exited).toBe(1); // terminated
      expect(existsSync(lockDir)).toBe(false);
    });
  });

  it('once long() has started the worker, still() leaves the stamping to it: the main thread stamps nothing', async () => {
    await countingWorkers(async (made) => {
      let now = 1_000_000;
      const lock = await new NodeLocks(vault, 3_600_000, { now: () => now }).tryLock('consolidate', 'run');
      if (!('release' in lock)) throw new Error('not taken');
      const lockDir = path.join(vault, '.engram', 'locks', 'consolidate.lock');
      const old = new Date('2000-01-01T00:00:00Z');
      utimesSync(lockDir, old, old);
      lock.long!();
      expect(made).toHaveLength(1);
      // the worker's first stamp, at once; its next one is 15 minutes away
      while (statSync(lockDir).mtimeMs === old.getTime()) await new Promise((resolve) => setTimeout(resolve, 20));
      utimesSync(lockDir, old, old);
      now += 3_600_000; // four times the quarter after which still() would stamp without a worker
      lock.still!();
      expect(statSync(lockDir).mtimeMs).toBe(old.getTime());
      await lock.release();
    });
  });

  it('after release, long() starts no worker and still() stamps nothing', async () => {
    await countingWorkers(async (made) => {
      let now = 1_000_000;
      const lock = await new NodeLocks(vault, STALE_MS, { now: () => now }).tryLock('consolidate', 'run');
      if (!('release' in lock)) throw new Error('not taken');
      const lockDir = path.join(vault, '.engram', 'locks', 'consolidate.lock');
      await lock.release();
      lock.long!();
      expect(made).toHaveLength(0);
      now += STALE_MS;
      lock.still!();
      expect(existsSync(lockDir)).toBe(false);
    });
  });

  it('a consolidation lock whose folder cannot be made for another reason than a holder says so, naming the key', async () => {
    const locks = new NodeLocks(vault, STALE_MS);
    const first = await locks.tryLock('consolidate', 'run');
    if (!('release' in first)) throw new Error('not taken');
    await first.release();
    // the locks folder removed behind the instance's back: mkdir finds no parent (ENOENT)
    rmSync(path.join(vault, '.engram', 'locks'), { recursive: true });
    await expect(locks.tryLock('consolidate', 'run')).rejects.toThrow(/^could not lock consolidate: ENOENT/);
  });

  it('release ends a consolidation lock whose holder file was removed meanwhile', async () => {
    const lock = await new NodeLocks(vault, STALE_MS).tryLock('consolidate', 'run');
    if (!('release' in lock)) throw new Error('not taken');
    rmSync(path.join(vault, '.engram', 'locks', 'consolidate.holder.json'));
    await lock.release();
    expect(readdirSync(path.join(vault, '.engram', 'locks'))).toEqual([]);
  });

  it('a consolidation lock not refreshed within the stale time is taken over from a holder elsewhere, not a moment before', async () => {
    // a holder on another machine (or the plugin): only its lock's age says whether it is alive
    const locks = path.join(vault, '.engram', 'locks');
    mkdirSync(path.join(locks, 'consolidate.lock'), { recursive: true });
    writeFileSync(path.join(locks, 'consolidate.holder.json'), JSON.stringify({ pid: 1, host: 'elsewhere', holder: 'a run on another machine' }));
    const mtime = Number(statSync(path.join(locks, 'consolidate.lock'), { bigint: true }).mtimeMs);
    let now = mtime + STALE_MS;
    const waiter = new NodeLocks(vault, STALE_MS, { now: () => now });
    expect(await waiter.tryLock('consolidate', 'here')).toEqual({ heldBy: 'a run on another machine (pid 1 on elsewhere)' });
    now = mtime + STALE_MS + 1;
    const taken = await waiter.tryLock('consolidate', 'here');
    expect('release' in taken).toBe(true);
    if ('release' in taken) await taken.release();
  });

  it('a lock left by a process that died is taken over at once, not after the stale time', async () => {
    mkdirSync(path.join(vault, '.engram', 'locks'), { recursive: true });
    // pid 2^22 + 1 is above Linux's pid_max default: never a running process
    writeFileSync(path.join(vault, '.engram', 'locks', 'mem-aaaaaaaaaaaa.lock'), `4194305@${require('node:os').hostname()}`);
    // stale after an hour: taken over only because its holder is gone (waiting would time the test out)
    const locks = new NodeLocks(vault, 3_600_000);
    expect(await locks.withLock('mem-aaaaaaaaaaaa', async () => 'ran')).toBe('ran');
    // the dead lock is gone; this process's holder file stays until it exits
    expect(readdirSync(path.join(vault, '.engram', 'locks'))).toEqual([expect.stringMatching(new RegExp(`^${process.pid}\\.\\d+\\.\\d+\\.holder$`))]);
  }, 30_000);

  it('a consolidation lock whose holder died is taken over with its description: the folder taken next never names the dead run', async () => {
    // A second waiter that judged the dead run's lock and reads it again under the takeover guard
    // (locks.ts takeOverIfDead) may find the new folder on the freed inode with the same times;
    // it judges it by the description beside it, which must not still name the dead run.
    const fs = require('node:fs') as typeof import('node:fs');
    const dir = path.join(vault, '.engram', 'locks');
    mkdirSync(path.join(dir, 'consolidate.lock'), { recursive: true });
    writeFileSync(path.join(dir, 'consolidate.holder.json'), JSON.stringify({ pid: 4194305, host: require('node:os').hostname(), holder: 'a run that died' }));
    const described: Array<string | null> = [];
    const mkdirSync_ = fs.mkdirSync;
    fs.mkdirSync = ((target: string, ...rest: unknown[]) => {
      const made = (mkdirSync_ as (...a: unknown[]) => unknown)(target, ...rest);
      if (target === path.join(dir, 'consolidate.lock')) described.push(fs.existsSync(path.join(dir, 'consolidate.holder.json')) ? fs.readFileSync(path.join(dir, 'consolidate.holder.json'), 'utf8') : null);
      return made;
    }) as typeof fs.mkdirSync;
    let lock;
    try {
      lock = await new NodeLocks(vault, 3_600_000).tryLock('consolidate', 'next run');
    } finally {
      fs.mkdirSync = mkdirSync_;
    }
    expect(described).toEqual([null]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'consolidate.holder.json'), 'utf8'))).toEqual({ pid: process.pid, host: require('node:os').hostname(), holder: 'next run' });
    if ('release' in lock) await lock.release();
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

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

  describe('the moves gate (alone): no lock a move while no other process holds or may take one unseen', () => {
    const fs = require('node:fs') as typeof import('node:fs');
    const host = require('node:os').hostname();
    const locksDir = (): string => path.join(vault, '.engram', 'locks');
    const names = (): string[] => readdirSync(locksDir()).map((n) => (n.endsWith('.holder') ? 'HOLDER' : n)).sort();
    const gate = (): string => path.join(locksDir(), 'moves.gate.lock');
    /** A waiting hook that resolves `waited` the first time its NodeLocks waits. */
    const waitHook = (): { keys: string[]; waited: Promise<void>; hook: (key: string) => void } => {
      const keys: string[] = [];
      let resolve!: () => void;
      const waited = new Promise<void>((r) => (resolve = r));
      return { keys, waited, hook: (key) => (keys.push(key), resolve()) };
    };

    it('runs fn under the gate; a lock whose holder file is made meanwhile waits for fn to end, then is taken', async () => {
      const mover = new NodeLocks(vault);
      const other = waitHook();
      const agent = new NodeLocks(vault, undefined, { waiting: other.hook });
      const order: string[] = [];
      let touch: Promise<string> | null = null;
      const ran = await mover.alone(async (still) => {
        // the gate names its holder (a link to this process's holder file)
        expect([names(), fs.readFileSync(gate(), 'utf8'), fs.lstatSync(gate()).nlink]).toEqual([['HOLDER', 'moves.gate.lock'], `${process.pid}@${host}`, 2]);
        touch = agent.withLock('mem-aaaaaaaaaaaa', async () => (order.push('touch'), 'touched'));
        await other.waited;
        // it let its lock go while it waits
        expect(names()).toEqual(['HOLDER', 'HOLDER', 'moves.gate.lock']);
        order.push('moves');
        expect(still()).toBe(true);
      });
      expect(ran).toBe(true);
      expect(await touch!).toBe('touched');
      expect([order, other.keys]).toEqual([['moves', 'touch'], ['mem-aaaaaaaaaaaa']]);
      expect(names()).toEqual(['HOLDER', 'HOLDER']);
    });

    it('does not run fn (false) while another holder file or a held lock is there, and leaves no gate', async () => {
      const agent = new NodeLocks(vault);
      await agent.withLock('mem-aaaaaaaaaaaa', async () => undefined); // its holder file stays while it lives
      const runs: string[] = [];
      expect(await new NodeLocks(vault).alone(async () => void runs.push('ran'))).toBe(false);
      expect(names()).toEqual(['HOLDER', 'HOLDER']);
      // a lock held by a process without links (a file created exclusively): the same
      fs.readdirSync(locksDir()).forEach((n) => fs.unlinkSync(path.join(locksDir(), n)));
      writeFileSync(path.join(locksDir(), 'mem-bbbbbbbbbbbb.lock'), `${process.pid}@${host}`);
      expect(await new NodeLocks(vault).alone(async () => void runs.push('ran'))).toBe(false);
      expect(names()).toEqual(['HOLDER', 'mem-bbbbbbbbbbbb.lock']); // that mover's holder file, which the next one would see
      fs.readdirSync(locksDir()).forEach((n) => fs.unlinkSync(path.join(locksDir(), n)));
      // its own consolidation lock does not count; its own holder file neither
      const mover = new NodeLocks(vault);
      const run = await mover.tryLock('consolidate', 'run');
      await mover.withLock('mem-cccccccccccc', async () => undefined);
      expect(await mover.alone(async () => void runs.push('alone'))).toBe(true);
      if ('release' in run) await run.release();
      expect(runs).toEqual(['alone']);
      expect(names()).toEqual(['HOLDER']);
    }, 30_000);

    it('a lock of this process that has seen no gate is not looked at again: the mover sees its holder file instead', async () => {
      const agent = new NodeLocks(vault);
      await agent.withLock('mem-aaaaaaaaaaaa', async () => undefined);
      const lstat = fs.lstatSync;
      const looked: string[] = [];
      const patched = fs as { lstatSync: unknown };
      patched.lstatSync = (p: string, ...rest: unknown[]) => (looked.push(String(p)), (lstat as (...a: unknown[]) => unknown)(p, ...rest));
      try {
        await agent.withLock('mem-bbbbbbbbbbbb', async () => undefined);
      } finally {
        patched.lstatSync = lstat;
      }
      expect(looked.filter((p) => p === gate())).toEqual([]);
    });

    it('callers of the same instance wait for its fn', async () => {
      const hook = waitHook();
      const mover = new NodeLocks(vault, undefined, { waiting: hook.hook });
      await mover.withLock('mem-aaaaaaaaaaaa', async () => undefined);
      const order: string[] = [];
      let inner: Promise<void> | null = null;
      expect(
        await mover.alone(async () => {
          inner = mover.withLock('mem-aaaaaaaaaaaa', async () => void order.push('inner'));
          await hook.waited;
          order.push('moves');
        }),
      ).toBe(true);
      await inner;
      expect(order).toEqual(['moves', 'inner']);
    });

    it('a gate left by a process that died is taken over at once, by a lock and by the next mover', async () => {
      mkdirSync(locksDir(), { recursive: true });
      writeFileSync(gate(), `4194305@${host}`);
      // stale after an hour: taken over only because its holder is gone
      expect(await new NodeLocks(vault, 3_600_000).withLock('mem-aaaaaaaaaaaa', async () => 'ran')).toBe('ran');
      expect(names()).toEqual(['HOLDER']);
      fs.readdirSync(locksDir()).forEach((n) => fs.unlinkSync(path.join(locksDir(), n)));
      writeFileSync(gate(), `4194305@${host}`);
      expect(await new NodeLocks(vault, 3_600_000).alone(async () => undefined)).toBe(true);
      expect(names()).toEqual(['HOLDER']);
    }, 30_000);

    it('a gate not stamped within the stale time is taken over; still() then says false and the gate is not released by its old holder', async () => {
      let now = 1_000_000;
      const mover = new NodeLocks(vault, STALE_MS, { now: () => now });
      const agent = new NodeLocks(vault, STALE_MS, { now: () => Date.now() + 3_600_000 });
      const seen: boolean[] = [];
      let agentRan = false;
      expect(
        await mover.alone(async (still) => {
          now += STALE_MS / 4 - 1;
          seen.push(still()); // not stamped yet: true
          now += 1;
          seen.push(still()); // stamped: true
          await agent.withLock('mem-aaaaaaaaaaaa', async () => void (agentRan = true)); // judges it abandoned
          expect(existsSync(gate())).toBe(false);
          seen.push(still()); // within a quarter of the stale time since the stamp: not known yet
          now += STALE_MS / 4;
          seen.push(still(), still());
          // a gate set by another meanwhile stays: the old holder does not remove it
          writeFileSync(gate(), `4194305@elsewhere`);
        }),
      ).toBe(true);
      expect([seen, agentRan, fs.readFileSync(gate(), 'utf8')]).toEqual([[true, true, true, false, false], true, '4194305@elsewhere']);
    });
  });

  describe('per-memory locks: hard links to one holder file per process', () => {
    const fs = require('node:fs') as typeof import('node:fs');
    const me = `${process.pid}@${require('node:os').hostname()}`;
    const locksDir = (): string => path.join(vault, '.engram', 'locks');
    const holders = (): string[] => readdirSync(locksDir()).filter((n) => n.endsWith('.holder'));

    it('each lock is a link to the holder file: exclusive, naming its holder, no new inode (the 9,257 creates of a first consolidation)', async () => {
      const locks = new NodeLocks(vault);
      const seen: Array<{ ino: bigint; nlink: bigint; text: string }> = [];
      for (const key of ['mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb']) {
        await locks.withLock(key, async () => {
          const lock = path.join(locksDir(), `${key}.lock`);
          const st = fs.lstatSync(lock, { bigint: true });
          seen.push({ ino: st.ino, nlink: st.nlink, text: fs.readFileSync(lock, 'utf8') });
          // taken: the same key waits (fn never runs while it is held; a second take fails with EEXIST)
          expect(() => fs.linkSync(path.join(locksDir(), holders()[0]!), lock)).toThrow(/EEXIST/);
        });
      }
      expect(holders()).toHaveLength(1);
      const holder = fs.lstatSync(path.join(locksDir(), holders()[0]!), { bigint: true });
      expect(seen).toEqual([
        { ino: holder.ino, nlink: 2n, text: me },
        { ino: holder.ino, nlink: 2n, text: me },
      ]);
      expect(fs.readFileSync(path.join(locksDir(), holders()[0]!), 'utf8')).toBe(me);
      expect(holder.nlink).toBe(1n); // both released
      expect(readdirSync(locksDir())).toEqual(holders());
    });

    it('a lock is never taken older than a twentieth of the stale time: the holder file is stamped again once its clock has moved past that', async () => {
      let now = 1_000_000;
      const locks = new NodeLocks(vault, 10_000, { now: () => now });
      await locks.withLock('mem-aaaaaaaaaaaa', async () => undefined);
      const holder = path.join(locksDir(), holders()[0]!);
      const old = new Date(Date.now() - 3_600_000);
      fs.utimesSync(holder, old, old);
      const ageOfLock = async (): Promise<number> =>
        locks.withLock('mem-aaaaaaaaaaaa', async () => Date.now() - fs.lstatSync(path.join(locksDir(), 'mem-aaaaaaaaaaaa.lock')).mtimeMs);
      now += 500; // within 10 s / 20: the times are not set again
      expect(await ageOfLock()).toBeGreaterThan(3_500_000);
      now += 1; // past it: stamped before the link
      expect(await ageOfLock()).toBeLessThan(60_000);
    });

    it('a holder file removed meanwhile is made again; where no link can be made the lock is a file created exclusively', async () => {
      const locks = new NodeLocks(vault);
      await locks.withLock('mem-aaaaaaaaaaaa', async () => undefined);
      fs.unlinkSync(path.join(locksDir(), holders()[0]!));
      expect(await locks.withLock('mem-aaaaaaaaaaaa', async () => fs.lstatSync(path.join(locksDir(), 'mem-aaaaaaaaaaaa.lock')).nlink)).toBe(2);
      expect(holders()).toHaveLength(1);
      const linkSync = fs.linkSync;
      fs.linkSync = (() => {
        throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
      }) as typeof fs.linkSync;
      try {
        const other = new NodeLocks(vault);
        const inside = await other.withLock('mem-bbbbbbbbbbbb', async () => {
          const lock = path.join(locksDir(), 'mem-bbbbbbbbbbbb.lock');
          return [fs.lstatSync(lock).nlink, fs.readFileSync(lock, 'utf8')];
        });
        expect(inside).toEqual([1, me]);
      } finally {
        fs.linkSync = linkSync;
      }
      expect(existsSync(path.join(locksDir(), 'mem-bbbbbbbbbbbb.lock'))).toBe(false);
    });

    it('a process removes its holder file when it exits', async () => {
      const script = `
        const { NodeLocks } = require(${JSON.stringify(LIB)});
        const fs = require('node:fs');
        new NodeLocks(${JSON.stringify(vault)}).withLock('mem-aaaaaaaaaaaa', async () => {
          console.log(fs.readdirSync(${JSON.stringify(path.join(vault, '.engram', 'locks'))}).sort().join(' '));
        });`;
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
      expect(stdout.trim()).toMatch(/^\d+\.\d+\.1\.holder mem-aaaaaaaaaaaa\.lock$/);
      expect(readdirSync(locksDir())).toEqual([]);
    });
  });
});
