/**
 * The order test files start in: the longest first, so that no long file starts late and leaves
 * the other worker idle at the end (a two-worker run's wall is at least its last file's start
 * plus its time).
 *
 * Jest's own sequencer does this only from its cache of the last run's times; a fresh checkout
 * (CI, a new clone, another cache folder) has none, and then jest orders by file size. The git
 * soak (three-clones.test.ts: 2 KB, 35 s quiet) then started last and ran alone for its whole
 * time. Here a file's time is the cache's when jest has one, else the one in test/durations.json
 * (seconds, from a full run: `node scripts/test-durations.mjs RUN.json` writes it from
 * `jest --json --outputFile=RUN.json`), else one second. Files that failed last time still come
 * first, as in jest's.
 */
const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');
const durations = require('./durations.json');

const UNKNOWN_MS = 1000;

class LongestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const rel = path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
    const known = durations[rel];
    return known == null ? UNKNOWN_MS : known * 1000;
  }

  sort(tests) {
    const timed = tests.map((test) => ({ test, failed: this.hasFailed(test), ms: this.time(test) }));
    timed.sort((a, b) => (a.failed !== b.failed ? (a.failed ? -1 : 1) : b.ms - a.ms || (a.test.path < b.test.path ? -1 : 1)));
    return timed.map(({ test, ms }) => Object.assign(test, { duration: ms }));
  }
}

module.exports = LongestFirst;
