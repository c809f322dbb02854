/**
 * Capture: what an agent's session states as decisions, errors with their fixes, and facts,
 * taken from its transcript without a model (`engram capture`). Claude Code's JSONL transcript
 * (one event a line: `type` user/assistant, `message.content` a string or blocks of `text`,
 * `tool_use`, `tool_result` with `is_error`) and plain text are read. Sentences are kept by
 * cue words, never when they hold something a secret scanner would flag: the whole sentence is
 * dropped, not masked, so no part of a key reaches the vault. Pure: the caller remembers the
 * statements (through import, so a second run of the same transcript changes nothing).
 */

export type CaptureKind = 'decision' | 'fix' | 'fact';

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
}

export interface Capture {
  statements: Statement[];
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
  /^(?:always|never|don't|do not|avoid)\b/i,
];

const FIX = /\b(?:fixed|the fix (?:is|was)|fixes it|resolved|solved|the solution (?:is|was)|(?:works|succeeds|passes|pass|builds) now|workaround|root cause|turned out|was caused by|caused by)\b/i;
const ERROR = /\b(?:error|errors|fail(?:s|ed|ing|ure)?|exception|crash(?:ed|es)?|broke|broken|bug|timeout|timed out|denied|not found|refused|ENOENT|EADDRINUSE|ECONNREFUSED|traceback|panic)\b/i;

const FACT = [
  /\b(?:note that|remember that|keep in mind|it turns out|turns out|fyi|for the record|til)\b/i,
  /^(?:note|important|remember)\s*:/i,
  /\b(?:is|are)\s+(?:located|stored|configured|deployed|hosted|kept|defined)\s+(?:in|at|on|under)\b/i,
  /\b(?:runs on|lives in|listens on|defaults to|is pinned to|requires)\b/i,
];

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

function kindOf(sentence: string, before: string, recentError: boolean): CaptureKind | null {
  if (sentence.endsWith('?')) return null;
  if (FIX.test(sentence) && (ERROR.test(sentence) || ERROR.test(before) || recentError)) return 'fix';
  if (DECISION.some((p) => p.test(sentence))) return 'decision';
  if (FACT.some((p) => p.test(sentence))) return 'fact';
  return null;
}

/** The statements a transcript makes, in order, each once. */
export function captureStatements(transcript: Transcript): Capture {
  const statements: Statement[] = [];
  const secrets = new Map<string, number>();
  const seen = new Set<string>();
  let sentences = 0;
  let lastError: { text: string; turn: number } | null = null;
  transcript.turns.forEach((turn, index) => {
    if (turn.role === 'tool-error') {
      const first = turn.text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
      lastError = { text: first.slice(0, 160), turn: index };
      return;
    }
    let previous = '';
    for (const sentence of sentencesOf(turn.text)) {
      sentences++;
      const before = previous;
      previous = sentence;
      if (sentence.length < MIN_LENGTH || sentence.length > MAX_LENGTH) continue;
      const recent: { text: string; turn: number } | null = lastError !== null && index - (lastError as { turn: number }).turn <= 3 ? lastError : null;
      const kind = kindOf(sentence, before, recent !== null);
      if (!kind) continue;
      const text = kind !== 'fix' || ERROR.test(sentence) ? sentence : ERROR.test(before) ? `${before} ${sentence}` : recent ? `${recent.text.replace(/[.:;\s]+$/, '')}: ${sentence}` : sentence;
      const secret = findSecret(text);
      if (secret) {
        secrets.set(secret, (secrets.get(secret) ?? 0) + 1);
        continue;
      }
      const key = text.toLowerCase().replace(/\s+/g, ' ');
      if (seen.has(key)) continue;
      seen.add(key);
      statements.push({ kind, text, role: turn.role, at: turn.at });
    }
  });
  return { statements, secrets: [...secrets].map(([kind, count]) => ({ kind, count })).sort((a, b) => a.kind.localeCompare(b.kind)), sentences };
}
