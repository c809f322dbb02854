/**
 * Capture: what an agent's session states as decisions, errors with their fixes, and facts,
 * taken from its transcript without a model (`engram capture`). Claude Code's JSONL transcript
 * (one event a line: `type` user/assistant, `message.content` a string or blocks of `text`,
 * `tool_use`, `tool_result` with `is_error`) and plain text are read. Sentences are kept by
 * cue words, never when they hold something a secret scanner would flag: the whole sentence is
 * dropped, not masked, so no part of a key reaches the vault. Pure: the caller remembers the
 * statements (through import, so a second run of the same transcript changes nothing).
 */

/**
 * decision: what was decided; fix: an error and its fix; cause: why something failed; change:
 * what was changed (a split, a rename, a move, with the names); fact: what holds (a location, a
 * value, an answer to a question).
 */
export type CaptureKind = 'decision' | 'fix' | 'cause' | 'change' | 'fact';
export const CAPTURE_KINDS: readonly CaptureKind[] = ['decision', 'fix', 'cause', 'change', 'fact'];

export interface Turn {
  role: 'user' | 'assistant' | 'tool-error';
  text: string;
  /** The event's timestamp (ISO-8601), when the transcript has one. */
  at: string | null;
}

export interface Transcript {
  format: 'claude-code-jsonl' | 'text';
  session: string | null;
  turns: Turn[];
}

export interface Statement {
  kind: CaptureKind;
  text: string;
  role: Turn['role'];
  at: string | null;
  /** The number of the sentence it was taken from (transcript order, from 1). */
  n: number;
}

/** A sentence the model pass may pick: prose of the right length, no question, no secret. */
export interface Candidate {
  n: number;
  text: string;
  role: Turn['role'];
  at: string | null;
}

export interface Capture {
  statements: Statement[];
  /** Every sentence the rules looked at that a model pass may pick (no question, no secret). */
  candidates: Candidate[];
  /** Sentences a cue matched that were dropped because they hold a secret, by the secret's kind. */
  secrets: { kind: string; count: number }[];
  /** Sentences looked at. */
  sentences: number;
}

/** Patterns of common secret scanners (gitleaks, GitHub secret scanning, detect-secrets). */
export const SECRET_PATTERNS: { kind: string; pattern: RegExp }[] = [
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/ },
  { kind: 'aws-secret-key', pattern: /aws_?secret_?access_?key\s*[:=]\s*\S+/i },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { kind: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/ },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/ },
  { kind: 'stripe-key', pattern: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b/ },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b/ },
  { kind: 'private-key', pattern: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/ },
  { kind: 'bearer-token', pattern: /\bbearer\s+[A-Za-z0-9\-._~+/]{16,}=*/i },
  { kind: 'basic-auth-url', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]+@/i },
  { kind: 'password', pattern: /\b(?:password|passwd|pwd|pass|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret)\b["']?\s*[:=]\s*["']?[^\s"',;]{4,}/i },
];

/** The kind of secret a text holds, or null. */
export function findSecret(text: string): string | null {
  for (const { kind, pattern } of SECRET_PATTERNS) if (pattern.test(text)) return kind;
  return null;
}

const MIN_LENGTH = 20;
const MAX_LENGTH = 400;

