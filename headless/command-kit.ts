import { existsSync, readFileSync, realpathSync } from 'node:fs';
import * as nodePath from 'node:path';
import { wholeNumberIn, type WholeRange } from '../src/core/arguments';
import { EngramError, PathError, UsageError } from '../src/core/errors';
import { isMemoryId, safeRelativePath } from '../src/core/ids';
import type { RecallEngine } from '../src/core/recall/recall';
import { scanMemoryFiles } from '../src/core/memory-files';
import { CATALOG_PATH } from '../src/core/recall/catalog';
import { openRecall } from '../src/core/recall/results';
import { SNAPSHOT_PATH } from '../src/core/recall/snapshot';
import { MEMORY_FOLDERS, type Vault } from '../src/core/vault';
import type { CommandContext } from './command';
import type { Runtime } from './runtime';

/** What commands share: output, text and file arguments, memory references, option values. */

export function print(context: CommandContext, value: unknown, human: () => string): number {
  context.io.stdout(context.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  return 0;
}

/** The warning list, recall and context give when memory files could not be read (stderr, not with --json). */
export function warnUnreadable(context: CommandContext, unreadable: number): void {
  if (unreadable > 0 && !context.json) context.io.stderr(`engram: ${unreadable} memory ${unreadable === 1 ? 'file' : 'files'} could not be read (engram stats lists them)\n`);
}

/**
 * The recall engine over the vault, and how many memory files it left out because they could
 * not be read (entries in the memory folders less the engine's documents), from one listing.
 */
export async function openRecallCounting(vault: Vault): Promise<{ engine: RecallEngine; unreadable: number }> {
  // without a snapshot or a catalog (a fresh clone: .engram/cache is not in git) every file is
  // read: each is listed without a stat, and its read tells its size and mtime
  const files = vault.ports.files;
  const cached = (await files.stat(SNAPSHOT_PATH).catch(() => null)) ?? (await files.stat(CATALOG_PATH).catch(() => null));
  const scan = await scanMemoryFiles(files, MEMORY_FOLDERS, cached ? {} : { stat: false });
  const engine = await openRecall(vault, scan.files);
  return { engine, unreadable: Math.max(0, scan.entries - engine.size) };
}

/** TEXT from the arguments, or standard input for `-` (or no argument on a pipe). */
export function textArgument(context: CommandContext, command: string): string {
  const arg = context.args.join(' ');
  // an empty argument ("") is a mistake, not a request to read standard input
  if (context.args.length > 0 && arg.trim() === '') throw new UsageError(`${command}: the text is empty (give the text, or - to read standard input)`);
  if (arg === '-' || (arg === '' && !context.io.stdinIsTTY)) {
    const text = context.io.readStdin();
    // named by the command, not by a field: "remember: ...", as every other message of the command
    if (text.trim() === '') throw new UsageError(`${command}: standard input held no text (give the text as an argument, or pipe it in)`);
    return text;
  }
  if (arg === '') throw new UsageError(`${command}: give the text as an argument, or - to read standard input`);
  return arg;
}

/** A memory reference from the command line: an id, or a file path (cwd- or vault-relative). */
export function memoryRef(runtime: Runtime, cwd: string, ref: string): string {
  if (isMemoryId(ref)) return ref;
  const absolute = nodePath.resolve(cwd, ref);
  const inside = (root: string, file: string) => {
    const relative = nodePath.relative(root, file);
    return !relative.startsWith('..') && !nodePath.isAbsolute(relative) ? relative : null;
  };
  const relative = inside(runtime.root, absolute) ?? inside(realOrSelf(runtime.root), realOrSelf(absolute)); // a vault reached through a symbolic link
  if (relative !== null && existsSync(absolute)) return safeRelativePath(relative);
  if (nodePath.isAbsolute(ref)) throw new PathError(`${ref}: not inside the vault ${runtime.root}`);
  return safeRelativePath(ref);
}

/** A path with its symbolic links resolved (its folder's, when the file itself does not exist). */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return nodePath.join(realpathSync(nodePath.dirname(path)), nodePath.basename(path));
    } catch {
      return path;
    }
  }
}

export async function resolveIds(runtime: Runtime, context: CommandContext, command: string): Promise<string[]> {
  if (context.args.length === 0) throw new UsageError(`${command}: give at least one memory id or path`);
  const ids: string[] = [];
  for (const ref of context.args) ids.push((await runtime.vault.resolve(memoryRef(runtime, context.io.cwd, ref))).id);
  return ids;
}

export const oneOf = <T extends string>(value: unknown, allowed: readonly T[], option: string): T | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${option}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
};

/** A whole-number option or argument: the fallback when absent, else checked against the range MCP uses too (src/core/arguments.ts). */
export const count = (value: string | undefined, fallback: number, range: WholeRange, what: string): number =>
  value === undefined ? fallback : wholeNumberIn(value, range, what);


/** A file named on the command line (or standard input for `-`); a missing or unreadable one is a failure (exit 1). */
export function readInput(context: CommandContext, file: string, what: string): string {
  if (file === '-') return context.io.readStdin();
  try {
    return readFileSync(nodePath.resolve(context.io.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : code === 'EACCES' ? 'permission denied' : (code ?? String(error));
    throw new EngramError(`${what}: cannot read ${file}: ${reason}`);
  }
}

/** The runner's version, from the package.json beside dist/. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(nodePath.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}
