// Stryker's global setup: the suite's (git isolated, dist/ built), but the build only once per
// sandbox: Stryker runs jest once per mutant, and a build per run would cost more than the tests.
// dist/ holds no active mutant (the core tests that spawn it check what they build from it).
const { existsSync } = require('node:fs');
const path = require('node:path');
const setup = require('./global-setup.cjs');

// A run narrowed to some test files (ENGRAM_STRYKER_TESTS) builds only if one of them needs dist/.
const needsDist = () => !process.env.ENGRAM_STRYKER_TESTS || /cluster\.test/.test(process.env.ENGRAM_STRYKER_TESTS);

// The suite's setup also writes the tiny BERT model (.work/test-models, not copied into the
// sandbox): it runs when either is missing.
module.exports = async () => {
  if (needsDist() && (!existsSync(path.join(__dirname, '..', 'dist', 'lib.js')) || !existsSync(path.join(__dirname, '..', '.work', 'test-models')))) return setup();
  process.env.GIT_CONFIG_GLOBAL = path.join(__dirname, 'fixtures', 'gitconfig');
  process.env.GIT_CONFIG_NOSYSTEM = '1';
};
