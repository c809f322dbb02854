import * as nodePath from 'node:path';
import { UsageError } from '../src/core/errors';
import type { Command } from './command';
import { buildStamp, SERVED_COMMANDS } from './serve-protocol';

/** `engram serve`: its module (node:net, the warm vault) loads only when this command runs. */
export const SERVE_COMMANDS: Record<string, Command> = {
  serve: {
    group: 'serve',
    summary: `keep the vault warm for ${[...SERVED_COMMANDS].join(', ')} at the command line`,
    details:
      'Listens on .engram/serve.sock (a named pipe on Windows) until stopped (Ctrl-C, SIGTERM) or idle for\n' +
      `--idle minutes. While it runs, \`engram ${[...SERVED_COMMANDS].join('`, `')}\` on this vault are answered by it:\n` +
      'the same output and exit status as in their own process, without reading the vault again (it follows\n' +
      'changes on disk with a watch on each memory folder, as engram mcp does). Any other command, another vault,\n' +
      'another build of engram, or ENGRAM_NO_SERVE=1 in the environment: the command runs in its own process.',
    options: {
      idle: { type: 'string', value: 'MINUTES', help: 'stop after this long without a request (default: never)' },
    },
    async run(context) {
      const idle = context.options.idle as string | undefined;
      const minutes = idle === undefined ? null : Number(idle);
      if (minutes !== null && !(Number.isFinite(minutes) && minutes > 0)) throw new UsageError(`--idle: expected minutes (a number above 0), got ${JSON.stringify(idle)}`);
      const log = (message: string) => context.io.stderr(`engram serve: ${message}\n`);
      const { CliServer } = await import('./serve');
      const server = new CliServer({ runtime: context.runtime, build: buildStamp(nodePath.join(__dirname, 'engram-cli.js')), idleMs: minutes === null ? null : minutes * 60_000, log });
      await server.start();
      log(`serving ${server.root} on ${server.socket}`);
      const stop = () => void server.close();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await server.stopped();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      log(`stopped: ${server.counts.served} ${server.counts.served === 1 ? 'command' : 'commands'} answered, ${server.counts.fallback} sent back`);
      return 0;
    },
  },
};
