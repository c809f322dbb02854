import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { NodeLocks } from '../../headless/locks';
import { engram, initVault } from '../helpers/cli';

const run = promisify(execFile);
const WORKER = path.join(__dirname, '..', 'helpers', 'touch-worker.js');
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

describe('concurrent writers (real processes)', () => {
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => ({ vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  // 4 x 100 touches: every write contends for the lock (the forced interleavings below test the
  // races themselves); 4 x 250 was 15 s of the suite's CPU for the same check
  it('4 processes touching the same memory 100 times each leave access_count exactly 400', async () => {
    const { id, path: rel } = (await engram(vault, ['--json', '--now', '2026-11-01T00:00:00Z', 'remember', 'Shared memory under contention.'])).json();
    const file = path.join(vault, rel);
    writeFileSync(file, readFileSync(file, 'utf8').replace('---\nShared', 'reviewer: "kept" # a comment\n---\nShared'));
    await Promise.all([0, 1, 2, 3].map(() => run(process.execPath, [WORKER, vault, id, '100'])));
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/\naccess_count: 400\n/);
    // the person's field and comment kept; the machine that counted the uses stamped after it (src/core/machine.ts)
    // and the uses counted on this machine's own line (issue 21): all 400, since the four processes share its id
    expect(text).toMatch(/\nreviewer: "kept" # a comment\nuses_(m-[0-9a-f]{12}): 400\ncounted_by: \1\n---\nShared memory under contention\.\n$/);
    expect(readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('parallel CLI processes appending to the daily file lose no line', async () => {
    await Promise.all(
      // 16 at once: a waiter that read the holder of a lock just released could take over the
      // lock the next writer held (locks.ts inspectLock): 1-4 lines lost in 6 of 30 rounds then
      Array.from({ length: 16 }, (_, i) => run(process.execPath, [ENGRAM, '--vault', vault, '--now', '2026-11-29T09:00:00Z', 'log', `entry ${i}`])),
    );
    const lines = readFileSync(path.join(vault, 'daily', '2026-11-29.md'), 'utf8').split('\n').filter((l) => l.startsWith('- 09:00 entry'));
    expect(lines.sort()).toEqual(Array.from({ length: 16 }, (_, i) => `- 09:00 entry ${i}`).sort());
  }, 60_000);

  it('a waiter that judged a dead holder\'s lock never removes the lock the next writer took meanwhile (the interleaving, forced)', async () => {
    // The race the 16 parallel `engram log` above catch now and then, made to happen every
    // time: a waiter reads the lock of a holder that died (pid 2^22 + 1, never running), and
    // right after that read, before the waiter acts on it, the next writer replaces it with
    // its own lock (a new file: a new inode). The waiter must leave that lock alone and wait
    // until its holder releases it.
    const fs = require('node:fs') as typeof import('node:fs'); // the module itself, whose readSync the lock code calls
    const locks = new NodeLocks(vault, 3_600_000);
    const lock = path.join(vault, '.engram', 'locks', 'mem-aaaaaaaaaaaa.lock');
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.writeFileSync(lock, `4194305@${hostname()}`);
    const watched = new Set([fs.statSync(lock).ino]);
    const events: string[] = [];
    let readsAfterTaken = 0;
    const readSync = fs.readSync;
    fs.readSync = ((fd: number, ...rest: unknown[]) => {
      const n = (readSync as (...a: unknown[]) => number)(fd, ...rest);
      if (!watched.has(fs.fstatSync(fd).ino)) return n;
      if (events.length === 0) {
        // the next writer takes the lock: its own file, renamed over the dead holder's
        fs.writeFileSync(`${lock}.next`, `${process.pid}@${hostname()}`);
        watched.add(fs.statSync(`${lock}.next`).ino);
        fs.renameSync(`${lock}.next`, lock);
        events.push('next writer took the lock');
      } else if (events.length === 1 && ++readsAfterTaken === 2) {
        // released after the waiter's second look at it (the first is its re-read under the
        // takeover guard, locks.ts takeOverIfDead): it must have left the lock alone until now
        fs.unlinkSync(lock);
        events.push('next writer released it');
      }
      return n;
    }) as typeof fs.readSync;
    try {
      await locks.withLock('mem-aaaaaaaaaaaa', async () => void events.push('waiter runs'));
    } finally {
      fs.readSync = readSync;
    }
    expect(events).toEqual(['next writer took the lock', 'next writer released it', 'waiter runs']);
  });
  it('a lock taken again on the freed inode within one tick of the file system clock is not taken over (inode reuse, forced)', async () => {
    // The same inode and change time do not prove the lock is the one judged dead: ext4 hands a
    // freed inode to the next file at once, and its times come from a clock that ticks every
    // few milliseconds. Forced here: once the waiter holds the takeover guard, the next writer
    // (a live process of this machine) has taken the lock on the same inode, with the change
    // time the waiter saw. The waiter must judge the lock again, leave it, and run only after
    // that writer released it.
    const fs = require('node:fs') as typeof import('node:fs');
    const lock = path.join(vault, '.engram', 'locks', 'mem-bbbbbbbbbbbb.lock');
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.writeFileSync(lock, `4194305@${hostname()}`); // a holder that died (pid 2^22 + 1 never runs)
    const ino = fs.statSync(lock, { bigint: true }).ino;
    let judgedCtime: bigint | undefined;
    const events: string[] = [];
    let readsSinceTaken = -1;
    const fstatSync = fs.fstatSync;
    const readSync = fs.readSync;
    fs.fstatSync = ((fd: number, options?: { bigint?: boolean }) => {
      const st = (fstatSync as (fd: number, o?: object) => import('node:fs').BigIntStats)(fd, options);
      if (options?.bigint && st.ino === ino) {
        if (judgedCtime === undefined) judgedCtime = st.ctimeNs;
        else st.ctimeNs = judgedCtime; // the same tick: the change time the waiter judged
      }
      return st;
    }) as typeof fs.fstatSync;
    fs.readSync = ((fd: number, ...rest: unknown[]) => {
      const n = (readSync as (...a: unknown[]) => number)(fd, ...rest);
      if (readsSinceTaken >= 0 && fstatSync(fd, { bigint: true }).ino === ino && ++readsSinceTaken === 2) {
        fs.unlinkSync(lock); // the next writer is done (after the waiter's second look at its lock)
        events.push('next writer released it');
      }
      return n;
    }) as typeof fs.readSync;
    const locks = new NodeLocks(vault, 3_600_000, {
      guarded: () => {
        if (readsSinceTaken >= 0) return;
        // the dead holder's lock was removed and the next writer took the lock: the same inode
        // (rewritten in place, as a reused inode would be), naming a live process, just written
        fs.writeFileSync(lock, `${process.ppid}@${hostname()}`);
        expect(fs.statSync(lock, { bigint: true }).ino).toBe(ino);
        readsSinceTaken = 0;
        events.push('next writer took the lock');
      },
    });
    try {
      await locks.withLock('mem-bbbbbbbbbbbb', async () => void events.push('waiter runs'));
    } finally {
      fs.fstatSync = fstatSync;
      fs.readSync = readSync;
    }
    expect(events).toEqual(['next writer took the lock', 'next writer released it', 'waiter runs']);
  });
});
