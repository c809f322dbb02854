import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { captureStatements, readTranscript, withModelPass, type CaptureKind, type Statement } from '../src/core/capture';
import { EngramError, UsageError } from '../src/core/errors';
import { importLines, type ImportLine } from '../src/core/import';
import type { Category } from '../src/core/settings';
import { parseTimestamp } from '../src/core/time';
import type { Command, CommandContext } from './command';
import { print, readInput } from './command-kit';
import { createEmbedder } from './embedders';
import { createChatModel } from './openai-chat';
import { openVault } from './runtime';

/**
 * `engram capture [FILE | -]`: remember what an agent's session stated (decisions, errors with
 * their fixes, facts) from its transcript, without a model (src/core/capture.ts). Standard input
 * may be a Claude Code hook's payload (`{"session_id", "transcript_path", ...}`, as the Stop and
 * SessionEnd hooks give it): the transcript it names is read. The statements go through import,
 * so a second run over the same transcript (the Stop hook fires after every answer) changes
 * nothing; the session is the source.
 */

const CATEGORY: Record<CaptureKind, Category> = { decision: 'decision', fix: 'episodic', cause: 'episodic', change: 'episodic', fact: 'semantic' };

interface HookPayload {
  transcript_path?: unknown;
  session_id?: unknown;
}

