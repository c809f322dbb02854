// `npm run bench:plugin` (and part of `npm run bench`): the plugin's in-memory index at 10,000
// memories, the code of src/plugin/memory-index.ts bundled as main.js bundles it.
//   node scripts/bench-plugin.mjs [--n 10000] [--runs 7]
//
// What opening recall costs in each state the index can be in: the plugin keeps one index and
// one recall engine while Obsidian runs, and follows each change Obsidian reports (the metadata
// cache's `changed` with the note's text). Opening recall is `index.engine()` (the modal itself
// is a few DOM nodes). Measured after each kind of change a person's or an agent's day makes, beside the
// full build the plugin did after every change before (the baseline, in the same run), and
// the issue's figure (0.9-1.4 s: catalog and index rebuilt at each opening). Also: applying one
// changed note to the index (what the status bar and the graph follow, O(changed)), the first
// query, and loading the index from the catalog when Obsidian starts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSource, root } from './bench-source.mjs';

const { values } = parseArgs({ options: { n: { type: 'string', default: '10000' }, runs: { type: 'string', default: '7' } } });
const N = Number(values.n);
const RUNS = Number(values.runs);
const NOW = '2026-11-29T12:00:00Z';
const ENGRAM = path.join(root, 'dist', 'engram.js');
const lib = await import(pathToFileURL(path.join(root, 'dist', 'lib.js')).href);
const { openVault } = lib.default ?? lib;

const work = mkdtempSync(path.join(tmpdir(), 'engram-bench-plugin-'));
const { MemoryIndex, partsFromDocs, RecallEngine, drawIds, creativeDraw } = await loadSource("export { MemoryIndex } from './src/plugin/memory-index'; export { drawIds } from './src/plugin/creative-draw'; export { creativeDraw } from './src/core/creative'; export { partsFromDocs, RecallEngine } from './src/core/recall/recall';", 'plugin-src');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = async (fn) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

let state = 7;
const rand = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
const word = () => vocabulary[Math.floor(vocabulary.length * rand() ** 3)];
const id = (i) => `mem-${i.toString(36).padStart(12, '0')}`;
const note = (i, { count = 0, co = {}, text, session = i % 3 === 0 ? null : `s${Math.floor(i / 20)}` } = {}) => {
  const at = new Date(Date.parse('2025-12-01T00:00:00Z') + Math.floor((i / N) * 360 * 86400e3)).toISOString().replace(/\.\d+Z$/, 'Z');
  const coLines = Object.entries(co).map(([k, v]) => `  ${k}: ${v}`).join('\n');
  return `---\nid: ${id(i)}\ncategory: episodic\ncreated_at: "${at}"\nlast_accessed_at: "${at}"\naccess_count: ${count}\nconfidence: observed\ntags: ["bench"]\n${session === null ? '' : `session: "${session}"\n`}${coLines ? `co_access:\n${coLines}\n` : ''}---\n${text ?? `Observation ${i}: ${Array.from({ length: 12 + Math.floor(rand() * 20) }, word).join(' ')}.`}\n`;
};

const dir = path.join(work, 'vault');
execFileSync(process.execPath, [ENGRAM, '--vault', dir, 'init']);
const texts = [];
for (let i = 0; i < N; i++) {
  const text = note(i, { co: i % 4 === 0 && i > 0 ? { [id(i - 1)]: 2 } : {} });
  writeFileSync(path.join(dir, 'episodic', `${id(i)}.md`), text);
  texts.push(text);
}
const { vault } = openVault({ vault: dir, now: NOW, cwd: root, env: {} });
const settings = vault.settings;
const load = [loadavg()[0]];

// the first start, as after installing the plugin or in a fresh clone (.engram/cache is not in
// git): no catalog, so every note is read and parsed and the catalog written, then the engine
// built: until recall can open (the issue's "first start at 10k without a catalog", 5.9 s)
const firstStarts = [];
for (let i = 0; i < 3; i++) {
  rmSync(path.join(dir, '.engram', 'cache'), { recursive: true, force: true });
  const fresh = new MemoryIndex(() => vault);
  firstStarts.push(await time(async () => {
    await fresh.load();
    fresh.engine();
  }));
}

// loading the index when Obsidian starts: the catalog cache built, then read
const loads = [];
for (let i = 0; i < 3; i++) {
  const index = new MemoryIndex(() => vault);
  loads.push(await time(() => index.load()));
}
const index = new MemoryIndex(() => vault);
await index.load();
const firstBuild = await time(() => index.engine());
const pathOf = (i) => `episodic/${id(i)}.md`;
const bodyOf = (i) => texts[i].slice(texts[i].indexOf('\n---\n') + 5).trim();
const queryOf = (i) => bodyOf(i).split(' ').slice(3, 7).join(' ');

