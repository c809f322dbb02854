import * as fs from 'node:fs';

/**
 * Reads a list of files on a worker thread, in the list's order, ahead of the main thread that
 * parses them: a first load of 10,000 memories spent ~240 ms of its ~1,040 ms main thread (CPU
 * profile) in open, fstat, read and close, which the second core does meanwhile.
 *
 * The reads are the main thread's own (openRegular with the plain fstat, then readAll): each
 * file opened with READ_FLAGS (no FIFO blocks, no link followed), refused unless a regular
 * file, read to its end, its size and mtime from its fstat. Anything else -- a file missing,
 * not regular, failing, grown past its fstat's size while read, larger than a quarter of the
 * ring -- the worker passes over and the main thread reads itself, when it comes to it, as it
 * would have without the worker (its error, its stat of the path). A file is read a little
 * earlier than it would have been: a first load reads each file once, at a time of its own.
 *
 * The handover is shared memory, no message: the main thread's load is synchronous (its reads
 * wait on no promise, catalog.ts's parseListedNow), and it waits on the ring with Atomics.wait.
 * The worker takes the list from the first file the main thread has not read yet when it is
 * ready (a Node environment of its own: ~25 ms, during which the main thread reads as before).
 */

/** Ring bytes: ~8,000 of the bench's memories (~500 bytes each): the worker never waits on a first load's main thread for long. */
const RING_BYTES = 4 << 20;
/** Each record: its length (or SKIP / WRAP), 4 spare bytes, the fstat's mtimeMs and size; then the bytes, padded to 8. */
const HEADER = 24;
const SKIP = -2;
const WRAP = -1;
// the control words
const PUBLISHED = 0; // records written
const FREED = 1; // ring bytes the main thread has taken (int32 arithmetic: only differences count)
const CLAIM = 2; // the files the main thread reads itself are those below; TAKEN set once the worker has started
const STOP = 3; // the main thread asks the worker to stop
const DONE = 4; // the worker stopped (end of the list, or stopped, or failed)
// a thread about to wait says so (1), and the other wakes it only then (and, for the worker,
// once half the ring is free): a wake at each record cost the main thread ~45 ms of futex
// calls at 10k (CPU profile), the worker woken for each file taken from a full ring
const WORKER_WAITS = 5;
const WAKE_AT = 6; // the FREED value the waiting worker waits for
const MAIN_WAITS = 7;
const TAKEN = 1 << 30;
/** A main thread that waits this long for one record reads the file itself (a worker that died without a word). */
const PATIENCE_MS = 2_000;

/** A worker whose ring stays full this long stops: a load that ended early (an error) takes nothing more. */
const ABANDONED_MS = 5_000;

const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;

