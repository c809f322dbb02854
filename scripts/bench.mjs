// `npm run bench`: performance figures for the runner, each beside a baseline measured in the
// same run (the machine is shared and noisy: medians, and ratios against the baseline).
//   node scripts/bench.mjs [--size 10000] [--runs 7] [--compare OTHER/dist/lib.js]
// --compare: in-process recall of another build (an older checkout, built) on the same
// documents and queries, timed in alternation with this one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { rng, zipfSampler } from './zipf.mjs';
const require = createRequire(import.meta.url);

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const lib = await import(path.join(root, 'dist', 'lib.js'));
const { openVault, useMemories, describeMemory, openRecall, RecallEngine, toRecallDoc, resolveSettings, parseMemory, TransformersEmbedder, searchVectors, naiveSearch, lexicalPairs, exhaustivePairs, setCosine, clustersOf, analyze } = lib.default ?? lib;
const MiniSearch = (await import('minisearch')).default;
const stem = (await import('wink-porter2-stemmer')).default;
const ENGRAM = path.join(root, 'dist', 'engram.js');

const { values } = parseArgs({ options: { size: { type: 'string', default: '10000' }, runs: { type: 'string', default: '7' }, compare: { type: 'string' } } });
const other = values.compare ? await import(path.resolve(values.compare)) : null;
const SIZE = Number(values.size);
const RUNS = Number(values.runs);
const NOW = '2026-11-29T12:00:00Z';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const time = async (fn) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
async function sample(fn, runs = RUNS) {
  const out = [];
  for (let i = 0; i < runs; i++) out.push(await time(fn));
  return out;
}

// A deterministic synthetic corpus: agent observations over a year, in sessions of 20, words
// drawn from a Zipf distribution over a 5,000-word vocabulary (as in natural text: a few
// words in most texts, most words rare).
function corpus(n) {
  const rand = rng(42);
  const domain = 'auth session token retry timeout ledger balance refund webhook outbox worker partner migration index query cache redis postgres deploy rollback test flaky lint review logger pino console money cents currency fx rate limit api schema enum report settlement job cron queue kafka latency pool drain signature hmac body json parse config flag'.split(' ');
  const vocabulary = Array.from({ length: 5000 }, (_, i) => (i < domain.length ? domain[i] : `term${i.toString(36)}`));
  const zipf = zipfSampler(rand, vocabulary);
  const lines = [];
  const start = Date.parse('2025-12-01T00:00:00Z');
  for (let i = 0; i < n; i++) {
    const len = 12 + Math.floor(rand() * 20);
    const text = Array.from({ length: len }, zipf).join(' ');
    lines.push(JSON.stringify({
      text: `Observation ${i}: ${text}.`,
      created_at: new Date(start + Math.floor((i / n) * 360 * 86400e3)).toISOString(),
      tags: [domain[i % domain.length]],
      session: `s${Math.floor(i / 20)}`,
      source: `bench-${i}`,
    }));
  }
  return lines.join('\n') + '\n';
}

