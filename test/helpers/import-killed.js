// `engram import` in a process that dies (SIGKILL, as a crash or kill -9) just before it places
// its Nth memory file: a fault hook on fs.linkSync, through which the file port creates each new
// file (a temp file linked into place). The kill comes at the same point however fast the
// machine is, with N - 1 memories placed and the Nth one's temp file left behind.
//   node import-killed.js VAULT FILE NOW N
const fs = require('node:fs');
const path = require('node:path');

const [vault, file, now, n] = process.argv.slice(2);
let placed = 0;
const linkSync = fs.linkSync;
fs.linkSync = (from, to) => {
  if (/[\\/]episodic[\\/][^\\/]+\.md$/.test(String(to)) && ++placed === Number(n)) process.kill(process.pid, 'SIGKILL');
  return linkSync(from, to);
};
const { runCli } = require(path.join(__dirname, '..', '..', 'dist', 'lib.js'));
runCli(['--vault', vault, '--now', now, 'import', file], { stdout: () => {}, stderr: (t) => process.stderr.write(t), readStdin: () => '', stdinIsTTY: true, cwd: process.cwd(), env: {} }).then((code) => process.exit(code));
