import { runCommandLine } from './cli-core';
import { runInProcess } from './process-cli';
import { touchCommand } from './use-commands';

/**
 * dist/engram-touch.js: `engram touch` alone (headless/bundles.ts), which an agent's hook runs
 * after each memory it used. The same command, parser and help as in the CLI bundle, a fifth of
 * its code to read and deserialise.
 */
runInProcess((argv, io) => runCommandLine(argv, io, { touch: touchCommand }));
