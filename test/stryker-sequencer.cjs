// Stryker's test sequencer (jest.stryker.cjs): a mutant's run loads only the test files that hold
// the tests covering it.
//
// Stryker's jest runner runs each mutant as a whole jest run narrowed by a test name pattern (the
// covering tests, perTest coverage). Jest still loads every file in testMatch to learn its tests'
// names, and most headless tests import the whole CLI: 87 files cost 37 s a run with no test
// matching at load 11, against 23 s for test/core's 42 alone. So the dry run (no pattern) records
// which file holds each test (ENGRAM_STRYKER_NAMES), and a mutant's run keeps the files with a
// test the pattern matches. Jest runs the tests sort() returns. Whatever this cannot tell (no
// record yet, a pattern matching no recorded name) runs every file, as without it.
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const record = () => process.env.ENGRAM_STRYKER_NAMES;

class StrykerSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.pattern = options?.globalConfig?.testNamePattern;
  }

  sort(tests) {
    const sorted = super.sort(tests);
    if (!this.pattern || !record() || !fs.existsSync(record())) return sorted;
    let names;
    try {
      names = JSON.parse(fs.readFileSync(record(), 'utf8'));
    } catch {
      return sorted;
    }
    // as jest applies it: a case-insensitive search in each test's full name
    const re = new RegExp(this.pattern, 'i');
    const files = new Set(Object.entries(names).filter(([name]) => re.test(name)).flatMap(([, f]) => f));
    if (files.size === 0) return sorted;
    return sorted.filter((t) => files.has(t.path));
  }

  cacheResults(tests, results) {
    super.cacheResults(tests, results);
    if (this.pattern || !record()) return;
    const names = {};
    for (const file of results.testResults) {
      for (const t of file.testResults) (names[t.fullName] ??= []).push(file.testFilePath);
    }
    fs.mkdirSync(path.dirname(record()), { recursive: true });
    fs.writeFileSync(record(), JSON.stringify(names));
  }
}

module.exports = StrykerSequencer;
