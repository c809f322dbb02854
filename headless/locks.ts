import * as fs from 'node:fs';
import { hostname } from 'node:os';
import * as nodePath from 'node:path';
import { LockError } from '../src/core/errors';
import { sha256Hex } from '../src/core/ids';
import type { HeldLock, Locks } from '../src/core/ports';
import { processAlive } from './fs-files';

/**
 * Inter-process locks in `.engram/locks/`, one per key (a memory id, a daily file, the
 * consolidation). A lock is held while its holder lives:
 * - a per-memory lock is a `.lock` file created with O_EXCL that names its holder (pid and
 *   host); it is held for about a millisecond;
 * - the consolidation lock is a `.lock` folder (what the plugin's `tryLock` also takes) with
 *   a `.holder.json` beside it, kept fresh by a worker thread, so that a run whose main
 *   thread computes for minutes never looks abandoned;
 * - a lock is taken over when its holder is a process of this machine that no longer runs,
 *   or, for holders elsewhere (the plugin, another machine), when it has not been refreshed
 *   for `staleMs`. A takeover removes exactly the lock it judged dead (checked by inode,
 *   under a guard file), never one another process just took.
 * Nothing here is created or removed through a symbolic link: `.engram/` and its `locks/`
 * must be real folders inside the vault. Obsidian does not take these locks; the file port's
 * compare-and-swap covers it.
 */
export class NodeLocks implements Locks {
  private readonly dir: string;
  private ready = false;
  private readonly host = hostname();
  /** This process's holder file (`take`), its times' last setting (Date.now), and whether this file system refused a hard link. */
  private holder: string | null = null;
  private holderTouched = 0;
  private noLinks = false;
  /**
   * The moves gate (`alone`): `clear` once a lock taken with this process's holder file found no
   * gate (a gate set after that sees the holder file and is not used, so no lock of this
   * instance needs to look again until a new holder file is made); `gating` while this instance
   * holds the gate (its other callers, in this process, wait for it); `tried`, the tryLock
   * folders it holds (its own, not another process's locks).
   */
  private clear = false;
  private gating = false;
  private readonly tried = new Set<string>();
  private readonly gate: string;

  constructor(
    private readonly vaultRoot: string,
    private readonly staleMs = 10_000,
    /**
     * For the tests: `now`, the clock a lock's age is judged by (file times are the system's;
     * default Date.now); `guarded`, a fault hook run once a waiter holds a takeover's guard,
     * before it reads the lock again; `waiting`, run each time `withLock` finds its key held by
     * a live holder and is about to wait (a barrier: "this caller now waits for that lock").
     */
    private readonly faults: { now?: () => number; guarded?: (path: string) => void; waiting?: (key: string) => void } = {},
  ) {
    this.dir = nodePath.join(vaultRoot, '.engram', 'locks');
    this.gate = nodePath.join(this.dir, GATE_NAME);
  }

  /** `.engram/` and `.engram/locks/` exist as real folders (not links) inside the vault. */
  private ensureDir(): void {
    if (this.ready) return;
    for (const dir of [nodePath.join(this.vaultRoot, '.engram'), this.dir]) {
      try {
        fs.mkdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LockError(`cannot create ${dir}: ${(error as Error).message}`);
      }
      const st = fs.lstatSync(dir);
      if (!st.isDirectory()) throw new LockError(`${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: Engram keeps its locks in a real folder of the vault; remove it`);
    }
    this.ready = true;
  }

