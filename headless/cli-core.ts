import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EngramError, UsageError } from '../src/core/errors';
import { COMMAND_GROUPS, type CliIO, type Command, type CommandContext, type CommandGroup, type OptionSpec } from './command';
import { packageVersion } from './command-kit';
import { commandIndex } from './serve-protocol';

/**
 * The `engram` command line over a command table: global options, the help generated from the
 * table, and the exit status contract (0 success, 1 failure, 2 usage). headless/cli.ts runs it
 * over every command (headless/commands.ts); a bundle made for one command (headless/bundles.ts)
 * over that command alone, without loading the others' code.
 */

/** Commands by name, in the order `engram --help` lists them. */
export type CommandTable = Readonly<Record<string, Command>>;

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  vault: { type: 'string', value: 'DIR', help: 'the memory folder, or the Obsidian vault it is in (else $ENGRAM_VAULT, else the current folder if it holds .engram/)' },
  now: { type: 'string', value: 'ISO-8601', help: 'the clock for every computation and every timestamp written (exact replays)' },
  json: { type: 'boolean', help: 'machine output (JSON) on stdout' },
  help: { type: 'boolean', short: 'h', help: 'this help; `engram help COMMAND` for one command' },
  version: { type: 'boolean', help: "the runner's version" },
};

const GROUP_TITLES: Record<CommandGroup, string> = {
  setup: 'set up',
  write: 'write',
  read: 'read',
  use: 'use (reinforce what an agent used)',
  curate: 'curate',
  maintain: 'maintain',
  serve: 'serve agents',
};

export const EXIT_STATUS = `exit status:
  0  success
  1  failure: a memory, file or folder that is missing or unreadable (an import or batch
     file with bad lines included), a path outside the vault, a lock held by another run
  2  usage: unknown command or option, a missing or extra argument, a bad option value
  3  consolidate went through but skipped files it could not read or change (listed on stderr)`;

const DASH_NOTE = 'A text that starts with - goes after --:  engram remember -- "-5 °C broke the sensor"';

/** Run one command line with the commands of `table`; returns the exit status. Never throws. */
export async function runCommandLine(argv: string[], io: CliIO, table: CommandTable): Promise<number> {
  try {
    return await dispatch(argv, io, table);
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

/** The command (serve-protocol.ts commandIndex) and the rest of the line. */
function splitCommand(argv: string[]): { name: string | null; rest: string[] } {
  const at = commandIndex(argv);
  return at < 0 ? { name: null, rest: argv } : { name: argv[at]!, rest: [...argv.slice(0, at), ...argv.slice(at + 1)] };
}

async function dispatch(argv: string[], io: CliIO, table: CommandTable): Promise<number> {
  const { name, rest } = splitCommand(argv);
  const beforeDashes = argv.indexOf('--') === -1 ? argv : argv.slice(0, argv.indexOf('--'));
  if (beforeDashes.includes('--version')) {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  if (name === null) {
    if (!beforeDashes.includes('--help') && !beforeDashes.includes('-h')) throw new UsageError('no command given');
    io.stdout(`${mainHelp(table)}\n`);
    return 0;
  }
  if (name === 'help') {
    const wanted = parseArgs({ args: rest, options: toParseOptions(GLOBAL_OPTIONS), allowPositionals: true, strict: false }).positionals[0];
    if (!wanted) {
      io.stdout(`${mainHelp(table)}\n`);
      return 0;
    }
    const command = table[wanted];
    if (!command) throw unknownCommand(wanted, table);
    io.stdout(`${commandHelp(wanted, command)}\n`);
    return 0;
  }
  const command = table[name];
  if (!command) throw unknownCommand(name, table);
  const values = parseCommandLine(name, command, rest);
  if (values.values.help) {
    io.stdout(`${commandHelp(name, command)}\n`);
    return 0;
  }
  checkArity(name, command, values.positionals);
  const options = values.values;
  const context: CommandContext = {
    io,
    json: Boolean(options.json),
    options,
    args: values.positionals,
    name,
    runtime: { vault: options.vault as string | undefined, now: options.now as string | undefined, cwd: io.cwd, env: io.env },
  };
  return command.run(context);
}

function toParseOptions(specs: Record<string, OptionSpec>): NonNullable<ParseArgsConfig['options']> {
  const out: NonNullable<ParseArgsConfig['options']> = {};
  for (const [key, spec] of Object.entries(specs)) {
    out[key] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...(spec.short ? { short: spec.short } : {}) };
  }
  return out;
}

function parseCommandLine(name: string, command: Command, args: string[]): { values: Record<string, unknown>; positionals: string[] } {
  const specs = { ...GLOBAL_OPTIONS, ...command.options };
  try {
    const parsed = parseArgs({ args, options: toParseOptions(specs), allowPositionals: true, strict: true });
    return { values: parsed.values as Record<string, unknown>, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(`${name}: ${parseErrorMessage(error, name, command, specs, args)}`);
  }
}

/** node:util's parse errors, said for this CLI: which option, and what was probably meant. */
function parseErrorMessage(error: unknown, name: string, command: Command, specs: Record<string, OptionSpec>, args: string[]): string {
  const e = error as { code?: string; message?: string };
  const message = String(e.message ?? error);
  const option = /'(-[^'\s]*)/.exec(message)?.[1] ?? '';
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const bare = option.replace(/^-+/, '').split('=')[0]!;
    const text = args.find((a) => a.startsWith(option) && /\s/.test(a));
    if (command.takesText && (text || /^-\d/.test(option))) {
      return `unknown option ${JSON.stringify(text ?? option)}; a text that starts with - goes after --: engram ${name} -- ${JSON.stringify(text ?? `${option}...`)}`;
    }
    const suggestion = closest(bare, Object.keys(specs));
    return `unknown option ${option}${suggestion ? ` (did you mean --${suggestion}?)` : ''}`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const key = /--([\w-]+)/.exec(message)?.[1];
    const spec = key ? specs[key] : undefined;
    if (spec?.type === 'boolean') return `--${key} takes no value`;
    if (spec) return `--${key} needs a value${spec.value ? ` (${spec.value})` : ''}`;
  }
  return message.split('\n')[0]!;
}

