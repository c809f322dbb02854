#!/usr/bin/env node
// A mutation score for all of src/core from a seeded random sample, where running every mutant
// (about 9,000 of them, hours) does not fit: `npm run mutate:sample -- --seed 1 --lines 150`.
//
// Sampling method (docs/mutation-scores.md):
// - Population: every mutant StrykerJS generates in src/core/**/*.ts (its own instrumenter, the
//   same mutators), except the files measured whole (MEASURED below). Each mutant belongs to the
//   line it starts on; the sampling units are the lines on which at least one mutant starts.
// - Sample: K of those lines, a simple random sample without replacement over the whole
//   population (one pool, not per file), drawn with a seeded generator: the same seed on the same
//   source gives the same lines.
// - Run: Stryker on exactly the sampled mutants' spans (`file:line:col-line:col`). A span that
//   holds other mutants (a block `{}` holds its statements' mutants) makes Stryker test those
//   too; they are not in the sample and are left out of the estimate.
// - Estimate: score = detected / (detected + undetected) over the sampled lines' mutants
//   (detected: killed or timeout; undetected: survived or no coverage; compile errors and
//   ignored mutants are not counted), a ratio estimator over a cluster sample of lines; its 95 %
//   interval is ± 1.96 standard errors from the ratio's linearised variance with the finite
//   population correction (Cochran, Sampling Techniques, 6.3).
//
// Options: --seed N (default 1), --lines K (default 150), --tests a,b (as `npm run mutate`),
// --list (print the sample and the Stryker ranges, run nothing), --report FILE (estimate from an
// earlier run's JSON report, run nothing), --ignore-static (leave out mutants that run at module
// load: each would run every test), --files a,b (sample these files instead of the rest of
// src/core), --rerun EARLIER.json (after adding tests: run again only the sampled lines where the
// earlier run of the same seed left a mutant undetected; a detected one stays detected).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Instrumenter } from '@stryker-mutator/instrumenter';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files with a score of their own in docs/mutation-scores.md (each run whole), not sampled. */
export const MEASURED = [
  'src/core/tiers.ts',
  'src/core/decay.ts',
  'src/core/touch.ts',
  'src/core/activation.ts',
  'src/core/consolidation/prune.ts',
  'src/core/merge/fields.ts',
  'src/core/recall/ranking.ts',
  'src/core/recall/spreading-activation.ts',
  'src/core/file-names.ts',
  'src/core/consolidation/pattern-summary.ts',
];

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const flag = (name) => process.argv.includes(name);

/** mulberry32: a small seeded generator, enough to draw a sample reproducibly. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function walk(dir) {
  const out = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...walk(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Every mutant of the population, 1-based lines and columns as in Stryker's JSON report. */
async function population() {
  const quiet = { debug() {}, info() {}, trace() {}, warn: console.warn, error: console.error, isDebugEnabled: () => false, isTraceEnabled: () => false, isInfoEnabled: () => false };
  const instrumenter = new Instrumenter(quiet);
  const only = option('--files');
  const files = only ? only.split(',') : walk('src/core').filter((f) => !MEASURED.includes(f));
  const mutants = [];
  for (const file of files) {
    const content = fs.readFileSync(path.join(root, file), 'utf8');
    const result = await instrumenter.instrument([{ name: file, mutate: true, content }], { plugins: null, excludedMutations: [], ignorers: [] });
    for (const m of result.mutants) {
      const { start, end } = m.location;
      mutants.push({ file, mutator: m.mutatorName, replacement: m.replacement, start: { line: start.line + 1, column: start.column + 1 }, end: { line: end.line + 1, column: end.column + 1 } });
    }
  }
  return { files, mutants };
}

const keyOf = (m) => `${m.file}:${m.start.line}:${m.start.column}-${m.end.line}:${m.end.column}:${m.mutator}:${m.replacement}`;

function draw(lines, k, seed) {
  const random = generator(seed);
  const pool = [...lines];
  // partial Fisher-Yates: the first k of a seeded shuffle
  for (let i = 0; i < Math.min(k, pool.length); i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, Math.min(k, pool.length));
}

const { files, mutants } = await population();
const lineKey = (m) => `${m.file}:${m.start.line}`;
const byLine = new Map();
for (const m of mutants) {
  const k = lineKey(m);
  if (!byLine.has(k)) byLine.set(k, []);
  byLine.get(k).push(m);
}
const seed = Number(option('--seed', '1'));
const k = Number(option('--lines', '150'));
const sample = draw([...byLine.keys()], k, seed).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
const N = byLine.size;
const n = sample.length;

