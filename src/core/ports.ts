/**
 * What the core needs from the world. The headless runner implements these with Node's
 * file system; the Obsidian plugin with `app.vault`. Paths are vault-relative, '/'-separated.
 */

export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** A folder as FileStore.scan sees it. */
export interface FolderScan {
  files: Array<FileStat & { name: string }>;
  folders: string[];
  others: string[];
}

/** An open file's parts (FileStore.openRanges). */
export interface RangeReader {
  /** The file's size when opened. */
  readonly size: number;
  /** The bytes [at, at + length) of the file, fewer at its end. */
  read(at: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * The version of a file's content a reader saw: its size and mtime, and `tag`, which a later
 * `unchanged` compares (on disk: inode, size and mtime in nanoseconds).
 */
export interface FileVersion extends FileStat {
  tag: string;
}

export interface FileStore {
  /**
   * The file's bytes, or null when it does not exist. With `stable`, the bytes of a complete
   * version: a file being saved in place by another program (truncated, or written in several
   * pieces) is read once it has been quiet, never half-written. Reads that lead to a rewrite
   * use it. Anything but a regular file (a folder, a FIFO, a symlink loop) is refused.
   */
  read(path: string, options?: { stable?: boolean }): Promise<Uint8Array | null>;
  /**
   * A plain read into an array whose buffer is its own (nothing else uses it) with `room` bytes
   * free past the content (fewer when the file grew while read; untouched memory costs nothing
   * until written): for a caller that appends to what it read in memory (the embeddings bin).
   * Optional: a store without it reads with `read`.
   */
  readWithRoom?(path: string, room: number): Promise<Uint8Array | null>;
  /**
   * A plain read that also says which version of the file it read: `version` is null unless
   * the bytes are the whole of one complete version (the file was not being saved in place,
   * and did not change while it was read). Optional: a store without it reads with `read`.
   */
  readVersioned?(path: string): Promise<{ bytes: Uint8Array; version: FileVersion | null } | null>;
  /**
   * Whether the file still holds the version `tag` (from `readVersioned`) and is quiet: a
   * stable read would return, at once, the very bytes read with that version. False when in
   * doubt (gone, replaced, written since, a save in progress).
   */
  unchanged?(path: string, tag: string): Promise<boolean>;
  stat(path: string): Promise<FileStat | null>;
  /**
   * Names (not paths) of the entries directly inside a folder that are not plain folders
   * (regular files, symlinks, FIFOs, and folders named like notes, so that readers report
   * what they cannot read); [] when it does not exist.
   */
  list(dir: string): Promise<string[]>;
  /**
   * Names of the folders directly inside a folder ([] when it does not exist). Optional: a
   * store without it shows the core only the top level of each memory folder.
   */
  folders?(dir: string): Promise<string[]>;
  /** The files directly inside a folder with their size and mtime, in one call. */
  listStats(dir: string): Promise<Array<FileStat & { name: string }>>;
  /**
   * One look at a folder: what listStats, folders and list say of it, from a single read of
   * the folder. `others`: the names list gives that are not among `files` (symlinks that do
   * not lead to a regular file, FIFOs, sockets, folders named like notes, entries that could
   * not be looked at). Optional: without it the core asks listStats, folders and list.
   * With `stat: false`, a store that tells regular files by their entry alone may list them
   * with size and mtime -1 (unknown) instead of looking at each (readWithStat tells them).
   */
  scan?(dir: string, options?: { stat?: boolean }): Promise<FolderScan>;
  /**
   * `read`, with the size and mtime of the version read (from the open file, as `stat` gives
   * them). Optional: it lets a first load take each file's stats from its one read (a scan
   * with `stat: false`) instead of a stat of each file before reading it.
   */
  readWithStat?(path: string): Promise<{ bytes: Uint8Array; size: number; mtimeMs: number } | null>;
  /**
   * readWithStat done before it returns, for a store whose reads block anyway (the Node
   * runner's): a first load's 10,000 reads then wait on no promise each. Optional.
   */
  readWithStatNow?(path: string): { bytes: Uint8Array; size: number; mtimeMs: number } | null;
  /**
   * The file opened for reads of parts of it: its size, then byte ranges of that same version
   * (a file renamed over it meanwhile is not seen) until closed. Null when it does not exist.
   * Optional: a reader after a few rows of a large file (the id index's table, memory-files.ts)
   * reads it whole without it.
   */
  openRanges?(path: string): Promise<RangeReader | null>;
  /**
   * Replace a file atomically (temp file + rename), never writing through a symlink. With
   * `expect`, the write happens only if the file still holds exactly that text, read stable
   * (null: only if it does not exist); otherwise it throws WriteConflictError and writes
   * nothing of ours; a save by another program that lands during the write is kept.
   * Returns the size and mtime of the version written, when the store can tell them exactly
   * (taken from the file before it got its name, so no later save is mistaken for it): a cache
   * row for the file can then be kept without reading it again (write-index.ts); a store that
   * tells versions (readVersioned) gives the version's tag too (FileVersion), so that the
   * memory cache can keep a row for a memory the consolidation wrote (memory-cache.ts).
   */
  write(path: string, data: string | Uint8Array, options?: { expect?: string | null }): Promise<FileStat | FileVersion | void>;
  /**
   * From now until the returned stop() is awaited, a write() of a text with `expect: null` (a
   * new file) is made by a thread of its own, in the order asked, with the same steps and
   * guarantees, while the caller goes on computing: its promise settles once the file has its
   * name (or the create failed). A create that fails makes those asked after it fail unmade
   * (their error says so). For a bulk import, which plans its next lines meanwhile.
   * Optional: a store without it creates in the caller's thread.
   */
  createInBackground?(): { stop(): Promise<void> } | null;
  /**
   * write() (replacing the file, atomically) of the bytes `chunks` gives, one piece at a time:
   * each piece is written before the next is asked for (so a piece may be a view of a buffer
   * the iterator reuses), and the file never exists whole in memory (the memory cache, 8.8 MB
   * at 10k). Optional: without it, the caller joins the pieces for write().
   */
  writeChunks?(path: string, chunks: Iterable<Uint8Array>): Promise<void>;
  /** Move a file; fails when the target exists. */
  move(from: string, to: string): Promise<void>;
  /**
   * Move the file at `from`, still the version `tag` names, to `to` with `data` for its content
   * (consolidation archives a memory and writes its new tier in one step): `to` is created
   * whole (an exclusive create, WriteConflictError when it exists), then `from` is taken away
   * only if it is still that version. Null, with nothing left changed, when `from` is not that
   * version (before, or once it is taken: a save in place meanwhile is put back). A crash in
   * between leaves both files, `to` being `from` with the new content: the caller completes the
   * move from that. The version written is returned.
   */
  moveRewriting?(from: string, to: string, tag: string, data: string): Promise<FileVersion | null>;
  /** Delete a file (machine data only: memories are moved, never deleted); no error if absent. */
  remove(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  /**
   * Remove temp files that killed writers left in a folder; returns their names. `names`: the
   * folder's names from a listing the caller made (those that start with '.' suffice: a temp
   * name does), not read again; a temp file made since is left, as it is too new to sweep.
   */
  sweepTemp?(dir: string, names?: string[]): Promise<string[]>;
  /**
   * Write `data` at byte `at` of an existing file, in place, first cutting whatever follows `at`
   * (a torn earlier append), and flush it to the disk before returning true. False, changing
   * nothing, when the file is missing or shorter than `at`. Not atomic: for files whose reader
   * knows how many bytes are complete (embeddings.bin: its index). Optional.
   */
  append?(path: string, data: Uint8Array, at: number): Promise<boolean>;
}

/**
 * A lock taken by `tryLock`. A lock that others judge by its age is kept fresh while held; where
 * that takes the holder's help (headless: the main thread may compute without a turn of its
 * timers), `still()` says the holder is alive (call it between pieces of work: it is cheap), and
 * `long()` says that pieces without a `still()` may take longer than the stale time from now on
 * (the lock is then kept fresh without the caller until released). Both optional.
 */
export interface HeldLock {
  release: () => Promise<void>;
  still?: () => void;
  long?: () => void;
}

/** Mutual exclusion between processes (and Obsidian) for one key, e.g. a memory id. */
export interface Locks {
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Take a lock without waiting: either a release function, or who holds it. A lock whose
   * holder is gone (a dead process) is taken over.
   */
  tryLock(key: string, holder: string): Promise<HeldLock | { heldBy: string }>;
  /**
   * Run `fn` while every other process's `withLock` waits for it to end (a memory's lock is
   * then not taken for each of `fn`'s changes), when no other process holds a lock or may take
   * one without seeing that; true when `fn` ran. False, without running it, when another may:
   * the caller takes each lock. `still()` (call it between changes: it is cheap) is false once
   * this was judged abandoned and taken over: the caller takes each lock from then on. `fn`
   * must take no lock of this instance (its callers wait for `fn`). Optional (the plugin, one
   * process, has none).
   */
  alone?(fn: (still: () => boolean) => Promise<void>): Promise<boolean>;
}

export interface Clock {
  /** Milliseconds since the epoch. Injected everywhere so that replays are exact. */
  now(): number;
}

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * Text to vectors (SPEC §12). `model` names the model and where it runs; vectors from
 * different models are never mixed. Vectors come back unit-length.
 */
export interface Embedder {
  readonly model: string;
  embed(texts: string[], onProgress?: (done: number, total: number) => void): Promise<Float32Array[]>;
}

/** The project repository the memories talk about (SPEC §8 git invalidation). */
export interface Git {
  /** The commit checked out now, or null when the repository has none. */
  head(): Promise<string | null>;
  /**
   * Repository-relative paths changed since `commit` (committed, staged and unstaged; both
   * names of a rename; deletions). Throws when `commit` is unknown to the repository.
   */
  changedSince(commit: string): Promise<string[]>;
}

export interface TokenCounter {
  count(text: string): number;
}

export interface Ports {
  files: FileStore;
  locks: Locks;
  clock: Clock;
  random: Random;
  tokens: TokenCounter;
  /**
   * Where the vault is opened from: a text that differs between two machines, and between a
   * vault and a copy of its folder (the CLI: the host name and the vault's real path; the
   * plugin: a token kept in the app's local storage, which is never copied with the vault).
   * The machine stamp is drawn again when it changes (machine.ts). Absent: the stamp is kept
   * wherever the folder goes.
   */
  place?: string;
}
