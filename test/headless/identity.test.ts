import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { engram, initVault } from '../helpers/cli';

/**
 * Issue 21: a memory's identity is the id in its frontmatter; its file name and folder belong to
 * the person. A memory renamed and moved into a sub-folder by a file manager is found by id by
 * every command, and nothing renames it back, moves it, or hides it.
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const RENAMED = 'episodic/ops/Staging DB reset.md';

/** Every note under the vault (hidden folders too), sorted. */
function notes(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...notes(root, child));
    else if (entry.name.endsWith('.md')) out.push(child);
  }
  return out.sort();
}

describe('a memory renamed and moved by a person', () => {
  let vault: string;
  let cleanup: () => void;
  let id: string;
  let other: string;
  let otherPath: string;
  beforeEach(async () => {
    ({ vault, cleanup } = await initVault());
    const made = (await engram(vault, ['--json', '--now', '2026-11-20T10:00:00Z', 'remember', 'Reset the staging database with make db-reset before every demo.'])).json();
    id = made.id;
    ({ id: other, path: otherPath } = (await engram(vault, ['--json', '--now', '2026-11-20T11:00:00Z', 'remember', 'The billing service retries webhooks three times.'])).json());
    // a file manager: a new name, a new sub-folder
    mkdirSync(path.join(vault, 'episodic', 'ops'));
    renameSync(path.join(vault, made.path), path.join(vault, RENAMED));
  });
  afterEach(() => cleanup());

  it('is found by show ID, touch ID and plain recall, at its new path', async () => {
    const shown = await engram(vault, ['--json', 'show', id]);
    expect([shown.code, shown.json().id, shown.json().path]).toEqual([0, id, RENAMED]);
    const touched = await engram(vault, ['--json', '--now', '2026-11-21T10:00:00Z', 'touch', id]);
    expect([touched.code, touched.json()[0].path, touched.json()[0].access_count]).toEqual([0, RENAMED, 1]);
    expect(readFileSync(path.join(vault, RENAMED), 'utf8')).toContain('access_count: 1\n');
    const recalled = (await engram(vault, ['--json', '--now', '2026-11-21T11:00:00Z', 'recall', 'staging database demo'])).json();
    expect(recalled.map((r: { id: string; path: string }) => [r.id, r.path])).toEqual([[id, RENAMED]]);
    const list = (await engram(vault, ['--json', 'list'])).json();
    expect(list.map((m: { id: string; path: string }) => [m.id, m.path]).sort()).toEqual([[id, RENAMED], [other, otherPath]].sort());
  });

  it('stays where the person put it, under their name, after consolidate and doctor --fix', async () => {
    await engram(vault, ['--now', '2026-11-21T10:00:00Z', 'touch', id]);
    const consolidated = await engram(vault, ['--json', '--now', '2026-11-22T10:00:00Z', 'consolidate']);
    expect(consolidated.code).toBe(0);
    const doctor = await engram(vault, ['--now', '2026-11-22T11:00:00Z', 'doctor', '--fix']);
    expect([doctor.code, doctor.stdout]).toEqual([0, 'no problems found\n']);
    expect(notes(vault)).toEqual(['STATE.md', RENAMED, otherPath].sort());
    expect(readFileSync(path.join(vault, RENAMED), 'utf8')).toContain(`id: ${id}\n`);
  });

  it('keeps the links to it resolving: doctor --fix points them at its new name, and link_ids keep its id', async () => {
    // a correction written before the rename links to it by its file name then
    renameSync(path.join(vault, RENAMED), path.join(vault, 'episodic', 'Reset staging.md'));
    const fix = (await engram(vault, ['--json', '--now', '2026-11-21T10:00:00Z', 'remember', 'Reset the staging database with make db-reset-all before every demo.', '--supersedes', id])).json();
    expect(readFileSync(path.join(vault, fix.path), 'utf8')).toContain(`link_ids: ["supersedes ${id}"]\n`);
    expect(readFileSync(path.join(vault, fix.path), 'utf8')).toContain('\n[[Reset staging|supersedes]]\n');
    // a file manager renames and moves it again: the link names a file that is gone
    renameSync(path.join(vault, 'episodic', 'Reset staging.md'), path.join(vault, RENAMED));
    const doctor = (await engram(vault, ['--json', 'doctor'])).json();
    expect(doctor.findings.map((f: { check: string; path: string }) => [f.check, f.path])).toEqual([['renamed-link', fix.path]]);
    expect((await engram(vault, ['doctor', '--fix'])).code).toBe(0);
    const text = readFileSync(path.join(vault, fix.path), 'utf8');
    expect([text.includes('\n[[Staging DB reset|supersedes]]\n'), text.includes(`link_ids: ["supersedes ${id}"]\n`)]).toEqual([true, true]);
    expect((await engram(vault, ['doctor'])).stdout).toBe('no problems found\n');
    expect(readFileSync(path.join(vault, RENAMED), 'utf8')).toContain(`superseded_by: ${fix.id}\n`);
  });

  it('is archived and brought back under its own name and sub-folder', async () => {
    // a year unused: consolidation archives it (archive/ keeps the sub-folder and the name)
    await engram(vault, ['--now', '2027-11-22T10:00:00Z', 'consolidate']);
    expect(existsSync(path.join(vault, 'archive', 'ops', 'Staging DB reset.md'))).toBe(true);
    expect((await engram(vault, ['--json', 'show', id])).json().path).toBe('archive/ops/Staging DB reset.md');
    const touched = (await engram(vault, ['--json', '--now', '2027-11-23T10:00:00Z', 'touch', id])).json();
    expect([touched[0].path, touched[0].revived_from]).toEqual([RENAMED, 'archive/ops/Staging DB reset.md']);
    expect(existsSync(path.join(vault, 'archive', 'ops', 'Staging DB reset.md'))).toBe(false);
  });

  it('is found over MCP: show, touch and recall by id', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [ENGRAM, '--vault', vault, '--now', '2026-11-21T10:00:00Z', 'mcp'], stderr: 'pipe' });
    const client = new Client({ name: 'identity-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
        if (result.isError) throw new Error(`${name}: ${result.content[0]!.text}`);
        return JSON.parse(result.content[0]!.text);
      };
      expect((await call('show', { id })).path).toBe(RENAMED);
      expect((await call('touch', { ids: [id] }))[0].path).toBe(RENAMED);
      const recalled = await call('recall', { query: 'staging database demo' });
      expect(recalled.map((r: { id: string; path: string }) => [r.id, r.path])).toEqual([[id, RENAMED]]);
      const resource = await client.readResource({ uri: `engram://memory/${id}` });
      expect((resource.contents[0] as { text: string }).text).toContain(`id: ${id}\n`);
    } finally {
      await client.close();
    }
    expect(readFileSync(path.join(vault, RENAMED), 'utf8')).toContain('access_count: 1\n');
  });
});

