import { commandIndex } from './serve-protocol';

/**
 * The bundle the launcher (dist/engram.js) runs a command line with. Every command is in the CLI
 * bundle (dist/engram-cli.js, headless/main.ts); a command run cold and often, by hooks, is also
 * built alone, with only the code it uses: a cold process reads, makes a string of and
 * deserialises the code cache of its whole bundle before it runs a line of the command, and the
 * CLI bundle is every command's code. A bundle of one command runs that command only when the
 * command line names it (commandIndex, as the CLI finds it): its help, `--version` and usage
 * errors are then the CLI's, from the same code. Imported by the launcher: no more than
 * serve-protocol.ts.
 */
export const CLI_BUNDLE = 'engram-cli.js';

/** Commands built alone: the name of their bundle beside the launcher (esbuild.config.mjs builds each). */
export const COMMAND_BUNDLES: Readonly<Record<string, string>> = { touch: 'engram-touch.js', recall: 'engram-read.js', context: 'engram-read.js' };

/** The file name of the bundle that runs this command line. */
export function bundleFor(argv: readonly string[]): string {
  const at = commandIndex(argv);
  const name = at < 0 ? '' : argv[at]!;
  return Object.hasOwn(COMMAND_BUNDLES, name) ? COMMAND_BUNDLES[name]! : CLI_BUNDLE;
}

/**
 * Command lines that run as one short burst from an unchanged snapshot (a cold `recall` of one
 * query, `context`), which the launcher runs without V8's optimising compiler (`--max-opt=1`:
 * the interpreter and the baseline compiler only). A cold recall at 10k ran TurboFan on a few
 * hot loops of a process that ended milliseconds later: ~390 M of its ~1,830 M instructions
 * (callgrind, no code cache) were the compiler's, and the run without it took ~1,440 M. The
 * flag cannot be taken back once code ran (measured: a first recall set back to full speed
 * at its rebuild still took ~25 % more CPU), so it is given only where the recall will open
 * the snapshot: one exists, and no memory folder changed after it was written (a memory
 * added, removed or renamed sends recall to rebuild its indexes, work the compiler pays for).
 * An edit in place changes no folder: recall then patches a few rows (light work) or, rarely,
 * rebuilds without the compiler; the answer is the same either way. `--batch` runs many
 * queries: left as it is. `root()`: the vault's folder (null: none); `stamp(path)`: a file's
 * mtime in ms, or null when it is missing.
 */
export function baselineTier(argv: readonly string[], root: () => string | null, stamp: (path: string) => number | null, size: (path: string) => number | null, read: (path: string) => string | null = () => null): boolean {
  if (!readsOnce(argv)) return false;
  const dir = root();
  if (dir === null) return false;
  return spliceable(dir, stamp, read) && (size(`${dir}/${SNAPSHOT_FILE}`) ?? Infinity) <= BASELINE_MAX_SNAPSHOT;
}

/** Whether the command line is one `recall` (not `--batch`: many queries) or a `context` (baselineTier, rebuildTier). */
function readsOnce(argv: readonly string[]): boolean {
  const name = argv[commandIndex(argv)];
  return name === 'context' || (name === 'recall' && !argv.some((arg) => arg === '--batch' || arg.startsWith('--batch=')));
}

/**
 * The largest snapshot (bytes) whose recall runs without the optimising compiler. A cold recall
 * at 10k (a 4.8 MB snapshot) took ~25 % less CPU without it; at 100k (48 MB) it took more
 * (lead, stop 37, 5 cold recalls each, load 2-6: 2.24-2.62 s with the flag against 1.92-2.22 s
 * without): there the search's loops run long enough to pay for TurboFan. Where the two cross
 * was not measured: the flag is kept to about twice the size where it was seen to help.
 */
export const BASELINE_MAX_SNAPSHOT = 8 * 1024 * 1024;

/**
 * Command lines that rebuild the recall indexes from every memory file: a `recall` or `context`
 * without a fresh snapshot (a fresh clone, memories added or removed since it was written). They
 * run with V8's inlining budget cut to 150 bytes of bytecode (V8's default is 920): their
 * per-file code runs mostly before its optimised version arrives, and an optimised function that
 * inlined much is thrown away and compiled again at each new path the data shows it (the first
 * memory naming a date came ~1,000 files in). Measured (CPU, paired, lead, stop 38, load 2-4): a
 * first recall at 10k 1.85 s -> 1.68 s (5 of 5 pairs); at 100k 9.80 s -> 9.52 s (2 pairs, one
 * each way). `consolidate` at 10k 2.51 -> 2.35 s (4 of 4) but 100k 17.3 -> 17.7 s (2 of 2
 * slower): a first one in a vault of about 10k only (consolidateTier). Not `--batch` (many
 * queries: the search loops run long enough to pay for inlining).
 */
