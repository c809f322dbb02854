import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

/**
 * What the built launcher (dist/engram.js) loads of Node's own modules: node:v8 (with heap_utils
 * and node:stream, ~35 M instructions) only for a command line that sets a V8 flag (an import:
 * headless/bundles.ts importTier), not for a touch, which sets none. Read from
 * process.moduleLoadList at exit, by a module preloaded with -r.
 */
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const NOW = '2026-11-10T10:00:00Z';

describe('the launcher', () => {
  let dir: string;
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => {
    ({ dir, vault, cleanup } = await initVault());
  });
  afterEach(() => cleanup());

  const run = (args: string[]) => {
    const preload = path.join(dir, 'loaded.cjs');
    writeFileSync(preload, "process.on('exit', () => process.stderr.write(`v8 loaded: ${process.moduleLoadList.includes('NativeModule v8')}\\n`));\n");
    const res = spawnSync(process.execPath, ['-r', preload, ENGRAM, '--vault', vault, '--now', NOW, ...args], { env: { ...process.env, ENGRAM_NO_COMPILE_CACHE: '1', ENGRAM_NO_SERVE: '1' } });
    return { status: res.status, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
  };

  it('loads node:v8 for an import (a flag is set) and not for a touch (none is)', async () => {
    const id = JSON.parse((await engram(vault, ['--now', NOW, '--json', 'remember', 'The deploy uses blue-green switching.'])).stdout).id as string;
    expect(run(['touch', id])).toEqual({ status: 0, stdout: `${id}  active  access_count 1  activation 0.25\n`, stderr: 'v8 loaded: false\n' });
    const lines = path.join(dir, 'lines.jsonl');
    writeFileSync(lines, '{"text":"Rollbacks run from the last green build."}\n');
    expect(run(['import', lines])).toEqual({ status: 0, stdout: 'imported 1 lines: 1 created, 0 reinforced, 0 conflicts, 0 superseded, 0 already imported\n', stderr: 'v8 loaded: true\n' });
  });
});
