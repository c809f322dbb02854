// Multi-process tests drive the built runner: build it once before the suite.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/**
 * The folder the tests' temporary vaults go in (os.tmpdir() reads TMPDIR): ENGRAM_TEST_TMPDIR
 * if set; on Linux, a fresh folder in /dev/shm when it is a memory file system with 2 GiB free
 * (tests write and remove tens of thousands of small files: on the 2-core machine's ext4 disk,
 * shared with other jobs, tier-ask's 10,000-note vault spent 54 s of its 97 s removing files
 * and 8.7 s of system CPU; in memory 37 s and 2.9 s, same load); else the system's (a small
 * /dev/shm, as Docker gives by default, is not used). Removed again by global-teardown.cjs.
 */
function testTmpdir() {
  if (process.env.ENGRAM_TEST_TMPDIR) return { dir: process.env.ENGRAM_TEST_TMPDIR, owned: false };
  if (process.platform !== 'linux') return null;
  try {
    const fsInfo = fs.statfsSync('/dev/shm');
    const TMPFS_MAGIC = 0x01021994;
    if (fsInfo.type !== TMPFS_MAGIC || fsInfo.bavail * fsInfo.bsize < 2 * 1024 ** 3) return null;
    return { dir: fs.mkdtempSync('/dev/shm/engram-tests-'), owned: true };
  } catch {
    return null;
  }
}

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
  const tmp = testTmpdir();
  if (tmp) {
    process.env.TMPDIR = tmp.dir;
    if (tmp.owned) process.env.ENGRAM_TEST_OWNED_TMPDIR = tmp.dir;
  }
  execFileSync(process.execPath, [path.join(root, 'esbuild.config.mjs')], { stdio: 'inherit', cwd: root });
  // The tiny BERT model for the embedding tests, written locally (nothing is downloaded).
  execFileSync(process.execPath, [path.join(__dirname, 'fixtures', 'make-tiny-bert.mjs'), path.join(root, '.work', 'test-models')], { stdio: 'ignore', cwd: root });
};
