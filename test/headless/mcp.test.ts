import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildServer } from '../../headless/mcp/server';
import { WarmVault } from '../../headless/mcp/warm-vault';
import { engram, initVault, tempDir } from '../helpers/cli';
import { toolCalls, type ToolResult } from '../helpers/mcp-tools';

/** Under Stryker only the first block runs, in process: the others drive the built process itself. */
const processOnly = process.env.ENGRAM_STRYKER ? describe.skip : describe;

const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const NOW = '2026-11-10T10:00:00Z';


describe('engram mcp (the official SDK client over stdio and HTTP)', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  let client: Client;
  let stderr: string;
  let server: ReturnType<typeof buildServer> | undefined;
  let warm: WarmVault | undefined;

  beforeAll(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
    client = new Client({ name: 'engram-test', version: '1.0.0' });
    if (process.env.ENGRAM_STRYKER) {
      // under Stryker (jest.stryker.cjs) the same server in this process, linked by the SDK's
      // in-memory transport, so that the tests meet the mutants of headless/mcp
      warm = new WarmVault({ vault, now: NOW, cwd: process.cwd(), env: {} });
      server = buildServer(warm, 'test');
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      await client.connect(clientSide);
      return;
    }
    const transport = new StdioClientTransport({ command: process.execPath, args: [ENGRAM, '--vault', vault, '--now', NOW, 'mcp'], stderr: 'pipe' });
    stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await server?.close();
    warm?.close();
    cleanup();
  });

  const { call, data } = toolCalls(() => client);
  const read = (rel: string) => readFileSync(path.join(vault, rel), 'utf8');

  it('lists its tools, each with a description and an input schema, and its resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['cite', 'consolidate', 'context', 'creative', 'edit', 'forget', 'history', 'list', 'log', 'mark', 'recall', 'remember', 'revert', 'show', 'stats', 'touch']);
    for (const tool of tools) expect([tool.name, (tool.description ?? '').length > 40, tool.inputSchema.type]).toEqual([tool.name, true, 'object']);
    const recall = tools.find((t) => t.name === 'recall')!;
    expect(recall.inputSchema.required).toEqual(['query']);
    expect(Object.keys(recall.inputSchema.properties ?? {}).sort()).toEqual(['explain', 'limit', 'query', 'radius', 'touch']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['engram://memory/{id}']);
  });

  it('calls every tool: remember, recall, touch, cite, show, list, mark, edit, history, revert, log, creative, stats, context, consolidate, forget', async () => {
    const a = await data('remember', { text: 'Integration tests must use Testcontainers with a real PostgreSQL.', category: 'decision', tags: ['testing'], confidence: 'verified' });
    expect(a).toEqual({ id: a.id, path: 'decisions/Integration tests must use Testcontainers with a real.md', action: 'created' });
    const b = await data('remember', { text: 'The flaky auth test timed out on CI because the timeout is 2 s.', is_error: true, related_paths: ['src/auth/session.ts'], agent_role: 'reviewer' });
    expect(read(b.path)).toContain('related_paths: ["src/auth/session.ts"]\n');
    expect((await data('remember', { text: 'Integration tests must use Testcontainers with a real PostgreSQL!', category: 'decision' })).action).toBe('reinforced');

    const recalled = await data('recall', { query: 'how do integration tests reach the database' });
    expect(recalled[0]).toMatchObject({ id: a.id, category: 'decision', confidence: 'verified', text: 'Integration tests must use Testcontainers with a real PostgreSQL.' });
    expect(read(a.path)).toContain('access_count: 1\n'); // the reinforcement; plain recall writes nothing

    const touched = await data('touch', { ids: [a.id, b.id] });
    expect(touched.map((t: { id: string; access_count: number }) => [t.id, t.access_count])).toEqual([[a.id, 2], [b.id, 1]]);
    // the citation boost (1.5) on top of what the touches gave (the clock is fixed: no decay)
    const activation = (await data('show', { id: a.id })).activation;
    expect((await data('cite', { ids: [a.id] }))[0].activation).toBe(activation + 1.5);
    expect(await data('show', { id: a.id })).toMatchObject({ id: a.id, access_count: 2, co_access: { [b.id]: 1 }, tier_now: 'active' });

    const listed = await data('list', { category: 'episodic' });
    expect([listed.total, listed.memories[0].id]).toEqual([1, b.id]);
    expect((await data('mark', { ids: [b.id], confidence: 'stale' }))[0]).toMatchObject({ confidence_before: 'observed', confidence: 'stale' });

    expect(await data('edit', { id: b.id, text: 'The flaky auth test timed out on CI because the timeout was 2 s; it is 10 s now.', reason: 'fixed' })).toEqual({ id: b.id, path: b.path, version: 2, changed: true });
    const history = await data('history', { id: b.id });
    expect(history.map((v: { n: number; reason: string; by: string | null }) => [v.n, v.reason, v.by])).toEqual([[1, 'created', null], [2, 'fixed', 'mcp']]);
    expect((await data('revert', { id: b.id, version: 1 })).version).toBe(3);
    expect(read(b.path).endsWith('---\nThe flaky auth test timed out on CI because the timeout is 2 s.\n')).toBe(true);

    expect(await data('log', { text: 'Reviewed the auth PR.' })).toEqual({ path: 'daily/2026-11-10.md', bytes: 71, over_limit: false });
    expect((await data('creative', { n: 1 })).length).toBe(1);
    expect(await data('stats')).toMatchObject({ memories: 2, by_category: { episodic: 1, semantic: 0, decision: 1 } });

    const context = await call('context', { query: 'integration tests database', peek: true });
    expect(context.content[0]!.text).toContain('AGENT MEMORY');
    expect(context.content[0]!.text).toContain('Integration tests must use Testcontainers with a real PostgreSQL.');
    expect(JSON.parse(context.content[1]!.text).included).toEqual([a.id]);

    const before = read(a.path);
    const plan = await data('consolidate');
    expect([plan.dry_run, plan.steps.map((s: { step: string }) => s.step)]).toEqual([true, ['prune', 'git', 'embed', 'cluster', 'strengthen', 'conflicts', 'tiers']]);
    expect(read(a.path)).toBe(before);

    expect(await data('forget', { ids: [b.id] })).toEqual([{ id: b.id, from: b.path, to: `.engram/forgotten/${b.path}` }]);
    expect((await data('recall', { query: 'flaky auth test timeout', radius: 'all' })).map((r: { id: string }) => r.id)).not.toContain(b.id);
    await data('forget', { ids: [b.id], undo: true });
    expect((await data('recall', { query: 'flaky auth test timeout' })).map((r: { id: string }) => r.id)).toContain(b.id);

    const resource = await client.readResource({ uri: `engram://memory/${a.id}` });
    expect((resource.contents[0] as { text: string }).text).toBe(read(a.path));
    const state = await client.readResource({ uri: 'engram://state' });
    expect((state.contents[0] as { text: string }).text).toBe(read('STATE.md'));
  });

  it('answers bad arguments with a tool error that says what was wrong, and keeps serving', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['recall', {}, /Invalid arguments for tool recall: .*query/s],
      ['recall', { query: 'x', radius: 'far' }, /Invalid arguments for tool recall: .*radius/s],
      ['show', { id: 'nope' }, /^not a memory id: "nope" \(expected mem- and 12 lowercase letters or digits\)$/],
      ['show', { id: 'mem-000000000000' }, /^no memory with id mem-000000000000$/],
      ['touch', { ids: [] }, /Invalid arguments for tool touch/],
      ['history', { id: (await data('list', {})).memories[0].id, version: 99 }, /has versions 1 to \d+, not 99$/],
      ['edit', { id: 'mem-000000000000', text: 'x' }, /^no memory with id mem-000000000000$/],
      ['list', { since: 'last week' }, /^since: expected a date/],
      ['forget', { ids: ['mem-000000000000'], undo: true, purge: true }, /^forget: undo or purge, not both$/],
      // the same rule and message as the CLI's --limit, --budget (src/core/arguments.ts)
      ['recall', { query: 'x', limit: 0 }, /^limit: expected a whole number from 1 to 100, got 0$/],
      ['recall', { query: 'x', limit: 2.5 }, /^limit: expected a whole number from 1 to 100, got 2.5$/],
      ['context', { budget: 10 }, /^budget: expected a whole number from 50 to 100000, got 10$/],
      ['list', { limit: 0 }, /^limit: expected a whole number from 1 to 100000, got 0$/],
      ['creative', { n: 51 }, /^n: expected a whole number from 1 to 50, got 51$/],
      ['no-such-tool', {}, /Tool no-such-tool not found/],
    ];
    for (const [name, args, message] of cases) {
      const result = await call(name, args);
      expect([name, result.isError, message.test(result.content[0]!.text)]).toEqual([name, true, true]);
    }
    expect((await data('stats')).memories).toBe(2);
  });

  it('sees memories changed on disk between two calls (another process, a person saving in place, a delete)', async () => {
    expect(await data('recall', { query: 'zeppelin hangar' })).toEqual([]);
    const other = await engram(vault, ['--json', '--now', NOW, 'remember', 'The zeppelin hangar door sticks in cold weather.']);
    const { id, path: rel } = other.json();
    expect((await data('recall', { query: 'zeppelin hangar' })).map((r: { id: string }) => r.id)).toEqual([id]);
    // Obsidian saves in place: same file, new text
    writeFileSync(path.join(vault, rel), read(rel).replace('The zeppelin hangar door sticks in cold weather.', 'The airship hangar door was fixed in March.'));
    expect(await data('recall', { query: 'zeppelin' })).toEqual([]);
    expect((await data('recall', { query: 'airship hangar door' }))[0]).toMatchObject({ id, text: 'The airship hangar door was fixed in March.' });
    await engram(vault, ['forget', '--purge', id]);
    expect(await data('recall', { query: 'airship hangar door' })).toEqual([]);
  });

  it('sees a file replaced with a text of the same size and modification time (a copy keeping times, doctor --fix)', async () => {
    const made = await engram(vault, ['--json', '--now', NOW, 'remember', 'The blimp mooring mast is painted red.']);
    const { id, path: rel } = made.json();
    const file = path.join(vault, rel);
    expect((await data('recall', { query: 'blimp mooring mast' })).map((r: { id: string; text: string }) => [r.id, r.text])).toEqual([[id, 'The blimp mooring mast is painted red.']]);
    const { mtime, size } = statSync(file);
    const replaced = read(rel).replace('is painted red.', 'is painted tan.');
    expect(Buffer.byteLength(replaced)).toBe(size);
    writeFileSync(`${file}.new`, replaced);
    utimesSync(`${file}.new`, mtime, mtime);
    renameSync(`${file}.new`, file);
    expect([statSync(file).size, Math.round(statSync(file).mtimeMs)]).toEqual([size, mtime.getTime()]);
    expect((await data('recall', { query: 'blimp mooring mast' })).map((r: { id: string; text: string }) => [r.id, r.text])).toEqual([[id, 'The blimp mooring mast is painted tan.']]);
  });

  it('takes remember\'s tags as a list or as the CLI\'s "a,b"; list\'s memories are the elements of engram --json list', async () => {
    const queued = await data('remember', { text: 'The jobs queue retries three times.', tags: ' queue, jobs,' });
    expect(read(queued.path)).toContain('tags: ["queue", "jobs"]\n');
    const listed = await data('list', {});
    const cli = (await engram(vault, ['--json', '--now', NOW, 'list'])).json();
    expect(listed).toEqual({ total: cli.length, memories: cli });
    expect((await data('list', { limit: 1 })).memories).toEqual(cli.slice(0, 1));
    await engram(vault, ['forget', '--purge', queued.id]);
  });

  it('remember with supersedes: the correction is linked, the old fact is superseded and no longer injected', async () => {
    const old = await data('remember', { text: 'The build cache lives in the S3 bucket ci-cache-eu for 14 days.', category: 'semantic' });
    const fixed = await data('remember', { text: 'The build cache lives in the S3 bucket ci-cache-eu for 30 days since November.', category: 'semantic', supersedes: old.id });
    expect(fixed).toEqual({ id: fixed.id, path: 'semantic/The build cache lives in the S3 bucket ci-cache-eu for 30.md', action: 'created', superseded: old.id, supersedes: [old.id] });
    expect(old.path).toBe('semantic/The build cache lives in the S3 bucket ci-cache-eu for 14.md');
    expect(read(fixed.path)).toContain('[[The build cache lives in the S3 bucket ci-cache-eu for 14|supersedes]]');
    expect(read(fixed.path)).toContain(`\nlink_ids: ["supersedes ${old.id}"]\n`);
    expect((await data('show', { id: old.id })).confidence).toBe('observed');
    expect(read(old.path)).toContain(`\nsuperseded_by: ${fixed.id}\n`);
    const context = await call('context', { query: 'how long does the build cache last', peek: true });
    expect(JSON.parse(context.content[1]!.text).included).toEqual([fixed.id]);
    const bad = await call('remember', { text: 'x', supersedes: 'mem-000000000000' });
    expect([bad.isError, bad.content[0]!.text]).toEqual([true, 'no memory with id mem-000000000000']);
  });

  it("passes every list filter, sort and reverse to the same listing as the CLI; recall's explain, one version of history, purge, and the ids it refuses", async () => {
    const one = await data('remember', { text: 'Zzlist one: the parser rejects tab characters in keys.', category: 'semantic', tags: ['zzlist'], confidence: 'verified', agent_role: 'planner' });
    const two = await data('remember', { text: 'Zzlist two: the lexer keeps comments beside their tokens.', category: 'episodic', tags: ['zzlist'], confidence: 'inferred' });
    const three = await data('remember', { text: 'Zzlist three: the formatter wraps lines at one hundred columns.', category: 'decision', tags: ['zzlist', 'zzextra'] });
    const ids = async (args: Record<string, unknown>) => (await data('list', { tags: ['zzlist'], ...args })).memories.map((m: { id: string }) => m.id);
    const all = [one.id, two.id, three.id];
    expect(await ids({ sort: 'id' })).toEqual([...all].sort());
    expect(await ids({ sort: 'id', reverse: true })).toEqual([...all].sort().reverse());
    expect(await ids({ sort: 'id', limit: 1 })).toEqual([[...all].sort()[0]]);
    expect((await data('list', { tags: ['zzlist'], limit: 1 })).total).toBe(3);
    expect(await ids({ tags: ['zzlist', 'zzextra'] })).toEqual([three.id]);
    expect(await ids({ category: 'episodic' })).toEqual([two.id]);
    expect(await ids({ confidence: 'verified' })).toEqual([one.id]);
    expect(await ids({ role: 'planner' })).toEqual([one.id]);
    expect(await ids({ tier: 'active', sort: 'id' })).toEqual([...all].sort());
    expect(await ids({ tier: 'cold' })).toEqual([]);
    expect(await ids({ since: '2026-11-10', until: '2026-11-10T23:59:59Z', sort: 'id' })).toEqual([...all].sort());
    expect(await ids({ until: '2026-11-09' })).toEqual([]);
    expect(await ids({ since: '2026-11-11' })).toEqual([]);
    expect(await ids({ accessed_since: '2026-11-11' })).toEqual([]);
    expect(await ids({ accessed_until: '2026-11-09' })).toEqual([]);
    expect(await ids({ accessed_since: '1d', sort: 'id' })).toEqual([...all].sort());
    expect(await ids({ in_conflict: true })).toEqual([]);

    // a sort other than the default (created, then id): the most used first
    const byId = [...all].sort();
    await data('touch', { ids: [byId[2]] });
    expect(await ids({ sort: 'access_count' })).toEqual([byId[2], byId[0], byId[1]]);
    expect(await ids({})).toEqual([...all].sort());

    const explained = await data('recall', { query: 'parser rejects tab characters', explain: true, limit: 1 });
    expect(Object.keys(explained).sort()).toEqual(['results', 'widening']);
    expect([explained.results.length, explained.results[0].id, typeof explained.results[0].explain]).toEqual([1, one.id, 'object']);
    expect((await data('recall', { query: 'parser rejects tab characters', limit: 1 }))[0].explain).toBeUndefined();

    await data('edit', { id: two.id, text: 'Zzlist two: the lexer keeps comments and blank lines beside their tokens.' });
    expect(await data('history', { id: two.id, version: 1 })).toMatchObject({ n: 1, reason: 'created' });
    expect(await data('history', { id: two.id, version: 2 })).toMatchObject({ n: 2, reason: 'edit', by: 'mcp' });

    const purged = await data('forget', { ids: [three.id], purge: true });
    expect(purged).toHaveLength(1);
    expect(await ids({})).not.toContain(three.id);
    expect(await ids({ forgotten: true })).toEqual([]);
    await data('forget', { ids: [two.id] });
    expect(await ids({ forgotten: true })).toEqual([two.id]);

    const usesBefore = (await data('show', { id: one.id })).access_count;
    for (const [name, args, message] of [
      ['forget', { ids: ['nope'] }, 'not a memory id: "nope"'],
      ['touch', { ids: ['mem-000000000000'] }, 'no memory with id mem-000000000000'],
      ['touch', { ids: [one.id, 'MEM-1'] }, 'not a memory id: "MEM-1" (expected mem- and 12 lowercase letters or digits)'],
      ['history', { id: one.id, version: 0 }, 'version: expected a whole number of at least 1, got 0'],
      ['revert', { id: one.id, version: 2.5 }, 'version: expected a whole number of at least 1, got 2.5'],
      ['list', { until: 'soon' }, 'until: expected a date (2026-11-01), a date-time (2026-11-01T10:00:00Z) or days ago (7d), got "soon"'],
      ['list', { accessed_since: 'x' }, 'accessed_since: expected a date (2026-11-01), a date-time (2026-11-01T10:00:00Z) or days ago (7d), got "x"'],
      ['list', { accessed_until: 'y' }, 'accessed_until: expected a date (2026-11-01), a date-time (2026-11-01T10:00:00Z) or days ago (7d), got "y"'],
    ] as Array<[string, Record<string, unknown>, string]>) {
      const result = await call(name, args);
      expect([name, result.isError, result.content[0]!.text]).toEqual([name, true, message]);
    }
    // touching nothing wrong first: the memory named before a bad id is not touched
    expect((await data('show', { id: one.id })).access_count).toBe(usesBefore);
    await expect(client.readResource({ uri: 'engram://memory/nope' })).rejects.toThrow(/not a memory id: "nope"/);
    await expect(client.readResource({ uri: 'engram://memory/mem-000000000000' })).rejects.toThrow(/no memory with id mem-000000000000/);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['engram://state', `engram://memory/${one.id}`]));
  });

  it("context's text is STATE.md trimmed, a blank line, then the block (the block alone when STATE.md is blank); its figures and budget are the CLI's", async () => {
    const state = path.join(vault, 'STATE.md');
    const kept = readFileSync(state, 'utf8');
    const made = await data('remember', { text: 'The importer reads CSV files in batches of 500 rows.', category: 'semantic' });
    try {
      writeFileSync(state, '\n  # Now\nShipping the importer.\n\n');
      const cli = (await engram(vault, ['--json', '--now', NOW, 'context', 'importer CSV batches'])).json();
      expect(cli.included).toContain(made.id);
      const figures = (c: { tokens: number; included: string[]; omitted: string[]; disputed: unknown }) => JSON.stringify({ tokens: c.tokens, included: c.included, omitted: c.omitted, disputed: c.disputed });
      expect((await call('context', { query: '  importer CSV batches ' })).content).toEqual([
        { type: 'text', text: `# Now\nShipping the importer.\n\n${cli.block}` },
        { type: 'text', text: figures(cli) },
      ]);
      // the budget given, or the configured one (2000)
      const small = (await engram(vault, ['--json', '--now', NOW, 'context', '--budget', '50'])).json();
      const whole = (await engram(vault, ['--json', '--now', NOW, 'context'])).json();
      expect(small.tokens).toBeLessThan(whole.tokens);
      writeFileSync(state, ' \n\t\n');
      expect((await call('context', { budget: 50 })).content.map((c) => c.text)).toEqual([small.block, figures(small)]);
      expect((await call('context', {})).content.map((c) => c.text)).toEqual([whole.block, figures(whole)]);
      expect((await call('context', { query: '   ' })).content.map((c) => c.text)).toEqual([whole.block, figures(whole)]);
      // the state resource is the file as it is, and empty when there is none
      expect((await client.readResource({ uri: 'engram://state' })).contents).toEqual([{ uri: 'engram://state', mimeType: 'text/markdown', text: ' \n\t\n' }]);
      rmSync(state);
      expect((await client.readResource({ uri: 'engram://state' })).contents).toEqual([{ uri: 'engram://state', mimeType: 'text/markdown', text: '' }]);
    } finally {
      writeFileSync(state, kept);
      await engram(vault, ['forget', '--purge', made.id]);
    }
  });
});

