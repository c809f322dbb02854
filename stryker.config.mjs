// Mutation testing (StrykerJS): `npm run mutate -- src/core/tiers.ts` for one file (or several,
// comma-separated; a glob works), `npm run mutate` for all of src/core and headless/mcp (hours
// on a 2-core machine). Each mutant runs only the tests that cover it (perTest coverage) in
// jest.stryker.cjs, the in-process part of the suite; the TypeScript checker drops mutants that
// do not compile. Reports: the terminal, reports/mutation/ (html, json). Scores: docs/mutation-scores.md.
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: { configFile: 'jest.stryker.cjs', enableFindRelatedTests: false },
  checkers: ['typescript'],
  // The checker compiles src/ and headless/ only (the mutated code and all it imports), not test/
  // and scripts/: each mutant was re-checked with every test file that imports it, and the
  // checker, not jest, set the pace. Measured on decay.ts (14 mutants, same 8 killed, 6 rejected):
  // the mutant phase 186 s -> 70 s at load 11-15, the checker's start 81 s -> 55 s. A mutant that
  // compiles in src/ but breaks only a test's types is now run by jest (ts-jest transpiles tests
  // without type-checking them, so it runs the same code either way) instead of being set aside.
  tsconfigFile: 'tsconfig.stryker.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: ['src/core/**/*.ts', 'headless/mcp/**/*.ts'],
  // dist/ is copied: the sandbox starts with the unmutated build the spawning tests need (a run
  // whose sandbox built it alone failed its dry run on token-count.test's missing dist/cl100k.js)
  ignorePatterns: ['.work', 'reports', 'coverage', '*.tgz'],
  concurrency: 1,
  timeoutMS: 20_000,
  // the dry run (every covering test, once, with coverage) on a shared 2-core machine under load
  // took over Stryker's default 5 minutes
  dryRunTimeoutMinutes: 30,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: '.work/stryker-tmp',
  cleanTempDir: 'always',
};
