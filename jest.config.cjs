/** Tests mirror src/ and headless/; every run is TZ=UTC, set here rather than in the npm script
 * (`TZ=UTC jest` is POSIX shell: cmd.exe on Windows cannot run it). Jest's workers inherit it; a
 * run in band sees it too (Node re-reads TZ when process.env.TZ is assigned). */
process.env.TZ = 'UTC';
const os = require('node:os');

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // esbuild, with the built-ins each module names bound in it (test/esbuild-transform.cjs says why)
  transform: { '^.+\\.tsx?$': '<rootDir>/test/esbuild-transform.cjs' },
  // the longest files first, from jest's cache or else test/durations.json (test/sequencer.cjs)
  testSequencer: '<rootDir>/test/sequencer.cjs',
  // tests that start processes or git run on shared, loaded machines: a generous ceiling, not a
  // performance target (those live in `npm run bench`)
  testTimeout: 60_000,
  globalSetup: '<rootDir>/test/global-setup.cjs',
  globalTeardown: '<rootDir>/test/global-teardown.cjs',
  // at least two workers: jest's default (cores - 1) is one on a 2-core machine, where many tests
  // spend their time waiting on git and engram processes that the other worker's CPU can fill
  maxWorkers: Math.max(2, (os.availableParallelism?.() ?? os.cpus().length) - 1),
  moduleFileExtensions: ['ts', 'js', 'json'],
  // the plugin's tests run against a fake of Obsidian's API over a real folder (test/fakes)
  moduleNameMapper: { '^obsidian$': '<rootDir>/test/fakes/obsidian.ts' },
};
