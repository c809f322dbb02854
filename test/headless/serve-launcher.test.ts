import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

/**
 * The built `engram` (dist/engram.js) with `engram serve` running: recall, context --hook and a
 * usage error print and exit as without a server (ENGRAM_NO_SERVE=1), the server answers them
 * (its count, on SIGTERM), and once it is stopped the socket is gone and the commands run in
 * their own process again. serve.test.ts tests the server and the client in process.
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const NOW = '2026-11-10T10:00:00Z';

function run(vault: string, args: string[], env: Record<string, string> = {}, input = '') {
  const res = spawnSync(process.execPath, [ENGRAM, '--vault', vault, ...args], { input, env: { ...process.env, ENGRAM_NO_COMPILE_CACHE: '1', ...env } });
  return { status: res.status, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

describe('dist/engram.js with engram serve', () => {
  let vault: string;
  let cleanup: () => void;
  let server: ChildProcess | null = null;
  beforeAll(async () => {
    ({ vault, cleanup } = await initVault('engram-serve-launcher-'));
    for (const [i, text] of ['Retries use exponential backoff from 200 ms.', 'Webhook signatures are checked with HMAC over the raw body.'].entries()) {
      await engram(vault, ['--now', `2026-11-0${i + 1}T10:00:00Z`, 'remember', text]);
    }
  });
  afterAll(() => {
    server?.kill('SIGKILL');
    cleanup();
  });

  /** `engram COMMAND` on the vault, once its standard error says `ready`; its stderr so far, and later. */
  async function started(command: string, ready: string): Promise<{ child: ChildProcess; stderr: () => string }> {
    const child = spawn(process.execPath, [ENGRAM, '--vault', vault, '--now', NOW, command], { stdio: ['pipe', 'ignore', 'pipe'], env: { ...process.env, ENGRAM_NO_COMPILE_CACHE: '1' } });
    server = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        if (log.includes(ready)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`${command} exited ${code}: ${log}`)));
    });
    return { child, stderr: () => log };
  }

  it('answers recall, context --hook and a usage error as the command does alone, then stops on SIGTERM', async () => {
    const { child, stderr } = await started('serve', 'serving');
    let log = stderr();
    expect(log).toBe(`engram serve: serving ${vault} on ${path.join(vault, '.engram', 'serve.sock')}\n`);
    const hook = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'webhook signatures' });
    const cases: Array<[string[], string]> = [
      [['--now', NOW, '--json', 'recall', 'retry backoff'], ''],
      [['--now', NOW, 'context', '--hook'], hook],
      [['--now', NOW, 'recall', '--limit', 'none', 'retry'], ''],
    ];
    for (const [args, input] of cases) {
      const served = run(vault, args, {}, input);
      const alone = run(vault, args, { ENGRAM_NO_SERVE: '1' }, input);
      expect([args, served]).toEqual([args, alone]);
    }
    expect(run(vault, ['--now', NOW, 'context', '--hook'], {}, hook).stdout).toContain('HMAC');
    expect(run(vault, ['recall', '--limit', 'none', 'retry']).status).toBe(2);
    // 'close', not 'exit': the last of its standard error may still be on its way when it has exited
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    server = null;
    log = stderr();
    expect(log.split('\n').slice(1)).toEqual(['engram serve: stopped: 5 commands answered, 0 sent back', '']);
    expect(existsSync(path.join(vault, '.engram', 'serve.sock'))).toBe(false);
    // the commands run in their own process again
    expect(run(vault, ['--now', NOW, '--json', 'recall', 'retry backoff'])).toEqual(run(vault, ['--now', NOW, '--json', 'recall', 'retry backoff'], { ENGRAM_NO_SERVE: '1' }));
  });

  it('engram mcp answers the command line too while it runs, and only one process serves a vault', async () => {
    const { child, stderr } = await started('mcp', 'answered here too');
    const log = stderr();
    const socket = path.join(vault, '.engram', 'serve.sock');
    expect(log).toBe(`engram mcp: recall, context and touch at the command line are answered here too (${socket})\n`);
    // a second server finds the vault served
    const second = run(vault, ['serve']);
    expect([second.status, second.stderr]).toEqual([1, `engram: ${vault} is served already (${socket})\n`]);
    const args = ['--now', NOW, '--json', 'recall', 'webhook signatures'];
    expect(run(vault, args)).toEqual(run(vault, args, { ENGRAM_NO_SERVE: '1' }));
    // 'close', not 'exit': the last of its standard error may still be on its way when it has exited
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    child.stdin!.end();
    expect(await exited).toBe(0);
    server = null;
    expect(existsSync(socket)).toBe(false);
  });
});
