import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { deriveMemoryId } from '../../src/core/ids';
import { NodeFileStore } from '../../headless/fs-files';
import { engram, fileOf, initVault } from '../helpers/cli';

const KILLED = path.join(__dirname, '..', 'helpers', 'import-killed.js');
const NOW = '2026-11-30T00:00:00Z';

/** The reliability repro's file: distinct lines, each with its own created_at. */
function lines(n: number, from = 0): string {
  return Array.from({ length: n }, (_, k) => {
    const i = k + from;
    const createdAt = new Date(Date.UTC(2026, 10, 1, 10, i)).toISOString().replace('.000Z', 'Z');
    return JSON.stringify({ text: `Import line ${i} about subsystem ${i} quirk ${i * 31}`, created_at: createdAt });
  }).join('\n') + '\n';
}

describe('engram import: fixable in one pass, idempotent, all or nothing', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => ({ dir, vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  const episodic = () => readdirSync(path.join(vault, 'episodic'), { withFileTypes: true }).filter((f) => f.isFile() && f.name.endsWith('.md')).map((f) => f.name).sort();
  const snapshot = () => Object.fromEntries(episodic().map((f) => [f, readFileSync(path.join(vault, 'episodic', f), 'utf8')]));
  const importFile = async (file: string, ...args: string[]) => engram(vault, ['--json', '--now', NOW, 'import', file, ...args]);

  it('reports every bad line with its number and reason in one run, and writes nothing', async () => {
    const file = path.join(dir, 'mixed.jsonl');
    writeFileSync(
      file,
      [
        '{"text": "fine"}',
        '{"text": 3}',
        '',
        'not json',
        '{"text": "ok", "colour": "red", "size": 2}',
        '{"text": "fine too", "created_at": "last week"}',
        '{"text": "   "}',
      ].join('\n'),
    );
    const run = await importFile(file);
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toBe(
      [
        `engram: ${file}:2: field "text" must be a string`,
        `${file}:4: not valid JSON (Unexpected token 'o', "not json" is not valid JSON)`,
        `${file}:5: unknown fields "colour", "size"`,
        `${file}:6: created_at: expected an ISO-8601 date-time, got "last week"`,
        `${file}:7: text: nothing to remember (empty text)`,
        '5 bad lines of 6: nothing imported (fix them and run the same command again)',
        '',
      ].join('\n'),
    );
    expect(episodic()).toEqual([]);
  });

  it('importing the same file again changes nothing; --reinforce counts the repeats; --dry-run writes nothing', async () => {
    const file = path.join(dir, 'turns.jsonl');
    writeFileSync(
      file,
      [
        { text: 'Caroline: I went to the support group yesterday.', session: 's1', created_at: '2023-05-08T13:56:00Z' },
        { text: 'Melanie: That sounds wonderful, how was it?', session: 's1', created_at: '2023-05-08T13:56:30Z' },
        { text: 'Caroline: I went to the support group yesterday!', session: 's1', created_at: '2023-05-08T13:57:00Z' },
        { text: 'A note without a date.' },
        { text: 'A note without a date.' },
      ].map((l) => JSON.stringify(l)).join('\n'),
    );
    const dry = (await importFile(file, '--dry-run')).json();
    expect([dry.dry_run, dry.created, dry.reinforced, dry.unchanged]).toEqual([true, 3, 2, 0]);
    expect(episodic()).toEqual([]);
    const first = (await importFile(file)).json();
    expect([first.created, first.reinforced, first.conflicts, first.unchanged]).toEqual([3, 2, 0, 0]);
    const after = snapshot();
    const [caroline] = first.results.map((r: { path: string }) => r.path);
    expect(caroline).toBe('episodic/Caroline I went to the support group yesterday.md');
    expect(after['Caroline I went to the support group yesterday.md']).toContain('amplitude: 2\n');
    expect(after['Caroline I went to the support group yesterday.md']).toMatch(/\nimport_keys: \["mem-[a-z0-9]{12}"\]\n/);
    const again = (await engram(vault, ['--json', '--now', '2026-12-01T00:00:00Z', 'import', file])).json();
    expect([again.created, again.reinforced, again.conflicts, again.unchanged]).toEqual([0, 0, 0, 5]);
    expect(again.results.map((r: { id: string }) => r.id)).toEqual(first.results.map((r: { id: string }) => r.id));
    expect(snapshot()).toEqual(after);
    const counted = (await importFile(file, '--reinforce')).json();
    expect([counted.created, counted.reinforced, counted.unchanged]).toEqual([0, 5, 0]);
    expect(readFileSync(path.join(vault, caroline), 'utf8')).toContain('amplitude: 4\n');
  });

  it('a run killed half-way and run again writes only what is missing, counting nothing twice (reliability repro import-rerun-inflates)', async () => {
    const file = path.join(dir, 'rerun.jsonl');
    writeFileSync(file, lines(400));
    vault = path.join(dir, 'killed');
    await engram(vault, ['init']);
    // killed just before it places its 50th file (a fault hook, not a race with a poll)
    const child = spawn(process.execPath, [KILLED, vault, file, NOW, '50'], { stdio: 'ignore' });
    const signal = await new Promise((resolve) => child.on('close', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGKILL');
    const killedAt = episodic().length;
    expect(killedAt).toBe(49);
    expect(readdirSync(path.join(vault, 'episodic')).filter((f) => f.endsWith('.tmp'))).toHaveLength(1);
    const rerun = (await importFile(file)).json();
    expect([rerun.created + rerun.unchanged, rerun.reinforced, rerun.created]).toEqual([400, 0, 400 - killedAt]);
    const files = snapshot();
    expect(Object.keys(files)).toHaveLength(400);
    const inflated = Object.entries(files).filter(([, text]) => !text.includes('\namplitude: 1\n') || !text.includes('\naccess_count: 0\n'));
    expect(inflated).toEqual([]);
    // a leftover temp file of the killed run is not a memory and is not counted
    expect(readdirSync(path.join(vault, 'episodic')).filter((f) => !f.endsWith('.tmp')).length).toBe(400);
  }, 30_000);

  it('a reinforcement already made is not made again when the rest of the file is imported', async () => {
    const a = { text: 'The nightly build takes forty minutes on the old runners.', created_at: '2026-11-01T10:00:00Z' };
    const b = { text: 'The nightly build takes forty minutes on the old runners!', created_at: '2026-11-02T10:00:00Z' };
    const c = { text: 'Release notes are written on Fridays.', created_at: '2026-11-03T10:00:00Z' };
    writeFileSync(path.join(dir, 'part.jsonl'), [a, b].map((l) => JSON.stringify(l)).join('\n'));
    writeFileSync(path.join(dir, 'whole.jsonl'), [a, b, c].map((l) => JSON.stringify(l)).join('\n'));
    expect((await importFile(path.join(dir, 'part.jsonl'))).json()).toMatchObject({ created: 1, reinforced: 1 });
    expect((await importFile(path.join(dir, 'whole.jsonl'))).json()).toMatchObject({ created: 1, reinforced: 0, unchanged: 2 });
    const id = deriveMemoryId(a.text, a.created_at);
    expect(fileOf(vault, id)).toBe('episodic/The nightly build takes forty minutes on the old runners.md');
    const text = readFileSync(path.join(vault, fileOf(vault, id)), 'utf8');
    expect([text.includes('\namplitude: 2\n'), text.includes('\naccess_count: 1\n')]).toEqual([true, true]);
  });

  it('steps around an unreadable file that holds a line\'s id: every line written, the file untouched', async () => {
    const file = path.join(dir, 'rerun.jsonl');
    writeFileSync(file, lines(40));
    const victim = deriveMemoryId('Import line 25 about subsystem 25 quirk 775', '2026-11-01T10:25:00Z');
    const planted = path.join(vault, 'episodic', `${victim}.md`);
    writeFileSync(planted, 'a note someone saved here by hand, without frontmatter\n');
    const run = await importFile(file);
    expect([run.code, run.json().created]).toEqual([0, 40]);
    expect(readFileSync(planted, 'utf8')).toBe('a note someone saved here by hand, without frontmatter\n');
    expect(episodic()).toHaveLength(41);
    const line25 = run.json().results[25];
    expect(line25.id).toBe(deriveMemoryId('Import line 25 about subsystem 25 quirk 775', '2026-11-01T10:25:00Z', 1));
    expect((await importFile(file)).json()).toMatchObject({ created: 0, unchanged: 40 });
  });

  it('a write that fails undoes the run: nothing imported, the vault as it was', async () => {
    const m1 = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The nightly build takes forty minutes on the old runners.'])).json();
    const m2 = (await engram(vault, ['--json', '--now', NOW, 'remember', 'Release notes are written on Fridays by the on-call engineer.'])).json();
    const before = snapshot();
    const file = path.join(dir, 'mixed.jsonl');
    const repeats = [{ text: 'The nightly build takes forty minutes on the old runners!' }, { text: 'Release notes are written on Fridays by the on-call engineer!' }];
    writeFileSync(file, lines(40) + repeats.map((l) => JSON.stringify(l)).join('\n'));
    // the disk fails when the second reinforcement is written: 40 files and one reinforcement are in by then
    const write = NodeFileStore.prototype.write;
    const spy = jest.spyOn(NodeFileStore.prototype, 'write').mockImplementation(function (this: NodeFileStore, rel, data, options) {
      if (rel === m2.path) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
      return write.call(this, rel, data, options);
    });
    try {
      const run = await importFile(file);
      expect([run.code, run.stderr]).toEqual([1, 'engram: import stopped: EIO: i/o error, write; nothing imported (41 writes of this run undone)\n']);
    } finally {
      spy.mockRestore();
    }
    expect(snapshot()).toEqual(before);
    expect(before['The nightly build takes forty minutes on the old runners.md']).toContain(`id: ${m1.id}\n`);
    expect(before['The nightly build takes forty minutes on the old runners.md']).toContain('amplitude: 1\n');
  });

});
