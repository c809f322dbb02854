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
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: ['src/core/**/*.ts', 'headless/mcp/**/*.ts'],
  ignorePatterns: ['dist', '.work', 'reports', 'coverage', '*.tgz'],
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
