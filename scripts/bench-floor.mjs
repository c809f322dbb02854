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
//   node scripts/bench-floor.mjs plan BEFORE AFTER PLAN   (not a floor: bench-cli makes the plan
//     unmeasured) writes PLAN, the memory files a consolidation changed between a copy of the vault
//     BEFORE it and the vault AFTER it: moves (the same bytes under the same name in another
//     folder), files written (new or with other bytes) and files removed
//   node scripts/bench-floor.mjs replay VAULT PLAN  makes those changes in VAULT (a copy of BEFORE)
//     as a consolidation must at least: every memory file read whole (it decides from their
//     words), each move an open and fstat of the file (it is still what was read) then link(2) to
//     its new name and unlink of the old, each write a hidden temp file opened exclusively, its
//     bytes, fstat, close and rename; no parsing, no planning, no log or cache
// Folders whose names start with '.' (.engram, .obsidian, .git) are left out, as Engram does.
import { closeSync, fstatSync, futimesSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';

const [mode, vault, out, third] = process.argv.slice(2);
const arity = { stat: 1, read: 1, create: 2, replay: 2, plan: 3 }[mode];
if (!arity || [vault, out, third].filter(Boolean).length !== arity) {
  console.error('usage: bench-floor.mjs stat|read VAULT, bench-floor.mjs create VAULT OUT, bench-floor.mjs plan BEFORE AFTER PLAN, or bench-floor.mjs replay VAULT PLAN');
  process.exit(2);
}

/** The vault's memory files, as paths relative to it, sorted (plans come out the same on any file system). */
function memoryFiles(root) {
  const found = [];
  (function walk(dir) {
    for (const entry of readdirSync(`${root}${dir}`, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const p = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.md')) found.push(p);
    }
  })('');
  return found.sort();
}

/** Every memory file of ROOT read whole and decoded, as a recall or consolidation reads it. */
function readAll(root) {
  let chars = 0;
  for (const p of memoryFiles(root)) {
    const fd = openSync(root + p, 'r');
    const { size } = fstatSync(fd);
    const bytes = Buffer.allocUnsafe(size);
    readSync(fd, bytes, 0, size, 0);
    closeSync(fd);
    chars += bytes.toString('utf8').length;
  }
  return chars;
}

const files = mode === 'plan' || mode === 'replay' ? [] : memoryFiles(vault).map((p) => vault + p);

if (mode === 'stat') {
  for (const p of files) statSync(p);
} else if (mode === 'read') {
  if (readAll(vault) === 0 && files.length > 0) throw new Error('read nothing');
} else if (mode === 'plan') {
  const [before, after, plan] = [vault, out, third];
  const was = new Set(memoryFiles(before));
  const byName = new Map([...was].map((p) => [p.slice(p.lastIndexOf('/') + 1), p]));
  const moves = [];
  const writes = [];
  const kept = new Set();
  for (const p of memoryFiles(after)) {
    const bytes = readFileSync(after + p);
    const from = was.has(p) ? p : byName.get(p.slice(p.lastIndexOf('/') + 1));
    const same = from !== undefined && bytes.equals(readFileSync(before + from));
    // a file written under another name (moved with new bytes) leaves its old name removed
    if (from !== undefined && (same || from === p)) kept.add(from);
    if (same && from !== p) moves.push([from, p]);
    else if (!same) writes.push([p, bytes.toString('base64')]);
  }
  const removes = [...was].filter((p) => !kept.has(p));
  writeFileSync(plan, JSON.stringify({ moves, writes, removes }));
  console.log(JSON.stringify({ files: was.size, moves: moves.length, writes: writes.length, removes: removes.length }));
} else if (mode === 'replay') {
  const { moves, writes, removes } = JSON.parse(readFileSync(out, 'utf8'));
  if (readAll(vault) === 0) throw new Error('read nothing');
  for (const [from, to] of moves) {
    const fd = openSync(vault + from, 'r');
    fstatSync(fd);
    closeSync(fd);
    mkdirSync(vault + to.slice(0, to.lastIndexOf('/')), { recursive: true });
    linkSync(vault + from, vault + to);
    unlinkSync(vault + from);
  }
  writes.forEach(([p, base64], i) => {
    const temp = `${vault}/.floor-${i}.tmp`;
    const fd = openSync(temp, 'wx');
    writeSync(fd, Buffer.from(base64, 'base64'));
    fstatSync(fd);
    closeSync(fd);
    mkdirSync(vault + p.slice(0, p.lastIndexOf('/')), { recursive: true });
    renameSync(temp, vault + p);
  });
  for (const p of removes) unlinkSync(vault + p);
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
