// `node scripts/locomo-analysis.mjs --data ../shared/bench/locomo/locomo-dev5.json` (after `npm run build`)
// Error analysis of recall on LoCoMo: every evidence turn missed at R@10 (--radius all) is put
// in classes, per question category. The classes (a turn can be in several; its primary class
// is the first that applies, in this order):
//   date        the question names a date or a period ("in May 2022", "last Friday", "2023"):
//               lexical matching sees only the words, the memory's time is never compared
//   entity      a word of the question is in the turn under another form sharing its first
//               letters (a nickname, an abbreviation, a variant: "Jo"/"Joanna", "fam"/"family")
//   vocabulary  the turn shares no content term with the question besides the speakers' names
//   speaker     the question names one speaker and the turn was said by the other
//   split       the evidence spans several sessions and no top-10 result comes from this turn's
//   outranked   none of these: the turn shares terms with the question, in a session the
//               ranking reached, and was ranked below 10
// Options: --data FILE (required)  --config JSON (recall settings)  --examples N (per class, default 3)
//          --plain (plain recall, no radius, instead of --radius all)
//          --out FILE (every missed turn as JSON)
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CATEGORY_NAMES } from './locomo.mjs';
import { lib, openConversations, recallAll } from './locomo-vaults.mjs';

const { values } = parseArgs({ options: { data: { type: 'string' }, config: { type: 'string' }, examples: { type: 'string' }, plain: { type: 'boolean' }, out: { type: 'string' } } });
if (!values.data) {
  console.error('locomo-analysis: --data FILE is required (the LoCoMo JSON, e.g. ../shared/bench/locomo/locomo-dev5.json)');
  process.exit(2);
}
const config = values.config ? JSON.parse(values.config) : {};
const examplesPerClass = Number(values.examples ?? 3);
const CLASSES = ['date', 'entity', 'vocabulary', 'speaker', 'split', 'outranked'];

const MONTH = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const DAY = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const PERIOD = 'day|week|weekend|month|year|summer|winter|spring|autumn|fall|night|morning|evening';
const DATE = new RegExp(`\\b((${MONTH})\\b|(19|20)\\d\\d\\b|(${DAY})\\b|yesterday|today|tonight|tomorrow|(last|next|this|past) (${PERIOD}|${DAY})|\\d+ (${PERIOD})s? (ago|before|after))`, 'i');

const words = (text) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
const terms = (text) => new Set(lib.analyze(text).terms);
/** A word of the question present in the turn only as another form with the same first letters. */
function variantOf(queryWords, turnWords, turnTerms) {
  for (const q of queryWords) {
    if (q.length < 2 || turnTerms.has(lib.analyze(q).terms[0])) continue;
    for (const t of turnWords) {
      if (t === q) continue;
      let p = 0;
      while (p < q.length && p < t.length && q[p] === t[p]) p++;
      if (p >= 2 && p === Math.min(q.length, t.length) && lib.analyze(q).terms.length > 0 && lib.analyze(t).terms.length > 0) return `${q}/${t}`;
    }
  }
  return null;
}

const { conversations, close } = await openConversations(values.data);
const misses = [];
const counts = {};
const questionsMissed = {};
try {
  for (const conv of conversations) {
    const byId = new Map(conv.turns.map((t) => [t.id, t]));
    const speakerTerms = new Set(conv.speakers.flatMap((s) => lib.analyze(s).terms));
    for (const { question: q, ranked } of recallAll(conv, config, 10, values.plain ? 'plain' : 'all')) {
      const c = (counts[q.category] ??= { questions: 0, evidence: 0, missed: 0, multi: Object.fromEntries(CLASSES.map((k) => [k, 0])), primary: Object.fromEntries(CLASSES.map((k) => [k, 0])) });
      c.questions++;
      c.evidence += q.evidence.length;
      const missed = q.evidence.filter((e) => !ranked.includes(e));
      if (missed.length === 0) continue;
      questionsMissed[q.category] = (questionsMissed[q.category] ?? 0) + 1;
      const topSessions = new Set(ranked.map((id) => byId.get(id)?.session));
      const evidenceSessions = new Set(q.evidence.map((e) => byId.get(e)?.session));
      const named = conv.speakers.filter((s) => words(q.query).includes(s.toLowerCase()));
      const queryTerms = [...terms(q.query)].filter((t) => !speakerTerms.has(t));
      const queryWords = words(q.query).filter((w) => lib.analyze(w).terms.length > 0 && !speakerTerms.has(lib.analyze(w).terms[0]));
      for (const id of missed) {
        const turn = byId.get(id);
        if (!turn) continue;
        const turnTerms = terms(turn.text);
        const classes = [];
        if (DATE.test(q.query)) classes.push('date');
        const variant = variantOf(queryWords, words(turn.text), turnTerms);
        if (variant) classes.push('entity');
        if (!queryTerms.some((t) => turnTerms.has(t))) classes.push('vocabulary');
        if (named.length === 1 && turn.speaker !== named[0]) classes.push('speaker');
        if (evidenceSessions.size > 1 && !topSessions.has(turn.session)) classes.push('split');
        if (classes.length === 0) classes.push('outranked');
        c.missed++;
        for (const k of classes) c.multi[k]++;
        c.primary[classes[0]]++;
        misses.push({ conversation: conv.id, question: q.id, category: q.category, query: q.query, turn: id, text: turn.text, classes, variant });
      }
    }
  }
} finally {
  close();
}

const cats = ['1', '2', '3', '4'];
console.log(`\nLoCoMo recall misses at R@10 (${values.plain ? 'plain recall' : '--radius all'}), ${path.basename(values.data)}${values.config ? ` config ${values.config}` : ''}\n`);
console.log(`| | ${cats.map((k) => `${k} ${CATEGORY_NAMES[k]}`).join(' | ')} | all |`);
console.log(`|---|${cats.map(() => '---:').join('|')}|---:|`);
const row = (label, f) => console.log(`| ${label} | ${cats.map((k) => f(k)).join(' | ')} | ${f(null)} |`);
const total = (f) => (k) => (k === null ? cats.reduce((s, x) => s + f(x), 0) : f(k));
row('questions', total((k) => counts[k].questions));
row('questions missing evidence', total((k) => questionsMissed[k] ?? 0));
row('evidence turns', total((k) => counts[k].evidence));
row('missed evidence turns', total((k) => counts[k].missed));
for (const c of CLASSES) row(`${c} (primary / any)`, (k) => `${total((x) => counts[x].primary[c])(k)} / ${total((x) => counts[x].multi[c])(k)}`);
console.log('\n"primary / any": the first class in the order above that applies / every class that applies.');
for (const k of CLASSES) {
  const chosen = misses.filter((m) => m.classes[0] === k).slice(0, examplesPerClass);
  if (chosen.length === 0) continue;
  console.log(`\n${k}:`);
  for (const m of chosen) console.log(`- ${m.conversation} q${m.question} (${CATEGORY_NAMES[m.category]}) "${m.query}" missed ${m.turn}${m.variant ? ` [${m.variant}]` : ''}: ${m.text.length > 90 ? `${m.text.slice(0, 90)}…` : m.text}`);
}
if (values.out) writeFileSync(values.out, JSON.stringify({ counts, misses }, null, 2));