describe('links found by resonance name the file, like every other link (ADR 0005)', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => ({ vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  it('a conflict opened by import or remember links the renamed memory it contradicts by its file name, its id in link_ids', async () => {
    const old = (await engram(vault, ['--json', '--now', '2026-11-20T10:00:00Z', 'remember', 'Integration tests must use Testcontainers for the database.', '--category', 'decision'])).json();
    renameSync(path.join(vault, old.path), path.join(vault, 'decisions', 'Testcontainers rule.md'));
    const line = JSON.stringify({ text: 'Integration tests must not use Testcontainers for the database.', category: 'decision', created_at: '2026-11-21T10:00:00Z' });
    const imported = (await engram(vault, ['--json', '--now', '2026-11-21T10:00:00Z', 'import', '-'], `${line}\n`)).json();
    expect(imported.results.map((r: { action: string; conflict_with?: string }) => [r.action, r.conflict_with])).toEqual([['conflict', old.id]]);
    const text = readFileSync(path.join(vault, imported.results[0].path), 'utf8');
    expect([text.includes('\n[[Testcontainers rule|contradicts]]\n'), text.includes(`link_ids: ["contradicts ${old.id}"]\n`), text.includes(`[[${old.id}|`)]).toEqual([true, true, false]);
    // remember writes the same link
    const rule = (await engram(vault, ['--json', '--now', '2026-11-22T10:00:00Z', 'remember', 'Pull requests must be squashed before merging.', '--category', 'decision'])).json();
    renameSync(path.join(vault, rule.path), path.join(vault, 'decisions', 'Squash rule.md'));
    const against = (await engram(vault, ['--json', '--now', '2026-11-23T10:00:00Z', 'remember', 'Pull requests must not be squashed before merging.', '--category', 'decision'])).json();
    expect([against.action, against.conflict_with]).toEqual(['conflict', rule.id]);
    const said = readFileSync(path.join(vault, against.path), 'utf8');
    expect([said.includes('\n[[Squash rule|contradicts]]\n'), said.includes(`link_ids: ["contradicts ${rule.id}"]\n`)]).toEqual([true, true]);
    expect(said).not.toContain('[[mem-');
  });
});
