// Multi-process tests drive the built runner: build it once before the suite.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async () => {
  const root = path.join(__dirname, '..');
  // Git in every test (in process, in workers, in the processes they start) reads no
  // configuration of this machine: no init.defaultBranch, identity, hooks or signing from it.
  // Set here, before jest starts its workers, so they inherit it.
  Object.assign(process.env, {
    GIT_CONFIG_GLOBAL: path.join(__dirname, 'fixtures', 'gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
  });
  execFileSync(process.execPath, [path.join(root, 'esbuild.config.mjs')], { stdio: 'inherit', cwd: root });
  // The tiny BERT model for the embedding tests, written locally (nothing is downloaded).
  execFileSync(process.execPath, [path.join(__dirname, 'fixtures', 'make-tiny-bert.mjs'), path.join(root, '.work', 'test-models')], { stdio: 'ignore', cwd: root });
};
