// Issue 23's targets, gathered across benches: each bench that measures one calls `report`, which
// appends a JSON line to the file named by ENGRAM_BENCH_TARGETS (bench-all.mjs sets it, then prints
// every target of the run in one table with `table`). A bench run on its own prints its own tables
// and reports nowhere.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/**
 * One target measured: `value` in `unit` ('x' for a ratio, 'ms' or 's'), `against` what the ratio
 * is taken (or how the figure is counted), `goal` the most it may be. Nothing is reported for a
 * value that was not measured (null or not finite).
 */
export function report(source, { measure, value, unit, against, goal }) {
  const file = process.env.ENGRAM_BENCH_TARGETS;
  if (!file || value === null || value === undefined || !Number.isFinite(value)) return;
  appendFileSync(file, `${JSON.stringify({ source, measure, value, unit, against, goal })}\n`);
}

/** The targets a run reported, in the order reported; [] when none (or no file). */
export function collected(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

const shown = (value, unit) => (unit === 'x' ? `${value.toFixed(2)}x` : unit === 's' ? `${value.toFixed(1)} s` : `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`);

/** The markdown table of `targets`: one row each, with whether it is met (value <= goal). */
export function table(targets) {
  const lines = ['| target | bench | now | against | goal | met |', '|---|---|---:|---|---:|---|'];
  for (const t of targets) lines.push(`| ${t.measure} | ${t.source} | ${shown(t.value, t.unit)} | ${t.against} | ≤ ${shown(t.goal, t.unit)} | ${t.value <= t.goal ? 'yes' : 'no'} |`);
  return lines.join('\n');
}