export function rebuildTier(argv: readonly string[], root: () => string | null, stamp: (path: string) => number | null, read: (path: string) => string | null = () => null): boolean {
  if (!readsOnce(argv)) return false;
  const dir = root();
  return dir !== null && !spliceable(dir, stamp, read);
}

/**
 * A `remember` (one text) into a vault whose write index is there and at most
 * REMEMBER_MAX_INDEX bytes: it runs without V8's optimising compiler (BASELINE_FLAG), as a
 * recall from a fresh snapshot does. Such a remember reads the index, stats every memory file,
 * parses the few written since, decides and writes one or two files, and ends: TurboFan compiled
 * its loops over the 10,000 rows for a process that ended right after. Measured at 10k (bench
 * corpus, write index of format 2): callgrind 1,777 M -> 1,445 M instructions; CPU, 8 paired
 * rounds at load ~6: 770 -> 655 ms (a cold recall in the same rounds: 530). Without a write index
 * (a fresh clone, another version's format) the remember parses every memory file, work the
 * compiler pays for: no flag then; nor above the size (not measured there: kept, as the
 * snapshot's, to about twice 10k's 3.4 MB).
 */
export function rememberTier(argv: readonly string[], root: () => string | null, size: (path: string) => number | null): boolean {
  if (argv[commandIndex(argv)] !== 'remember') return false;
  const dir = root();
  if (dir === null) return false;
  return (size(`${dir}/${WRITE_INDEX_FILE}`) ?? Infinity) <= REMEMBER_MAX_INDEX;
}

/** The write index, from the vault's folder (src/core/write-index.ts WRITE_INDEX_PATH: the launcher imports no core module; test/headless/bundles.test.ts checks they agree). */
export const WRITE_INDEX_FILE = '.engram/cache/write-index.json';

/** The largest write index (bytes) whose remember runs without the optimising compiler (rememberTier). */
export const REMEMBER_MAX_INDEX = 8 * 1024 * 1024;

/** The V8 flag rebuildTier's, consolidateTier's and importTier's command lines run under. */
export const REBUILD_FLAG = '--max-inlined-bytecode-size-cumulative=150';

/**
 * A `consolidate` that reads and parses every memory file (no memory cache yet: the first run in
 * a vault or a fresh clone, `.engram/cache` is not in git) in a vault whose write index is at most
 * CONSOLIDATE_MAX_INDEX bytes: it runs with REBUILD_FLAG's inlining budget, as a recall that
 * rebuilds its indexes does, for the same reason. Its passes over the 10,000 memories (load,
 * links, plan, moves, the caches' rows) each ran a while before TurboFan's version of their code
 * came, and a version that inlined much was thrown away and compiled again when the data showed
 * it a new path (with a budget of 920, 160 functions compiled, ~400 ms of compiling at 10k).
 * Measured at 10k (/tmp/s43/vr, the bench's vault after import, recall and context): CPU in 6
 * pairs at load 2.4-2.7, 1.74 -> 1.52 s (median; 6 of 6 lower); callgrind 7.8 -> 7.3 G
 * instructions (budget 200). A next night at 10k (the rows read, few files parsed): 0.81 ->
 * 0.79 s, 3 of 5 pairs lower, noise: no flag. Stop 38 measured a consolidation at 100k slower
 * with it (17.3 -> 17.7 s, 2 of 2): none above about twice 10k's write index (3.4 MB).
 */
export function consolidateTier(argv: readonly string[], root: () => string | null, size: (path: string) => number | null): boolean {
  if (argv[commandIndex(argv)] !== 'consolidate') return false;
  const dir = root();
  if (dir === null || size(`${dir}/${MEMORY_CACHE_FILE}`) !== null) return false;
  return (size(`${dir}/${WRITE_INDEX_FILE}`) ?? Infinity) <= CONSOLIDATE_MAX_INDEX;
}

/**
 * An `import`: it runs with REBUILD_FLAG's inlining budget, as a first consolidation does, for
 * the same reason: each of its passes over the lines (check, plan, render, the write index's
 * rows) runs once per line and a process ends with it, so most of that code runs before or soon
 * after TurboFan's version of it arrives, and a version that inlined much was compiled again
 * when the data showed it a new path. Measured on the bench corpus at 10k (c10k, a new vault):
 * callgrind (--single-threaded), main thread 6,268 -> 6,126 M instructions, all threads 7,032 ->
 * 6,856 M; CPU (rusage) medians of 7 rounds at load 2-4, 2,053 -> 1,944 ms (the compiling
 * threads 571 -> 466 ms), and of 6 at load 5-8, 2,143 -> 2,097 ms; at 50k, 3 rounds at load
 * 9-10, 7.47 -> 7.08 s. The same files and output: a compiler's budget changes no result.
 */
