// `node scripts/bench-reembed.mjs [--n 10000] [--runs 5]` (issue 21): what re-embedding costs when
// few or no texts changed, before and after it stopped reading every memory, in the same run.
//   before: loadAll + updateVectors over every memory's text (what `engram reembed` and the
//           plugin's "Embed memories again" did): every file read and parsed;
//   after (CLI): the catalog (cache; only changed files parsed) + refreshVectors, which reads
//           only the memories whose text hash differs from their stored vector's;
//   after (plugin): refreshVectors over the warm index's documents (no catalog load).
// The embedder is a fake (64 dimensions from the text's characters): the figures are the reading,
// hashing and vector-file work, not a model's. Medians of --runs; memory files read counted.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSource, root } from './bench-source.mjs';

const { values } = parseArgs({ options: { n: { type: 'string', default: '10000' }, runs: { type: 'string', default: '5' } } });
const N = Number(values.n);
const RUNS = Number(values.runs);
const NOW = '2026-11-29T12:00:00Z';
const ENGRAM = path.join(root, 'dist', 'engram.js');
const lib = await import(pathToFileURL(path.join(root, 'dist', 'lib.js')).href);
const { openVault } = lib.default ?? lib;

const work = mkdtempSync(path.join(tmpdir(), 'engram-bench-reembed-'));
const { updateVectors, refreshVectors, loadCatalog, memoryText, MemoryIndex } = await loadSource("export { updateVectors, refreshVectors } from './src/core/embeddings/store'; export { loadCatalog } from './src/core/recall/catalog'; export { memoryText } from './src/core/memory'; export { MemoryIndex } from './src/plugin/memory-index';", 'reembed-src');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = async (fn) => {
  const t = process.hrtime.bigint();
  const out = await fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, out];
};
let state = 11;
const rand = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
const word = () => vocabulary[Math.floor(vocabulary.length * rand() ** 3)];
const id = (i) => `mem-${i.toString(36).padStart(12, '0')}`;
const note = (i, text) => `---\nid: ${id(i)}\ncategory: episodic\ncreated_at: "2026-01-01T00:00:00Z"\nlast_accessed_at: "2026-01-01T00:00:00Z"\naccess_count: 0\ntags: ["bench"]\n---\n${text}\n`;
const embedder = {
  model: 'fake:64',
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(64);
      for (let j = 0; j < t.length; j++) v[j % 64] += t.charCodeAt(j) % 13;
      return v;
    });
  },
};

const dir = path.join(work, 'vault');
execFileSync(process.execPath, [ENGRAM, '--vault', dir, 'init']);
const fileOf = (i) => path.join(dir, 'episodic', `${id(i)}.md`);
for (let i = 0; i < N; i++) writeFileSync(fileOf(i), note(i, `Observation ${i}: ${Array.from({ length: 12 + Math.floor(rand() * 20) }, word).join(' ')}.`));
const { vault } = openVault({ vault: dir, now: NOW, cwd: root, env: {} });
let reads = 0;
const read = vault.ports.files.read.bind(vault.ports.files);
vault.ports.files.read = async (p, o) => {
  if (p.endsWith('.md')) reads++;
  return read(p, o);
};
const load = [loadavg()[0]];
await loadCatalog(vault); // the catalog cache, as after any command
const index = new MemoryIndex(() => vault);
await index.load();
{
  const { memories } = await vault.loadAll();
  await updateVectors(vault, memories.map((m) => ({ id: m.id, text: memoryText(m) })), embedder);
}

const ways = {
  'before: loadAll + updateVectors': async () => {
    const { memories } = await vault.loadAll();
    return updateVectors(vault, memories.map((m) => ({ id: m.id, text: memoryText(m) })), embedder);
  },
  'after, CLI: catalog + refreshVectors': async () => refreshVectors(vault, (await loadCatalog(vault)).docs, embedder),
  'after, plugin: warm index + refreshVectors': async () => refreshVectors(vault, [...index.all()], embedder),
};
const rows = [];
for (const changed of [0, 10]) {
  const results = Object.fromEntries(Object.keys(ways).map((k) => [k, { ms: [], reads: [], embedded: [] }]));
  for (let r = 0; r < RUNS; r++) {
    for (const [name, run] of Object.entries(ways)) {
      // the same change before each way: `changed` texts edited (the index told of them, as Obsidian's metadata cache does)
      for (let k = 0; k < changed; k++) {
        const i = (r * 7919 + k * 104729 + name.length * 31) % N;
        const text = note(i, `Observation ${i} edited ${r} ${name.length} ${k}: ${word()} ${word()}.`);
        writeFileSync(fileOf(i), text);
        index.changed(`episodic/${id(i)}.md`, text);
      }
      reads = 0;
      const [ms, report] = await time(run);
      results[name].ms.push(ms);
      results[name].reads.push(reads);
      results[name].embedded.push(report.embedded);
    }
  }
  for (const [name, r] of Object.entries(results)) rows.push([changed, name, median(r.ms), median(r.reads), median(r.embedded)]);
}
load.push(loadavg()[0]);
rmSync(work, { recursive: true, force: true });
console.log(`\nRe-embed at ${N.toLocaleString('en')} memories (fake 64-dimension embedder), medians of ${RUNS}, ms; load average ${load.map((l) => l.toFixed(1)).join(' -> ')}`);
console.log('| texts changed | way | ms | memory files read | embedded | × before |\n|---:|---|---:|---:|---:|---:|');
for (const [changed, name, ms, files, embedded] of rows) {
  const before = rows.find((r) => r[0] === changed && r[1].startsWith('before'))[2];
  console.log(`| ${changed} | ${name} | ${ms.toFixed(0)} | ${files} | ${embedded} | ${(ms / before).toFixed(2)} |`);
}
