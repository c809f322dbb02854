// The frontmatter fuzzer, longer than CI's run: `npm run fuzz -- --cases 200000 --seed night1`
// (or `--minutes 10`). Prints cases tried, written, refused (with reasons), and every case
// where a property did not hold, with the seed that replays it. Exits 1 on any failure.
//
// `--surface review,merge,mcp` (npm run fuzz:surfaces) fuzzes the surfaces of issue 22 instead:
// review proposals written by a hostile model, the merge driver with random pairs of sides, and
// `engram mcp` (dist/engram.js: build first) with random request lines up to `--big` bytes.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { cases: { type: 'string' }, minutes: { type: 'string' }, seed: { type: 'string', default: `fuzz-${Date.now()}` }, surface: { type: 'string' }, big: { type: 'string', default: String(6 * 1024 * 1024) } } });
mkdirSync('.work', { recursive: true });
if (values.surface) {
  await fuzzSurfaces(values.surface.split(','));
  process.exit(process.exitCode ?? 0);
}
await build({ entryPoints: ['test/helpers/frontmatter-fuzz.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: '.work/frontmatter-fuzz.cjs', logLevel: 'warning' });
const { runFuzz } = createRequire(import.meta.url)('../.work/frontmatter-fuzz.cjs');

const deadline = values.minutes ? Date.now() + Number(values.minutes) * 60_000 : Infinity;
const target = values.cases ? Number(values.cases) : values.minutes ? Infinity : 100_000;
const total = { tried: 0, written: 0, refused: 0, unreadable: 0, failures: [], reasons: {} };
const started = Date.now();
for (let batch = 0; total.tried < target && Date.now() < deadline; batch++) {
  const report = runFuzz(`${values.seed}/${batch}`, Math.min(5000, target - total.tried));
  for (const key of ['tried', 'written', 'refused', 'unreadable']) total[key] += report[key];
  total.failures.push(...report.failures);
  for (const [reason, n] of Object.entries(report.reasons)) {
    const kind = reason.replace(/\(\d+:\d+\)|line \d+, column \d+|"[^"]*"/g, '…');
    total.reasons[kind] = (total.reasons[kind] ?? 0) + n;
  }
  process.stderr.write(`\r${total.tried} cases, ${total.failures.length} failures`);
}
process.stderr.write('\n');
const seconds = (Date.now() - started) / 1000;
console.log(JSON.stringify({ seed: values.seed, seconds: Math.round(seconds), tried: total.tried, held: total.tried - total.failures.length, written: total.written, refused: total.refused, refused_unreadable: total.unreadable, refused_readable: total.refused - total.unreadable, failures: total.failures.length }, null, 2));
console.log('refusal reasons:', Object.entries(total.reasons).sort((a, b) => b[1] - a[1]).slice(0, 15));
for (const failure of total.failures.slice(0, 20)) console.log(JSON.stringify(failure));
process.exitCode = total.failures.length > 0 ? 1 : 0;

async function fuzzSurfaces(surfaces) {
  await build({ entryPoints: ['test/helpers/surface-fuzz.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: '.work/surface-fuzz.cjs', packages: 'external', logLevel: 'warning' });
  const { runReviewFuzz, runMergeFuzz, runMcpFuzz } = createRequire(import.meta.url)('../.work/surface-fuzz.cjs');
  const share = values.minutes ? (Number(values.minutes) * 60_000) / surfaces.length : Infinity; // the time is shared between the surfaces
  const target = values.cases ? Number(values.cases) : values.minutes ? Infinity : 2000;
  let failed = 0;
  for (const surface of surfaces) {
    const total = { surface, tried: 0, outcomes: {}, failures: [] };
    const started = Date.now();
    const deadline = started + share;
    for (let round = 0; total.tried < target && Date.now() < deadline; round++) {
      const n = Math.min(surface === 'mcp' ? 500 : 200, target - total.tried);
      const seed = `${values.seed}/${surface}/${round}`;
      const dir = mkdtempSync(path.join(os.tmpdir(), `engram-fuzz-${surface}-`));
      let report;
      try {
        if (surface === 'review') report = await runReviewFuzz(seed, n);
        else if (surface === 'merge') report = await runMergeFuzz(seed, n, dir);
        else if (surface === 'mcp') {
          spawnSync(process.execPath, [path.resolve('dist', 'engram.js'), '--vault', path.join(dir, 'vault'), 'init'], { stdio: 'ignore' });
          report = await runMcpFuzz(seed, n, { engram: path.resolve('dist', 'engram.js'), vault: path.join(dir, 'vault'), big: Number(values.big) });
        } else throw new Error(`--surface: ${surface}: expected review, merge or mcp`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      total.tried += report.tried;
      total.failures.push(...report.failures);
      for (const [k, v] of Object.entries(report.outcomes)) total.outcomes[k] = (total.outcomes[k] ?? 0) + v;
      process.stderr.write(`\r${surface}: ${total.tried} cases, ${total.failures.length} failures`);
    }
    process.stderr.write('\n');
    console.log(JSON.stringify({ seed: values.seed, surface, seconds: Math.round((Date.now() - started) / 1000), tried: total.tried, failures: total.failures.length, outcomes: total.outcomes }, null, 2));
    for (const failure of total.failures.slice(0, 20)) console.log(JSON.stringify(failure).slice(0, 2000));
    failed += total.failures.length;
  }
  process.exitCode = failed > 0 ? 1 : 0;
}