// Stryker ranges, Stryker's own convention: lines 1-based, columns 0-based; the start of the
// line's first mutant to the furthest end of the line's mutants
const ranges = sample.map((key) => {
  const ms = byLine.get(key);
  const line = ms[0].start.line;
  const startCol = Math.min(...ms.map((m) => m.start.column)) - 1;
  const end = ms.reduce((e, m) => (m.end.line > e.line || (m.end.line === e.line && m.end.column > e.column) ? m.end : e), ms[0].end);
  return `${ms[0].file}:${line}:${startCol}-${end.line}:${end.column - 1}`;
});
const sampled = new Set(sample.flatMap((key) => byLine.get(key).map(keyOf)));

console.log(`population: ${mutants.length} mutants on ${N} lines in ${files.length} files (src/core less ${MEASURED.length} measured whole)`);
console.log(`sample: seed ${seed}, ${n} lines (${(100 * n / N).toFixed(1)} %), ${sampled.size} mutants`);
if (flag('--list')) {
  for (const r of ranges) console.log(r);
  process.exit(0);
}

// --rerun EARLIER.json: run again only the sampled lines where that run left a mutant undetected
// (tests added since cannot bring a detected mutant back), the rest read from EARLIER
const earlier = option('--rerun');
const readStatuses = (file) => {
  const out = new Map();
  const report = JSON.parse(fs.readFileSync(path.resolve(root, file), 'utf8'));
  for (const [name, { mutants: ms }] of Object.entries(report.files)) {
    const rel = path.relative(root, path.resolve(root, name)).split(path.sep).join('/');
    for (const m of ms) out.set(keyOf({ file: rel, mutator: m.mutatorName, replacement: m.replacement, start: m.location.start, end: m.location.end }), m);
  }
  return out;
};
let runRanges = ranges;
if (earlier) {
  const before = readStatuses(earlier);
  const again = sample.map((key, i) => (byLine.get(key).some((m) => ['Survived', 'NoCoverage'].includes(before.get(keyOf(m))?.status)) ? ranges[i] : null)).filter((r) => r !== null);
  console.log(`rerun: ${again.length} of ${n} sampled lines had an undetected mutant in ${earlier}`);
  runRanges = again;
}

