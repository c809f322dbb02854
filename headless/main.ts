import { runCli } from './cli';
import { runInProcess } from './process-cli';

/** The `engram` executable's CLI bundle (dist/engram-cli.js): every command, bound to the process's streams. */
runInProcess(runCli);
