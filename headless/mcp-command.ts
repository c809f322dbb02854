import { UsageError } from '../src/core/errors';
import type { Command } from './command';
import { packageVersion } from './command-kit';
import { openVault } from './runtime';

/**
 * `engram mcp`: the MCP server. Its module (and the SDK) load only when this command runs, so
 * the other commands do not pay for them at start-up.
 */
export const MCP_COMMANDS: Record<string, Command> = {
  mcp: {
    group: 'serve',
    summary: 'an MCP server for agents (stdio; --http for Streamable HTTP)',
    details:
      'Tools: recall, context, remember, touch, cite, show, list, mark, forget, edit, history, revert, log,\n' +
      'creative, stats, consolidate (a dry run unless apply). Resources: engram://state (STATE.md) and\n' +
      'engram://memory/{id}. One process keeps the recall engine warm and sees changes made on disk by\n' +
      'Obsidian, cron or other agents. Over stdio it serves until standard input closes. --http listens\n' +
      'on 127.0.0.1 (POST /mcp); any other address needs a token, and a token, when set, is required\n' +
      'from every client (Authorization: Bearer T).',
    options: {
      http: { type: 'boolean', help: 'Streamable HTTP instead of stdio' },
      host: { type: 'string', value: 'ADDRESS', help: 'address to listen on (127.0.0.1)' },
      port: { type: 'string', value: 'N', help: 'port to listen on (7337; 0 picks a free one)' },
      token: { type: 'string', value: 'T', help: 'bearer token clients must send (else $ENGRAM_MCP_TOKEN)' },
    },
    async run(context) {
      const o = context.options;
      const log = (message: string) => context.io.stderr(`engram mcp: ${message}\n`);
      openVault(context.runtime); // a vault that cannot be opened is an error now (exit 1), not a dead server
      const { serveStdio, serveHttp } = await import('./mcp/server');
      const version = packageVersion();
      if (!o.http) {
        for (const key of ['host', 'port', 'token']) if (o[key] !== undefined) throw new UsageError(`mcp: --${key} goes with --http`);
        // the protocol streams on process.stdout: a client that went away (EPIPE) ends the
        // server quietly, as every command's output did when main.ts made that stream for all
        process.stdout.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'EPIPE') process.exit(0);
          throw error;
        });
        await serveStdio({ runtime: context.runtime, version, log });
        return 0;
      }
      const port = o.port === undefined ? 7337 : Number(o.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: expected a port number (0-65535), got ${JSON.stringify(o.port)}`);
      const token = (o.token as string | undefined) ?? context.io.env.ENGRAM_MCP_TOKEN ?? null;
      const http = await serveHttp({ runtime: context.runtime, version, log, host: (o.host as string | undefined) ?? '127.0.0.1', port, token: token || null });
      const address = http.address();
      const where = typeof address === 'object' && address ? `${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}` : String(address);
      log(`listening on http://${where}/mcp${token ? ' (bearer token required)' : ''}`);
      await new Promise<void>((resolve) => {
        const stop = () => http.close(() => resolve());
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      return 0;
    },
  },
};