/** The worker's code (eval'd: no file of its own beside the bundle). Plain JavaScript, the same reads as the main thread's. */
const WORKER_SOURCE = `
const fs = require('node:fs');
const { workerData: w } = require('node:worker_threads');
const ring = Buffer.from(w.ring);
const ctl = new Int32Array(w.ctl);
const N = ring.length;
let written = 0, at = 0, records = 0;
const free = (need) => N - ((written - Atomics.load(ctl, ${FREED})) | 0) >= need;
const room = (need) => {
  if (free(need)) return true;
  // wait until half the ring is free (or what this file needs, if more)
  const want = Math.max(need, N / 2);
  let quiet = 0, last = Atomics.load(ctl, ${FREED});
  for (;;) {
    Atomics.store(ctl, ${WAKE_AT}, (written + want - N) | 0);
    Atomics.store(ctl, ${WORKER_WAITS}, 1);
    if (free(want) || Atomics.load(ctl, ${STOP}) !== 0) {
      Atomics.store(ctl, ${WORKER_WAITS}, 0);
      return Atomics.load(ctl, ${STOP}) === 0;
    }
    Atomics.wait(ctl, ${WORKER_WAITS}, 1, 50);
    const freed = Atomics.load(ctl, ${FREED});
    if (freed !== last) { last = freed; quiet = 0; }
    else if ((quiet += 50) >= ${ABANDONED_MS}) { Atomics.store(ctl, ${WORKER_WAITS}, 0); return false; }
  }
};
const publish = () => {
  Atomics.store(ctl, ${PUBLISHED}, ++records);
  if (Atomics.load(ctl, ${MAIN_WAITS}) === 1) { Atomics.store(ctl, ${MAIN_WAITS}, 0); Atomics.notify(ctl, ${MAIN_WAITS}); }
};
try {
  let claim = Atomics.load(ctl, ${CLAIM});
  for (;;) {
    const seen = Atomics.compareExchange(ctl, ${CLAIM}, claim, claim | ${TAKEN});
    if (seen === claim) break;
    claim = seen;
  }
  for (let i = claim; i < w.paths.length && Atomics.load(ctl, ${STOP}) === 0; i++) {
    let fd = -1, status = ${SKIP}, size = 0, mtimeMs = 0, need = ${HEADER};
    const full = w.paths[i];
    try {
      if (full !== null) {
        fd = fs.openSync(full, w.flags);
        const stat = fs.fstatSync(fd);
        if (stat.isFile() && stat.size + 1 + ${HEADER} <= N / 4) {
          size = stat.size; mtimeMs = stat.mtimeMs;
          need = (${HEADER} + size + 1 + 7) & ~7;
          if (N - at < need) {
            if (!room(N - at + need)) break;
            ring.writeInt32LE(${WRAP}, at);
            written = (written + N - at) | 0; at = 0;
          } else if (!room(need)) break;
          const n = fs.readSync(fd, ring, at + ${HEADER}, size + 1, 0);
          if (n <= size) status = n;
          else need = ${HEADER};
        }
      }
    } catch {
      status = ${SKIP}; need = ${HEADER};
    } finally {
      if (fd >= 0) try { fs.closeSync(fd); } catch {}
    }
    if (status === ${SKIP}) {
      if (N - at < ${HEADER}) {
        if (!room(N - at + ${HEADER})) break;
        ring.writeInt32LE(${WRAP}, at);
        written = (written + N - at) | 0; at = 0;
      } else if (!room(${HEADER})) break;
      need = ${HEADER};
    }
    ring.writeInt32LE(status, at);
    ring.writeDoubleLE(mtimeMs, at + 8);
    ring.writeDoubleLE(size, at + 16);
    at += need; written = (written + need) | 0;
    if (at === N) at = 0;
    publish();
  }
} finally {
  Atomics.store(ctl, ${DONE}, 1);
  Atomics.store(ctl, ${MAIN_WAITS}, 0);
  Atomics.notify(ctl, ${MAIN_WAITS});
}
`;

export interface AheadRead {
  bytes: Buffer;
  size: number;
  mtimeMs: number;
}

export class ReadAhead {
  private readonly ring: Buffer;
  private readonly ctl: Int32Array;
  /** The index in `rels` of the file the main thread reads next. */
  private next = 0;
  /** The worker's first file, once the main thread has seen it start (-1: not yet). */
  private start = -1;
  private at = 0;
  private freed = 0;
  private taken = 0;
  private stopped = false;
  /** RING_BYTES, or a test's smaller ring (a multiple of 8). */
  private readonly ringBytes: number;
  /** The last file of the list is taken: the read-ahead stops once it is returned. */
  private stopAfter = false;