const work = mkdtempSync(path.join(tmpdir(), 'engram-bench-'));
const vaultDir = path.join(work, 'vault');
const rows = [];
let k = 0;
try {
  execFileSync(process.execPath, [ENGRAM, '--vault', vaultDir, 'init']);
  const jsonl = corpus(SIZE);
  const { vault } = openVault({ vault: vaultDir, now: NOW, cwd: root, env: {} });

  // import: the whole pipeline (parse, resonance, session links, atomic writes) vs writing
  // the same number of files of the same size with writeFileSync.
  const jsonlPath = path.join(work, 'bench.jsonl');
  writeFileSync(jsonlPath, jsonl);
  const importMs = await time(() => execFileSync(process.execPath, [ENGRAM, '--vault', vaultDir, '--now', NOW, 'import', jsonlPath]));
  const files = readdirSync(path.join(vaultDir, 'episodic'));
  const texts = files.map((f) => readFileSync(path.join(vaultDir, 'episodic', f), 'utf8'));
  const plainDir = path.join(work, 'plain');
  mkdirSync(plainDir);
  const plainWriteMs = await time(() => texts.forEach((t, i) => writeFileSync(path.join(plainDir, `f${i}.md`), t)));
  rows.push([`engram import of ${SIZE} JSONL lines (CLI process)`, importMs, plainWriteMs, 'writeFileSync of the same files']);

  // loading the vault: read + parse + validate every memory vs reading the bytes only.
  const loadRuns = await sample(async () => {
    const loaded = await vault.loadAll();
    if (loaded.memories.length !== files.length) throw new Error(`loaded ${loaded.memories.length}`);
  });
  const readRuns = await sample(() => files.forEach((f) => readFileSync(path.join(vaultDir, 'episodic', f))));
  rows.push([`load ${files.length} memories (read, parse, validate)`, median(loadRuns), median(readRuns), 'readFileSync of the same files']);

  // show and touch in process, and as CLI processes vs an empty node process.
  // a memory's id is its frontmatter's (file names are readable titles since issue 21)
  const ids = texts.slice(0, 200).map((text) => /^id: "?([^"\n]+)"?$/m.exec(text)[1]);
    const showIn = await sample(async () => describeMemory(await vault.resolve(ids[k++ % ids.length]), vault.now(), vault.settings), 200);
  const touchIn = await sample(async () => useMemories(vault, [ids[k++ % ids.length]], { use: 'read', touch: true, coAccess: false }), 200);
  const nodeEmpty = await sample(() => execFileSync(process.execPath, ['-e', '0']), 15);
  const showCli = await sample(() => execFileSync(process.execPath, [ENGRAM, '--vault', vaultDir, '--now', NOW, 'show', ids[k++ % ids.length]]), 15);
  const touchCli = await sample(() => execFileSync(process.execPath, [ENGRAM, '--vault', vaultDir, '--now', NOW, 'touch', ids[k++ % ids.length]]), 15);
  rows.push(['show, in process (p50)', median(showIn), null, `p95 ${p95(showIn).toFixed(2)} ms`]);
  rows.push(['touch, in process (p50)', median(touchIn), null, `p95 ${p95(touchIn).toFixed(2)} ms, includes spreading to linked memories`]);
  rows.push(['engram show, CLI process (p50)', median(showCli), median(nodeEmpty), 'node -e 0']);
  rows.push(['engram touch, CLI process (p50)', median(touchCli), median(nodeEmpty), 'node -e 0']);

  // recall: cold CLI processes (the first one builds the catalog cache), and in process.
  const queries = Array.from({ length: 200 }, (_, i) => JSON.parse(jsonl.split('\n')[(i * 37) % SIZE]).text.split(' ').slice(2, 6).join(' '));
  const firstRecall = await time(() => execFileSync(process.execPath, [ENGRAM, '--vault', vaultDir, '--now', NOW, 'recall', queries[0], '--radius', 'all']));
  const coldRecall = await sample(() => execFileSync(process.execPath, [ENGRAM, '--vault', vaultDir, '--now', NOW, '--json', 'recall', queries[k++ % queries.length], '--radius', 'all']), 15);
  rows.push([`engram recall, first CLI run at ${SIZE} (builds the catalog cache)`, firstRecall, median(nodeEmpty), 'node -e 0']);
  // The same cold start for the baseline: a node process that loads a saved minisearch index
  // of the same memories and searches it.
  const msIndex = new MiniSearch({ fields: ['text'], idField: 'id', processTerm: (w) => stem(w.toLowerCase()) });
  msIndex.addAll(texts.map((t, i) => ({ id: i, text: t.slice(t.indexOf('\n---\n') + 5) })));
  const msPath = path.join(work, 'minisearch.json');
  writeFileSync(msPath, JSON.stringify(msIndex));
  const msScript = `const M=require(${JSON.stringify(require.resolve('minisearch'))});const s=require(${JSON.stringify(require.resolve('wink-porter2-stemmer'))});` +
    `const i=M.loadJSON(require('fs').readFileSync(process.argv[1],'utf8'),{fields:['text'],idField:'id',processTerm:(w)=>s(w.toLowerCase())});console.log(JSON.stringify(i.search(process.argv[2]).slice(0,12)))`;
  const coldBaseline = await sample(() => execFileSync(process.execPath, ['-e', msScript, msPath, queries[k++ % queries.length]]), 15);
  rows.push([`engram recall, cold CLI process at ${SIZE} (p50)`, median(coldRecall), median(coldBaseline), 'node + minisearch.loadJSON of the same memories + search']);
  rows.push([`  the same, against an empty node process`, median(coldRecall), median(nodeEmpty), 'node -e 0']);
  const memoryTexts = texts;
  await recallInProcess(`${SIZE}`, memoryTexts, queries);
  // Embeddings: throughput of the real transformers.js path on the locally generated tiny
  // BERT model (its speed says nothing about a real model's), and vector seed search at
  // 10k and 100k x 384 beside a naive loop (one dot product at a time, then a full sort).
  const models = path.join(work, 'models');
  execFileSync(process.execPath, [path.join(root, 'test', 'fixtures', 'make-tiny-bert.mjs'), models], { stdio: 'ignore' });
  const embedder = new TransformersEmbedder({ model: 'engram/tiny-bert', allowRemoteModels: false, localModelPath: models, quantized: true, batchSize: 32 });
  const sample500 = texts.slice(0, 500).map((t) => t.slice(t.indexOf('\n---\n') + 5));
  await embedder.embed(sample500.slice(0, 32));
  const embedMs = await time(() => embedder.embed(sample500));
  rows.push(['embedding throughput, tiny fixture model (texts/s)', 500 / (embedMs / 1000), null, `${embedMs.toFixed(0)} ms for 500 texts, batches of 32`]);
  for (const n of [10_000, 100_000]) {
    let state = 9;
    const rand = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const unit = () => {
      const v = Float32Array.from({ length: 384 }, rand);
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const vectors = new Float32Array(n * 384);
    for (let r = 0; r < n; r++) vectors.set(unit(), r * 384);
    const stored = { model: 'bench', dimensions: 384, ids: Array.from({ length: n }, (_, i) => `m${i}`), hashes: [], vectors };
    const qs = Array.from({ length: 20 }, unit);
    let qi = 0;
    const fast = await sample(() => searchVectors(stored, qs[qi++ % qs.length], 12), 30);
    const slow = await sample(() => naiveSearch(stored, qs[qi++ % qs.length], 12), n > 10_000 ? 7 : 30);
    rows.push([`vector seed search, ${n} x 384, top 12, p50`, median(fast), median(slow), 'naive loop + full sort']);
  }

  // Consolidation: the whole CLI run on the 10k vault (lexical clustering, no embedder), then
  // lexical clustering alone beside the exhaustive pairwise method where it finishes. Vector
  // clustering and consolidation at 10k / 100k with cached vectors: scripts/bench-consolidate.mjs.
  const consolidateMs = await time(() => execFileSync(process.execPath, [ENGRAM, '--vault', vaultDir, '--now', NOW, 'consolidate']));
  rows.push([`engram consolidate, ${SIZE} memories, lexical (CLI process)`, consolidateMs, null, 'prune, tiers, clusters, log']);
  const bodyTerms = texts.map((t) => new Set(analyze(t.slice(t.indexOf('\n---\n') + 5)).terms));
  for (const n of [2000, 10_000]) {
    const sets = Array.from({ length: n }, (_, i) => bodyTerms[i % bodyTerms.length]);
    const fastMs = await time(() => clustersOf(n, lexicalPairs(sets, 0.6), 3));
    const slowMs = n <= 2000 ? await time(() => clustersOf(n, exhaustivePairs(n, (a, b) => setCosine(sets[a], sets[b]), 0.6), 3)) : null;
    rows.push([`lexical clustering of ${n} episodes (threshold 0.6)`, fastMs, slowMs, slowMs === null ? 'exhaustive: not run at this size' : 'exhaustive pairwise']);
  }
  // 100k: the engine over in-memory documents (the same synthetic text, ids renumbered).
  const big = Array.from({ length: 100_000 }, (_, i) => texts[i % texts.length].replace(/^id: mem-[a-z0-9]{12}$/m, `id: mem-${String(i).padStart(12, '0')}`));
  await recallInProcess('100000', big, queries);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * In-process recall p50/p95 beside minisearch (BM25, stop words + Porter2) on the same texts;
 * plain recall (no radius: it widens by itself) beside the strict default radius, which is
 * what widening costs; with --compare, the other build on the same documents and queries.
 */
async function recallInProcess(label, noteTexts, queries) {
  const settings = resolveSettings(undefined);
  const docsOf = (l) => {
    const s = l.resolveSettings(undefined);
    return noteTexts.map((t) => {
      const id = /^id: (mem-[a-z0-9]{12})$/m.exec(t)[1];
      return l.toRecallDoc(l.parseMemory(`episodic/${id}.md`, t, s), false);
    });
  };
  const docs = docsOf(lib.default ?? lib);
  const buildMs = await time(() => new RecallEngine(docs, settings));
  const engine = new RecallEngine(docs, settings);
  const now = Date.parse(NOW);
  for (const q of queries.slice(0, 20)) engine.recall(q, { limit: 12, radius: 'all' }, now);
  const ours = await sample(() => engine.recall(queries[k++ % queries.length], { limit: 12, radius: 'all' }, now), 200);
  // plain recall and the strict default radius, alternating 40 queries at a time
  const variants = [['plain', engine, {}], ['default', engine, { radius: 'default' }], ['all', engine, { radius: 'all' }]];
  if (other) {
    const l = other.default ?? other;
    const before = new l.RecallEngine(docsOf(l), l.resolveSettings(undefined));
    variants.push(['before default', before, { radius: 'default' }], ['before all', before, { radius: 'all' }]);
  }
  const times = Object.fromEntries(variants.map(([name]) => [name, []]));
  for (const [, e, o] of variants) for (const q of queries.slice(0, 20)) e.recall(q, { limit: 12, ...o }, now);
  for (let round = 0; round < 5; round++) {
    for (const [name, e, o] of variants) {
      for (let i = 0; i < 40; i++) times[name].push(await time(() => e.recall(queries[(round * 40 + i) % queries.length], { limit: 12, ...o }, now)));
    }
  }
  rows.push([`recall in process at ${label}, plain (no --radius), p50`, median(times.plain), median(times.default), '--radius default (strict), same run: what widening costs']);
  if (other) {
    rows.push([`recall in process at ${label}, --radius all, p50`, median(times.all), median(times['before all']), `--radius all of ${values.compare}`]);
    rows.push([`recall in process at ${label}, plain (no --radius), p50`, median(times.plain), median(times['before default']), `the same question before (--radius default was the default) of ${values.compare}`]);
  }
  const STOP = new Set('a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '));
  const ms = new MiniSearch({ fields: ['text'], idField: 'id', processTerm: (w) => (STOP.has(w.toLowerCase()) ? null : stem(w.toLowerCase())) });
  ms.addAll(docs.map((d) => ({ id: d.id, text: d.text })));
  for (const q of queries.slice(0, 20)) ms.search(q);
  const theirs = await sample(() => ms.search(queries[k++ % queries.length]).slice(0, 12), 200);
  rows.push([`recall in process at ${label}, p50 (engine built in ${buildMs.toFixed(0)} ms)`, median(ours), median(theirs), 'minisearch search p50']);
  rows.push([`recall in process at ${label}, p95`, p95(ours), p95(theirs), 'minisearch search p95']);
  // The engine as it was before dates and entities (issue 16): no facets indexed, their weights
  // 0. Interleaved query by query with the current one, so both see the same machine load.
  const before = new RecallEngine(docs.map((d) => ({ ...d, facets: [] })), resolveSettings({ recall: { dateWeight: 0, whenWeight: 0, entityWeight: 0 } }));
  const now2 = [[], []];
  for (let i = 0; i < 400; i++) {
    const q = queries[i % queries.length];
    const [first, second] = i % 2 === 0 ? [engine, before] : [before, engine];
    const a = await time(() => first.recall(q, { limit: 12, radius: 'all' }, now));
    const b = await time(() => second.recall(q, { limit: 12, radius: 'all' }, now));
    now2[first === engine ? 0 : 1].push(a);
    now2[second === engine ? 0 : 1].push(b);
  }
  rows.push([`recall in process at ${label}, p50, beside the engine without dates and entities`, median(now2[0]), median(now2[1]), 'same engine without facets, date/when/entity weights 0 (interleaved)']);
}

console.log(`\nEngram benchmarks: ${SIZE} memories, medians of ${RUNS} runs unless noted (ms)\n`);
console.log('| measure | engram | baseline | ratio | baseline is |');
console.log('|---|---:|---:|---:|---|');
for (const [name, ms, base, what] of rows) {
  const ratio = base ? `${(ms / base).toFixed(2)}x` : '';
  console.log(`| ${name} | ${ms.toFixed(2)} | ${base === null ? '' : base.toFixed(2)} | ${ratio} | ${what} |`);
}