/** The transcript's text and the session id a hook payload gives, if the input is one. */
function transcriptInput(context: CommandContext): { text: string; name: string; session: string | null } {
  const file = context.args[0] ?? '-';
  if (file === '-' && context.io.stdinIsTTY) throw new UsageError('capture: give a transcript file, or pipe one (or a Claude Code hook payload) into standard input');
  const text = readInput(context, file, 'capture');
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && !trimmed.includes('\n')) {
    let payload: HookPayload | null = null;
    try {
      payload = JSON.parse(trimmed) as HookPayload;
    } catch {
      payload = null;
    }
    if (payload && typeof payload.transcript_path === 'string') {
      const path = nodePath.resolve(context.io.cwd, payload.transcript_path);
      let transcript: string;
      try {
        transcript = readFileSync(path, 'utf8');
      } catch (error) {
        throw new EngramError(`capture: cannot read the transcript the hook named (${path}): ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      return { text: transcript, name: path, session: typeof payload.session_id === 'string' ? payload.session_id : null };
    }
  }
  if (trimmed === '') throw new UsageError(`capture: ${file === '-' ? 'standard input' : file} held no transcript`);
  return { text, name: file === '-' ? 'stdin' : file, session: null };
}

function importLine(statement: Statement, session: string | null, source: string, role: string | null): ImportLine {
  const at = statement.at !== null && parseTimestamp(statement.at) !== null ? statement.at : undefined;
  return {
    text: statement.text,
    category: CATEGORY[statement.kind],
    is_error: statement.kind === 'fix' || statement.kind === 'cause',
    tags: ['captured'],
    source,
    ...(session ? { session } : {}),
    ...(at ? { created_at: at } : {}),
    ...(role ? { agent_role: role } : {}),
  };
}

export const captureCommand: Command = {
  group: 'write',
  args: '[FILE | -]',
  arity: [0, 1],
  summary: "remember a session's decisions, errors with their fixes and facts, from its transcript (no model)",
  details:
    "FILE: a Claude Code transcript (JSONL) or plain text; - or a pipe: standard input, which may also be a\n" +
    "Claude Code hook's payload naming the transcript (the Stop hook: engram capture). Sentences are kept by\n" +
    'cue words: decisions ("we decided", "let\'s use", "from now on", "never ..."), fixes (an error and "fixed",\n' +
    '"the fix was", "caused by"; or a fix right after a failed tool call), causes (an error and "because",\n' +
    '", so"), changes ("I split / renamed / moved ..." with the names), facts ("note that", "is stored in",\n' +
    '"is in deploy/cron.yaml", "defaults to", "capped at"; the first sentence answering a why / what / where\n' +
    'question). Questions and code blocks are skipped; a sentence holding a secret (keys, tokens, private\n' +
    'keys, password=...) is dropped whole. With --chat, the chat endpoint of .engram/config.json (the one\n' +
    'validation uses) also picks sentences worth keeping among the rest: it only picks, the words stay the\n' +
    "transcript's, and a sentence holding a secret is never sent. Source: the session. Running it again on\n" +
    'the same transcript changes nothing.\n' +
    'json: {"format", "session", "sentences", "statements": [{"kind", "text", "id", "path", "action"}],\n' +
    '"secrets_dropped": [{"kind", "count"}], "model": null | {"name", "asked", "added", "error"?}, "created",\n' +
    '"reinforced", "conflicts", "unchanged", "dry_run"}',
  options: {
    'dry-run': { type: 'boolean', help: 'show what would be remembered, write nothing' },
    source: { type: 'string', value: 'S', help: 'the source recorded (session:<id>, else transcript:<file name>)' },
    role: { type: 'string', value: 'R', help: 'the agent role that remembers it (agent_role)' },
    chat: { type: 'boolean', help: 'also let the configured chat endpoint (chat.url) pick sentences worth keeping' },
  },
  async run(context) {
    const input = transcriptInput(context);
    const transcript = readTranscript(input.text);
    const session = transcript.session ?? input.session;
    const source = (context.options.source as string | undefined) ?? (session ? `session:${session}` : `transcript:${nodePath.basename(input.name)}`);
    const capture = captureStatements(transcript);
    const runtime = openVault(context.runtime);
    let model: { name: string; asked: number; added: number; error?: string } | null = null;
    if (context.options.chat) {
      const chat = createChatModel(runtime.vault.settings.chat, context.io.env);
      if (!chat) throw new UsageError('capture --chat: no chat endpoint configured: set "chat": {"url": "http://127.0.0.1:11434/v1", "model": "..."} in .engram/config.json');
      try {
        const pass = await withModelPass(capture, (request) => chat.complete(request));
        capture.statements = pass.statements;
        model = { name: chat.model, asked: pass.asked, added: pass.added };
      } catch (error) {
        // the rules' statements are still remembered: a model that is down tonight costs only its additions
        model = { name: chat.model, asked: 0, added: 0, error: error instanceof Error ? error.message : String(error) };
        context.io.stderr(`engram: capture: the chat endpoint failed (${model.error}); kept what the rules found\n`);
      }
    }
    const role = (context.options.role as string | undefined) ?? null;
    const dryRun = Boolean(context.options['dry-run']);
    const summary = await importLines(runtime.vault, capture.statements.map((s) => importLine(s, session, source, role)), {
      embedder: createEmbedder(runtime.vault.settings.embedder, runtime.root),
      dryRun,
    });
    const statements = capture.statements.map((s, i) => ({ kind: s.kind, text: s.text, id: summary.results[i]?.id ?? null, path: summary.results[i]?.path ?? null, action: summary.results[i]?.action ?? null }));
    const result = {
      format: transcript.format,
      session,
      sentences: capture.sentences,
      statements,
      secrets_dropped: capture.secrets,
      model,
      created: summary.created,
      reinforced: summary.reinforced,
      conflicts: summary.conflicts,
      unchanged: summary.unchanged,
      dry_run: dryRun,
    };
    return print(context, result, () => {
      const secretCount = capture.secrets.reduce((n, s) => n + s.count, 0);
      const lines = [
        `${dryRun ? 'would capture' : 'captured'} ${statements.length} of ${capture.sentences} sentences from ${session ? `session ${session}` : input.name} (${transcript.format}): ` +
          `${summary.created} created, ${summary.reinforced} reinforced, ${summary.conflicts} conflicts, ${summary.unchanged} already captured`,
        ...statements.map((s) => `  ${s.kind.padEnd(8)} ${String(s.action).padEnd(10)} ${s.id ?? ''}  ${s.text.length > 100 ? `${s.text.slice(0, 97)}...` : s.text}`),
      ];
      if (model && !model.error) lines.push(`the chat model ${model.name} added ${model.added} ${model.added === 1 ? 'sentence' : 'sentences'} to what the rules kept`);
      if (secretCount > 0) lines.push(`dropped ${secretCount} ${secretCount === 1 ? 'sentence' : 'sentences'} holding a secret (${capture.secrets.map((s) => s.kind).join(', ')}): nothing of them was written`);
      return lines.join('\n');
    });
  },
};
