#!/usr/bin/env node
// `npm run soak:git`: the three-clones git soak, long (40 rounds of 6 operations, seeds a, b and c,
// reports in .work/git-soak/), each overridable from the environment (ENGRAM_SOAK_ROUNDS,
// ENGRAM_SOAK_SEEDS, ENGRAM_SOAK_OPS, ENGRAM_SOAK_REPORTS). A script rather than shell in
// package.json, so that it runs the same under cmd.exe on Windows.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = {
  ...process.env,
  TZ: 'UTC',
  ENGRAM_SOAK_ROUNDS: process.env.ENGRAM_SOAK_ROUNDS || '40',
  ENGRAM_SOAK_SEEDS: process.env.ENGRAM_SOAK_SEEDS || 'a,b,c',
  ENGRAM_SOAK_OPS: process.env.ENGRAM_SOAK_OPS || '6',
  ENGRAM_SOAK_REPORTS: process.env.ENGRAM_SOAK_REPORTS || '.work/git-soak',
};
const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const run = spawnSync(process.execPath, [jest, 'test/headless/three-clones', '--testTimeout=7200000', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env });
process.exit(run.status ?? 1);
