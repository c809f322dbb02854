#!/usr/bin/env node
// `npm run mutate -- src/core/tiers.ts [more files]`: StrykerJS on those files only (each mutant
// against the tests that cover it); without a file, every file stryker.config.mjs names.
// Other stryker options pass through: `npm run mutate -- src/core/decay.ts --concurrency 2`.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const files = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && args[i - 1].startsWith('--')));
const options = args.filter((a) => !files.includes(a));
const run = spawnSync(process.execPath, [path.join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'), 'run', ...(files.length ? ['--mutate', files.join(',')] : []), ...options], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TZ: 'UTC' },
});
process.exit(run.status ?? 1);