processOnly('engram mcp survives malformed input (raw JSON-RPC over stdio)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(() => ({ dir, cleanup } = tempDir()));
  afterAll(() => cleanup());

  it('answers a line that is not JSON-RPC with a parse error and goes on serving', async () => {
    const vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
    const child = spawn(process.execPath, [ENGRAM, '--vault', vault, 'mcp']) as ChildProcessWithoutNullStreams;
    const replies: unknown[] = [];
    let buffer = '';
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        replies.push(JSON.parse(buffer.slice(0, i)));
        buffer = buffer.slice(i + 1);
      }
    });
    const send = (line: string) => child.stdin.write(`${line}\n`);
    const until = async (n: number) => {
      for (let t = 0; replies.length < n && t < 500; t++) await new Promise((r) => setTimeout(r, 10));
    };
    send('this is not json');
    send('{"jsonrpc": "2.0", "method": 42}');
    send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
    await until(3);
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'stats', arguments: {} } }));
    await until(4);
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(replies.slice(0, 2)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: method: expected a string, got 42' } },
    ]);
    expect(replies[2]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'engram' } } });
    expect(replies[3]).toMatchObject({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text' }] } });
    expect(code).toBe(0);
  });
});

/** A raw JSON-RPC session with `engram mcp` over stdio: lines written as given, replies parsed as they come. */
function rawSession(vault: string) {
  const child = spawn(process.execPath, [ENGRAM, '--vault', vault, '--now', NOW, 'mcp']) as ChildProcessWithoutNullStreams;
  const replies: Array<{ id: unknown; result?: any; error?: { code: number; message: string } }> = [];
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      replies.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const send = (message: unknown) => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const call = (id: unknown, name: string, args: Record<string, unknown>) => send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  /** End stdin; resolves with the exit code and every reply but initialize's. */
  const end = async () => {
    child.stdin.end();
    const code = await closed;
    return { code, replies: replies.filter((r) => r.id !== 'init') };
  };
  return { child, send, call, end };
}

