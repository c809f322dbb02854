// `node scripts/locomo-loo.mjs --data ../shared/bench/locomo/locomo-dev5.json` (after `npm run build`)
// Leave-one-conversation-out check of recall's tunable weights: every combination of the grid
// is run on every conversation (in process, on vaults imported once through `engram import`);
// for each conversation the combination that scores best on the other four is chosen and
// scored on the one left out. Printed beside it: the shipped defaults and the grid's best on
// all five (which has seen the conversation it is scored on).
// The score a combination is chosen by: the mean of R@5 and R@10 over the questions, asked both
// with --radius all and as plain recall (no radius, as an agent asks).
// Options: --data FILE (required)  --grid JSON (setting path -> values; default below)
//          --out FILE (every combination's per-conversation scores as JSON)
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CATEGORY_NAMES, recallAt } from './locomo.mjs';
import { lib, openConversations, recallAll } from './locomo-vaults.mjs';

const { values } = parseArgs({ options: { data: { type: 'string' }, grid: { type: 'string' }, out: { type: 'string' } } });
if (!values.data) {
  console.error('locomo-loo: --data FILE is required (the LoCoMo JSON, e.g. ../shared/bench/locomo/locomo-dev5.json)');
  process.exit(2);
}
const grid = values.grid
  ? JSON.parse(values.grid)
  : { 'recall.dateWeight': [0.5, 1, 2], 'recall.whenWeight': [0.25, 0.5, 1], 'recall.entityWeight': [0.25, 0.5, 1], 'recall.roleBoost': [1.5, 2, 2.5] };

/** Every combination of the grid as [label, config]. */
function combinations() {
  let out = [[{}, []]];
  for (const [key, options] of Object.entries(grid)) {
    out = out.flatMap(([config, label]) => options.map((v) => [setPath(structuredClone(config), key, v), [...label, `${key.split('.').pop()} ${v}`]]));
  }
  return out.map(([config, label]) => ({ config, label: label.join(', ') }));
}
function setPath(object, key, value) {
  const parts = key.split('.');
  let at = object;
  for (const p of parts.slice(0, -1)) at = at[p] ??= {};
  at[parts[parts.length - 1]] = value;
  return object;
}

/** Per-question recall of one configuration on one conversation: [category, R@5, R@10, plain R@5, plain R@10][]. */
function scores(conversation, config) {
  const all = recallAll(conversation, config, 10, 'all');
  const plain = recallAll(conversation, config, 10, 'plain');
  return all.map((r, i) => {
    const e = r.question.evidence;
    return [r.question.category, recallAt(e, r.ranked, 5), recallAt(e, r.ranked, 10), recallAt(e, plain[i].ranked, 5), recallAt(e, plain[i].ranked, 10)];
  });
}
const mean = (rows, i) => rows.reduce((s, r) => s + r[i], 0) / Math.max(1, rows.length);
const objective = (rows) => (mean(rows, 1) + mean(rows, 2) + mean(rows, 3) + mean(rows, 4)) / 4;

const { conversations, close } = await openConversations(values.data);
const combos = combinations();
const results = [];
try {
  const t0 = Date.now();
  for (const combo of combos) results.push({ ...combo, perConversation: conversations.map((c) => scores(c, combo.config)) });
  var defaults = conversations.map((c) => scores(c, {}));
  var off = conversations.map((c) => scores(c, { recall: { dateWeight: 0, whenWeight: 0, entityWeight: 0, roleBoost: 1.5 } }));
  console.error(`${combos.length} combinations x ${conversations.length} conversations in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
} finally {
  close();
}

const f = (x) => x.toFixed(3);
const held = [];
console.log(`\nLeave-one-conversation-out, ${path.basename(values.data)}: ${combos.length} combinations of ${Object.keys(grid).join(', ')}\n`);
console.log('| left out | chosen on the other four | its R@5 / R@10 there (all; plain) | defaults R@5 / R@10 there (all; plain) |');
console.log('|---|---|---:|---:|');
conversations.forEach((c, k) => {
  let best = null;
  for (const r of results) {
    const train = r.perConversation.filter((_, j) => j !== k).flat();
    const score = objective(train);
    if (!best || score > best.score + 1e-12) best = { r, score };
  }
  const test = best.r.perConversation[k];
  held.push(...test);
  const pair = (rows) => `${f(mean(rows, 1))} / ${f(mean(rows, 2))}; ${f(mean(rows, 3))} / ${f(mean(rows, 4))}`;
  console.log(`| ${c.id} | ${best.r.label} | ${pair(test)} | ${pair(defaults[k])} |`);
});
const pooledBest = results.reduce((a, r) => (objective(r.perConversation.flat()) > objective(a.perConversation.flat()) + 1e-12 ? r : a));
const rows = [
  ['leave-one-out (each conversation scored with the weights chosen on the other four)', held],
  ['shipped defaults, pooled', defaults.flat()],
  [`grid's best on all five (${pooledBest.label})`, pooledBest.perConversation.flat()],
  ['issue-16 features off (dateWeight, whenWeight, entityWeight 0, roleBoost 1.5)', off.flat()],
];
for (const [mode, r5, r10] of [['--radius all', 1, 2], ['plain recall (no radius)', 3, 4]]) {
  console.log(`\n${mode}\n\n| | R@5 | R@10 | ${['1', '2', '3', '4'].map((k) => `${CATEGORY_NAMES[k]} R@10`).join(' | ')} |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [label, list] of rows) {
    const byCat = ['1', '2', '3', '4'].map((k) => f(mean(list.filter((r) => String(r[0]) === k), r10)));
    console.log(`| ${label} | ${f(mean(list, r5))} | ${f(mean(list, r10))} | ${byCat.join(' | ')} |`);
  }
}
if (values.out) writeFileSync(values.out, JSON.stringify({ grid, conversations: conversations.map((c) => c.id), results: results.map((r) => ({ label: r.label, perConversation: r.perConversation })) }));
void lib;
