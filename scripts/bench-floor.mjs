#!/usr/bin/env node
// A floor under a row of bench-cli: the least work that row's guarantee needs, in plain Node,
// timed as the rows are (a process of its own, against node -e 0 in the same rounds).
//   node scripts/bench-floor.mjs stat VAULT        every memory file's stat (a readdir of each
//     folder, a statSync of each .md): a cold recall or context sees an edit saved in place (which
//     changes no folder's mtime) only so
//   node scripts/bench-floor.mjs read VAULT        every memory file read whole (open, fstat, read,
//     close, UTF-8 decode): what a first recall without .engram/cache must do before any analysis
//   node scripts/bench-floor.mjs create VAULT OUT  every memory file written again into the new
//     folder OUT as an import writes a new note (a hidden temp file opened exclusively, its bytes,
//     futimes, fstat, close, link(2) to its name so that nothing is clobbered, unlink of the temp);
//     prints the loop's wall milliseconds, to set beside writeFileSync of the same files
// Folders whose names start with '.' (.engram, .obsidian, .git) are left out, as Engram does.
import { closeSync, fstatSync, futimesSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, unlinkSync, writeSync } from 'node:fs';

const [mode, vault, out] = process.argv.slice(2);
if (!['stat', 'read', 'create'].includes(mode) || !vault || (mode === 'create') !== Boolean(out)) {
  console.error('usage: bench-floor.mjs stat|read VAULT, or bench-floor.mjs create VAULT OUT');
  process.exit(2);
}

const files = [];
(function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const p = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(p);
    else if (entry.name.endsWith('.md')) files.push(p);
  }
})(vault);

if (mode === 'stat') {
  for (const p of files) statSync(p);
} else if (mode === 'read') {
  let chars = 0;
  for (const p of files) {
    const fd = openSync(p, 'r');
    const { size } = fstatSync(fd);
    const bytes = Buffer.allocUnsafe(size);
    readSync(fd, bytes, 0, size, 0);
    closeSync(fd);
    chars += bytes.toString('utf8').length;
  }
  if (chars === 0 && files.length > 0) throw new Error('read nothing');
} else {
  const texts = files.map((p) => readFileSync(p));
  mkdirSync(out);
  const start = process.hrtime.bigint();
  texts.forEach((bytes, i) => {
    const temp = `${out}/.f${i}.md.tmp`;
    const fd = openSync(temp, 'wx');
    writeSync(fd, bytes);
    futimesSync(fd, 1e9, 1e9);
    fstatSync(fd);
    closeSync(fd);
    linkSync(temp, `${out}/f${i}.md`);
    unlinkSync(temp);
  });
  console.log(JSON.stringify({ files: files.length, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
}
