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
export const COMMAND_BUNDLES: Readonly<Record<string, string>> = { touch: 'engram-touch.js' };

/** The file name of the bundle that runs this command line. */
export function bundleFor(argv: readonly string[]): string {
  const at = commandIndex(argv);
  const name = at < 0 ? '' : argv[at]!;
  return Object.hasOwn(COMMAND_BUNDLES, name) ? COMMAND_BUNDLES[name]! : CLI_BUNDLE;
}