const DECISION = [
  /\b(?:we|i|the team)\s+(?:have\s+|had\s+)?(?:decided|agreed|chose|settled on|are going with)\b/i,
  /\bdecision\s*:/i,
  /\b(?:let's|let us|we'll|we will|we should|we're going to)\s+(?:use|go with|keep|switch to|stick with|move to|adopt|drop|stop using)\b/i,
  /\bwe (?:will|won't|shall)(?: not)? (?:use|add|adopt|switch|keep|drop|run)\b/i,
  /\bgoing (?:forward|with)\b/i,
  /\bfrom now on\b/i,
  /\b(?:chose|picked|prefer|preferred)\b.+\b(?:over|instead of|rather than)\b/i,
  /^(?:please\s+)?(?:always|never|don't|do not|avoid)\b/i,
  // a person's instruction that settles a choice: "Go with the invalidation event."
  /^(?:ok(?:ay)?,?\s+)?(?:go with|stick with|switch to)\b/i,
];

const FIX = /\b(?:fixed|the fix (?:is|was)|fixes it|resolved|solved|the solution (?:is|was)|(?:works|succeeds|passes|pass|builds) now|workaround|root cause|turned out|was caused by|caused by)\b/i;
const ERROR = /\b(?:error|errors|fail(?:s|ed|ing|ure)?|exception|crash(?:ed|es)?|broke|broken|bug|timeout|timed out|denied|not found|refused|ENOENT|EADDRINUSE|ECONNREFUSED|traceback|panic)\b/i;

/** A decision about the next minute, not the project ("let's use the debugger once"). */
const TRANSIENT = /\b(?:once|for now|first|quickly|temporarily|right now|for a moment)\s*[.!]?$|\b(?:the debugger|a print|a breakpoint|console\.log)\b/i;

/** A path or a file name: `deploy/cron.yaml`, `config/outbox.ts`, `.env`. */
const FILE = String.raw`\x60?(?:[\w.-]+\/[\w./-]*[\w-]|[\w-]*\.(?:ya?ml|json|toml|ts|tsx|js|mjs|py|go|rs|rb|java|env|ini|cfg|conf|sql|md|sh|lock))\b`;

const FACT = [
  /\b(?:note that|remember that|keep in mind|it turns out|turns out|fyi|for the record|til)\b/i,
  /^(?:note|important|remember)\s*:/i,
  /\b(?:is|are)\s+(?:located|stored|configured|deployed|hosted|kept|defined)\s+(?:in|at|on|under)\b/i,
  /\b(?:runs on|lives in|listens on|defaults to|is pinned to|requires)\b/i,
  // where something is: "The cron line is in deploy/cron.yaml."
  new RegExp(String.raw`\b(?:is|are|lives?|sits?)\s+in\s+${FILE}`, 'i'),
  // a limit or a setting: "Retries use exponential backoff capped at 10 minutes."
  /\b(?:capped at|limited to|(?:is|are) set to|times? out after|at most \d|at least \d)/i,
  // who owns what, what exists already
  /\b(?:is|are) owned by\b|^(?:we|you) already have\b|^there (?:is|are) already\b/i,
];

/** Why something failed: an error word with a causal link ("..., so a crash between the two sends it again"). */
const CAUSE = /(?:,\s*so\b|\bbecause\b|\bwhich is why\b|\bthat is why\b|\bdue to\b|\bwhich means\b)/i;

/** What was changed, with the names: "I split it into 0047_backfill_balance and 0048_balance_not_null." */
const CHANGE = /^(?:I|we)\s+(?:have\s+)?(?:split|renamed|moved|replaced|switched|pinned|upgraded|downgraded|migrated|extracted|merged|separated|added|set|created|introduced|removed|deleted|enabled|disabled|configured)\b/i;
/** A change names a path or a file when its verb is a common one ("I added ... in src/cache/x.ts"). */
const COMMON_CHANGE = /^(?:I|we)\s+(?:have\s+)?(?:added|set|created|introduced|removed|deleted|enabled|disabled|configured)\b/i;
const NAMED = /[\d_/`]|\b[a-z]+[A-Z]\w*|\.[a-z]{2,4}\b/;

/** A question that asks for an explanation or a value; its answer's first sentence is kept. */
const WH_QUESTION = /^(?:why|what|when|where|which|how)\b[^?]*\?$|\bwhy\?$/i;
/** The agent saying what it will do next: not the answer. */
const PLAN = /^(?:I'll|I will|I'm going to|let me|first,? I)\b/i;
const VALUE = /\d|\x60|\b[\w-]+\/[\w./-]+|\.[a-z]{2,4}\b/;
const PRONOUN = /^(?:it|they|that|this|these|those|he|she)\b/i;

/** Read a transcript: Claude Code's JSONL when its lines are such events, plain text otherwise. */
export function readTranscript(input: string): Transcript {
  const lines = input.split(/\r?\n/).filter((l) => l.trim() !== '');
  const events = lines.map(parseEvent);
  const isJsonl = events.length > 0 && events.filter((e) => e !== null).length >= Math.ceil(lines.length / 2);
  return isJsonl ? fromJsonl(events) : fromText(input);
}

interface Event {
  type?: unknown;
  sessionId?: unknown;
  timestamp?: unknown;
  isMeta?: unknown;
  isCompactSummary?: unknown;
  message?: { role?: unknown; content?: unknown };
}

function parseEvent(line: string): Event | null {
  try {
    const value = JSON.parse(line) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
    const event = value as Event;
    return typeof event.type === 'string' ? event : null;
  } catch {
    return null;
  }
}

function fromJsonl(events: (Event | null)[]): Transcript {
  let session: string | null = null;
  const turns: Turn[] = [];
  for (const event of events) {
    if (!event) continue;
    if (session === null && typeof event.sessionId === 'string') session = event.sessionId;
    if ((event.type !== 'user' && event.type !== 'assistant') || event.isMeta === true || event.isCompactSummary === true) continue;
    const at = typeof event.timestamp === 'string' ? event.timestamp : null;
    const content = event.message?.content;
    if (typeof content === 'string') {
      if (!content.startsWith('This session is being continued from a previous conversation')) turns.push({ role: event.type, text: content, at });
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const block of content as { type?: unknown; text?: unknown; is_error?: unknown; content?: unknown }[]) {
      if (block?.type === 'text' && typeof block.text === 'string') turns.push({ role: event.type, text: block.text, at });
      if (block?.type === 'tool_result' && block.is_error === true) turns.push({ role: 'tool-error', text: toolText(block.content), at });
    }
  }
  return { format: 'claude-code-jsonl', session, turns };
}

function toolText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: unknown }) => (typeof c?.text === 'string' ? c.text : '')).join('\n');
  return '';
}

const SPEAKER = /^(user|human|me|you|assistant|claude|agent|ai)\s*:\s*/i;

function fromText(input: string): Transcript {
  const turns: Turn[] = [];
  for (const paragraph of input.split(/\n\s*\n/)) {
    const text = paragraph.trim();
    if (!text) continue;
    const speaker = SPEAKER.exec(text);
    const role = speaker && /^(user|human|me)$/i.test(speaker[1]!) ? 'user' : 'assistant';
    turns.push({ role, text: speaker ? text.slice(speaker[0].length) : text, at: null });
  }
  return { format: 'text', session: null, turns };
}

/** The sentences of a turn's prose: code blocks out, one sentence a bullet or line. */
export function sentencesOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?(?:```|$)/g, '\n').replace(/<[a-z-]+>[\s\S]*?<\/[a-z-]+>/gi, '\n');
  const out: string[] = [];
  for (const rawLine of prose.split(/\r?\n/)) {
    const line = rawLine.replace(/^\s*(?:[-*+]|\d+[.)]|#+)\s+/, '').replace(/\*\*|__/g, '').trim();
    if (!line || /^[$>|]/.test(line)) continue;
    for (const sentence of line.replace(/([^.][.!?])\s+(?=[A-Z`"'(])/g, '$1\n').split('\n')) {
      const s = sentence.trim();
      if (s) out.push(s);
    }
  }
  return out;
}

function kindOf(sentence: string, before: string, recentError: boolean, role: Turn['role']): CaptureKind | null {
  if (sentence.endsWith('?')) return null;
  if (FIX.test(sentence) && (ERROR.test(sentence) || ERROR.test(before) || recentError)) return 'fix';
  if (DECISION.some((p) => p.test(sentence))) return TRANSIENT.test(sentence) ? null : 'decision';
  if (FACT.some((p) => p.test(sentence))) return 'fact';
  if (role === 'assistant' && ERROR.test(sentence) && CAUSE.test(sentence)) return 'cause';
  if (CHANGE.test(sentence) && NAMED.test(sentence) && (!COMMON_CHANGE.test(sentence) || new RegExp(FILE).test(sentence))) return 'change';
  return null;
}

/** The user's question a turn answers: the last sentence of the user's turn before it, when it asks why, what, where... */
function questionBefore(turns: Turn[], index: number): string | null {
  for (let i = index - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role === 'tool-error') continue;
    if (turn.role === 'assistant') return null;
    const last = sentencesOf(turn.text).at(-1) ?? '';
    const question = last.replace(/^(?:ok|okay|great|good|thanks|and|so|also)[,.!]?\s+/i, '');
    return WH_QUESTION.test(question) ? question : null;
  }
  return null;
}

/** The statements a transcript makes, in order, each once. */
export function captureStatements(transcript: Transcript): Capture {
  const statements: Statement[] = [];
  const secrets = new Map<string, number>();
  const seen = new Set<string>();
  let sentences = 0;
  let lastError: { text: string; turn: number } | null = null;
  const candidates: Candidate[] = [];
  transcript.turns.forEach((turn, index) => {
    if (turn.role === 'tool-error') {
      const first = turn.text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
      lastError = { text: first.slice(0, 160), turn: index };
      return;
    }
    let previous = '';
    // an answer to the user's why / what / where question: its first sentence, when it explains or gives a value
    const question = turn.role === 'assistant' ? questionBefore(transcript.turns, index) : null;
    let answer = true; // the first sentence that is not a plan answers the question
    sentencesOf(turn.text).forEach((sentence, position) => {
      sentences++;
      const before = previous;
      previous = sentence;
      if (sentence.length < MIN_LENGTH || sentence.length > MAX_LENGTH) return;
      if (!sentence.endsWith('?') && findSecret(sentence) === null) candidates.push({ n: sentences, text: sentence, role: turn.role, at: turn.at });
      const recent: { text: string; turn: number } | null = lastError !== null && index - (lastError as { turn: number }).turn <= 3 ? lastError : null;
      let kind = kindOf(sentence, before, recent !== null, turn.role);
      let text: string = sentence;
      const answering = answer && question !== null && !PLAN.test(sentence);
      if (!PLAN.test(sentence)) answer = false;
      if (!kind && answering && !sentence.endsWith('?') && (/\bwhy\b/i.test(question) || VALUE.test(sentence))) {
        kind = 'fact';
        if (PRONOUN.test(sentence)) text = `${question} ${sentence}`;
      }
      if (!kind) return;
      if (kind === 'fix' && !ERROR.test(sentence)) {
        text = ERROR.test(before) ? `${before} ${sentence}` : recent ? `${recent.text.replace(/[.:;\s]+$/, '')}: ${sentence}` : sentence;
        // the error's sentence kept as a cause just before is part of this fix now: one statement
        if (text.startsWith(`${before} `) && statements.at(-1)?.text === before && statements.at(-1)?.kind === 'cause') {
          statements.pop();
          seen.delete(before.toLowerCase().replace(/\s+/g, ' '));
        }
      }
      const secret = findSecret(text);
      if (secret) {
        secrets.set(secret, (secrets.get(secret) ?? 0) + 1);
        return;
      }
      const key = text.toLowerCase().replace(/\s+/g, ' ');
      if (seen.has(key)) return;
      seen.add(key);
      statements.push({ kind, text, role: turn.role, at: turn.at, n: sentences });
    });
  });
  return { statements, candidates, secrets: [...secrets].map(([kind, count]) => ({ kind, count })).sort((a, b) => a.kind.localeCompare(b.kind)), sentences };
}

/**
 * The optional model pass (`engram capture --chat`): the chat endpoint the validation uses is
 * shown the transcript's candidate sentences, numbered, and answers which are worth keeping and
 * of what kind. It only picks: every statement it adds is a sentence of the transcript, word for
 * word, and none holds a secret (sentences with one are never sent). What the rules kept stays.
 */
export const CAPTURE_SCHEMA = {
  name: 'capture',
  schema: {
    type: 'object',
    properties: {
      keep: {
        type: 'array',
        items: {
          type: 'object',
          properties: { n: { type: 'integer' }, kind: { type: 'string', enum: [...CAPTURE_KINDS] } },
          required: ['n', 'kind'],
          additionalProperties: false,
        },
      },
    },
    required: ['keep'],
    additionalProperties: false,
  },
};

export const CAPTURE_PROMPT =
  'You read a working session between a person and an AI coding agent, split into numbered sentences. ' +
  'Pick the sentences a teammate would want remembered next month: decisions and rules (decision), errors ' +
  'with their fixes (fix), why something failed (cause), what was changed, with the names (change), and ' +
  'lasting facts about the project: where things are, values, schedules, limits (fact). Leave out plans for ' +
  'the next minutes, greetings, thanks, status chatter, and anything about this conversation itself. ' +
  'Answer with JSON only: {"keep": [{"n": <sentence number>, "kind": "decision" | "fix" | "cause" | "change" | "fact"}]}.';

/** How many sentences one request shows the model. */
export const MODEL_BATCH = 150;

export interface ModelPass {
  statements: Statement[];
  /** Sentences the model added to what the rules kept. */
  added: number;
  /** Requests made. */
  asked: number;
}

/** One chat completion: the answer text (the runner's chat model; tests pass a fake). */
export type Complete = (request: { messages: { role: 'system' | 'user'; content: string }[]; schema: typeof CAPTURE_SCHEMA }) => Promise<string>;

/** The model's picks from an answer: `{"keep": [{"n", "kind"}]}`, a code fence around it tolerated; anything else is ignored. */
export function parsePicks(answer: string): { n: number; kind: CaptureKind }[] {
  const json = answer.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  const keep = (value as { keep?: unknown })?.keep;
  if (!Array.isArray(keep)) return [];
  return keep.flatMap((pick: { n?: unknown; kind?: unknown }) =>
    typeof pick?.n === 'number' && Number.isInteger(pick.n) && typeof pick.kind === 'string' && (CAPTURE_KINDS as readonly string[]).includes(pick.kind) ? [{ n: pick.n, kind: pick.kind as CaptureKind }] : [],
  );
}

/** What the rules kept, with what the model picks among the other candidates, in transcript order. */
export async function withModelPass(capture: Capture, complete: Complete): Promise<ModelPass> {
  const taken = new Set(capture.statements.map((s) => s.n));
  const seen = new Set(capture.statements.map((s) => s.text.toLowerCase().replace(/\s+/g, ' ')));
  const byNumber = new Map(capture.candidates.map((c) => [c.n, c]));
  const added: Statement[] = [];
  let asked = 0;
  for (let i = 0; i < capture.candidates.length; i += MODEL_BATCH) {
    const batch = capture.candidates.slice(i, i + MODEL_BATCH);
    const listing = batch.map((c) => `${c.n} [${c.role === 'user' ? 'person' : 'agent'}] ${c.text.replace(/\s+/g, ' ')}`).join('\n');
    asked++;
    const answer = await complete({ messages: [{ role: 'system', content: CAPTURE_PROMPT }, { role: 'user', content: listing }], schema: CAPTURE_SCHEMA });
    for (const pick of parsePicks(answer)) {
      const candidate = byNumber.get(pick.n);
      if (!candidate || taken.has(pick.n) || !batch.includes(candidate) || findSecret(candidate.text) !== null) continue;
      const key = candidate.text.toLowerCase().replace(/\s+/g, ' ');
      if (seen.has(key)) continue;
      taken.add(pick.n);
      seen.add(key);
      added.push({ kind: pick.kind, text: candidate.text, role: candidate.role, at: candidate.at, n: pick.n });
    }
  }
  return { statements: [...capture.statements, ...added].sort((a, b) => a.n - b.n), added: added.length, asked };
}