function checkArity(name: string, command: Command, positionals: string[]): void {
  const [min, max] = command.arity ?? [0, 0];
  const usage = `engram ${name}${command.args ? ` ${command.args}` : ''}`;
  if (positionals.length < min) throw new UsageError(`${name}: missing argument: ${usage}`);
  if (positionals.length > max) {
    const extra = positionals.slice(max).map((p) => JSON.stringify(p)).join(' ');
    throw new UsageError(max === 0 ? `${name} takes no arguments, got ${extra}` : `${name}: too many arguments (${extra}): ${usage}`);
  }
}

function unknownCommand(name: string, table: CommandTable): UsageError {
  const suggestion = closest(name, Object.keys(table));
  return new UsageError(`unknown command "${name}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`);
}

/** The candidate nearest to a mistyped word (Damerau-Levenshtein, or a unique prefix), if any is near. */
export function closest(word: string, candidates: string[]): string | null {
  const lower = word.toLowerCase();
  if (lower.length === 0) return null;
  const prefixed = candidates.filter((c) => c.startsWith(lower));
  if (prefixed.length === 1 && lower.length >= 2) return prefixed[0]!;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(lower, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = lower.length <= 3 ? 1 : lower.length <= 6 ? 2 : 3;
  // and under a third of the longer word changed: "nosuch" is 2 edits from "touch", which is no typo of it
  return best !== null && bestDistance <= allowed && bestDistance * 3 < Math.max(lower.length, best.length) ? best : null;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

function optionLabel(key: string, spec: OptionSpec): string {
  const short = spec.short ? `-${spec.short}, ` : '';
  const value = spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : '';
  return `${short}--${key}${value}${spec.multiple ? ' (repeatable)' : ''}`;
}

function optionLines(specs: Record<string, OptionSpec>, indent: string, width: number): string[] {
  return Object.entries(specs).map(([key, spec]) => {
    const label = optionLabel(key, spec);
    return label.length < width ? `${indent}${label.padEnd(width)}${spec.help}` : `${indent}${label}\n${indent}${' '.repeat(width)}${spec.help}`;
  });
}

/** `engram --help`: every command of the table with its arguments and options, by group. */
export function mainHelp(table: CommandTable): string {
  const lines = [
    'engram: persistent memory for AI agents, in an Obsidian vault',
    '',
    'usage: engram [--vault DIR] [--now ISO-8601] [--json] COMMAND [ARGUMENTS] [OPTIONS]',
    '       engram help COMMAND    (or engram COMMAND --help): one command in detail',
    '',
    'global options:',
    ...optionLines(GLOBAL_OPTIONS, '  ', 18),
  ];
  for (const group of COMMAND_GROUPS) {
    const entries = Object.entries(table).filter(([, c]) => c.group === group);
    if (entries.length === 0) continue;
    lines.push('', `${GROUP_TITLES[group]}:`);
    for (const [name, command] of entries) {
      const head = `${name}${command.args ? ` ${command.args}` : ''}`;
      lines.push(head.length < 26 ? `  ${head.padEnd(26)}${command.summary}` : `  ${head}\n  ${' '.repeat(26)}${command.summary}`);
      lines.push(...optionLines(command.options, '      ', 28));
    }
  }
  lines.push('', DASH_NOTE, '', EXIT_STATUS, '', 'Messages go to stderr, results to stdout; nothing is interactive.');
  return lines.join('\n');
}

/** `engram help COMMAND`. */
export function commandHelp(name: string, command: Command): string {
  const lines = [`usage: engram ${name}${command.args ? ` ${command.args}` : ''}${Object.keys(command.options).length ? ' [OPTIONS]' : ''}`, '', command.summary];
  if (command.details) lines.push('', command.details);
  if (Object.keys(command.options).length > 0) lines.push('', 'options:', ...optionLines(command.options, '  ', 28));
  lines.push('', 'global options:', ...optionLines(GLOBAL_OPTIONS, '  ', 28));
  if (command.takesText) lines.push('', DASH_NOTE);
  lines.push('', EXIT_STATUS);
  return lines.join('\n');
}
