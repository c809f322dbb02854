import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, tempDir } from '../helpers/cli';

/**
 * One word for the memory folder: `--vault DIR` (and ENGRAM_VAULT) name the folder holding
 * `.engram/`, or the Obsidian vault the plugin keeps that folder in.
 */
describe('--vault names the memory folder, or the Obsidian vault it is in', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir('engram-folder-')));
  afterEach(() => cleanup());

  test('an Obsidian vault stands for its memory/ folder, the plugin default', async () => {
    const obsidian = path.join(dir, 'notes');
    mkdirSync(path.join(obsidian, '.obsidian'), { recursive: true });
    const init = await engram(obsidian, ['--json', 'init']);
    expect(init.code).toBe(0);
    expect(init.json().vault).toBe(path.join(obsidian, 'memory'));
    expect(existsSync(path.join(obsidian, 'memory', '.engram', 'version'))).toBe(true);
    expect(existsSync(path.join(obsidian, '.engram'))).toBe(false);
    const remembered = await engram(obsidian, ['--json', '--now', '2026-11-01T10:00:00Z', 'remember', 'The staging database is reset every Sunday.']);
    expect(remembered.json().path).toBe('episodic/The staging database is reset every Sunday.md');
    const direct = await engram(path.join(obsidian, 'memory'), ['--json', 'recall', 'staging database']);
    expect(direct.json().map((r: { id: string }) => r.id)).toEqual([remembered.json().id]);
  });

  test("the plugin's folder setting is followed; an empty one means the whole vault", async () => {
    const obsidian = path.join(dir, 'notes');
    const plugin = path.join(obsidian, '.obsidian', 'plugins', 'engram-memory');
    mkdirSync(plugin, { recursive: true });
    writeFileSync(path.join(plugin, 'data.json'), JSON.stringify({ folder: 'agents/memory/' }));
    expect((await engram(obsidian, ['--json', 'init'])).json().vault).toBe(path.join(obsidian, 'agents', 'memory'));
    const other = path.join(dir, 'other');
    mkdirSync(path.join(other, '.obsidian', 'plugins', 'engram-memory'), { recursive: true });
    writeFileSync(path.join(other, '.obsidian', 'plugins', 'engram-memory', 'data.json'), JSON.stringify({ folder: '' }));
    expect((await engram(other, ['--json', 'init'])).json().vault).toBe(other);
  });

  test('a folder holding .engram/ is the memory folder even inside an Obsidian vault', async () => {
    const obsidian = path.join(dir, 'notes');
    mkdirSync(path.join(obsidian, '.obsidian'), { recursive: true });
    expect((await engram(path.join(obsidian, 'mem'), ['--json', 'init'])).json().vault).toBe(path.join(obsidian, 'mem'));
    mkdirSync(path.join(obsidian, '.engram'));
    expect((await engram(obsidian, ['--json', 'stats'])).stderr).toBe(`engram: ${obsidian}: not an Engram vault (run engram --vault ${obsidian} init)\n`);
  });
});

describe('small surprises', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir('engram-surprise-')));
  afterEach(() => cleanup());

  test('remember "" is a usage error, even with a pipe on standard input', async () => {
    const vault = path.join(dir, 'm');
    await engram(vault, ['init']);
    const run = await engram(vault, ['remember', ''], 'this must not be remembered');
    expect([run.code, run.stderr]).toEqual([2, "engram: remember: the text is empty (give the text, or - to read standard input)\nrun 'engram --help' for usage\n"]);
    expect((await engram(vault, ['--json', 'stats'])).json().memories).toBe(0);
  });

  test("creative labels the number after the tier as strength, and its help gives the maximum", async () => {
    const vault = path.join(dir, 'm');
    await engram(vault, ['init']);
    await engram(vault, ['--now', '2026-11-01T10:00:00Z', 'remember', 'Partner Acme retries webhooks on any non-2xx.']);
    const run = await engram(vault, ['--now', '2026-11-01T10:00:00Z', 'creative', '1', '--seed', 's']);
    expect(run.stdout).toMatch(/^\[ACTIVE · strength 1\.00\] Partner Acme retries webhooks on any non-2xx\.  \[\[mem-[a-z0-9]{12}\]\]\n$/);
    expect((await engram(vault, ['help', 'creative'])).stdout).toContain('N (5, at most 50) random memories');
  });
});
