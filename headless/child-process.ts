import type * as ChildProcess from 'node:child_process';

/**
 * node:child_process's execFileSync, loaded at its first call. Imported at the top of the git
 * modules, node:child_process (and node:net, node:dgram and the whole node:stream stack it
 * loads) was evaluated at the start of every command, ~6 % of a cold `touch`'s profile; the
 * commands that run git (consolidate, doctor, merge, init's git set-up) load it when they do.
 */
let loaded: typeof ChildProcess | undefined;

export const execFileSync: typeof ChildProcess.execFileSync = ((...args: Parameters<typeof ChildProcess.execFileSync>) => {
  loaded ??= require('node:child_process') as typeof ChildProcess;
  return loaded.execFileSync(...args);
}) as typeof ChildProcess.execFileSync;
