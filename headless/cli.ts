import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EngramError, UsageError } from '../src/core/errors';
import { COMMANDS, type CommandContext } from './commands';

/** Standard streams, injected so tests run the CLI in-process. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => string;
  stdinIsTTY: boolean;
  cwd: string;
  env: Record<string, string | undefined>;
}

export const USAGE = `usage: engram [--vault DIR] [--now ISO-8601] [--json] COMMAND ...

commands:
  init [--git]              create the memory folder layout (idempotent); --git: merge memories in git
  remember [TEXT | -]       --category episodic|semantic|decision  --tags a,b
                            --confidence verified|observed|inferred  --error
                            --path P (repeatable)  --role R  --source S
  import FILE.jsonl         bulk remember, one JSON object a line (- for stdin)
  touch ID|PATH ...         the touch protocol: one tier up, access counted
  cite ID ...               citation boost (ACT-R)
  show ID|PATH              frontmatter plus computed strength, half-life, tier, activation
  stats                     counts by category, tier and confidence; unreadable files
  creative [N]              N random memories favouring forgotten ones  --seed S
  log TEXT                  append to today's daily file
  budget                    always-loaded context report
  git-setup                 install the git merge driver in this clone (the same as init --git)
  merge-file BASE OURS THEIRS [PATH]   the git merge driver for memory files (%O %A %B %P)

The vault is --vault DIR, else $ENGRAM_VAULT, else the current folder if it has .engram/.
Exit status: 0 success, 1 failure, 2 usage error.`;

const GLOBAL_OPTIONS = {
  vault: { type: 'string' },
  now: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Run one command line; returns the exit status. Never throws. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof EngramError) {
      io.stderr(`engram: ${error.message}\n`);
      if (error.exitCode === 2) io.stderr("run 'engram --help' for usage\n");
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`engram: ${message}\n`);
    if (io.env.ENGRAM_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return 1;
  }
}

/** The command is the first word that is not a global option or its value. */
function splitCommand(argv: string[]): { name: string | null; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--vault' || arg === '--now') {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return { name: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { name: null, rest: argv };
}

async function dispatch(argv: string[], io: CliIO): Promise<number> {
  const { name, rest } = splitCommand(argv);
  if (argv.includes('--version')) {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  if (name === null || name === 'help') {
    if (name === null && !argv.includes('--help') && !argv.includes('-h')) throw new UsageError('no command given');
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}"`);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const values = parsed.values as Record<string, unknown>;
  if (values.help) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  const context: CommandContext = {
    io,
    json: Boolean(values.json),
    options: values,
    args: parsed.positionals,
    runtime: { vault: values.vault as string | undefined, now: values.now as string | undefined, cwd: io.cwd, env: io.env },
  };
  return command.run(context);
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(nodePath.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}