let reportFile = option('--report');
if (!reportFile) {
  // --files is part of the name: two samples of the same seed and size over other files would
  // otherwise write (and --rerun read) one report. Long lists are shortened to a hash.
  const only = option('--files');
  const slug = only ? only.split(',').map((f) => f.replace(/^src\/core\//, '').replace(/\.ts$/, '').replace(/[^A-Za-z0-9]+/g, '_')).join('+') : '';
  const tag = slug.length > 60 ? createHash('sha1').update(only).digest('hex').slice(0, 10) : slug;
  const name = `${only ? `files-${tag}-` : ''}${seed}-${k}${earlier ? '-rerun' : ''}`;
  reportFile = path.join('reports', 'mutation', `sample-${name}.json`);
  const config = path.join(root, '.work', `stryker-sample-${name}.config.mjs`);
  fs.mkdirSync(path.dirname(config), { recursive: true });
  // the spans for the ignorer (scripts/mutate-sample-ignorer.mjs): a mutant nested in a sampled
  // span but starting on a later line is not in the sample, and is not tested
  const spans = path.join(root, '.work', `stryker-sample-${name}.spans.json`);
  fs.writeFileSync(spans, JSON.stringify(runRanges));
  const ignorer = path.join(root, 'scripts', 'mutate-sample-ignorer.mjs');
  fs.writeFileSync(config, `import base from '../stryker.config.mjs';\nexport default { ...base, plugins: ['@stryker-mutator/*', ${JSON.stringify(ignorer)}], ignorers: ['engram-sample'], ${flag('--ignore-static') ? 'ignoreStatic: true, ' : ''}reporters: ['clear-text', 'progress', 'json', 'engram-sample-log'], jsonReporter: { fileName: ${JSON.stringify(reportFile)} }, tempDirName: '.work/stryker-sample-tmp-${name}' };\n`);
  process.env.ENGRAM_SAMPLE_SPANS = spans;
  process.env.ENGRAM_SAMPLE_LOG = path.join(root, '.work', `stryker-sample-${name}.results.jsonl`);
  fs.rmSync(process.env.ENGRAM_SAMPLE_LOG, { force: true });
  const tests = option('--tests');
  const started = Date.now();
  const run = spawnSync(process.execPath, [path.join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'), 'run', config, '--mutate', runRanges.join(',')], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TZ: 'UTC', ...(tests ? { ENGRAM_STRYKER_TESTS: tests } : {}) },
  });
  console.log(`stryker: exit ${run.status}, ${((Date.now() - started) / 60000).toFixed(1)} min`);
  if (run.status !== 0) process.exit(run.status ?? 1);
}

// the estimate
const status = earlier ? readStatuses(earlier) : new Map();
for (const [key, m] of readStatuses(reportFile)) if (!earlier || m.status !== 'Ignored') status.set(key, m);
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const perLine = [];
const perFile = new Map();
const survivors = [];
let missing = 0;
for (const key of sample) {
  let y = 0;
  let x = 0;
  let runtime = 0;
  for (const m of byLine.get(key)) {
    const r = status.get(keyOf(m));
    if (!r) {
      missing++;
      continue;
    }
    const f = perFile.get(m.file) ?? { killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0, lines: new Set() };
    f.lines.add(key);
    if (r.status === 'Killed') f.killed++;
    else if (r.status === 'Timeout') f.timeout++;
    else if (r.status === 'Survived') f.survived++;
    else if (r.status === 'NoCoverage') f.noCoverage++;
    else if (r.status === 'Ignored') f.ignored++;
    else f.errors++;
    perFile.set(m.file, f);
    if (DETECTED.has(r.status)) (y++, x++);
    else if (UNDETECTED.has(r.status)) {
      x++;
      survivors.push(`${r.status}: ${m.file}:${m.start.line}:${m.start.column} ${m.mutator} -> ${JSON.stringify(m.replacement).slice(0, 80)}`);
    } else if (r.status === 'RuntimeError') runtime++;
  }
  perLine.push({ y, x, runtime });
}
/** The ratio estimate over per-line (detected, counted) pairs, with its standard error. */
function ratio(lines) {
  const Y = lines.reduce((s, l) => s + l.y, 0);
  const X = lines.reduce((s, l) => s + l.x, 0);
  const R = X > 0 ? Y / X : NaN;
  const xbar = X / n;
  const s2 = lines.reduce((s, l) => s + (l.y - R * l.x) ** 2, 0) / Math.max(1, n - 1);
  return { Y, X, R, se: Math.sqrt(((1 - n / N) * s2) / (n * xbar * xbar)) };
}
const { Y, X, R, se } = ratio(perLine);
const pct = (v) => `${(100 * v).toFixed(1)} %`;

console.log('\nfile | lines | killed | timeout | survived | no coverage | compile errors | ignored | score');
for (const [file, f] of [...perFile].sort(([a], [b]) => a.localeCompare(b))) {
  const valid = f.killed + f.timeout + f.survived + f.noCoverage;
  console.log(`${file} | ${f.lines.size} | ${f.killed} | ${f.timeout} | ${f.survived} | ${f.noCoverage} | ${f.errors} | ${f.ignored} | ${valid ? pct((f.killed + f.timeout) / valid) : '-'}`);
}
console.log(`\n${survivors.length ? survivors.join('\n') : 'no survivors'}`);
if (missing) console.log(`\n${missing} sampled mutants not in the report (source changed since the run?)`);
console.log(`\nestimate: ${Y} detected of ${X} counted mutants on ${n} sampled lines: ${pct(R)}, 95 % interval ${pct(R - 1.96 * se)} to ${pct(R + 1.96 * se)} (standard error ${pct(se)})`);
// Stryker leaves RuntimeError (a test file that failed to run under the mutant) out of the score,
// as it does compile errors; when the dry run passed with the same files, the mutant broke them:
// the same estimate with those counted as detected
const runtimes = perLine.reduce((s, l) => s + l.runtime, 0);
if (runtimes > 0) {
  const r = ratio(perLine.map((l) => ({ y: l.y + l.runtime, x: l.x + l.runtime })));
  console.log(`with the ${runtimes} RuntimeError mutants counted as detected: ${r.Y} of ${r.X}: ${pct(r.R)}, 95 % interval ${pct(r.R - 1.96 * r.se)} to ${pct(r.R + 1.96 * r.se)}`);
}
