// A separate process that writes a vault the way one kind of writer does, for the multi-process
// reliability tests. Prints one JSON line: {"ok", "failed", "errors": {message: count}}.
//   node writer-worker.js touch VAULT ID N           touch one memory N times (the built runner library)
//   node writer-worker.js human FILE N MARK          a person saving in place N times (truncate + one write),
//                                                    each save appending a line "MARK-i"
//   node writer-worker.js chunked FILE N MARK PAUSE  the same save in two write(2) calls PAUSE ms apart
//                                                    (shell redirection, rsync --inplace, a large buffer)
// A person's save is a read-modify-write without a lock: a touch that Engram completes between
// the person's read and their write is overwritten by the person's copy, which predates it.
// Nothing Engram does can see or prevent that (the person's editor takes no part in its locks),
// so the person's workers report `overwritten`: the access_count the note had just before each
// save minus the one the save wrote back, summed (read through the descriptor the save writes).
const fs = require('node:fs');
const path = require('node:path');

const accessCount = (text) => Number(/^access_count: (\d+)$/m.exec(text)?.[1] ?? 0);
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

async function main() {
  const [kind, ...a] = process.argv.slice(2);
  let ok = 0;
  let failed = 0;
  const errors = {};
  let overwritten = 0;
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
        const fd = fs.openSync(file, 'r+');
        overwritten += Math.max(0, accessCount(fs.readFileSync(fd, 'utf8')) - accessCount(text));
        fs.ftruncateSync(fd, 0);
        if (kind === 'human') fs.writeSync(fd, next, 0);
        else {
          const bytes = Buffer.from(next);
          const fence = bytes.indexOf('\n---\n') + 5;
          const cut = fence + Math.floor((bytes.length - fence) / 2);
          fs.writeSync(fd, bytes, 0, cut, 0);
          pause(Number(gap));
          fs.writeSync(fd, bytes, cut, bytes.length - cut, cut);
        }
        fs.closeSync(fd);
        ok++;
      } catch (error) {
        fail(error);
      }
      pause(2);
    }
  } else {
    throw new Error(`unknown kind ${kind}`);
  }
  process.stdout.write(`${JSON.stringify(kind === 'touch' ? { ok, failed, errors } : { ok, failed, errors, overwritten })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
