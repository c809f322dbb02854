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

module.exports = {
  ...base,
  globalSetup: '<rootDir>/test/stryker-setup.cjs',
  testMatch: ['<rootDir>/test/core/**/*.test.ts', '<rootDir>/test/headless/mcp-effects.test.ts'],
};
