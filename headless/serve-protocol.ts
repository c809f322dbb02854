import { statSync } from 'node:fs';
import * as nodePath from 'node:path';
import { MACHINE_FOLDER } from './vault-root';

/**
 * What `engram serve` (headless/serve.ts) and the launcher's client (headless/serve-client.ts)
 * agree on: which commands a server answers, where its socket is, and the messages. Imported by
 * the launcher before it loads the CLI bundle, so it stays small (node:fs and node:path).
 *
 * One request a connection, a JSON line each way and back:
 *   client -> server  Request
 *   server -> client  {"fallback": reason}   (the client runs the command itself, nothing was done)
 *                  or {"out": text} / {"err": text} ... then {"exit": status}
 */
export const PROTOCOL = 1;

/**
 * The commands a server runs for the launcher: the ones an agent's hooks run before each prompt
 * or after each use, and that a warm process answers without reading the vault again. Everything
 * else runs in the calling process as always.
 */
export const SERVED_COMMANDS: ReadonlySet<string> = new Set(['recall', 'context', 'touch']);

export interface Request {
  protocol: number;
  /** The CLI bundle the client would run (buildStamp): a server of another build does not answer. */
  build: string;
  /** The vault the client resolved; a server of another vault does not answer. */
  root: string;
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Standard input, read by the client when the command reads it (context --hook); null: not read. */
  stdin: string | null;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
}

export type Reply = { fallback: string } | { out: string } | { err: string } | { exit: number };

/**
 * Where the command is in a command line: the first word that is not a global option or its
 * value (and not after `--`); -1 when there is none. The CLI (headless/cli.ts) and the launcher
 * find it the same way.
 */
export function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--vault' || arg === '--now') {
      i++;
      continue;
    }
    if (!arg.startsWith('-')) return i;
  }
  return -1;
}

/**
 * The command and the options the launcher needs, from the command line as the CLI reads it
 * (`--vault=DIR` as parseArgs takes it too): null when no command a server runs is given, or when
 * the line asks for help or the version.
 */
export function servedCommand(argv: readonly string[]): { name: string; vault: string | undefined; readsStdin: boolean } | null {
  const at = commandIndex(argv);
  const name = at < 0 ? null : argv[at]!;
  if (name === null || !SERVED_COMMANDS.has(name)) return null;
  const options = argv.indexOf('--') < 0 ? argv : argv.slice(0, argv.indexOf('--'));
  for (let i = 0; i < options.length; i++) {
    const arg = options[i]!;
    if (arg === '--help' || arg === '-h' || arg === '--version') return null;
    if (arg === '--vault' || arg === '--now') i++;
  }
  return { name, vault: vaultOption(argv), readsStdin: name === 'context' && options.includes('--hook') };
}

/**
 * The folder `--vault DIR` or `--vault=DIR` names (the last one, before `--`), as the CLI parses
 * the line, for any command (the launcher's flag for `remember` looks at its write index:
 * headless/bundles.ts rememberTier); undefined when none is named.
 */
export function vaultOption(argv: readonly string[]): string | undefined {
  const options = argv.indexOf('--') < 0 ? argv : argv.slice(0, argv.indexOf('--'));
  let vault: string | undefined;
  for (let i = 0; i < options.length; i++) {
    const arg = options[i]!;
    if (arg === '--vault') vault = options[++i];
    else if (arg === '--now') i++;
    else if (arg.startsWith('--vault=')) vault = arg.slice('--vault='.length);
  }
  return vault;
}

/** Where the server of a vault listens: `.engram/serve.sock` in it; on Windows a named pipe named after the vault's path. */
export function socketPath(root: string, platform: string = process.platform): string {
  if (platform === 'win32') return `\\\\.\\pipe\\engram-${fnv1a(nodePath.resolve(root).toLowerCase())}`;
  return nodePath.join(root, MACHINE_FOLDER, SOCKET_NAME);
}

export const SOCKET_NAME = 'serve.sock';

/**
 * The longest Unix socket path that connect(2) takes everywhere (sun_path is 108 bytes on Linux,
 * 104 on macOS, with its terminating zero); a longer one is reached by its name from its folder.
 */
export const SOCKET_PATH_MAX = 103;

/** The CLI bundle's size and mtime: a rebuilt or upgraded engram is another build. '' when there is none. */
export function buildStamp(bundle: string): string {
  try {
    const s = statSync(bundle);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}

/** 64-bit FNV-1a of a string's UTF-16 units, as 16 hex digits. */
export function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}