// each kind of change, then opening recall (index.engine()), beside a full build of the same documents
const kinds = {
  'a touch (fields: access count, last access)': (i, r) => note(i, { count: r + 1, text: bodyOf(i) }),
  'a touch with new co-access': (i, r) => note(i, { count: r + 1, co: { [id((i + 17 * (r + 1)) % N)]: r + 1 }, text: bodyOf(i) }),
  'a new memory, no episode (remember)': (_i, r) => note(N + r, { session: null }),
  'a new memory joining an episode': (_i, r) => note(N + RUNS + r, { session: 's7' }),
  'an edited text, no episode': (i, r) => note(i, { text: `${bodyOf(i)} edited ${r} ${word()}` }),
  'an edited text in an episode': (i, r) => note(i, { text: `${bodyOf(i)} edited ${r} ${word()}` }),
};
// the memories a kind changes: with or without an episode (every third memory has none)
const pick = (kind, r) => {
  const i = 1 + ((r * 7919 + kind.length * 131) % (N - 6));
  if (kind.includes('no episode')) return i - (i % 3);
  if (kind.includes('in an episode')) return i % 3 === 0 ? i + 1 : i;
  return i;
};
const rows = [];
let changeMs = [];
for (const [kind, make] of Object.entries(kinds)) {
  const open = [];
  const full = [];
  for (let r = 0; r < RUNS; r++) {
    const i = pick(kind, r);
    const text = make(i, r);
    const at = kind.startsWith('a new') ? `episodic/${id(N + (kind.includes('joining') ? RUNS : 0) + r)}.md` : pathOf(i);
    changeMs.push(await time(() => index.changed(at, text)));
    open.push(await time(() => index.engine()));
    const docs = [...index.all()];
    full.push(await time(() => new RecallEngine(partsFromDocs(docs, settings), settings)));
  }
  rows.push([kind, median(open), median(full)]);
}
const engine = index.engine();
const queries = Array.from({ length: 50 }, (_, k) => queryOf((k * 7919) % N));
const queryMs = [];
for (const q of queries) queryMs.push(await time(() => engine.recall(q, { limit: 20 }, vault.now())));
load.push(loadavg()[0]);
rmSync(work, { recursive: true, force: true });

// opening creative recall (issue 21): before, every memory was read (loadAll) to draw 5 cards;
// now the draw runs over the warm index and only the 5 cards are read
const creativeNow = [];
const creativeBefore = [];
for (let r = 0; r < Math.max(3, Math.min(RUNS, 5)); r++) {
  creativeBefore.push(await time(async () => {
    // what loadAll does in the plugin (Obsidian's file port, no cache): every file read and parsed
    const memories = [];
    for (const doc of index.all()) {
      const read = await vault.read(doc.path).catch(() => null);
      if (read) memories.push(read.memory);
    }
    creativeDraw(memories, 5, vault.now(), Math.random, settings);
  }));
  creativeNow.push(await time(async () => {
    for (const drawn of drawIds([...index.all()], 5, vault.now(), Math.random, settings)) await vault.read(index.get(drawn).path).catch(() => null);
  }));
}
const f = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
console.log(`\nPlugin index at ${N.toLocaleString('en')} memories (${RUNS} changes of each kind, medians, ms); load average ${load.map((l) => l.toFixed(1)).join(' -> ')}`);
console.log('| opening recall after | now | full rebuild (before, same run) | ratio | before (issue) |\n|---|---|---|---|---|');
for (const [kind, open, full] of rows) console.log(`| ${kind} | ${f(open)} | ${f(full)} | ${(full / open).toFixed(0)}x | 900-1,400 |`);
console.log(`| nothing (engine warm) | ${f(await time(() => index.engine()))} | - | - | 900-1,400 |`);
console.log(`\n| figure | ms |\n|---|---|`);
console.log(`| one changed note applied to the index (status bar, graph, sidebar follow it) | ${f(median(changeMs))} |`);
console.log(`| first engine build after start | ${f(firstBuild)} |`);
console.log(`| a query (20 results) | ${f(median(queryMs))} |`);
console.log(`| first start without a catalog: every note read, the catalog written, the engine built (median of 3) | ${f(median(firstStarts))} |`);
console.log(`| index loaded from the catalog at start (median of 3) | ${f(median(loads))} |`);
console.log(`| creative recall opened: draw over the index + 5 cards read (now) | ${f(median(creativeNow))} |`);
console.log(`| creative recall opened: every memory read, then drawn (before, same run) | ${f(median(creativeBefore))} (${(median(creativeBefore) / median(creativeNow)).toFixed(0)}x) |`);
