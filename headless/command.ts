/**
 * The shape of a runner command. Every command of `engram` is one entry of the command table
 * (headless/commands.ts): its arguments, its options with their help, and what it runs. The
 * parser, `engram --help` and `engram help COMMAND` are all generated from that table, so the
 * help never drifts from what the parser accepts.
 */
import type { RecallEngine } from '../src/core/recall/recall';
import type { RuntimeOptions } from './runtime';

/** Standard streams, injected so tests run the CLI in-process. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => string;
  stdinIsTTY: boolean;
  /** Whether standard output is a terminal (tables and colours for people, JSON for pipes). */
  stdoutIsTTY?: boolean;
  cwd: string;
  env: Record<string, string | undefined>;
  /** A recall engine held warm by `engram serve` (headless/serve.ts); absent in a command's own process. */
  warm?: WarmRecall;
}

/** What `engram serve` lends the commands it runs: the vault's recall engine, kept current by a watch. */
export interface WarmRecall {
  /** The engine over the vault at `root` as it is now, and how many memory files it could not read; null for another vault. */
  engine(root: string): Promise<{ engine: RecallEngine; unreadable: number } | null>;
  /** Vector seeds for the queries, from the warm embedder and vectors (undefined: lexical only). */
  vectorSeeds(queries: string[]): Promise<Array<Map<string, number> | undefined>>;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** The option may be given several times (its value is then a list). */
  multiple?: boolean;
  short?: string;
  /** The value's placeholder in the help: `N`, `a,b`, `episodic|semantic|decision`. */
  value?: string;
  /** One line: what the option does, and its default. */
  help: string;
}

export interface CommandContext {
  io: CliIO;
  json: boolean;
  options: Record<string, unknown>;
  args: string[];
  runtime: RuntimeOptions;
  /** The command's name as typed (for messages). */
  name: string;
}

/** Where a command is listed in `engram --help`. */
export const COMMAND_GROUPS = ['setup', 'write', 'read', 'use', 'curate', 'maintain', 'serve'] as const;
export type CommandGroup = (typeof COMMAND_GROUPS)[number];

export interface Command {
  group: CommandGroup;
  /** The positional arguments as the usage line shows them: `QUERY`, `[TEXT | -]`, `ID ...`. */
  args?: string;
  /** How many positional arguments it takes: [min, max]; max Infinity for a list. Default [0, 0]. */
  arity?: [number, number];
  /** One line for the command list. */
  summary: string;
  /** More for `engram help COMMAND`: behaviour, defaults, the JSON it prints. */
  details?: string;
  options: Record<string, OptionSpec>;
  /** The text argument may start with `-`: the help says to put it after `--`. */
  takesText?: boolean;
  run(context: CommandContext): Promise<number>;
}
