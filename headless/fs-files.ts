import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { BusyFileError, PathError, WriteConflictError } from '../src/core/errors';
import { safeRelativePath } from '../src/core/ids';
import type { FileStat, FileStore, FileVersion, FolderScan, RangeReader } from '../src/core/ports';

/**
 * The core's file port over a folder on disk. Every path is vault-relative and checked:
 * no `..`, no absolute paths, and no symlink that resolves outside the vault. Writes go to a
 * hidden temp file in the same folder and are renamed into place, so a reader (or a crash)
 * sees the old file or the new one, never half of one.
 *
 * Writers that do not take our locks (a person's editor, Obsidian, sync tools) save in place:
 * truncate, then one or more write(2) calls. Three rules keep their words:
 * - a compare-and-swap compares only a *stable* read: a file modified in place within the
 *   last QUIET_MS is read again once it has been quiet that long (our own writes are renames
 *   of complete files and are marked so they never wait, see `markOurs`); an empty file is
 *   never judged by its timestamps (see `EmptyWatch`): it is accepted only once we have
 *   watched it stay empty for EMPTY_QUIET_MS;
 * - the file we compared stays open until after our rename: if anything was written into it
 *   between the compare and the rename (the save went to the inode we replaced), its content
 *   is put back once quiet and the update starts again from it;
 * - every file is opened without blocking (a FIFO never hangs a command) and refused unless
 *   it is a regular file; every file we create is created exclusively, never through a link.
 *
 * The calls are synchronous behind the async port (except the short waits for quiet): the
 * runner is a short-lived process, and sync file calls cost a third of the async ones when
 * loading thousands of small files.
 */

/** How long an in-place save must have been quiet before its content is trusted for a rewrite. */
export const QUIET_MS = 500;
/** How long we watch an empty file stay empty before believing it (a save that truncated and has not written yet). */
const EMPTY_QUIET_MS = 8_000;
/** The longest pause between two looks at an empty file: a save ends its emptiness within microseconds to milliseconds. */
const EMPTY_POLL_MS = 100;
/** The longest a rewrite waits for a file being saved in place to fall quiet. */
const QUIET_WAIT_MS = 10_000;

const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;
const CREATE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

const POSIX = nodePath.sep === '/';

/**
 * A relative path that safeRelativePath returns unchanged and path.join appends as it is: no
 * backslash or NUL, no drive letter, and '/'-separated segments that are neither empty, `.`
 * nor `..`. Exported for tests (compared with safeRelativePath and path.join).
 */
export function isCleanRelative(rel: string): boolean {
  const n = rel.length;
  if (n === 0 || (n >= 2 && rel.charCodeAt(1) === 0x3a /* : */)) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? rel.charCodeAt(i) : 0x2f;
    if (c === 0x5c /* \ */ || c === 0) return false;
    if (c !== 0x2f /* / */) continue;
    const length = i - start;
    if (length === 0 || (length <= 2 && rel.charCodeAt(start) === 0x2e && (length === 1 || rel.charCodeAt(start + 1) === 0x2e))) return false;
    start = i + 1;
  }
  return true;
}

/** Temp names are unique per process (pid) and per write (counter): `.NAME.PID.N.tmp`. */
let tempCounter = 0;
const TEMP_NAME = /^\..+\.(\d+)\.\d+\.tmp$/;

interface OpenFile {
  fd: number;
  stat: fs.BigIntStats;
}

/** An open file with its plain stat (numbers): readWithStat's, which needs only the size and mtime. */
interface PlainOpenFile {
  fd: number;
  stat: fs.Stats;
}

export class NodeFileStore implements FileStore {
  private readonly root: string;
  private rootReal: string | null = null;
  private readonly checkedDirs = new Set<string>();
  /** The thread that makes new files while createInBackground is on. */
  private creator: BackgroundCreator | null = null;

  /**
   * Fault injection for the tests: `beforeRename` runs between a compare-and-swap's compare
   * and its rename (a person's save lands there), `afterLink` between a move's link and its
   * unlink (a touch arrives there; the move waits for what it returns; moveRewriting's between
   * its link of the target and its rename of the source), `afterTake` once moveRewriting has
   * renamed the source away (before it checks it), `whileWaiting` each time a read waits for a file to
   * settle (a save in progress completes there), `appending` after an append cut the file and before it writes (a crash there),
   * `beforeSweep` before sweepTemp unlinks a dead temp file (another sweep, or a file that cannot be unlinked).
   */
  constructor(
    root: string,
    private readonly faults: {
      beforeRename?: (full: string) => void;
      afterLink?: (target: string) => void | Promise<void>;
      afterTake?: (taken: string) => void;
      whileWaiting?: (full: string) => void;
      appending?: (full: string, fd: number) => void;
      beforeSweep?: (full: string) => void;
    } = {},
  ) {
    this.root = nodePath.resolve(root);
  }

  get rootPath(): string {
    return this.root;
  }

  private realRoot(): string {
    if (!this.rootReal) this.rootReal = fs.realpathSync(this.root);
    return this.rootReal;
  }

  private inside(real: string): boolean {
    const root = this.realRoot();
    return real === root || real.startsWith(root + nodePath.sep);
  }

  /** Absolute path of a vault-relative path, refusing anything that leaves the vault. */
  resolve(rel: string): string {
    // a path already in its safe form (what the core's listings give: 10,000 of them a first
    // recall) is joined to the root as it is: what safeRelativePath and path.join make of it
    if (POSIX && this.root !== '/' && isCleanRelative(rel)) {
      const full = `${this.root}/${rel}`;
      this.assertDirInside(full.slice(0, full.lastIndexOf('/')), rel);
      return full;
    }
    const clean = safeRelativePath(rel);
    const full = nodePath.join(this.root, ...clean.split('/'));
    this.assertDirInside(nodePath.dirname(full), rel);
    return full;
  }

