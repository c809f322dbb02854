import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildServer } from '../../headless/mcp/server';
import { WarmVault } from '../../headless/mcp/warm-vault';
import { initVault } from '../helpers/cli';
import { toolCalls } from '../helpers/mcp-tools';

/**
 * What each MCP tool documents about its answer and its records, stated with exact values, in
 * process (the SDK's Client linked to the server by its in-memory transport, the clock fixed):
 * the JSON text every tool answers, who a revert is recorded as, what the memory resource
 * answers, the consolidation lock's holder line, a tool without tags, and the ids forget checks
 * before it moves anything. mcp.test and mcp-effects cover the rest of the handlers.
 */

const NOW = '2026-11-10T10:00:00Z';

describe('engram mcp: what each tool answers and records (in process)', () => {
  let vault: string;
  let cleanup: () => void;
  let client: Client;
  let warm: WarmVault;
  let server: ReturnType<typeof buildServer>;

  beforeAll(async () => {
    ({ vault, cleanup } = await initVault());
    warm = new WarmVault({ vault, now: NOW, cwd: process.cwd(), env: {} });
    server = buildServer(warm, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'engram-handlers-test', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    warm.close();
    cleanup();
  });

  const { call, data } = toolCalls(() => client);
  const read = (rel: string) => readFileSync(path.join(vault, rel), 'utf8');

  it('answers one text item of JSON indented by one space (log: the daily file, its size, whether over the limit)', async () => {
    expect(await call('log', { text: 'Started the handlers test.' })).toEqual({
      content: [{ type: 'text', text: '{\n "path": "daily/2026-11-10.md",\n "bytes": 76,\n "over_limit": false\n}' }],
    });
  });

  it('remember without tags writes a memory with no tags (every other field its default)', async () => {
    const made = await data('remember', { text: 'The nightly backup runs at 02:00 UTC.', category: 'semantic' });
    expect(made).toEqual({ id: made.id, path: 'semantic/The nightly backup runs at 02 00 UTC.md', action: 'created' });
    expect(read(made.path)).toBe(
      `---\nid: ${made.id}\ncategory: semantic\ncreated_at: "${NOW}"\nlast_accessed_at: "${NOW}"\nconfidence: observed\ntags: []\nhalf_life_days: 30\n` +
        `access_count: 0\nis_error: false\ntier: active\nco_access: {}\nrelated_paths: []\namplitude: 1\nactivation: 0\nactivation_at: "${NOW}"\n` +
        `content_hash: "18f3c8b66438009d"\naliases: ["The nightly backup runs at 02:00 UTC"]\n---\nThe nightly backup runs at 02:00 UTC.\n`,
    );
  });

  it('revert restores version N as a new version recorded as by mcp, "revert to N"', async () => {
    const made = await data('remember', { text: 'The staging database is reset every Sunday.' });
    await data('edit', { id: made.id, text: 'The staging database is reset every Saturday.', reason: 'moved' });
    expect(await data('revert', { id: made.id, version: 1 })).toEqual({ id: made.id, path: made.path, version: 3, changed: true, reverted_to: 1, dropped_links: [] });
    expect((await data('history', { id: made.id })).map((v: { n: number; reason: string; by: string | null }) => [v.n, v.reason, v.by])).toEqual([
      [1, 'created', null],
      [2, 'moved', 'mcp'],
      [3, 'revert to 1', 'mcp'],
    ]);
    expect(read(made.path).endsWith('---\nThe staging database is reset every Sunday.\n')).toBe(true);
  });

  it('the memory resource is the file as it is, as markdown, at the URI asked', async () => {
    const made = await data('remember', { text: 'The office plants are watered on Fridays.' });
    const uri = `engram://memory/${made.id}`;
    expect((await client.readResource({ uri })).contents).toEqual([{ uri, mimeType: 'text/markdown', text: read(made.path) }]);
    // an id checked before the vault is asked: the resource's own message, as forget's
    await expect(client.readResource({ uri: 'engram://memory/nope' })).rejects.toThrow(/: not a memory id: "nope"$/);
  });

  it('forget checks every id before it moves anything: a bad id after a good one leaves the good one in place', async () => {
    const made = await data('remember', { text: 'The coffee machine is descaled monthly.' });
    const result = await call('forget', { ids: [made.id, 'nope'] });
    expect([result.isError, result.content[0]!.text]).toEqual([true, 'not a memory id: "nope"']);
    expect([existsSync(path.join(vault, made.path)), existsSync(path.join(vault, '.engram', 'forgotten', made.path))]).toEqual([true, false]);
    const both = await call('forget', { ids: [made.id], undo: true, purge: true });
    expect([both.isError, both.content[0]!.text]).toEqual([true, 'forget: undo or purge, not both']);
    expect(existsSync(path.join(vault, made.path))).toBe(true);
  });

  it("consolidate holds the vault's consolidation lock as \"engram mcp started <ISO time>\", a dry run unless apply", async () => {
    const { vault: opened } = warm.runtime();
    const tryLock = jest.spyOn(opened.ports.locks, 'tryLock');
    try {
      const plan = await data('consolidate', {});
      const run = await data('consolidate', { apply: true });
      expect([plan.dry_run, run.dry_run]).toEqual([true, false]);
      const holders = tryLock.mock.calls.filter(([name]) => name === 'consolidate').map(([, holder]) => holder);
      expect(holders).toHaveLength(2);
      for (const holder of holders) expect(holder).toMatch(/^engram mcp started \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      tryLock.mockRestore();
    }
  });
});