  /**
   * Take a lock at once or say who holds it (the consolidation lock). Its folder is kept
   * fresh by a worker thread until `release`, however busy the main thread is.
   */
  async tryLock(key: string, holder: string): Promise<HeldLock | { heldBy: string }> {
    this.ensureDir();
    const lockDir = nodePath.join(this.dir, `${lockName(key)}.lock`);
    const info = nodePath.join(this.dir, `${lockName(key)}.holder.json`);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.mkdirSync(lockDir); // fails on anything already there, a planted link included
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LockError(`could not lock ${key}: ${(error as Error).message}`);
        const judged = inspectDirLock(lockDir, info);
        if (!judged) continue; // released meanwhile
        if (this.takeOverIfDead(lockDir, judged, () => inspectDirLock(lockDir, info), info)) continue;
        const current = judged.holder;
        return { heldBy: current ? `${current.holder} (pid ${current.pid} on ${current.host})` : 'another process' };
      }
      const ino = fs.lstatSync(lockDir).ino;
      writeReplacing(info, JSON.stringify({ pid: process.pid, host: this.host, holder }));
      const fresh = new FreshLock(lockDir, ino, this.staleMs, () => this.now());
      const name = nodePath.basename(lockDir);
      this.tried.add(name);
      return {
        release: async () => {
          await fresh.stop();
          fs.rmSync(info, { force: true });
          fs.rmSync(lockDir, { recursive: true, force: true });
          this.tried.delete(name);
        },
        still: () => fresh.still(),
        long: () => fresh.long(),
      };
    }
    return { heldBy: 'another process' };
  }

  /**
   * Run `fn` holding the lock on `key`: a `.lock` file created exclusively (O_EXCL) naming its
   * holder, removed on release. Synchronous calls: a per-memory lock is held for about a
   * millisecond, and the callback round trips of an asynchronous lock cost more than the
   * work. A file rather than a folder: on this machine's ext4, rmdir cost 284 µs a call inside
   * a consolidation that writes thousands of memories, O_EXCL opens averaged 21 µs and
   * unlinks 23 µs.
   */
  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    this.ensureDir();
    const path = nodePath.join(this.dir, `${lockName(key)}.lock`);
    const started = Date.now();
    let wait = 1;
    const me = `${process.pid}@${this.host}`;
    for (;;) {
      if (!this.gating && this.take(path, me, key)) {
        if (this.clear) break;
        // the first lock with a new holder file (or every lock, without links): is a gate set?
        const gate = fs.lstatSync(this.gate, { throwIfNoEntry: false }) && inspectLock(this.gate);
        if (!gate) {
          if (!this.noLinks) this.clear = true;
          break;
        }
        releaseFile(path); // held while the gate's moves run: taken again once they are done
        if (this.takeOverIfDead(this.gate, gate, () => inspectLock(this.gate))) continue;
      } else if (!this.gating) {
        const held = inspectLock(path);
        if (!held || this.takeOverIfDead(path, held, () => inspectLock(path))) continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS) throw new LockError(`could not lock ${key}: another process has held it for over ${LOCK_WAIT_MS / 1000} s`);
      this.faults.waiting?.(key);
      await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
      wait = Math.min(20, wait * 1.5);
    }
    // a holder that runs long keeps its lock fresh
    const refresh = setInterval(() => {
      try {
        const now = new Date();
        fs.utimesSync(path, now, now);
      } catch {
        // the lock was taken over after all: nothing to refresh
      }
    }, this.staleMs / 2);
    refresh.unref();
    try {
      return await fn();
    } finally {
      clearInterval(refresh);
      releaseFile(path);
    }
  }

  /**
   * Take the per-memory lock at `path` at once (true), or find it held (false). The lock is a
   * hard link to this process's holder file (`pid@host`, created once: `holderFile`), where it
   * was a file created with O_EXCL and written: link(2) fails on any name already there, as the
   * exclusive create did, and the holder is named the moment the lock exists. What it saves is
   * the inode: on this machine's ext4 (discard) a create, write and unlink cost 33 us a lock
   * when quiet and 104 us while another process writes files, a link and unlink 14 us either
   * way; a first consolidation of 10,000 memories takes 9,257 of them (its prune moves). A file
   * system without hard links gets the exclusive create as before.
   */
  private take(path: string, me: string, key: string): boolean {
    for (let attempt = 0; !this.noLinks && attempt < 2; attempt++) {
      let holder: string;
      try {
        holder = this.holderFile(me);
      } catch {
        this.noLinks = true; // no holder file here (a folder that takes no new file names it): created as before
        break;
      }
      try {
        fs.linkSync(holder, path);
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return false;
        // the holder file removed meanwhile (by hand): made again once; anything else, no links here
        if (code === 'ENOENT' && fs.lstatSync(holder, { throwIfNoEntry: false }) === undefined) this.forgetHolder();
        else this.noLinks = true;
      }
    }
    try {
      const fd = fs.openSync(path, 'wx'); // O_CREAT|O_EXCL: never through a link
      try {
        fs.writeSync(fd, me);
      } finally {
        fs.closeSync(fd);
      }
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LockError(`could not lock ${key}: ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * Locks.alone: run `fn` under the moves gate (`moving.lock`, a per-memory lock of its own, a
   * link to this process's holder file) when no other process holds a per-memory lock or has a
   * holder file, so that `fn` need not take one lock per memory (a first consolidation of
   * 10,000 memories took and released 9,257: two of the five syscalls of each move). Another
   * process makes its holder file before its first lock and, once that lock is taken, looks
   * for the gate (withLock): set, it lets the lock go and waits for the gate to go. The gate is
   * set before the folder is read, the holder file made before the gate is looked for, so
   * either the reading sees the holder file (`fn` is not run: false) or the look sees the gate.
   * A process whose holder file was there before sees no gate and need not: this one saw its
   * file and did not go alone. A gate left by a process that died is taken over as a lock is;
   * `fn` is given `still`, which stamps the gate at a quarter of the stale time (the holder of a
   * gate not stamped within the stale time is judged gone, as a lock's) and says false once it
   * has been taken over: the caller takes each lock again.
   */
  async alone(fn: (still: () => boolean) => Promise<void>): Promise<boolean> {
    if (this.gating) return false;
    this.ensureDir();
    const me = `${process.pid}@${this.host}`;
    let taken = false;
    for (let attempt = 0; attempt < 3 && !taken; attempt++) {
      taken = this.take(this.gate, me, GATE_NAME);
      if (taken) break;
      const held = inspectLock(this.gate);
      if (held && !this.takeOverIfDead(this.gate, held, () => inspectLock(this.gate))) return false;
    }
    if (!taken) return false;
    let lost = false;
    try {
      if (this.othersHere()) return false;
      this.gating = true;
      let stamped = this.now();
      await fn(() => {
        if (lost) return false;
        const now = this.now();
        if (now - stamped < this.staleMs / 4) return true;
        stamped = now;
        try {
          const at = new Date();
          fs.utimesSync(this.gate, at, at);
          return true;
        } catch {
          lost = true; // taken over as abandoned: whatever is at its name now is not this gate
          return false;
        }
      });
      return true;
    } finally {
      this.gating = false;
      if (!lost) releaseFile(this.gate);
    }
  }

  /**
   * Whether the locks folder holds what another process's locks leave: a holder file not this
   * instance's, a per-memory lock (a file; a folder but the tryLock folders this instance
   * holds), a takeover's guard.
   */
  private othersHere(): boolean {
    const mine = this.holder === null ? '' : nodePath.basename(this.holder);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.dir, { withFileTypes: true });
    } catch {
      return true; // not known: as if there were
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name === mine || name === GATE_NAME) continue;
      if (name.endsWith('.holder') || name.endsWith('.takeover')) return true;
      if (name.endsWith('.lock') && !(entry.isDirectory() && this.tried.has(name))) return true;
    }
    return false;
  }

  /**
   * This process's holder file in the locks folder (`pid@host`, the text of a lock), created
   * exclusively at the first lock and removed at exit. A lock linked to it has its times: they
   * are set to now whenever they are older than a twentieth of the stale time (a lock is judged
   * abandoned by its age), so a lock is never taken older than that, where a created one was new.
   */
  private holderFile(me: string): string {
    const now = this.now();
    if (this.holder !== null && now - this.holderTouched <= this.staleMs / 20) return this.holder;
    if (this.holder !== null) {
      try {
        const at = new Date();
        fs.utimesSync(this.holder, at, at);
        this.holderTouched = now;
        return this.holder;
      } catch {
        this.forgetHolder(); // removed by hand: a new one
      }
    }
    const path = nodePath.join(this.dir, `${process.pid}.${Date.now()}.${++holderCount}.holder`);
    const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
    try {
      fs.writeSync(fd, me);
    } finally {
      fs.closeSync(fd);
    }
    [this.holder, this.holderTouched] = [path, now];
    this.clear = false; // a gate set before this file was made did not see it: the next lock looks
    holderFiles.add(path);
    if (!exitHooked) process.once('exit', removeHolderFiles);
    exitHooked = true;
    return path;
  }

  private forgetHolder(): void {
    if (this.holder !== null) holderFiles.delete(this.holder);
    this.holder = null;
  }

  /**
   * Remove a lock whose holder is gone: a process of this machine that no longer runs, or
   * anything not refreshed within `staleMs`. True when the caller should try again at once.
   * `judged` is what the caller saw; `reinspect` reads the lock again (its stat and holder
   * through one descriptor); `holderFile`, for the consolidation lock, is its holder description,
   * removed before the folder so that a folder created after the takeover never names the dead
   * holder.
   */
  private takeOverIfDead(path: string, judged: JudgedLock, reinspect: () => JudgedLock | null, holderFile?: string): boolean {
    if (!this.dead(judged)) return false;
    // Two waiters may judge the same lock dead: a guard file lets one of them remove it, and
    // only if it is still the very lock judged, not a fresh one taken meanwhile.
    const guard = `${path}.takeover`;
    try {
      fs.closeSync(fs.openSync(guard, 'wx'));
    } catch {
      const g = fs.lstatSync(guard, { throwIfNoEntry: false });
      if (g && this.now() - g.mtimeMs > this.staleMs) fs.rmSync(guard, { force: true });
      return false;
    }
    try {
      this.faults.guarded?.(path);
      // Read again under the guard and judged again: the same inode and change time are not
      // enough, since a lock released and taken again within one tick of the file system's
      // clock may get the freed inode back with the same times (ext4 reuses inodes at once;
      // its timestamps come from a clock that ticks every few milliseconds). A lock taken
      // since names a live holder (or none yet) and was just written: it is not dead. Only the
      // guard's holder removes a dead lock, so what is read here stays dead until removed.
      const again = reinspect();
      if (again && again.stat.ino === judged.stat.ino && again.stat.ctimeNs === judged.stat.ctimeNs && this.dead(again)) {
        if (holderFile !== undefined) fs.rmSync(holderFile, { force: true });
        fs.rmSync(path, { recursive: true, force: true });
      }
      return true;
    } finally {
      fs.rmSync(guard, { force: true });
    }
  }

  /** A lock's holder is a process of this machine that no longer runs, or it was not refreshed within `staleMs`. */
  private dead({ owner, stat }: JudgedLock): boolean {
    const deadHere = owner !== null && owner.host === this.host && owner.pid !== process.pid && !processAlive(owner.pid);
    return deadHere || this.now() - Number(stat.mtimeMs) > this.staleMs;
  }

  private now(): number {
    return this.faults.now?.() ?? Date.now();
  }
}

/** A lock as a waiter saw it: its stat and the holder it names (null: none, or not yet written). */
interface JudgedLock {
  stat: fs.BigIntStats;
  owner: { pid: number; host: string } | null;
}

/** The consolidation lock folder and the holder its description names; null when there is no lock. */
function inspectDirLock(lockDir: string, info: string): (JudgedLock & { holder: { pid: number; host: string; holder: string } | null }) | null {
  const stat = fs.lstatSync(lockDir, { bigint: true, throwIfNoEntry: false });
  if (!stat) return null;
  const holder = readHolder(info);
  return { stat, owner: holder, holder };
}

/**
 * Remove a per-memory lock file we created: one unlink (rmSync's recursive walk began with an
 * lstat, a syscall more for each of the thousands of locks a consolidation takes). Anything
 * else there (a folder: an older version's lock after a takeover) is removed as before.
 */
function releaseFile(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') fs.rmSync(path, { recursive: true, force: true });
  }
}

/** Every NodeLocks' holder file of this process, removed at its exit (one listener for them all). */
const holderFiles = new Set<string>();
let holderCount = 0;
let exitHooked = false;
function removeHolderFiles(): void {
  for (const path of holderFiles) {
    try {
      fs.unlinkSync(path);
    } catch {
      // gone already
    }
  }
  holderFiles.clear();
}

/** The moves gate's name (NodeLocks.alone): no key's lock has it (lockName's names have no dot); a `.lock` file naming its holder, as doctor reads one. */
const GATE_NAME = 'moves.gate.lock';

/** How long a writer waits for a per-memory lock before it gives up with a message. */
const LOCK_WAIT_MS = 60_000;

function lockName(key: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : sha256Hex(key).slice(0, 24);
}

/**
 * A per-memory lock file and the `pid@host` written in it, read through one descriptor, so the
 * holder named is this lock's. Read apart (the name, then the file), a waiter could read the
 * holder of a lock just released, see that process gone, and take over the lock another
 * process had taken meanwhile: two writers at once (16 parallel `engram log`: 1-4 lines lost
 * in 6 of 30 rounds under load). Null when the lock is gone; `owner` null while it is written.
 */
function inspectLock(path: string): { stat: fs.BigIntStats; owner: { pid: number; host: string } | null } | null {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    // gone, or not a file that can be read (a planted link): judged by its own times, no holder
    const stat = fs.lstatSync(path, { bigint: true, throwIfNoEntry: false });
    return stat ? { stat, owner: null } : null;
  }
  try {
    const stat = fs.fstatSync(fd, { bigint: true });
    let text = '';
    try {
      const buffer = Buffer.alloc(300);
      text = buffer.subarray(0, fs.readSync(fd, buffer, 0, 300, 0)).toString('utf8');
    } catch {
      // not readable as a file (a folder): no holder named
    }
    const m = /^(\d+)@(.+)$/.exec(text);
    return { stat, owner: m ? { pid: Number(m[1]), host: m[2]! } : null };
  } finally {
    fs.closeSync(fd);
  }
}

function readHolder(path: string): { pid: number; host: string; holder: string } | null {
  try {
    const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      if (!fs.fstatSync(fd).isFile()) return null;
      return JSON.parse(fs.readFileSync(fd, 'utf8')) as { pid: number; host: string; holder: string };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** Replace a small machine file atomically: an exclusive temp file renamed over it (a planted link is replaced, never followed). */
export function writeReplacing(path: string, text: string): void {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, path);
}

/**
 * Keeps a consolidation lock's folder fresh (its mtime within the stale time) while it is held:
 * - from the main thread: `still()`, called by the holder between pieces of its work (cheap: it
 *   stamps the folder at most every quarter of the stale time), and a timer (unref'd) for the
 *   turns of the event loop the holder spends waiting (a chat or embedding server);
 * - from a worker thread, once `long()` is called: it stamps the folder on its own event loop,
 *   so the main thread may compute for minutes without a `still()` (a consolidation of 100k
 *   memories does). Not started by every run: loading the worker (a Node environment of its
 *   own: worker_threads, streams, url...) cost ~150 ms of CPU, 4 % of a first consolidation of
 *   10,000 memories, whose pieces between two calls of `still()` are ~0.1 s each.
 * Only the folder taken is stamped (the same inode); a folder taken over meanwhile is left alone.
 */
class FreshLock {
  private readonly every: number;
  private stamped: number;
  private readonly timer: ReturnType<typeof setInterval>;
  private worker: import('node:worker_threads').Worker | null = null;
  private stopped = false;

  constructor(
    private readonly path: string,
    private readonly ino: number,
    staleMs: number,
    private readonly now: () => number,
  ) {
    this.every = Math.max(50, Math.floor(staleMs / 4));
    this.stamped = now();
    this.timer = setInterval(() => this.still(), this.every);
    this.timer.unref();
  }

  /** The holder is alive: the folder is stamped when its last stamp is a quarter of the stale time old. */
  still(): void {
    if (this.worker !== null || this.stopped) return;
    const now = this.now();
    if (now - this.stamped < this.every) return;
    this.stamped = now;
    try {
      if (fs.lstatSync(this.path).ino !== this.ino) return;
      const at = new Date();
      fs.utimesSync(this.path, at, at);
    } catch {
      // gone or taken over: nothing of ours to stamp
    }
  }

  /** From now until `stop`, the folder is kept fresh by a worker thread, whatever the main thread does. */
  long(): void {
    if (this.worker !== null || this.stopped) return;
    clearInterval(this.timer);
    this.worker = keepFresh(this.path, this.ino, this.every);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    if (this.worker !== null) await this.worker.terminate();
  }
}

/**
 * A worker thread that refreshes the lock folder's mtime every `every` ms, on its own event
 * loop: the main thread may compute for minutes without a turn of its timers (a consolidation
 * of 100k memories does), and the lock must not look abandoned meanwhile. It refreshes only the
 * folder it was given (same inode), and dies with the process.
 */
function keepFresh(path: string, ino: number, every: number): import('node:worker_threads').Worker {
  // loaded here, by the one command that takes this lock (consolidate), when its run is long:
  // every other command loaded worker_threads at start for nothing
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  const source = `
    const fs = require('node:fs');
    const { workerData } = require('node:worker_threads');
    const stamp = () => {
      try {
        const st = fs.lstatSync(workerData.path);
        if (st.ino !== workerData.ino) process.exit(0);
        const now = new Date();
        fs.utimesSync(workerData.path, now, now);
      } catch { process.exit(0); }
    };
    stamp();
    setInterval(stamp, workerData.every);
  `;
  const worker = new Worker(source, { eval: true, workerData: { path, ino, every } });
  worker.unref();
  return worker;
}