processOnly('engram mcp keeps serving one client whatever a line holds, and answers all it read', () => {
  let vault: string;
  let cleanup: () => void;
  beforeAll(async () => ({ vault, cleanup } = await initVault()));
  afterAll(() => cleanup());

  it('skips a line over 4 MiB with an error naming the limit and answers the next request', async () => {
    const session = rawSession(vault);
    // 11 MB: the SDK's buffer (10 MB) used to overflow, answer id null, and hear nothing more
    const line = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recall","arguments":{"query":"${'a'.repeat(11 * 1024 * 1024)}"}}}`;
    session.send(line);
    session.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    const { code, replies } = await session.end();
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: a line of ${line.length} bytes, over the 4194304-byte limit for one request; it was skipped` } },
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
    expect(code).toBe(0);
  });

  it('answers a tools/call whose params are not an object with an error for its own id', async () => {
    const session = rawSession(vault);
    session.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: 'stats' });
    session.send({ jsonrpc: '2.0', id: 'ten', method: 'tools/call', params: [1, 2] });
    session.send({ jsonrpc: '2.0', id: 11, method: 'ping' });
    const { replies } = await session.end();
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'Invalid Request: params: expected an object, got "stats"' } },
      { jsonrpc: '2.0', id: 'ten', error: { code: -32600, message: 'Invalid Request: params: expected an object, got an array' } },
      { jsonrpc: '2.0', id: 11, result: {} },
    ]);
  });

  it('at the end of standard input, answers every request it read before exiting', async () => {
    const session = rawSession(vault);
    session.call(1, 'remember', { text: 'The release train leaves every second Tuesday.' });
    session.call(2, 'recall', { query: 'when does the release train leave' });
    session.call(3, 'recall', { query: 'x'.repeat(65_537) });
    const { code, replies: unordered } = await session.end();
    const replies = unordered.sort((a, b) => Number(a.id) - Number(b.id)); // answered as each finishes
    expect(replies.map((r) => [r.id, r.error?.code ?? r.result.isError ?? false])).toEqual([[1, false], [2, false], [3, true]]);
    expect(Array.isArray(JSON.parse(replies[1]!.result.content[0].text))).toBe(true); // answered, whether it ran before the remember or after
    expect(replies[2]!.result.content[0].text).toBe('query: 65537 characters, over the 65536-character limit for a query (ask with the words that matter)');
    expect(code).toBe(0);
  });
});

processOnly('engram mcp --http (Streamable HTTP)', () => {
  let cleanup: () => void;
  let vault: string;
  beforeAll(async () => {
    ({ vault, cleanup } = await initVault());
    await engram(vault, ['--now', NOW, 'remember', 'The staging cluster runs in eu-west-1.']);
  });
  afterAll(() => cleanup());

  /** Start a server; resolves with its URL once it listens. */
  async function start(...args: string[]): Promise<{ url: URL; child: ChildProcessWithoutNullStreams }> {
    const child = spawn(process.execPath, [ENGRAM, '--vault', vault, '--now', NOW, 'mcp', '--http', '--port', '0', ...args]) as ChildProcessWithoutNullStreams;
    let err = '';
    const url = await new Promise<URL>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (http:\/\/\S+\/mcp)/.exec(err);
        if (m) resolve(new URL(m[1]!));
      });
      child.on('close', () => reject(new Error(err)));
    });
    return { url, child };
  }
  const stop = async (child: ChildProcessWithoutNullStreams) => {
    child.kill('SIGTERM');
    return new Promise((resolve) => child.on('close', resolve));
  };

  it('listens on 127.0.0.1 and serves the SDK client', async () => {
    const { url, child } = await start();
    try {
      expect(url.hostname).toBe('127.0.0.1');
      const client = new Client({ name: 'http-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url));
      const result = (await client.callTool({ name: 'recall', arguments: { query: 'staging cluster region' } })) as ToolResult;
      expect(JSON.parse(result.content[0]!.text)[0].text).toBe('The staging cluster runs in eu-west-1.');
      await client.close();
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it('with a token, refuses a request without it (401) and serves one with it', async () => {
    const { url, child } = await start('--token', 's3cret-token');
    try {
      const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      expect([refused.status, (await refused.json()).error.message]).toEqual([401, 'unauthorised: send Authorization: Bearer <token>']);
      const wrong = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
      expect(wrong.status).toBe(401);
      const client = new Client({ name: 'http-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: 'Bearer s3cret-token' } } }));
      expect(JSON.parse(((await client.callTool({ name: 'stats', arguments: {} })) as ToolResult).content[0]!.text).memories).toBe(1);
      await client.close();
    } finally {
      await stop(child);
    }
  });

  it('refuses to listen beyond this machine without a token (exit 2)', async () => {
    const run = await engram(vault, ['mcp', '--http', '--host', '0.0.0.0', '--port', '0']);
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([2, 'engram: mcp --http: listening on 0.0.0.0 (not this machine only) needs a token: --token T or ENGRAM_MCP_TOKEN']);
    expect(readdirSync(path.join(vault, 'episodic'))).toHaveLength(1);
  });
});
