import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

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
