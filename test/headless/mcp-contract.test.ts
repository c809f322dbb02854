import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildServer } from '../../headless/mcp/server';
import type { WarmVault } from '../../headless/mcp/warm-vault';

/**
 * The contract an agent host reads from `engram mcp`: the exact tools/list (every name, title,
 * description, input schema and hint), the resources and the resource templates, as the SDK's
 * Client receives them, against a checked-in file. A model chooses a tool and fills its arguments
 * from these words alone: a changed description IS a changed interface, and this test makes the
 * change a deliberate one.
 *
 * No vault is opened (as for docs/mcp-tools.md): listing the tools calls no handler, and listing
 * the resources asks only the engine for its ids (one here). The file holds no other test so
 * that a mutation run (`npm run mutate -- headless/mcp/tools.ts --tests
 * test/headless/mcp-contract.test.ts`) can test every mutant of the registrations against it in
 * seconds.
 */

const EXPECTED = path.join(__dirname, '..', 'fixtures', 'mcp-contract.json');
const UPDATE = 'ENGRAM_UPDATE_MCP_CONTRACT';
const HOW_TO_UPDATE =
  `The MCP contract (tools/list, resources/list, resources/templates/list as an agent host reads them) differs from test/fixtures/mcp-contract.json.\n` +
  `If headless/mcp/tools.ts was changed on purpose (a description reworded, an argument added), accept it with\n` +
  `  ${UPDATE}=1 TZ=UTC npx jest test/headless/mcp-contract.test.ts\n` +
  `then run \`npm run docs:cli\` (docs/mcp-tools.md) and commit both files with the change, saying why the contract changed.\n` +
  `If not, the diff below is what an agent would now read differently.`;

async function listed(): Promise<unknown> {
  // an engine of one memory: each memory is listed as a resource of the template
  const one = { engine: async () => ({ ids: () => ['mem-000000000001'] }) } as unknown as WarmVault;
  const server = buildServer(one, 'contract');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'engram-contract-test', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    return {
      instructions: client.getInstructions(),
      tools: (await client.listTools()).tools,
      resources: (await client.listResources()).resources,
      resourceTemplates: (await client.listResourceTemplates()).resourceTemplates,
    };
  } finally {
    await client.close();
    await server.close();
  }
}

describe('engram mcp: the contract an agent host reads (test/fixtures/mcp-contract.json)', () => {
  it('lists exactly the tools, descriptions, input schemas, hints, resources and templates of the checked-in file', async () => {
    const actual = await listed();
    if (process.env[UPDATE]) writeFileSync(EXPECTED, `${JSON.stringify(actual, null, 2)}\n`);
    expect(existsSync(EXPECTED)).toBe(true);
    const expected = JSON.parse(readFileSync(EXPECTED, 'utf8'));
    try {
      expect(actual).toEqual(expected);
    } catch (error) {
      (error as Error).message = `${HOW_TO_UPDATE}\n\n${(error as Error).message}`;
      throw error;
    }
  });
});