export function importTier(argv: readonly string[]): boolean {
  return argv[commandIndex(argv)] === 'import';
}

/** The memory cache, from the vault's folder (src/core/memory-cache.ts MEMORY_CACHE_PATH; test/headless/bundles.test.ts checks they agree). */
export const MEMORY_CACHE_FILE = '.engram/cache/memories.jsonl';

/** The largest write index (bytes) whose first consolidation runs with REBUILD_FLAG (consolidateTier). */
export const CONSOLIDATE_MAX_INDEX = 8 * 1024 * 1024;

/** The V8 flag the launcher gives this command line before its bundle is compiled, or null (V8's defaults). */
export function launchFlag(argv: readonly string[], root: () => string | null, stamp: (path: string) => number | null, size: (path: string) => number | null, read: (path: string) => string | null = () => null): string | null {
  if (baselineTier(argv, root, stamp, size, read) || rememberTier(argv, root, size)) return BASELINE_FLAG;
  return rebuildTier(argv, root, stamp, read) || consolidateTier(argv, root, size) || importTier(argv) ? REBUILD_FLAG : null;
}

/** Whether the vault's recall snapshot exists and no memory folder changed after it (baselineTier). */
export function snapshotFresh(root: string, stamp: (path: string) => number | null): boolean {
  const snapshot = stamp(`${root}/${SNAPSHOT_FILE}`);
  if (snapshot === null) return false;
  return TIER_FOLDERS.every((folder) => (stamp(`${root}/${folder}`) ?? -Infinity) <= snapshot);
}

/**
 * How many `remember` and `touch` commands changed the memory folders since the recall snapshot
 * was written, and nothing else did (0: the snapshot is fresh); null when that is not known: no
 * snapshot, or a folder changed after the last of them wrote CHANGES_FILE (an import, a
 * consolidation, Obsidian). A recall after a few of them splices the snapshot with the files
 * they wrote (src/core/recall/snapshot-splice.ts) instead of rebuilding: work as light as a
 * recall from a fresh snapshot, for which baselineTier's flag is the cheaper one. Only a guess
 * at how much work the recall will do: a wrong one costs time, never changes an answer.
 */
export function changesSince(root: string, stamp: (path: string) => number | null, read: (path: string) => string | null): number | null {
  const snapshot = stamp(`${root}/${SNAPSHOT_FILE}`);
  if (snapshot === null) return null;
  let folders = -Infinity;
  for (const folder of TIER_FOLDERS) folders = Math.max(folders, stamp(`${root}/${folder}`) ?? -Infinity);
  if (folders <= snapshot) return 0;
  const noted = stamp(`${root}/${CHANGES_FILE}`);
  if (noted === null || folders > noted) return null;
  const text = read(`${root}/${CHANGES_FILE}`);
  const match = text === null ? null : /^(\S+) ([1-9]\d{0,5})\n$/.exec(text);
  return match && match[1] === String(snapshot) ? Number(match[2]) : null;
}

/** What CHANGES_FILE says: the snapshot's mtime (ms) when the first of the commands found it, and how many of them ran since. */
export function changesText(snapshotMtimeMs: number, commands: number): string {
  return `${snapshotMtimeMs} ${commands}\n`;
}

/** Whether a recall will open the snapshot as it is or splice it with the files of at most MAX_NOTED_CHANGES commands (changesSince). */
function spliceable(root: string, stamp: (path: string) => number | null, read: (path: string) => string | null): boolean {
  return (changesSince(root, stamp, read) ?? Infinity) <= MAX_NOTED_CHANGES;
}

/** Beside the snapshot: the count of commands changesSince reads (headless/recall-changes.ts writes it). */
export const CHANGES_FILE = '.engram/cache/recall.changes';
/**
 * The most `remember` / `touch` commands after which a recall still takes the light path: each
 * writes one to a few files (a touch spreads to linked memories), and a splice parses at most
 * max(16, 5 %) of them before it declines and rebuilds (under this flag, ~25 % slower).
 */
export const MAX_NOTED_CHANGES = 4;

/** The recall snapshot, from the vault's folder (src/core/recall/snapshot.ts SNAPSHOT_PATH: the launcher imports no core module). */
export const SNAPSHOT_FILE = '.engram/cache/recall.snapshot';
/** The memory folders (src/core/memory-files.ts MEMORY_ROOTS; test/headless/bundles.test.ts checks they agree). */
export const TIER_FOLDERS: readonly string[] = ['episodic', 'semantic', 'decisions', 'archive'];

/** The V8 flag that baselineTier's command lines start with. */
export const BASELINE_FLAG = '--max-opt=1';
