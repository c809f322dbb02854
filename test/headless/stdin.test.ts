import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

/**
 * Standard input from a slow or large pipe is read whole (stdin-eagain.sh): `remember -`,
 * `import -` and `recall --batch -` failed with EAGAIN when the producer had not written yet.
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

/**
 * Run the built runner with a pipe on stdin whose producer writes `chunks` `gapMs` apart. The
 * result comes once the runner has exited and its output is read to the end ('close', not
 * 'exit'); `stdinError` is the producer's write error (EPIPE: the runner exited without reading
 * all of its input), said as a value instead of escaping as an unhandled error.
 */
function piped(args: string[], chunks: string[], gapMs: number, launcher = ENGRAM): Promise<{ code: number; stdout: string; stderr: string; stdinError: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [launcher, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stdinError: string | null = null;
    child.stdin.on('error', (error: NodeJS.ErrnoException) => (stdinError = error.code ?? error.message));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, stdinError }));
    let i = 0;
    const next = () => {
      if (stdinError) return;
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
    expect([ok.code, ok.stderr, ok.stdinError]).toEqual([0, '', null]);
    // all of it: the memory holds the 200 KB text (trimmed of its last space and newline)
    expect((await engram(vault, ['--json', 'show', JSON.parse(ok.stdout).id])).json().text).toBe(big.trim());
    const tooBig = await piped(['--vault', vault, '--now', '2026-11-30T11:00:00Z', 'remember', '-'], [`${'word '.repeat(60_000)}\n`], 5);
    expect([tooBig.code, tooBig.stdinError]).toEqual([2, null]);
    expect(tooBig.stderr.split('\n')[0]).toBe('engram: text: 299999 bytes, over the 253952-byte limit for a memory\'s text (a memory file holds at most 262144 bytes)');
  });

  /**
   * What failed this test once at load 24 ("write EPIPE", exit 0 for the 300 KB input): a runner
   * started while its bundle was being rewritten in place (another jest run's global setup
   * building in the same checkout) read an empty engram-cli.js, ran nothing and exited 0
   * without reading its input. The build now renames complete files into place, and a launcher
   * that finds its bundle empty says so and fails instead of succeeding at nothing.
   */
  it('a runner whose bundle reads empty fails by name instead of exiting 0 without reading its input', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engram-empty-bundle-'));
    try {
      copyFileSync(ENGRAM, path.join(dir, 'engram.js'));
      writeFileSync(path.join(dir, 'engram-cli.js'), '');
      const run = await piped(['--vault', vault, 'remember', '-'], ['a text that must not be reported as remembered\n'], 5, path.join(dir, 'engram.js'));
      expect([run.code, run.stdout, run.stderr]).toEqual([1, '', `engram: ${path.join(dir, 'engram-cli.js')} is empty (being installed or built right now?): run the command again\n`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
