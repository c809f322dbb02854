// A separate process that writes a vault the way one kind of writer does, for the multi-process
// reliability tests. Prints one JSON line: {"ok", "failed", "errors": {message: count}}.
//   node writer-worker.js touch VAULT ID N           touch one memory N times (the built runner library)
//   node writer-worker.js human FILE N MARK          a person saving in place N times (truncate + one write),
//                                                    each save appending a line "MARK-i"
//   node writer-worker.js chunked FILE N MARK PAUSE  the same save in two write(2) calls PAUSE ms apart
//                                                    (shell redirection, rsync --inplace, a large buffer)
const fs = require('node:fs');
const path = require('node:path');

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

async function main() {
  const [kind, ...a] = process.argv.slice(2);
  let ok = 0;
  let failed = 0;
  const errors = {};
  const fail = (error) => {
    failed++;
    const key = String(error && error.message).replace(/mem-[a-z0-9]{12}/g, 'mem-X').slice(0, 120);
    errors[key] = (errors[key] || 0) + 1;
  };
  if (kind === 'touch') {
    const lib = require(path.join(__dirname, '..', '..', 'dist', 'lib.js'));
    const [vault, id, n] = a;
    const { vault: v } = lib.openVault({ vault, cwd: process.cwd(), env: {} });
    for (let i = 0; i < Number(n); i++) {
      try {
        await lib.useMemories(v, [id], { use: 'read', touch: true, coAccess: false });
        ok++;
      } catch (error) {
        fail(error);
      }
    }
  } else if (kind === 'human' || kind === 'chunked') {
    const [file, n, mark, gap] = a;
    for (let i = 1; i <= Number(n); i++) {
      try {
        const text = fs.readFileSync(file, 'utf8');
        if (!/\n---\n/.test(text)) throw new Error('the person read a torn file');
        const next = text.replace(/\n?$/, `\n${mark}-${i}\n`);
        if (kind === 'human') fs.writeFileSync(file, next);
        else {
          const fence = next.indexOf('\n---\n') + 5;
          const cut = fence + Math.floor((next.length - fence) / 2);
          const fd = fs.openSync(file, 'w');
          fs.writeSync(fd, next.slice(0, cut));
          pause(Number(gap));
          fs.writeSync(fd, next.slice(cut));
          fs.closeSync(fd);
        }
        ok++;
      } catch (error) {
        fail(error);
      }
      pause(2);
    }
  } else {
    throw new Error(`unknown kind ${kind}`);
  }
  process.stdout.write(`${JSON.stringify({ ok, failed, errors })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
