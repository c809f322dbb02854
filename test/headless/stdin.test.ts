import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

/**
 * Standard input from a slow or large pipe is read whole (stdin-eagain.sh): `remember -`,
 * `import -` and `recall --batch -` failed with EAGAIN when the producer had not written yet.
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

/** Run the built runner with a pipe on stdin whose producer writes `chunks` `gapMs` apart. */
function piped(args: string[], chunks: string[], gapMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ENGRAM, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    let i = 0;
    const next = () => {
      if (i === chunks.length) return void child.stdin.end();
      child.stdin.write(chunks[i++]!);
      setTimeout(next, gapMs);
    };
    setTimeout(next, gapMs);
  });
}

describe('standard input from a pipe', () => {
  let cleanup: () => void;
  let vault: string;
  beforeAll(async () => ({ vault, cleanup } = await initVault()));
  afterAll(() => cleanup());

  it('remember - reads a producer that writes late and in pieces', async () => {
    const run = await piped(['--vault', vault, '--json', '--now', '2026-11-30T10:00:00Z', 'remember', '-'], ['Cache keys include ', 'the locale\n'], 300);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toMatchObject({ action: 'created' });
    expect((await engram(vault, ['--json', 'show', JSON.parse(run.stdout).id])).json().text).toBe('Cache keys include the locale');
  });

  it('import - and recall --batch - read slow producers', async () => {
    const imported = await piped(['--vault', vault, '--json', '--now', '2026-11-30T10:00:00Z', 'import', '-'], ['{"text":"slow producer line about kites"}\n'], 300);
    expect([imported.code, imported.stderr, JSON.parse(imported.stdout).created]).toEqual([0, '', 1]);
    const recalled = await piped(['--vault', vault, '--now', '2026-11-30T10:00:00Z', 'recall', '--batch', '-', '--limit', '1'], ['{"id": "q1", "query": "kites"}\n'], 300);
    expect(recalled.code).toBe(0);
    expect(JSON.parse(recalled.stdout)).toMatchObject({ id: 'q1', results: [{ text: 'slow producer line about kites' }] });
  });

  it('a large input through a pipe is read whole, and one over the size limit is refused by name', async () => {
    const big = `${'word '.repeat(40_000)}\n`; // 200 KB in 50 pieces
    const pieces = Array.from({ length: 50 }, (_, i) => big.slice(i * 4000, (i + 1) * 4000));
    const ok = await piped(['--vault', vault, '--json', '--now', '2026-11-30T11:00:00Z', 'remember', '-'], pieces, 5);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const tooBig = await piped(['--vault', vault, '--now', '2026-11-30T11:00:00Z', 'remember', '-'], [`${'word '.repeat(60_000)}\n`], 5);
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr.split('\n')[0]).toBe('engram: text: 299999 bytes, over the 253952-byte limit for a memory\'s text (a memory file holds at most 262144 bytes)');
  });
});
