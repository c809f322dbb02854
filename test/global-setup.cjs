// Multi-process tests drive the built runner: build it once before the suite.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async () => {
  const root = path.join(__dirname, '..');
  execFileSync(process.execPath, [path.join(root, 'esbuild.config.mjs')], { stdio: 'inherit', cwd: root });
  // The tiny BERT model for the embedding tests, written locally (nothing is downloaded).
  execFileSync(process.execPath, [path.join(__dirname, 'fixtures', 'make-tiny-bert.mjs'), path.join(root, '.work', 'test-models')], { stdio: 'ignore', cwd: root });
};
