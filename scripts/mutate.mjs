#!/usr/bin/env node
// `npm run mutate -- src/core/tiers.ts [more files]`: StrykerJS on those files only (each mutant
// against the tests that cover it); without a file, every file stryker.config.mjs names.
// Other stryker options pass through: `npm run mutate -- src/core/decay.ts --concurrency 2`;
// `--tests test/core/decay.test.ts,test/core/tiers.test.ts` narrows the tests the mutants meet.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// --tests a,b: run the mutants against only these test files (jest.stryker.cjs reads them from
// ENGRAM_STRYKER_TESTS); without it, every in-process test (test/core and mcp-effects).
const all = process.argv.slice(2);
const t = all.indexOf('--tests');
const tests = t >= 0 ? all[t + 1] : undefined;
const args = t >= 0 ? [...all.slice(0, t), ...all.slice(t + 2)] : all;
const files = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && args[i - 1].startsWith('--')));
const options = args.filter((a) => !files.includes(a));
const run = spawnSync(process.execPath, [path.join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'), 'run', ...(files.length ? ['--mutate', files.join(',')] : []), ...options], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TZ: 'UTC', ...(tests ? { ENGRAM_STRYKER_TESTS: tests } : {}) },
});
process.exit(run.status ?? 1);
