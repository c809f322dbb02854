import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildServer } from '../../headless/mcp/server';
import type { WarmVault } from '../../headless/mcp/warm-vault';

/** What an MCP tool call answers: text items, and whether it is an error. */
export type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

/**
 * A test's two ways of calling a tool through the SDK client: `call` gives the raw result,
 * `data` the parsed JSON of its first item (an error result throws, naming the tool). The client
 * is read at each call, so a suite may connect it in beforeAll.
 */
export function toolCalls(client: () => Client) {
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client().callTool({ name, arguments: args })) as ToolResult;
  const data = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await call(name, args);
    if (result.isError) throw new Error(`${name}: ${result.content[0]!.text}`);
    return JSON.parse(result.content[0]!.text);
  };
  return { call, data };
}

/** A client connected in memory to `engram mcp`'s server over `warm` (the SDK's linked pair); `close` ends both sides. */
export async function connectInMemory(warm: WarmVault, name: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = buildServer(warm, 'test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
