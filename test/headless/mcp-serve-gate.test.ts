import { WarmVault } from '../../headless/mcp/warm-vault';
import { engram, initVault } from '../helpers/cli';
import { connectInMemory } from '../helpers/mcp-tools';

// Every MCP tool and resource callback runs as one request of the warm vault (WarmVault.serve),
// so the background preload runs no slice while it is answered (445f6a4). StrykerJS: the
// registration could hand the SDK the original callback and the wrapper after it, and no test saw
// that the tools ran outside serve().
const NOW = '2026-11-10T10:00:00Z';

test('a tool call and a resource read each run inside WarmVault.serve, once', async () => {
  const { dir, vault, cleanup } = await initVault();
  const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
  const served: string[] = [];
  const serve = warm.serve.bind(warm);
  warm.serve = <T>(answer: () => Promise<T>) => {
    served.push(`serving ${served.length}`);
    return serve(answer);
  };
  const { client, close } = await connectInMemory(warm, 'engram-gate-test');
  try {
    const id = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The deploy window is Tuesday.'])).json().id as string;
    const stats = (await client.callTool({ name: 'stats', arguments: {} })) as { content: Array<{ text: string }>; isError?: boolean };
    expect([stats.isError ?? false, JSON.parse(stats.content[0]!.text).memories]).toEqual([false, 1]);
    const state = await client.readResource({ uri: 'engram://state' });
    const memory = await client.readResource({ uri: `engram://memory/${id}` });
    expect([state.contents.length, (memory.contents[0] as { text: string }).text.includes('The deploy window is Tuesday.')]).toEqual([1, true]);
    // listing tools and resources answers from the registrations: no request of the vault
    await client.listTools();
    expect(served).toEqual(['serving 0', 'serving 1', 'serving 2']);
  } finally {
    await close();
    warm.close();
    cleanup();
  }
});
