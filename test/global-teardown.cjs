// Removes the temporary folder global-setup.cjs made for this run (and whatever a test left in it).
const fs = require('node:fs');

module.exports = async () => {
  const dir = process.env.ENGRAM_TEST_OWNED_TMPDIR;
  if (dir && dir.startsWith('/dev/shm/engram-tests-')) fs.rmSync(dir, { recursive: true, force: true });
};
