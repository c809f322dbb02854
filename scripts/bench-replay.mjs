// `npm run bench:replay -- --data ../shared/bench/locomo/locomo-dev5.json`
// Replays each LoCoMo conversation in time order: one session imported at a time with
// --now at the session's time, `engram consolidate` after each. At the end (a day after the
// last session) it reports the share of memories left in the default radius and evidence
// R@10 of plain recall (no --radius, as an agent asks: it widens by itself) and in the
// default, deep and all radii, beside the same questions on the same turns imported at once
// and never consolidated.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { evidenceIds, sessionKeys, sessionTime, turnText } from './locomo.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ENGRAM = path.join(root, 'dist', 'engram.js');
const { values } = parseArgs({ options: { data: { type: 'string' } } });
if (!values.data) {
  console.error('bench-replay: --data FILE is required (the LoCoMo JSON)');
  process.exit(2);
}
const data = JSON.parse(readFileSync(values.data, 'utf8'));
const radii = ['plain', 'default', 'deep', 'all'];
const totals = { replay: Object.fromEntries(radii.map((r) => [r, 0])), plain: Object.fromEntries(radii.map((r) => [r, 0])) };
let questionsTotal = 0;
const shares = [];
const runs = [];
for (const sample of data) {
  const conv = sample.conversation;
  const sessions = sessionKeys(conv).map((key) => {
    const start = sessionTime(conv[`${key}_date_time`]);
    return { key, start, lines: conv[key].map((t, i) => JSON.stringify({ text: turnText(t), created_at: new Date(start + i * 30_000).toISOString(), source: t.dia_id, session: key, agent_role: t.speaker })) };
  });
  const last = Math.max(...sessions.map((s) => s.start + s.lines.length * 30_000));
  const now = new Date(last + 86_400_000).toISOString();
  const questions = sample.qa.filter((q) => q.category >= 1 && q.category <= 4).map((q, i) => ({ id: i, query: q.question, evidence: evidenceIds(q.evidence ?? []) })).filter((q) => q.evidence.length > 0);
  const work = mkdtempSync(path.join(tmpdir(), 'engram-replay-'));
  try {
    const run = (vault, args) => execFileSync(process.execPath, [ENGRAM, '--vault', vault, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const replay = path.join(work, 'replay');
    const plain = path.join(work, 'plain');
    run(replay, ['init']);
    run(plain, ['init']);
    let consolidateMs = 0;
    for (const s of sessions) {
      const file = path.join(work, `${s.key}.jsonl`);
      writeFileSync(file, `${s.lines.join('\n')}\n`);
      const at = new Date(s.start + s.lines.length * 30_000).toISOString();
      run(replay, ['--now', at, 'import', file]);
      const t0 = Date.now();
      const report = JSON.parse(run(replay, ['--now', at, '--json', 'consolidate']));
      consolidateMs += Date.now() - t0;
      runs.push(report);
    }
    writeFileSync(path.join(work, 'all.jsonl'), `${sessions.flatMap((s) => s.lines).join('\n')}\n`);
    run(plain, ['--now', now, 'import', path.join(work, 'all.jsonl')]);
    const stats = JSON.parse(run(replay, ['--now', now, '--json', 'stats']));
    const inDefault = stats.by_tier.core + stats.by_tier.active + stats.by_tier.warm;
    shares.push({ id: sample.sample_id, memories: stats.memories, archived: stats.archived, inDefault, semantic: stats.by_category.semantic, stale: stats.by_confidence.stale, consolidateMs });
    writeFileSync(path.join(work, 'q.jsonl'), `${questions.map((q) => JSON.stringify({ id: q.id, query: q.query })).join('\n')}\n`);
    for (const [name, vault] of [['replay', replay], ['plain', plain]]) {
      for (const radius of radii) {
        const out = run(vault, ['--now', now, 'recall', '--batch', path.join(work, 'q.jsonl'), '--limit', '10', ...(radius === 'plain' ? [] : ['--radius', radius])]);
        const answers = new Map(out.trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.id, r.results.map((x) => x.source)]));
        for (const q of questions) {
          const got = answers.get(q.id) ?? [];
          totals[name][radius] += q.evidence.filter((e) => got.includes(e)).length / q.evidence.length;
        }
      }
    }
    questionsTotal += questions.length;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
const f = (x) => x.toFixed(3);
console.log(`\nLoCoMo replay with consolidation after every session (${path.basename(values.data)}, ${questionsTotal} questions)\n`);
console.log('| conversation | memories | in default radius | archived | semantic created | consolidation time (all runs) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const s of shares) console.log(`| ${s.id} | ${s.memories} | ${s.inDefault} (${((100 * s.inDefault) / s.memories).toFixed(1)} %) | ${s.archived} | ${s.semantic} | ${(s.consolidateMs / 1000).toFixed(1)} s |`);
console.log('\n| radius | R@10 replayed + consolidated | R@10 imported at once, never consolidated | ratio |');
console.log('|---|---:|---:|---:|');
const label = { plain: 'plain recall (no --radius)', default: '--radius default (core, active, warm)', deep: '--radius deep (+ cold)', all: '--radius all (+ archive)' };
for (const r of radii) console.log(`| ${label[r]} | ${f(totals.replay[r] / questionsTotal)} | ${f(totals.plain[r] / questionsTotal)} | ${f(totals.replay[r] / totals.plain[r])} |`);
console.log(`\nplain recall after consolidating every session / --radius all never consolidated: ${f(totals.replay.plain / totals.plain.all)} (goal >= 0.95)`);