  /**
   * `rels` in the order they will be asked for; `full[k]` the path to open for rels[k] (null:
   * the main thread reads it itself).
   */
  constructor(
    private readonly rels: readonly string[],
    full: ReadonlyArray<string | null>,
    options: { ringBytes?: number; mainReads?: boolean } = {},
  ) {
    this.ringBytes = options.ringBytes ?? RING_BYTES;
    // for the tests: the worker reads every file (the main thread waits for it to start)
    if (options.mainReads === false) this.start = 0;
    const sharedRing = new SharedArrayBuffer(this.ringBytes);
    const sharedCtl = new SharedArrayBuffer(8 * 4);
    this.ring = Buffer.from(sharedRing);
    this.ctl = new Int32Array(sharedCtl);
    // loaded here, by the one load that reads ahead: every other command loaded worker_threads
    // for nothing (locks.ts does the same)
    const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ring: sharedRing, ctl: sharedCtl, paths: full, flags: READ_FLAGS } });
    // the process never waits for it: a load that ends early (an error) leaves it to be stopped at exit
    worker.unref();
    worker.on('error', () => this.stop());
  }

  /**
   * The file `rel` as the worker read it, when it is the next file of the list and the worker
   * read it; undefined when the caller reads it itself (before the worker started, passed over
   * by it, or asked out of the list's order: then the read-ahead stops).
   */
  take(rel: string): AheadRead | undefined {
    if (this.stopped) return undefined;
    const k = this.next;
    if (k >= this.rels.length || this.rels[k] !== rel) {
      this.stop();
      return undefined;
    }
    this.next = k + 1;
    if (this.next === this.rels.length) this.stopAfter = true;
    if (this.start < 0) {
      // the main thread reads file k itself unless the worker has started (then at CLAIM's value, k)
      const seen = Atomics.compareExchange(this.ctl, CLAIM, k, k + 1);
      if (seen === k) return this.finish(undefined);
      this.start = seen & ~TAKEN;
    }
    if (!this.waitFor(this.taken + 1)) {
      this.stop();
      return undefined;
    }
    let status = this.ring.readInt32LE(this.at);
    if (status === WRAP) {
      this.release(this.ringBytes - this.at);
      this.at = 0;
      status = this.ring.readInt32LE(0);
    }
    const at = this.at;
    const mtimeMs = this.ring.readDoubleLE(at + 8);
    const size = this.ring.readDoubleLE(at + 16);
    let read: AheadRead | undefined;
    let need = HEADER;
    if (status >= 0) {
      const bytes = Buffer.allocUnsafe(status);
      this.ring.copy(bytes, 0, at + HEADER, at + HEADER + status);
      read = { bytes, size, mtimeMs };
      need = (HEADER + size + 1 + 7) & ~7;
    }
    this.taken++;
    this.at = at + need === this.ringBytes ? 0 : at + need;
    this.release(need);
    return this.finish(read);
  }

  /** Stops the worker (it ends at its next file); every later take reads nothing. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    Atomics.store(this.ctl, STOP, 1);
    Atomics.store(this.ctl, WORKER_WAITS, 0);
    Atomics.notify(this.ctl, WORKER_WAITS);
  }

  private finish(read: AheadRead | undefined): AheadRead | undefined {
    if (this.stopAfter) this.stop();
    return read;
  }

  private release(bytes: number): void {
    this.freed = (this.freed + bytes) | 0;
    Atomics.store(this.ctl, FREED, this.freed);
    if (Atomics.load(this.ctl, WORKER_WAITS) === 1 && ((this.freed - Atomics.load(this.ctl, WAKE_AT)) | 0) >= 0) {
      Atomics.store(this.ctl, WORKER_WAITS, 0);
      Atomics.notify(this.ctl, WORKER_WAITS);
    }
  }

  /** Waits until `records` records are published; false when the worker ended first or went quiet for PATIENCE_MS. */
  private waitFor(records: number): boolean {
    let waited = 0;
    for (;;) {
      if (Atomics.load(this.ctl, PUBLISHED) >= records) return true;
      Atomics.store(this.ctl, MAIN_WAITS, 1);
      if (Atomics.load(this.ctl, PUBLISHED) >= records) {
        Atomics.store(this.ctl, MAIN_WAITS, 0);
        return true;
      }
      // the patience counts once the worker has started (a test's main thread waits for its start)
      if (Atomics.load(this.ctl, DONE) !== 0 || ((Atomics.load(this.ctl, CLAIM) & TAKEN) !== 0 && waited >= PATIENCE_MS)) {
        Atomics.store(this.ctl, MAIN_WAITS, 0);
        return Atomics.load(this.ctl, PUBLISHED) >= records;
      }
      Atomics.wait(this.ctl, MAIN_WAITS, 1, 50);
      if ((Atomics.load(this.ctl, CLAIM) & TAKEN) !== 0) waited += 50;
    }
  }
}
