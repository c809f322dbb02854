// `npm run bench:locomo -- --data ../shared/bench/locomo/locomo-dev5.json`
// Evidence recall on LoCoMo through the real runner: for each conversation a fresh vault,
// every turn imported as an episodic memory (`engram import`), every question of categories
// 1-4 through `engram recall --batch --limit 10 --radius all`, and again as an agent asks
// without flags (plain recall, no --radius: it widens beyond the default radius by itself),
// a day after the last session. Beside them, in the same run, a tuned BM25 baseline
// (minisearch, stop words + Porter2 stemming) on the same turns.
// Options: --data FILE (required)  --no-role (import without agent_role = speaker)
//          --config JSON (settings for .engram/config.json, for ablations)
//          --embedder JSON (embedder settings, e.g. '{"kind":"http","model":"nomic-embed-text"}' or
//            '{"kind":"transformers","model":"Xenova/all-MiniLM-L6-v2","localModelPath":"/models"}'):
//            the turns are embedded (engram reembed) after the import, and recall fuses vector seeds
//          --keep (keep the vaults)  --out FILE (write the results as JSON)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import MiniSearch from 'minisearch';
import stem from 'wink-porter2-stemmer';
import { CATEGORY_NAMES, conversationTurns, recallAt, scoredQuestions } from './locomo.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ENGRAM = path.join(root, 'dist', 'engram.js');
const { values } = parseArgs({ options: { data: { type: 'string' }, 'no-role': { type: 'boolean' }, config: { type: 'string' }, embedder: { type: 'string' }, keep: { type: 'boolean' }, out: { type: 'string' } } });
if (!values.data) {
  console.error('bench-locomo: --data FILE is required (the LoCoMo JSON, e.g. ../shared/bench/locomo/locomo-dev5.json)');
  process.exit(2);
}
const data = JSON.parse(readFileSync(values.data, 'utf8'));

const STOP = new Set('a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves'.split(' '));
function baseline(turns) {
  const ms = new MiniSearch({ fields: ['text'], storeFields: ['id'], processTerm: (t) => { const w = t.toLowerCase(); return STOP.has(w) ? null : stem(w); } });
  ms.addAll(turns);
  return (q) => ms.search(q).slice(0, 10).map((r) => r.id);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const totals = { engram: {}, plain: {}, baseline: {} };
const latency = { engram: [], plain: [], baseline: [] };
const add = (system, category, r5, r10) => {
  for (const key of [category, 'all']) {
    const t = (totals[system][key] ??= { n: 0, r5: 0, r10: 0 });
    t.n++;
    t.r5 += r5;
    t.r10 += r10;
  }
};

const perConversation = [];
const embedSeconds = [];
for (const sample of data) {
  const { turns, last } = conversationTurns(sample.conversation);
  const now = new Date(last + 86_400_000).toISOString();
  const questions = scoredQuestions(sample);
  const work = mkdtempSync(path.join(tmpdir(), 'engram-locomo-'));
  const vault = path.join(work, 'vault');
  try {
    const engram = (args, input) => execFileSync(process.execPath, [ENGRAM, '--vault', vault, '--now', now, ...args], { encoding: 'utf8', input, maxBuffer: 1 << 28 });
    engram(['init']);
    const config = { ...(values.config ? JSON.parse(values.config) : {}), ...(values.embedder ? { embedder: JSON.parse(values.embedder) } : {}) };
    if (Object.keys(config).length > 0) writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify(config));
    const lines = turns.map((t) => JSON.stringify({
      text: t.text,
      created_at: new Date(t.at).toISOString(),
      source: t.id,
      session: t.session,
      ...(values['no-role'] ? {} : { agent_role: t.speaker }),
    }));
    writeFileSync(path.join(work, 'turns.jsonl'), `${lines.join('\n')}\n`);
    const imported = JSON.parse(engram(['--json', 'import', path.join(work, 'turns.jsonl')]));
    if (values.embedder) embedSeconds.push(JSON.parse(engram(['--json', 'reembed'])).seconds);
    writeFileSync(path.join(work, 'questions.jsonl'), `${questions.map((q) => JSON.stringify({ id: q.id, query: q.query })).join('\n')}\n`);
    const batch = (system, radius) => {
      const t0 = process.hrtime.bigint();
      const out = engram(['recall', '--batch', path.join(work, 'questions.jsonl'), '--limit', '10', ...radius]);
      latency[system].push(Number(process.hrtime.bigint() - t0) / 1e6 / questions.length);
      return new Map(out.trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.id, r.results.map((x) => x.source)]));
    };
    const answers = batch('engram', ['--radius', 'all']);
    const plainAnswers = batch('plain', []);
    const search = baseline(turns);
    const conv = { id: sample.sample_id, turns: turns.length, created: imported.created, reinforced: imported.reinforced, questions: questions.length, engram: [0, 0], plain: [0, 0], baseline: [0, 0] };
    for (const q of questions) {
      const ranked = answers.get(q.id) ?? [];
      const e5 = recallAt(q.evidence, ranked, 5);
      const e10 = recallAt(q.evidence, ranked, 10);
      add('engram', q.category, e5, e10);
      const plainRanked = plainAnswers.get(q.id) ?? [];
      const p5 = recallAt(q.evidence, plainRanked, 5);
      const p10 = recallAt(q.evidence, plainRanked, 10);
      add('plain', q.category, p5, p10);
      conv.plain[0] += p5 / questions.length;
      conv.plain[1] += p10 / questions.length;
      const tb = process.hrtime.bigint();
      const base = search(q.query);
      latency.baseline.push(Number(process.hrtime.bigint() - tb) / 1e6);
      const b5 = recallAt(q.evidence, base, 5);
      const b10 = recallAt(q.evidence, base, 10);
      add('baseline', q.category, b5, b10);
      conv.engram[0] += e5 / questions.length;
      conv.engram[1] += e10 / questions.length;
      conv.baseline[0] += b5 / questions.length;
      conv.baseline[1] += b10 / questions.length;
    }
    perConversation.push(conv);
  } finally {
    if (!values.keep) rmSync(work, { recursive: true, force: true });
    else console.error(`kept ${work}`);
  }
}

