import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

const CORPUS = path.join(__dirname, '..', 'fixtures', 'malformed');
const expected = JSON.parse(readFileSync(path.join(CORPUS, 'expected.json'), 'utf8')) as Record<string, string>;

describe('a corpus of malformed memory files', () => {
  let cleanup: () => void;
  let vault: string;
  beforeAll(async () => {
    ({ vault, cleanup } = await initVault());
    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ maxFileBytes: 4096 }));
    for (const name of readdirSync(path.join(CORPUS, 'episodic'))) {
      copyFileSync(path.join(CORPUS, 'episodic', name), path.join(vault, 'episodic', name));
    }
  });
  afterAll(() => cleanup());

  const snapshot = () =>
    Object.fromEntries(readdirSync(path.join(vault, 'episodic')).map((n) => [n, readFileSync(path.join(vault, 'episodic', n)).toString('base64')]));

  it('has at least 20 files, each with its expected message', () => {
    expect(Object.keys(expected).length).toBe(30);
    expect(readdirSync(path.join(CORPUS, 'episodic')).sort()).toEqual(Object.keys(expected).sort());
  });

  it('stats reports every file with its path and reason', async () => {
    const run = await engram(vault, ['--json', 'stats']);
    expect(run.code).toBe(0);
    const stats = run.json();
    expect(stats.memories).toBe(0);
    expect(stats.invalid).toEqual(Object.entries(expected).map(([name, reason]) => ({ path: `episodic/${name}`, reason })));
  });

  it('stats prints them for a person too', async () => {
    const run = await engram(vault, ['stats']);
    expect(run.stdout).toContain('unreadable  30\n');
    expect(run.stdout).toContain('  episodic/mem-bad000000021.md: field "half_life_days": expected a positive number, got -3\n');
  });

  it('never rewrites them: touch, cite and show fail with the path and reason, bytes unchanged', async () => {
    const before = snapshot();
    for (const [name, reason] of Object.entries(expected)) {
      for (const command of ['touch', 'cite', 'show']) {
        const run = await engram(vault, ['--now', '2026-05-01T00:00:00Z', command, `episodic/${name}`]);
        expect([command, name, run.code, run.stderr]).toEqual([command, name, 1, `engram: episodic/${name}: ${reason}\n`]);
      }
    }
    expect(snapshot()).toEqual(before);
  });

  it('a note with its id for a name is found by id and still refused', async () => {
    const run = await engram(vault, ['touch', 'mem-bad000000021']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('engram: episodic/mem-bad000000021.md: field "half_life_days": expected a positive number, got -3\n');
  });
});
