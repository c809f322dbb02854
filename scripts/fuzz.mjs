// The frontmatter fuzzer, longer than CI's run: `npm run fuzz -- --cases 200000 --seed night1`
// (or `--minutes 10`). Prints cases tried, written, refused (with reasons), and every case
// where a property did not hold, with the seed that replays it. Exits 1 on any failure.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { cases: { type: 'string' }, minutes: { type: 'string' }, seed: { type: 'string', default: `fuzz-${Date.now()}` } } });
mkdirSync('.work', { recursive: true });
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
