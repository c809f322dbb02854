import type { CliIO } from './command';
import { mainHelp as helpOf, runCommandLine } from './cli-core';
import { COMMANDS } from './commands';

export type { CliIO } from './command';
export { closest, commandHelp, EXIT_STATUS, GLOBAL_OPTIONS } from './cli-core';

/**
 * The `engram` command line with every command (headless/commands.ts); the parser, the help and
 * the exit status contract are headless/cli-core.ts.
 */

/** Run one command line; returns the exit status. Never throws. */
export function runCli(argv: string[], io: CliIO): Promise<number> {
  return runCommandLine(argv, io, COMMANDS);
}

/** `engram --help`: every command with its arguments and options, by group. */
export function mainHelp(): string {
  return helpOf(COMMANDS);
}
