/**
 * The suite as Stryker runs it against each mutant: test/core and test/headless, whose tests run
 * src/ and headless/ in process and so meet the mutant; dist/ is built once per sandbox
 * (test/stryker-setup.cjs) for the parts that spawn it. Each mutant runs only the tests that
 * cover it (perTest coverage), in the files that hold them (test/stryker-sequencer.cjs).
 * Git reads no configuration of the machine, as in the suite.
 */
const base = require('./jest.config.cjs');
const path = require('node:path');

process.env.GIT_CONFIG_GLOBAL = path.join(__dirname, 'test', 'fixtures', 'gitconfig');
process.env.GIT_CONFIG_NOSYSTEM = '1';
process.env.TZ = 'UTC';
process.env.ENGRAM_STRYKER = '1'; // tests that only spawn dist/ (no mutant there) leave themselves out
// where the dry run records which file holds each test (test/stryker-sequencer.cjs): in Stryker's
// sandbox, its own copy
process.env.ENGRAM_STRYKER_NAMES ??= path.join(__dirname, '.work', 'stryker-test-files.json');

// The headless tests that cannot meet a mutant (Stryker mutates src/core and headless/mcp): they
// would cost the dry run and a load per mutant for nothing.
const NO_MUTANT_THERE = [
  'package.test.ts', // `npm pack --dry-run`: the package's file list, no code of ours in process
  'locks.test.ts', // headless/locks in process, dist/lib.js in the processes it spawns: no core code
];

module.exports = {
  ...base,
  globalSetup: '<rootDir>/test/stryker-setup.cjs',
  // a mutant's run stops at its first failing test (jest cannot bail in a programmatic run)
  // (an absolute path: Stryker's environment wrapper requires it as written, without <rootDir>)
  testEnvironment: path.join(__dirname, 'test', 'stryker-environment.cjs'),
  // ts-jest, as when the mutation scores in docs/mutation-scores.md were measured (Stryker's
  // instrumented code under the suite's esbuild transform is not yet checked)
  transform: { '^.+\\.tsx?$': ['ts-jest', { tsconfig: { module: 'commonjs', moduleResolution: 'node', isolatedModules: true } }] },
  // a mutant's run loads only the files holding its covering tests (the dry run records them)
  testSequencer: '<rootDir>/test/stryker-sequencer.cjs',
  // ENGRAM_STRYKER_TESTS (set by `npm run mutate -- FILE --tests a,b`): only these test files,
  // for a run on a loaded machine where the whole in-process suite's dry run takes minutes.
  // Otherwise test/core and test/headless: most headless tests run the CLI in process
  // (test/helpers/cli.ts's engram() calls headless/cli.ts's runCli), so they meet src/core's
  // mutants; the parts that spawn dist/ run the code as built once per sandbox (and MCP's stdio
  // client leaves itself out under ENGRAM_STRYKER). The plugin and embedding tests are not here.
  testMatch: process.env.ENGRAM_STRYKER_TESTS
    ? process.env.ENGRAM_STRYKER_TESTS.split(',').map((t) => `<rootDir>/${t.trim()}`)
    : ['<rootDir>/test/core/**/*.test.ts', '<rootDir>/test/headless/**/*.test.ts'],
  testPathIgnorePatterns: process.env.ENGRAM_STRYKER_TESTS ? [] : NO_MUTANT_THERE.map((f) => `/test/headless/${f.replace(/\./g, '\\.')}$`),
};
