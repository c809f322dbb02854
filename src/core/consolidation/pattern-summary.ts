import { analyze } from '../analyzer';
import { memoryText, type Memory } from '../memory';
import { formatDay, parseTimestamp } from '../time';

/**
 * The text of a semantic memory made from a cluster of episodes (SPEC §8 step 4): a
 * generalisation, extracted without a language model. It says what recurs (the words most
 * members share), how often and over which dates, who saw it (the members' roles), the tags
 * they share, and quotes the most representative episode (the medoid) as the example.
 *
 * Deterministic: the same members give the same bytes on every machine (no clock, no
 * randomness, no locale: ordering by code unit, dates in UTC).
 */
export interface PatternSummary {
  /** The summary, without the list of member links (consolidation appends it). */
  text: string;
  /** The role most members share (at least half of them), else null. */
  agent_role: string | null;
  /** Shared words in the order they are shown. */
  terms: string[];
}

/** How many shared words the summary names at most. */
export const MAX_TERMS = 8;
/** The quoted episode is cut at this many characters. */
export const MAX_QUOTE = 240;

export function summarisePattern(members: Memory[], medoid: Memory, tags: string[]): PatternSummary {
  const n = members.length;
  const texts = new Map(members.map((m) => [m.id, memoryText(m)]));
  const roleWords = new Set(members.flatMap((m) => (m.agent_role ? contentWords(m.agent_role).map(([w]) => w) : [])));
  const terms = sharedTerms(members.map((m) => texts.get(m.id)!), texts.get(medoid.id)!, n, roleWords);
  const days = members.map((m) => formatDay(parseTimestamp(m.created_at)!)).sort();
  const [first, last] = [days[0]!, days[days.length - 1]!];
  const when = first === last ? `on ${first}` : `between ${first} and ${last}`;
  const roles = roleCounts(members);
  const lines: string[] = [];
  const recurring = terms.length > 0 ? `: ${terms.map((t) => `${t.word} (${t.count} of ${n})`).join(', ')}` : '';
  lines.push(`Recurring pattern in ${n} episodes ${when}${recurring}.`);
  if (roles.length > 0) lines.push(`Roles: ${roles.map(([role, count]) => `${role} (${count})`).join(', ')}.`);
  if (tags.length > 0) lines.push(`Tags: ${tags.join(', ')}.`);
  lines.push(`Example (the most representative episode): "${quote(texts.get(medoid.id)!)}"`); // patternExample reads it back
  const top = roles[0];
  return {
    text: lines.join('\n'),
    agent_role: top && top[1] * 2 >= n && (roles.length === 1 || roles[1]![1] < top[1]) ? top[0] : null,
    terms: terms.map((t) => t.word),
  };
}

interface SharedTerm {
  word: string;
  count: number;
}

/**
 * Words (by stem) that at least half of the members contain, and at least two, other than the
 * members' role names: most shared first, then in the order the medoid says them. Each is shown in its most frequent surface
 * form (ties: the one the medoid uses, then the first in code-unit order).
 */
function sharedTerms(texts: string[], medoidText: string, n: number, roleWords: Set<string>): SharedTerm[] {
  const members = new Map<string, number>();
  const surfaces = new Map<string, Map<string, number>>();
  for (const text of texts) {
    const stems = new Set<string>();
    for (const [word, s] of contentWords(text)) {
      stems.add(s);
      const forms = surfaces.get(s) ?? new Map<string, number>();
      forms.set(word, (forms.get(word) ?? 0) + 1);
      surfaces.set(s, forms);
    }
    for (const s of stems) members.set(s, (members.get(s) ?? 0) + 1);
  }
  const medoidWords = contentWords(medoidText);
  const medoidOrder = new Map<string, number>();
  medoidWords.forEach(([, s], i) => {
    if (!medoidOrder.has(s)) medoidOrder.set(s, i);
  });
  const minimum = Math.max(2, Math.ceil(n / 2));
  // the members' roles are named on their own line (a transcript's "Speaker: ..." is no pattern)
  const candidates = [...members].filter(([s, count]) => count >= minimum && ![...surfaces.get(s)!.keys()].every((w) => roleWords.has(w)));
  candidates.sort(([a, ca], [b, cb]) => cb - ca || (medoidOrder.get(a) ?? Infinity) - (medoidOrder.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
  const medoidSet = new Set(medoidWords.map(([w]) => w));
  return candidates.slice(0, MAX_TERMS).map(([s, count]) => {
    const forms = [...surfaces.get(s)!].sort(([a, ca], [b, cb]) => cb - ca || Number(medoidSet.has(b)) - Number(medoidSet.has(a)) || (a < b ? -1 : a > b ? 1 : 0));
    return { word: forms[0]![0], count };
  });
}

/**
 * Lower-cased words that carry content, each with its stem: the analyzer's stop words and
 * negations dropped, and single letters and bare numbers (they say nothing on their own).
 */
function contentWords(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const raw of text.toLowerCase().replace(/[’`]/g, "'").split(/[^\p{L}\p{N}']+/u)) {
    const word = raw.replace(/^'+|'+$/g, '').replace(/'s$/, '');
    if (word.length < 2 || /^\d+$/.test(word) || /n't$/.test(word)) continue;
    const terms = analyze(word).terms;
    if (terms.length === 1) out.push([word, terms[0]!]);
  }
  return out;
}

function roleCounts(members: Memory[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const m of members) if (m.agent_role) counts.set(m.agent_role, (counts.get(m.agent_role) ?? 0) + 1);
  return [...counts].sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0));
}

/** The example a pattern's text quotes (its most representative episode), or null when it quotes none. */
export function patternExample(text: string): string | null {
  return /^Example \(the most representative episode\): "(.+)"$/m.exec(text)?.[1] ?? null;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim().replace(/"/g, "'");
  if (flat.length <= MAX_QUOTE) return flat;
  const cut = flat.slice(0, MAX_QUOTE - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_QUOTE / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
