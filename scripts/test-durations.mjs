#!/usr/bin/env node
// Writes test/durations.json, the seconds each test file took, from a jest JSON report:
//   npx jest --json --outputFile=.work/run.json && node scripts/test-durations.mjs .work/run.json
// test/sequencer.cjs starts the longest files first from it when jest's cache has no times (a
// fresh checkout, CI). Only the order matters: a run on a loaded machine does as well as a quiet one.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const report = process.argv[2];
if (!report) {
  process.stderr.write('usage: node scripts/test-durations.mjs JEST-REPORT.json\n');
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const target = path.join(root, 'test', 'durations.json');
const out = {};
for (const r of testResults) {
  const rel = path.relative(root, r.name).split(path.sep).join('/');
  out[rel] = Math.round((r.endTime - r.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
writeFileSync(target, `${JSON.stringify(sorted, null, 1)}\n`);
process.stdout.write(`${Object.keys(sorted).length} files written to test/durations.json\n`);
