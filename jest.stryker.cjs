/**
 * The suite as Stryker runs it against each mutant: the tests that run in process (they import
 * src/ and headless/ and so see the mutant); dist/ is built once per sandbox (test/stryker-setup.cjs),
 * and the multi-process tests, which spawn dist/ (no mutant there), are left out.
 * Git reads no configuration of the machine, as in the suite.
 */
const base = require('./jest.config.cjs');
const path = require('node:path');

process.env.GIT_CONFIG_GLOBAL = path.join(__dirname, 'test', 'fixtures', 'gitconfig');
process.env.GIT_CONFIG_NOSYSTEM = '1';
process.env.TZ = 'UTC';
process.env.ENGRAM_STRYKER = '1'; // tests that only spawn dist/ (no mutant there) leave themselves out

module.exports = {
  ...base,
  globalSetup: '<rootDir>/test/stryker-setup.cjs',
  // ENGRAM_STRYKER_TESTS (set by `npm run mutate -- FILE --tests a,b`): only these test files,
  // for a run on a loaded machine where the whole in-process suite's dry run takes minutes
  testMatch: process.env.ENGRAM_STRYKER_TESTS
    ? process.env.ENGRAM_STRYKER_TESTS.split(',').map((t) => `<rootDir>/${t.trim()}`)
    : ['<rootDir>/test/core/**/*.test.ts', '<rootDir>/test/headless/mcp-effects.test.ts', '<rootDir>/test/headless/mcp.test.ts'],
};
