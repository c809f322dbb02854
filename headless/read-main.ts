import { runCommandLine } from './cli-core';
import { runInProcess } from './process-cli';
import { contextCommand, recallCommand } from './read-commands';

/**
 * dist/engram-read.js: `engram recall` and `engram context` alone (headless/bundles.ts), which an
 * agent's hooks run cold before each prompt. The same commands, parser and help as in the CLI
 * bundle, without the code of every other command to read and deserialise.
 */
runInProcess((argv, io) => runCommandLine(argv, io, { recall: recallCommand, context: contextCommand }));
