// Multi-process tests drive the built runner: build it once before the suite.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async () => {
  execFileSync(process.execPath, [path.join(__dirname, '..', 'esbuild.config.mjs')], { stdio: 'inherit', cwd: path.join(__dirname, '..') });
};
