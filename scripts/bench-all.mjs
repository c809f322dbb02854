// `npm run bench [-- --compare NAME=OTHER_CHECKOUT ...] [--size N] [--quick]`: every benchmark in one
// run, each against the other builds where it can measure them (issue 23, part 5).
//   --compare NAME=DIR (repeatable): another checkout of Engram, built (`npm run build` there), with
//     its node_modules. DIR may be the checkout, its dist/ or its dist/lib.js. The first one is the
//     build the ratios are taken against (e.g. c112739, the issue's reference).
//   --readme: bench-cli.mjs rewrites the README's speed table and docs/performance.md's targets from its rows.
//   --size N: the size of the single-size benches (10000); --quick: 2,000 memories, 3 rounds, and only
//     the command line (issue 23's headline ratios, in about 2 minutes on a quiet machine).
// What runs, in order, and what each compares:
//   bench-cli.mjs         the command line: import, first recall, cold recall/context/touch, the same
//                         with engram serve running, remember, first consolidate (every build)
//   bench.mjs             recall in process at N and 100k, vectors (this build's lib.js, the first other's)
//   bench-warm.mjs        a long-lived process's updates and preload, MCP and plugin (every build)
//   bench-consolidate.mjs consolidation at 10k and 100k (this build)
//   bench-mcp.mjs         MCP requests (this build)
//   bench-plugin.mjs      the plugin's start (this build)
//   bench-graph.mjs       the graph view (this build)
// Each prints its own tables; a bench that fails is named at the end and the run exits 1.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { collected, table } from './bench-targets.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({ options: { compare: { type: 'string', multiple: true, default: [] }, size: { type: 'string' }, quick: { type: 'boolean', default: false }, readme: { type: 'boolean', default: false } } });

/** NAME=DIR -> { name, checkout } (DIR: a checkout, its dist/, or its dist/lib.js). */
const others = values.compare.map((spec) => {
  const named = /^[\w.-]+=/.test(spec);
  const name = named ? spec.slice(0, spec.indexOf('=')) : spec;
  let dir = path.resolve(named ? spec.slice(spec.indexOf('=') + 1) : spec);
  if (dir.endsWith('.js')) dir = path.dirname(dir);
  if (path.basename(dir) === 'dist') dir = path.dirname(dir);
  if (!existsSync(path.join(dir, 'dist', 'engram.js'))) {
    console.error(`bench: --compare ${spec}: no ${path.join(dir, 'dist', 'engram.js')} (run npm run build in that checkout)`);
    process.exit(2);
  }
  return { name, checkout: dir };
});

const size = values.size ?? (values.quick ? '2000' : '10000');
const runs = values.quick ? ['--runs', '3'] : [];
const first = others[0];
const benches = [
  ['bench-cli.mjs', ['--size', size, ...runs, ...(values.readme ? ['--readme'] : []), ...others.flatMap((o) => ['--compare', `${o.name}=${path.join(o.checkout, 'dist')}`])]],
  ...(values.quick
    ? []
    : [
        // recall in process at --size and at 100k, and vector search at 10k and 100k: minutes
        ['bench.mjs', ['--size', size, ...(first ? ['--compare', path.join(first.checkout, 'dist', 'lib.js')] : [])]],
        ['bench-warm.mjs', others.flatMap((o) => ['--compare', o.checkout])],
        ['bench-consolidate.mjs', []],
        ['bench-mcp.mjs', []],
        ['bench-plugin.mjs', []],
        ['bench-graph.mjs', []],
      ]),
];

console.log(`Engram benchmarks: this checkout${others.length ? ` against ${others.map((o) => `${o.name} (${o.checkout})`).join(', ')}` : ''}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const failed = [];
// each bench appends the issue-23 targets it measured to this file (scripts/bench-targets.mjs)
const scratch = mkdtempSync(path.join(tmpdir(), 'engram-bench-all-'));
const targetsFile = path.join(scratch, 'targets.jsonl');
const started = Date.now();
for (const [script, args] of benches) {
  console.log(`\n## ${script} ${args.join(' ')}\n`);
  const res = spawnSync(process.execPath, [path.join(root, 'scripts', script), ...args], { stdio: 'inherit', cwd: root, env: { ...process.env, ENGRAM_BENCH_TARGETS: targetsFile } });
  if (res.status !== 0) failed.push(`${script} (exit ${res.status ?? res.signal})`);
}
const targets = collected(targetsFile);
rmSync(scratch, { recursive: true, force: true });
console.log(`\n## Issue 23's targets, this run (${targets.filter((t) => t.value <= t.goal).length} of ${targets.length} met)\n`);
console.log(targets.length ? table(targets) : '(no bench reported a target)');
console.log(`\n${Math.round((Date.now() - started) / 1000)} s in all; load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
if (failed.length) {
  console.error(`bench: failed: ${failed.join(', ')}`);
  process.exit(1);
}