const f = (x) => x.toFixed(3);
const CATEGORY = CATEGORY_NAMES;
console.log(`\nLoCoMo evidence recall, ${path.basename(values.data)}${values['no-role'] ? ' (no agent_role)' : ''}${values.config ? ` config ${values.config}` : ''}${values.embedder ? ` embedder ${values.embedder} (embedding took ${embedSeconds.map((s) => `${s}s`).join(', ')})` : ''}: engram recall --radius all, plain engram recall (no --radius), minisearch BM25 (stop words + Porter2)\n`);
console.log('| questions | n | --radius all R@5 | --radius all R@10 | plain R@5 | plain R@10 | plain / all R@10 | baseline R@5 | baseline R@10 |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const key of ['all', '1', '2', '3', '4']) {
  const e = totals.engram[key];
  const p = totals.plain[key];
  const b = totals.baseline[key];
  if (!e) continue;
  const label = key === 'all' ? '**all (categories 1-4)**' : `${key} ${CATEGORY[key]}`;
  console.log(`| ${label} | ${e.n} | ${f(e.r5 / e.n)} | ${f(e.r10 / e.n)} | ${f(p.r5 / p.n)} | ${f(p.r10 / p.n)} | ${f(p.r10 / e.r10)} | ${f(b.r5 / b.n)} | ${f(b.r10 / b.n)} |`);
}
console.log('\n| conversation | turns | questions | --radius all R@5 | --radius all R@10 | plain R@5 | plain R@10 | baseline R@5 | baseline R@10 |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const c of perConversation) console.log(`| ${c.id} | ${c.turns} (${c.reinforced} reinforced) | ${c.questions} | ${f(c.engram[0])} | ${f(c.engram[1])} | ${f(c.plain[0])} | ${f(c.plain[1])} | ${f(c.baseline[0])} | ${f(c.baseline[1])} |`);
console.log(`\nlatency per query: engram --radius all ${median(latency.engram).toFixed(2)} ms, plain ${median(latency.plain).toFixed(2)} ms (recall --batch wall time / questions, process start and vault load included; median over conversations); baseline ${median(latency.baseline).toFixed(3)} ms (in-process search only)`);
if (values.out) writeFileSync(values.out, JSON.stringify({ totals, perConversation, latency }, null, 2));