  /** The deepest existing ancestor of `dir` must really be inside the vault (symlinks followed). */
  private assertDirInside(dir: string, rel: string): void {
    if (this.checkedDirs.has(dir)) return;
    let probe = dir;
    for (;;) {
      try {
        if (!this.inside(fs.realpathSync(probe))) throw new PathError(`invalid path ${JSON.stringify(rel)}: resolves outside the vault`);
        if (probe === dir) this.checkedDirs.add(dir);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') throw new PathError(`invalid path ${JSON.stringify(rel)}: a symbolic link loop`);
        if (code !== 'ENOENT' || probe === this.root) throw error;
        probe = nodePath.dirname(probe);
      }
    }
  }

  /**
   * Open a file for reading: a symlink must resolve inside the vault, the file is opened
   * without blocking (a FIFO answers at once) and without following a link swapped in
   * meanwhile, and anything but a regular file is refused. Null when it does not exist.
   */
  private openRegular(full: string, rel: string): OpenFile | null;
  private openRegular(full: string, rel: string, plain: true): PlainOpenFile | null;
  private openRegular(full: string, rel: string, plain = false): OpenFile | PlainOpenFile | null {
    if (fs.constants.O_NOFOLLOW) {
      // the open refuses a symbolic link itself (ELOOP), so a regular file needs no lstat first:
      // one syscall and one Stats object less for each of the 10,000 files a first recall reads
      let fd: number | undefined;
      try {
        fd = fs.openSync(full, READ_FLAGS);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return null;
        if (code === 'ENXIO') throw new PathError(`${rel}: not a regular file (a socket)`);
        // a symbolic link (ELOOP; EMLINK on FreeBSD), or one swapped in: judged below, as always
        if (code !== 'ELOOP' && code !== 'EMLINK') throw error;
      }
      if (fd !== undefined) return this.regularOrClose(fd, rel, plain);
    }
    let target = full;
    let lst: fs.Stats;
    try {
      lst = fs.lstatSync(full);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    if (lst.isSymbolicLink()) {
      try {
        target = fs.realpathSync(full);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') throw new PathError(`${rel}: a symbolic link loop`);
        if (code === 'ENOENT') throw new PathError(`${rel}: a symbolic link to nothing`);
        throw error;
      }
      if (!this.inside(target)) throw new PathError(`invalid path ${JSON.stringify(rel)}: resolves outside the vault`);
    }
    let fd: number;
    try {
      fd = fs.openSync(target, READ_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'ELOOP') throw new PathError(`${rel}: replaced by a symbolic link while being read`);
      if (code === 'ENXIO') throw new PathError(`${rel}: not a regular file (a socket)`);
      throw error;
    }
    return this.regularOrClose(fd, rel, plain);
  }

  /**
   * An open file with its stat, when it is a regular file; otherwise closed and refused. `plain`:
   * the stat in numbers, not bigints (a BigIntStats is ~1.2 KB of fresh objects: 12 MB of a
   * first recall's 205 MB allocated at 10k).
   */
  private regularOrClose(fd: number, rel: string, plain = false): OpenFile | PlainOpenFile {
    const stat = plain ? fs.fstatSync(fd) : fs.fstatSync(fd, { bigint: true });
    if (!stat.isFile()) {
      fs.closeSync(fd);
      throw new PathError(`${rel}: ${stat.isDirectory() ? 'is a folder, not a file' : `not a regular file (${kindOf(stat)})`}`);
    }
    return { fd, stat } as OpenFile | PlainOpenFile;
  }

  async read(rel: string, options: { stable?: boolean } = {}): Promise<Uint8Array | null> {
    const full = this.resolve(rel);
    if (!options.stable) {
      const open = this.openRegular(full, rel);
      if (!open) return null;
      try {
        return readAll(open.fd, open.stat.size);
      } finally {
        fs.closeSync(open.fd);
      }
    }
    const stable = await this.readStable(full, rel);
    if (!stable) return null;
    fs.closeSync(stable.fd);
    return stable.bytes;
  }

  async readWithRoom(rel: string, room: number): Promise<Uint8Array | null> {
    const open = this.openRegular(this.resolve(rel), rel);
    if (!open) return null;
    try {
      return readStaged(open.fd, open.stat.size, room);
    } finally {
      fs.closeSync(open.fd);
    }
  }

  /** A plain read, with the size and mtime of the file read (its fstat: what statSync of the path says). */
  async readWithStat(rel: string): Promise<{ bytes: Uint8Array; size: number; mtimeMs: number } | null> {
    return this.readOpenWithStat(rel);
  }

  readWithStatNow(rel: string): { bytes: Uint8Array; size: number; mtimeMs: number } | null {
    return this.readOpenWithStat(rel);
  }

  private readOpenWithStat(rel: string): { bytes: Uint8Array; size: number; mtimeMs: number } | null {
    // the plain fstat's mtimeMs is plainMtimeMs' (seconds x 1000 + nanoseconds / 10^6)
    const open = this.openRegular(this.resolve(rel), rel, true);
    if (!open) return null;
    try {
      return { bytes: readAll(open.fd, open.stat.size), size: open.stat.size, mtimeMs: open.stat.mtimeMs };
    } finally {
      fs.closeSync(open.fd);
    }
  }

  /** The file kept open for positioned reads (pread) of parts of it, until closed. */
  async openRanges(rel: string): Promise<RangeReader | null> {
    const open = this.openRegular(this.resolve(rel), rel);
    if (!open) return null;
    const { fd } = open;
    return {
      size: Number(open.stat.size),
      read: async (at, length) => {
        const bytes = Buffer.allocUnsafe(length);
        return bytes.subarray(0, fs.readSync(fd, bytes, 0, length, at));
      },
      close: async () => fs.closeSync(fd),
    };
  }

  /**
   * A plain read, and the version read when it is a complete, quiet one (not saved in place
   * within QUIET_MS, not empty, as long as its stat said): what `unchanged` compares later,
   * so that a consolidation need not read again, before moving it, a memory it read to plan.
   */
  async readVersioned(rel: string): Promise<{ bytes: Uint8Array; version: FileVersion | null } | null> {
    const open = this.openRegular(this.resolve(rel), rel);
    if (!open) return null;
    try {
      const bytes = readAll(open.fd, open.stat.size);
      const whole = open.stat.size > 0n && bytes.length === Number(open.stat.size) && quietWait(open.stat) === 0;
      return { bytes, version: whole ? versionOf(open.stat) : null };
    } finally {
      fs.closeSync(open.fd);
    }
  }

  /**
   * The file is the version `tag` names (same inode, size and mtime: a write in place changes
   * the mtime, a replacement the inode) and quiet: a stable read would return at once the bytes
   * read with it. One lstat: a symbolic link is never its target's version.
   */
  async unchanged(rel: string, tag: string): Promise<boolean> {
    const st = fs.lstatSync(this.resolve(rel), { bigint: true, throwIfNoEntry: false });
    return st !== undefined && st.isFile() && st.size > 0n && quietWait(st) === 0 && versionTag(st) === tag;
  }

  /**
   * Read a file once nothing has written into it for QUIET_MS: an in-place save in progress
   * (truncated, or written in several pieces) is waited out instead of being read half-done.
   * An empty file is looked at again every few ms until its save writes, and believed empty
   * only after EMPTY_QUIET_MS of watching. The file stays open (the caller closes `fd`), so a
   * later fstat tells whether it changed.
   */
  private async readStable(full: string, rel: string): Promise<(OpenFile & { bytes: Buffer }) | null> {
    const deadline = Date.now() + QUIET_WAIT_MS;
    const empty = new EmptyWatch();
    for (;;) {
      const open = this.openRegular(full, rel);
      if (!open) return null;
      let keep = false;
      try {
        const wait = open.stat.size === 0n ? empty.wait(open.stat) : (empty.reset(), quietWait(open.stat));
        if (wait === 0) {
          const bytes = readAll(open.fd, open.stat.size);
          const after = fs.fstatSync(open.fd, { bigint: true });
          if (sameVersion(open.stat, after) && bytes.length === Number(after.size)) {
            keep = true;
            return { ...open, bytes };
          }
        }
        if (Date.now() > deadline) throw new BusyFileError(rel, QUIET_WAIT_MS / 1000);
        this.faults.whileWaiting?.(full);
        await sleep(open.stat.size === 0n ? Math.min(wait, empty.nextPoll()) : Math.max(5, wait));
      } finally {
        if (!keep) fs.closeSync(open.fd);
      }
    }
  }

  async stat(rel: string): Promise<FileStat | null> {
    const s = fs.statSync(this.resolve(rel), { throwIfNoEntry: false });
    return s ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  }

  /**
   * Names of the entries of a folder that are not plain folders: files, symlinks (even broken
   * or looping ones), FIFOs, sockets, and folders named like notes (`*.md`), so that readers
   * report what they cannot read instead of skipping it silently.
   */
  async list(rel: string): Promise<string[]> {
    try {
      const entries = fs.readdirSync(this.resolve(`${rel}/.`), { withFileTypes: true });
      return entries.filter((e) => !e.isDirectory() || e.name.endsWith('.md')).map((e) => e.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** The real folders inside a folder (a symlink to a folder is not followed: no loops, nothing outside). */
  async folders(rel: string): Promise<string[]> {
    try {
      return fs.readdirSync(this.resolve(`${rel}/.`), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw error;
    }
  }

  /** The regular files of a folder (symlinks followed) with size and mtime; others are left out. */
  async listStats(rel: string): Promise<Array<FileStat & { name: string }>> {
    const dir = this.resolve(`${rel}/.`);
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep;
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const out: Array<FileStat & { name: string }> = [];
    for (const name of names) {
      // One stat a file (it follows symlinks; a link out of the vault is refused on read); a
      // loop or a dangling link is left out here and reported by the readers that list it.
      let s: fs.Stats | undefined;
      try {
        s = fs.statSync(prefix + name, { throwIfNoEntry: false });
      } catch {
        continue;
      }
      if (s?.isFile()) out.push({ name, size: s.size, mtimeMs: s.mtimeMs });
    }
    return out;
  }

  /**
   * listStats, folders and list of one folder from one read of it (a cold recall lists the
   * memory folders once where it read each three times): directories are known from their
   * entry type and not stat'ed; every other entry is stat'ed once, as listStats does.
   */
  async scan(rel: string, options: { stat?: boolean } = {}): Promise<FolderScan> {
    const stat = options.stat ?? true;
    const dir = this.resolve(`${rel}/.`);
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep;
    const out: FolderScan = { files: [], folders: [], others: [] };
    if (stat) return scanStating(dir, prefix, out);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
      throw error;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (entry.isDirectory()) {
        out.folders.push(name);
        if (name.endsWith('.md')) out.others.push(name);
        continue;
      }
      // a regular file by its entry, when stats are not asked for (a first load reads every
      // file and takes them from the open file); links and unknown types are looked at
      if (entry.isFile()) {
        out.files.push({ name, size: -1, mtimeMs: -1 });
        continue;
      }
      const s = statOrNone(prefix + name);
      if (s?.isFile()) out.files.push({ name, size: s.size, mtimeMs: s.mtimeMs });
      else out.others.push(name);
    }
    return out;
  }

  async mkdir(rel: string): Promise<void> {
    fs.mkdirSync(this.resolve(rel), { recursive: true });
  }

  /**
   * FileStore.createInBackground: new files are made by a worker thread (BackgroundCreator)
   * until stop(). Null while another caller has it on, and on a machine with one core (`cores`:
   * the process's available parallelism), where the thread could only take turns with the
   * caller's: its start (~40 ms of CPU) would be all it brings.
   */
  createInBackground(cores = os.availableParallelism()): { stop(): Promise<void> } | null {
    if (this.creator !== null || cores < 2) return null;
    const creator = new BackgroundCreator();
    this.creator = creator;
    return {
      stop: async () => {
        if (this.creator === creator) this.creator = null;
        await creator.stop();
      },
    };
  }

  async write(rel: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<FileVersion> {
    const full = this.resolve(rel);
    if (options.expect === null) return this.create(full, rel, data);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const written: FileVersion = { size: 0, mtimeMs: 0, tag: '' };
    const temp = writeTemp(tempBeside(full), bytes, written);
    let placed = false;
    try {
      if (options.expect === undefined) {
        fs.renameSync(temp, full); // rename replaces a symlink itself, never its target
        placed = true;
      } else {
        placed = await this.swap(full, rel, temp, bytes, Buffer.from(options.expect, 'utf8'));
      }
    } finally {
      if (!placed) unlinkQuietly(temp);
    }
    return written;
  }

  /**
   * write() with `expect: null`: the complete temp file takes the name by link(2), which fails
   * when the name exists (even as a dangling symlink): an exclusive, atomic create. The temp
   * name goes whatever happens. (A file opened O_EXCL under its own name would spare the link
   * and the unlink, but a reader or a crash could find it empty or half written.)
   */
  private create(full: string, rel: string, data: string | Uint8Array): FileVersion | Promise<FileVersion> {
    if (this.creator !== null && typeof data === 'string') return this.creator.create(tempBeside(full), full, rel, data);
    return createNew(tempBeside(full), full, rel, data);
  }

  /**
   * Compare-and-swap: rename `temp` over `full` only if `full` holds exactly `expect` once
   * stable. Returns true when placed; throws WriteConflictError (nothing of theirs lost)
   * otherwise, including when a save reached the replaced file after the compare and was
   * put back in place of ours.
   */
  private async swap(full: string, rel: string, temp: string, ours: Uint8Array, expect: Buffer): Promise<boolean> {
    const current = await this.readStable(full, rel);
    if (!current) throw new WriteConflictError(rel);
    try {
      if (!current.bytes.equals(expect)) throw new WriteConflictError(rel);
      this.faults.beforeRename?.(full);
      fs.renameSync(temp, full);
      // The compare and the rename are two calls: a save that opened the file in between
      // wrote into the inode we just replaced. Put its content back (once complete).
      if (sameVersion(current.stat, fs.fstatSync(current.fd, { bigint: true }))) return true;
      // put back: our write is undone and the caller starts again from their save; kept
      // aside (or nothing to put back): our write stays, and must not be applied twice
      if (await this.restore(full, rel, current.fd, ours)) throw new WriteConflictError(rel);
      return true;
    } finally {
      fs.closeSync(current.fd);
    }
  }

  /**
   * Put back a save that went into the file we replaced (true: our write is undone). When the path changed again since our
   * rename (the person saved once more, on top of our version, which lacked that save; or the
   * note was removed), putting it back would cut that later save, and leaving it would lose
   * this one: it is kept beside the note as a conflict copy (`NAME (conflicted copy by
   * Engram).md`), which consolidation and `doctor --fix` merge like a sync tool's copy, both
   * texts kept. The file is waited for by its mtime alone: our rename changed its ctime (it
   * lost its name), so the mtime == ctime sign of an in-place save no longer holds for it.
   * Empty, it is watched like any empty file: its save may not have written yet.
   */
  private async restore(full: string, rel: string, fd: number, ours: Uint8Array): Promise<boolean> {
    const deadline = Date.now() + QUIET_WAIT_MS;
    const empty = new EmptyWatch();
    let stat = fs.fstatSync(fd, { bigint: true });
    for (;;) {
      const wait = stat.size === 0n ? empty.wait(stat) : (empty.reset(), Math.max(0, QUIET_MS - ageMs(stat)));
      if (wait === 0 || Date.now() >= deadline) break;
      this.faults.whileWaiting?.(full);
      await sleep(stat.size === 0n ? Math.min(wait, empty.nextPoll()) : wait);
      stat = fs.fstatSync(fd, { bigint: true });
    }
    const theirs = readAll(fd, stat.size);
    if (theirs.length === 0) return false; // a save that truncated and never wrote: nothing to put back
    const temp = writeTemp(tempBeside(full), theirs);
    let placed = false;
    try {
      const now = await this.readStable(full, rel);
      let again = false;
      if (now) {
        try {
          if (now.bytes.equals(Buffer.from(ours))) {
            fs.renameSync(temp, full);
            placed = true;
            return true;
          }
          again = now.bytes.equals(theirs); // saved again as it was: nothing to keep aside
        } finally {
          fs.closeSync(now.fd);
        }
      }
      if (!again) keepAside(full, temp);
      return false;
    } finally {
      if (!placed) unlinkQuietly(temp);
    }
  }

  /** FileStore.writeChunks: write() without `expect`, each piece written as it comes (the temp file, then its rename). */
  async writeChunks(rel: string, chunks: Iterable<Uint8Array>): Promise<void> {
    const full = this.resolve(rel);
    const temp = writeTemp(tempBeside(full), chunks);
    let placed = false;
    try {
      fs.renameSync(temp, full); // rename replaces a symlink itself, never its target
      placed = true;
    } finally {
      if (!placed) unlinkQuietly(temp);
    }
  }

  async append(rel: string, data: Uint8Array, at: number): Promise<boolean> {
    const full = this.resolve(rel);
    let fd: number;
    try {
      fd = fs.openSync(full, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) throw new PathError(`${rel}: not a regular file`);
      if (stat.size < at) return false;
      if (stat.size > at) fs.ftruncateSync(fd, at);
      this.faults.appending?.(full, fd);
      let offset = 0;
      while (offset < data.length) offset += fs.writeSync(fd, data, offset, data.length - offset, at + offset);
      fs.fdatasyncSync(fd);
      return true;
    } finally {
      fs.closeSync(fd);
    }
  }

  async remove(rel: string): Promise<void> {
    const full = this.resolve(rel);
    try {
      fs.unlinkSync(full); // a symlink is removed itself, never what it points to
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code === 'EISDIR' || code === 'EPERM') throw new PathError(`${rel}: is a folder, not a file`);
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.resolve(from);
    const target = this.resolve(to);
    try {
      try {
        fs.linkSync(source, target);
      } catch (error) {
        // the target's folder is made only when missing: a mkdir per move cost a syscall each
        // of the thousands of moves a first consolidation makes into one folder
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        fs.mkdirSync(nodePath.dirname(target), { recursive: true });
        fs.linkSync(source, target);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new WriteConflictError(to);
      throw error;
    }
    // awaited only when there is a hook (the tests'): each await is a turn of the microtask queue,
    // for each of the 9,000 moves of a first consolidation at 10k
    if (this.faults.afterLink) await this.faults.afterLink(target);
    fs.unlinkSync(source);
  }

  /**
   * FileStore.moveRewriting: `data` is written to a temp file beside `to` and linked there
   * (link(2) fails on an existing name: an exclusive create of a complete file), then `from` is
   * renamed to a temp name beside it and removed when that is still the version `tag` names.
   * A save in place that reached `from` before the rename shows in its mtime: the file is given
   * its name back (kept beside as a conflict copy when the name was taken meanwhile) and the
   * file at `to` removed, as if nothing was done. A crash leaves `from` and `to` (the caller
   * settles them), or `to` and the renamed source, a temp file the next sweep removes.
   */
  async moveRewriting(from: string, to: string, tag: string, data: string): Promise<FileVersion | null> {
    const source = this.resolve(from);
    const target = this.resolve(to);
    if (!(await this.unchanged(from, tag))) return null;
    const written: FileVersion = { size: 0, mtimeMs: 0, tag: '' };
    let temp: string;
    try {
      temp = writeTemp(tempBeside(target), Buffer.from(data, 'utf8'), written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      fs.mkdirSync(nodePath.dirname(target), { recursive: true });
      temp = writeTemp(tempBeside(target), Buffer.from(data, 'utf8'), written);
    }
    linkNew(temp, target, to);
    if (this.faults.afterLink) await this.faults.afterLink(target);
    const taken = nodePath.join(nodePath.dirname(source), `.${nodePath.basename(source)}.${process.pid}.${++tempCounter}.tmp`);
    try {
      fs.renameSync(source, taken);
    } catch (error) {
      // gone meanwhile (a person moved or deleted it): what it held is at `to`
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return written;
      throw error;
    }
    this.faults.afterTake?.(taken);
    const st = fs.lstatSync(taken, { bigint: true, throwIfNoEntry: false });
    // the version read (or nothing there to compare, removed by someone: the memory is at `to`)
    if (st === undefined || versionTag(st) === tag) {
      unlinkQuietly(taken);
      return written;
    }
    // saved in place since it was checked: theirs goes back, ours goes
    try {
      fs.linkSync(taken, source);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      keepAside(source, taken);
    }
    fs.unlinkSync(taken);
    unlinkQuietly(target);
    return null;
  }

  /**
   * Remove the temp files that killed writers left in a folder: `.NAME.PID.N.tmp` older than
   * a minute whose process no longer runs, or older than an hour. Returns the names it removed
   * (not one it could not unlink). `rel`:
   * a folder of the vault, '' or '.' for the vault's own folder (STATE.md's temp files).
   */
  async sweepTemp(rel: string, listed?: string[]): Promise<string[]> {
    // the vault's folder is no path resolve() takes ('./.' is refused as empty): asked for by
    // consolidation and `doctor --fix`, it failed, the one quietly, the other with exit 1
    const dir = rel === '' || rel === '.' ? this.root : this.resolve(`${rel}/.`);
    let names: string[];
    try {
      names = listed ?? fs.readdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const removed: string[] = [];
    for (const name of names) {
      const m = TEMP_NAME.exec(name);
      if (!m) continue;
      const path = nodePath.join(dir, name);
      const st = fs.lstatSync(path, { throwIfNoEntry: false });
      if (!st || !st.isFile()) continue;
      const age = Date.now() - st.mtimeMs;
      const orphan = age > 60_000 && Number(m[1]) !== process.pid && !processAlive(Number(m[1]));
      if (!orphan && age < 3_600_000) continue;
      // counted only when this unlink removed it: one that cannot be removed (EPERM, an immutable
      // file, a read-only folder) or that another sweep removed first was reported as removed
      this.faults.beforeSweep?.(path);
      try {
        fs.unlinkSync(path);
      } catch {
        continue;
      }
      removed.push(name);
    }
    return removed;
  }
}

/** The name of a conflict copy of `full`: `NAME (conflicted copy by Engram).md`, then `... Engram 2).md`, ... */
/**
 * NodeFileStore.scan with stats: the folder's names read without their types (a Dirent a name
 * cost a cold recall ~35 ms of CPU at 10k, more than the names), each stat'ed once as before
 * (it follows symlinks). What the entry is comes from that stat: a regular file (or a link to
 * one) is a file; a folder is a folder only when lstat says it is one itself (a link to a
 * folder is not followed: listed among the others, as by its entry type); anything else, or a
 * name gone or unreadable meanwhile, is among the others. The same lists, in the same
 * (folder) order, as from the entries' types: one lstat more a sub-folder, of which a memory
 * folder holds few.
 */
function scanStating(dir: string, prefix: string, out: FolderScan): FolderScan {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw error;
  }
  for (const name of names) {
    const s = statOrNone(prefix + name);
    if (s?.isFile()) out.files.push({ name, size: s.size, mtimeMs: s.mtimeMs });
    else if (s?.isDirectory() && isRealFolder(prefix + name)) {
      out.folders.push(name);
      if (name.endsWith('.md')) out.others.push(name);
    } else out.others.push(name);
  }
  return out;
}

function isRealFolder(full: string): boolean {
  try {
    return fs.lstatSync(full).isDirectory();
  } catch {
    return false;
  }
}

export function conflictCopyName(full: string, n: number): string {
  const ext = nodePath.extname(full);
  return `${full.slice(0, full.length - ext.length)} (conflicted copy by Engram${n > 1 ? ` ${n}` : ''})${ext}`;
}

/** Link `temp` (a complete file) beside `full` under the first free conflict-copy name: created exclusively, never over anything. */
function keepAside(full: string, temp: string): void {
  for (let n = 1; ; n++) {
    try {
      fs.linkSync(temp, conflictCopyName(full, n));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * How many ms to wait before a file that is not empty can be trusted: 0 unless it was
 * rewritten in place within QUIET_MS. Rewritten in place: a data write was its last change
 * (mtime equal to ctime; our own files are marked otherwise) and it was not simply created
 * and written at once (mtime equal to its birth time, where the file system records one).
 * A write stamps the file before it extends it, so a file caught mid-write already shows the
 * new times. (Empty files are another matter: see EmptyWatch.)
 */
function quietWait(stat: fs.BigIntStats): number {
  if (stat.mtimeNs !== stat.ctimeNs || stat.mtimeNs === stat.birthtimeNs) return 0;
  const age = ageMs(stat);
  return age >= QUIET_MS || age < -60_000 ? 0 : QUIET_MS - Math.max(0, age);
}

function ageMs(stat: fs.BigIntStats): number {
  return Date.now() - Number(stat.mtimeNs / 1_000_000n);
}

/**
 * How long we have seen a file stay empty, by our own clock. An empty file's timestamps are
 * no evidence of anything: a truncate makes the new size visible before it stamps the file
 * (ext4 sets i_size, then frees the blocks and journals, then sets mtime and ctime: about
 * 0.2 ms on an idle machine, much longer under load), so a save that has just truncated can
 * show the times of the version before it, Engram's own mark or an old save included. Only
 * watching tells a save that has truncated and not yet written from a note that is empty:
 * it is believed empty once it has stayed so, unchanged, for EMPTY_QUIET_MS.
 */
class EmptyWatch {
  private seen = '';
  private since = 0;
  private polls = 0;

  /** ms still to watch this empty file (never 0 at first sight). */
  wait(stat: fs.BigIntStats): number {
    const now = Date.now();
    const version = `${stat.ino}:${stat.mtimeNs}:${stat.ctimeNs}`;
    if (version !== this.seen) {
      this.seen = version;
      this.since = now;
    }
    return Math.max(0, EMPTY_QUIET_MS - (now - this.since));
  }

  /** The file was seen with content: a later emptiness is another save's. */
  reset(): void {
    this.seen = '';
    this.polls = 0;
  }

  /** The pause before the next look: 5 ms, doubling up to EMPTY_POLL_MS. */
  nextPoll(): number {
    return Math.min(EMPTY_POLL_MS, 5 * 2 ** this.polls++);
  }
}

/** The same content version of a file: a data write changes its mtime (ctime also moves when it is renamed or unlinked). */
function sameVersion(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/** The whole file from its start (positioned reads: the descriptor may have been read before). */
function readAll(fd: number, sizeHint: bigint | number): Buffer {
  const chunks: Buffer[] = [];
  const size = Math.max(1, Number(sizeHint)) + 1;
  let buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  let position = 0;
  for (;;) {
    if (filled === buffer.length) {
      chunks.push(buffer);
      buffer = Buffer.allocUnsafe(Math.max(65_536, buffer.length));
      filled = 0;
    }
    const wanted = buffer.length - filled;
    const n = fs.readSync(fd, buffer, filled, wanted, position);
    if (n === 0) break;
    filled += n;
    position += n;
    // a regular file reads short only at its end: no second read(2) to be told so (one syscall
    // less for each of the 10,000 files a first recall or a consolidation reads)
    if (n < wanted) break;
  }
  chunks.push(buffer.subarray(0, filled));
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** How much readStaged reads at a time. */
export const STAGE_BYTES = 1 << 20;

/**
 * readWithRoom's read: the whole file from its start, with `room` bytes left free past the
 * content in a buffer of its own (never Node's shared pool; fewer when the file grew while it
 * was read), read a megabyte at a time into one small buffer and copied from there. On this VM
 * a fresh page costs about 20 us each time the kernel and then the process first touch it: the
 * 157 MB bin of 100k vectors read in one read(2) cost 0.7-0.9 s of system time, then as much
 * again in user time at its first read (the checksum); copied from a reused buffer, 1.05-1.15 s
 * for both (the process's writes are its only first touch).
 */
function readStaged(fd: number, sizeHint: bigint | number, room: number): Buffer {
  const extra = Math.max(0, Math.floor(room));
  let whole = Buffer.allocUnsafeSlow(Math.max(1, Number(sizeHint)) + 1 + extra);
  // no larger than the file (and the byte that tells its end): a small file is one read(2)
  const stage = Buffer.allocUnsafeSlow(Math.min(STAGE_BYTES, whole.length - extra));
  let filled = 0;
  for (;;) {
    const n = fs.readSync(fd, stage, 0, stage.length, filled);
    if (n === 0) break;
    if (filled + n > whole.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(whole.length * 2, filled + n + extra));
      whole.copy(grown, 0, 0, filled);
      whole = grown;
    }
    stage.copy(whole, filled, 0, n);
    filled += n;
    // a regular file reads short only at its end
    if (n < stage.length) break;
  }
  return whole.subarray(0, filled);
}

/** The hidden temp name beside `full` (`.NAME.PID.N.tmp`, TEMP_NAME): what path.join(dirname, …) makes of it, by its last separator. */
function tempBeside(full: string): string {
  const cut = full.lastIndexOf(nodePath.sep) + 1;
  return `${full.slice(0, cut)}.${full.slice(cut)}.${process.pid}.${++tempCounter}.tmp`;
}

type BigStats = fs.BigIntStats;

/**
 * The steps of writing a file, defined once for the two threads that run them: the main thread
 * calls what this function returns (below), and the thread of createInBackground evaluates this
 * function's own text (Function.prototype.toString, creatorSource), so a new file is made by the
 * same code on either (stop 44's thread ran a copy of the steps in a string, to be kept in step
 * by hand). It therefore names nothing from outside itself but its parameters and the globals
 * every thread has (Buffer, Date, Number, Object, ArrayBuffer): the bundles' minifier renames
 * the module's own names, and the thread has none of them. (Code instrumented for coverage or
 * mutation testing adds names of its own: fs-files.ts is not in Stryker's mutate list.)
 */
function fileSteps(fs: FsModule, createFlags: number, conflict: (rel: string) => Error) {
  function unlinkQuietly(path: string): void {
    try {
      fs.unlinkSync(path);
    } catch {
      // already gone
    }
  }

  function writeAll(fd: number, bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
  }

  /**
   * `text` as UTF-8, encoded by the write call itself (Buffer.from's encoding, without a Buffer
   * made for each file an import creates); what a short write left, from its bytes.
   */
  function writeText(fd: number, text: string): void {
    const written = fs.writeSync(fd, text);
    if (written < Buffer.byteLength(text, 'utf8')) writeAll(fd, Buffer.from(text, 'utf8').subarray(written));
  }

  /**
   * Mark a file we wrote completely: its mtime is set (to now, to the millisecond), which
   * makes its ctime differ from its mtime. A file whose last change was a data write has
   * mtime == ctime; ours never does, so a reader that finds it fresh needs not wait.
   */
  function markOurs(fd: number): void {
    const now = Date.now() / 1000; // in seconds, what futimes makes of a Date: no Date made
    fs.futimesSync(fd, now, now);
  }

  /** The mtime in ms as a plain `fs.statSync` says it (seconds x 1000 + nanoseconds / 10^6). */
  function plainMtimeMs(stat: BigStats): number {
    const ns = stat.mtimeNs;
    return ns >= 0n ? Number(ns / 1_000_000_000n) * 1e3 + Number(ns % 1_000_000_000n) / 1e6 : Number(stat.mtimeMs);
  }

  /** What stays the same while a file's content does (sameVersion's fields); a move (link, unlink) keeps it. */
  function versionTag(stat: BigStats): string {
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  }

  /** A version as `readVersioned` reports it; its mtimeMs is what a plain `fs.statSync` says (seconds x 1000 + nanoseconds / 10^6). */
  function versionOf(stat: BigStats): FileVersion {
    return { size: Number(stat.size), mtimeMs: plainMtimeMs(stat), tag: versionTag(stat) };
  }

  /**
   * A complete temp file at `temp` (tempBeside's name), created exclusively (never through a
   * planted link). `stat`, when given, receives its size and mtime (what a listing shows once it
   * has its name: a link or a rename keeps both) and its version tag (readVersioned's: the file
   * is complete and marked ours, so it is quiet at once). Returns `temp`.
   */
  function writeTemp(temp: string, bytes: string | Uint8Array | Iterable<Uint8Array>, stat?: FileVersion): string {
    const fd = fs.openSync(temp, createFlags, 0o644);
    try {
      if (typeof bytes === 'string') writeText(fd, bytes);
      else if (ArrayBuffer.isView(bytes)) writeAll(fd, bytes);
      else for (const piece of bytes) writeAll(fd, piece);
      markOurs(fd);
      if (stat) Object.assign(stat, versionOf(fs.fstatSync(fd, { bigint: true })));
    } catch (error) {
      fs.closeSync(fd);
      unlinkQuietly(temp);
      throw error;
    }
    fs.closeSync(fd);
    return temp;
  }

  /** The written temp file linked to its name, never over a file there (`rel` named in the conflict); the temp name removed either way. */
  function linkNew(temp: string, target: string, rel: string): void {
    try {
      fs.linkSync(temp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw conflict(rel);
      throw error;
    } finally {
      unlinkQuietly(temp);
    }
  }

  /** A new file `target` holding `data` (write() with `expect: null`): its temp file written whole, linked to the name, the temp name removed. Its version. */
  function create(temp: string, target: string, rel: string, data: string | Uint8Array): FileVersion {
    const written: FileVersion = { size: 0, mtimeMs: 0, tag: '' };
    linkNew(writeTemp(temp, data, written), target, rel);
    return written;
  }

  return { unlinkQuietly, versionTag, versionOf, writeTemp, linkNew, create };
}

type FsModule = typeof fs;

const { unlinkQuietly, versionTag, versionOf, writeTemp, linkNew, create: createNew } = fileSteps(fs, CREATE_FLAGS, (rel) => new WriteConflictError(rel));

/** How many creates go to the worker in one message: it starts on the first while the caller renders the next (one message for each file costs more than the copy). */
const CREATE_CHUNK = 64;

/** What the worker says of one create: its version, 'conflict' (the name exists: WriteConflictError), another error, or null (not made: one before it failed). */
type CreateResult = FileVersion | 'conflict' | { message: string; code?: string; errno?: number; syscall?: string; path?: string; dest?: string } | null;

/**
 * The worker's loop (evaluated there from its text, as fileSteps is): each message is a list of
 * creates (temp, full path, text), made one after the other by fileSteps' create, the main
 * thread's own, so the guarantees are the same: a reader or a crash sees the whole file or
 * none, and no existing name is ever written over. Their results go back in one message. After
 * a create fails, those after it are not made (null), as a loop of write() calls stops at its error.
 */
function serveCreates(port: import('node:worker_threads').MessagePort, steps: typeof fileSteps, fs: FsModule, flags: number): void {
  const { create } = steps(fs, flags, () => Object.assign(new Error('exists'), { conflict: true }));
  let failed = false;
  port.on('message', (queue: string[]) => {
    const results: CreateResult[] = [];
    for (let k = 0; k < queue.length; k += 3) {
      if (failed) {
        results.push(null);
        continue;
      }
      try {
        results.push(create(queue[k]!, queue[k + 1]!, '', queue[k + 2]!));
      } catch (error) {
        failed = true;
        const e = (error ?? {}) as NodeJS.ErrnoException & { dest?: string; conflict?: boolean };
        results.push(e.conflict === true ? 'conflict' : { message: String(e.message), code: e.code, errno: e.errno, syscall: e.syscall, path: e.path, dest: e.dest });
      }
    }
    port.postMessage(results);
  });
}

/** The worker thread's code: serveCreates, given fileSteps, both by their own text. Exported for tests. */
export function creatorSource(): string {
  return `const { parentPort, workerData } = require('node:worker_threads');\n(${serveCreates.toString()})(parentPort, ${fileSteps.toString()}, require('node:fs'), workerData.flags);\n`;
}

interface Asked {
  rel: string;
  resolve: (version: FileVersion) => void;
  reject: (error: Error) => void;
}

/**
 * New files made by a worker thread, in the order asked (NodeFileStore.createInBackground): an
 * import plans its next thousand lines while the thread makes the files of the last thousand.
 * The creates' system calls (~0.5 s of an import of 10,000 lines on this VM, the floor of
 * bench-floor.mjs's atomic no-clobber create) then run beside the main thread's work instead
 * of after it. The worker costs ~40 ms of CPU to start, on the other core: only bulk imports
 * ask for it.
 */
class BackgroundCreator {
  private readonly worker: import('node:worker_threads').Worker;
  /** temp, full path and text of each create not yet sent, and who asked. */
  private queue: string[] = [];
  private asked: Asked[] = [];
  /** Each message sent and not answered: who asked its creates, in order. */
  private readonly sent: Asked[][] = [];
  private scheduled = false;
  private broken: Error | null = null;
  private idle: (() => void) | null = null;

  constructor() {
    // loaded here, by a bulk import alone: every other command starts without worker_threads
    const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
    this.worker = new Worker(creatorSource(), { eval: true, workerData: { flags: CREATE_FLAGS } });
    // kept from ending the process only while creates are out (ref in flush)
    this.worker.unref();
    this.worker.on('message', (results: CreateResult[]) => this.settle(results));
    this.worker.on('error', (error: Error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('the thread that creates files stopped')));
  }

  create(temp: string, full: string, rel: string, text: string): Promise<FileVersion> {
    return new Promise<FileVersion>((resolve, reject) => {
      if (this.broken) return reject(this.broken);
      this.queue.push(temp, full, text);
      this.asked.push({ rel, resolve, reject });
      if (this.asked.length >= CREATE_CHUNK) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.asked.length === 0) return;
    if (this.sent.length === 0) this.worker.ref();
    this.sent.push(this.asked);
    this.worker.postMessage(this.queue);
    this.queue = [];
    this.asked = [];
  }

  private settle(results: CreateResult[]): void {
    const asked = this.sent.shift();
    if (asked === undefined) return;
    for (let j = 0; j < asked.length; j++) {
      const result = results[j];
      const { rel, resolve, reject } = asked[j]!;
      if (result === null || result === undefined) reject(new Error(`${rel}: not created (a file asked before it failed)`));
      else if (result === 'conflict') reject(new WriteConflictError(rel));
      else if ('tag' in result) resolve(result);
      else reject(Object.assign(new Error(result.message), { code: result.code, errno: result.errno, syscall: result.syscall, path: result.path, dest: result.dest }));
    }
    this.quiet();
  }

  private fail(error: Error): void {
    this.broken ??= error;
    for (const asked of this.sent.splice(0)) for (const a of asked) a.reject(this.broken);
    for (const a of this.asked.splice(0)) a.reject(this.broken);
    this.queue = [];
    this.quiet();
  }

  private quiet(): void {
    if (this.sent.length > 0) return;
    this.worker.unref();
    this.idle?.();
    this.idle = null;
  }

  /** Waits for the creates asked, then ends the thread. */
  async stop(): Promise<void> {
    this.flush();
    if (this.sent.length > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

function kindOf(stat: fs.BigIntStats | fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a file';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether a process id runs on this machine (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A path's stats, or undefined where it is gone or cannot be stat'ed (a scan lists it among the others). */
function statOrNone(path: string): fs.Stats | undefined {
  try {
    return fs.statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
