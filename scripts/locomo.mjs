// Reading LoCoMo (shared by bench-locomo.mjs and bench-replay.mjs).

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC). */
export function sessionTime(text) {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) throw new Error(`unreadable session date: ${text}`);
  let hour = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') hour += 12;
  return Date.UTC(Number(m[6]), MONTHS.indexOf(m[5].toLowerCase()), Number(m[4]), hour, Number(m[2]));
}

/** Evidence ids, split ("D8:6; D9:17") and repaired ("D:11:26" -> "D11:26"). */
export function evidenceIds(list) {
  return list
    .flatMap((e) => String(e).split(/[;,]/))
    .map((e) => e.trim().replace(/^D:(\d+):(\d+)$/, 'D$1:$2').replace(/^D(\d+):(\d+):.*$/, 'D$1:$2'))
    .filter((e) => /^D\d+:\d+$/.test(e));
}

/** A turn as a memory's text: "Speaker: text", plus the shared image's caption. */
export function turnText(turn) {
  return `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ''}`;
}

/** The session keys of a conversation in order. */
export function sessionKeys(conversation) {
  return Object.keys(conversation).filter((k) => /^session_\d+$/.test(k)).sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
}

/** Every turn of a conversation as the benchmarks import it: time = session date + 30 s per turn. */
export function conversationTurns(conversation) {
  const turns = [];
  let last = 0;
  for (const key of sessionKeys(conversation)) {
    const start = sessionTime(conversation[`${key}_date_time`]);
    conversation[key].forEach((t, i) => {
      const at = start + i * 30_000;
      last = Math.max(last, at);
      turns.push({ id: t.dia_id, speaker: t.speaker, session: key, at, text: turnText(t) });
    });
  }
  return { turns, last };
}

/** The questions the benchmarks score: categories 1-4 with at least one evidence turn. */
export function scoredQuestions(sample) {
  return sample.qa
    .filter((q) => q.category >= 1 && q.category <= 4)
    .map((q, i) => ({ id: i, query: q.question, answer: q.answer, category: q.category, evidence: evidenceIds(q.evidence ?? []) }))
    .filter((q) => q.evidence.length > 0);
}

export const CATEGORY_NAMES = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

/** Evidence recall at k: the share of a question's evidence turns among the first k results. */
export const recallAt = (evidence, ranked, k) => evidence.filter((e) => ranked.slice(0, k).includes(e)).length / evidence.length;
