// Stryker's test environment (jest.stryker.cjs): a mutant's run stops at its first failing test.
//
// Stryker's jest runner runs each mutant as one jest run of every test that covers it, and jest
// cannot bail from a programmatic run (the runner forces `bail: false`). With the headless tests
// in the set, a mutant of a function every command calls is covered by hundreds of tests in
// dozens of files, all run although the first failure already decides: Killed. So once a test or
// hook fails under the active mutant, every later test of the run is skipped (its hooks too, in
// files not yet started). A mutant's status is the same (Killed at the first failure, Survived
// only when every covering test passes, which no skip touches); only its killedBy list is
// shorter. Runs without an active mutant (the dry run) are not affected.
const { TestEnvironment } = require('jest-environment-node');

const ACTIVE = '__STRYKER_ACTIVE_MUTANT__';
// the mutant whose run has seen a failure; the runner runs jest in band, so process.env is
// shared by every test file of the run (and a later mutant's id differs)
const FAILED = 'ENGRAM_STRYKER_FAILED';

function skipAll(block) {
  for (const child of block.children ?? []) {
    if (child.type === 'test') child.mode = 'skip';
    else skipAll(child);
  }
}

class StrykerBailEnvironment extends TestEnvironment {
  async handleTestEvent(event, state) {
    const mutant = process.env[ACTIVE];
    if (!mutant) return;
    const failed = process.env[FAILED] === mutant;
    // an afterAll that fails once the mutant has failed a test (a cleanup of what a failed beforeAll
    // never made) is not a second finding: jest would report it as the file failing to run, which
    // Stryker reads as a RuntimeError (left out of the score) rather than the kill it follows
    if (failed && event.name === 'hook_failure' && event.hook?.type === 'afterAll') {
      const last = state.unhandledErrors.at(-1);
      if (last && (last === event.error || last[0] === event.error)) state.unhandledErrors.pop();
      return;
    }
    if (event.name === 'test_fn_failure' || event.name === 'hook_failure') process.env[FAILED] = mutant;
    else if (failed && event.name === 'run_start') skipAll(state.rootDescribeBlock);
    // (a test that carries errors already, those of a failed beforeAll, runs to report them)
    else if (failed && event.name === 'test_start' && event.test.errors.length === 0) event.test.mode = 'skip';
  }
}

module.exports = StrykerBailEnvironment;
