import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureStatements, parsePicks, readTranscript, withModelPass } from '../../src/core/capture';
import { engram, initVault } from '../helpers/cli';
import { startFakeChat, type FakeChat } from '../helpers/fake-chat';

/**
 * capture --chat (issue 24): the chat endpoint the validation uses picks, among the sentences the
 * rules did not keep, those worth keeping. It only picks (the words stay the transcript's), never
 * sees a sentence holding a secret, and is asked only with --chat and a configured endpoint; a
 * fake OpenAI-compatible server on 127.0.0.1 stands in for it.
 */
const TRANSCRIPT = [
  'User: The nightly report was empty again.',
  'Assistant: I looked at the job. The report query filters on the local date instead of UTC. We decided to compute the window in UTC from now on.',
  'User: The reporting database password=Tr0ub4dor-9 is in the vault; the report owner is Dana from finance.',
  'Assistant: Understood. Thanks for the details.',
].join('\n\n');

describe('engram capture --chat', () => {
  let vault: string;
  let cleanup: () => void;
  let chat: FakeChat;
  beforeAll(async () => {
    chat = await startFakeChat();
  });
  afterAll(() => chat.close());
  beforeEach(async () => {
    ({ vault, cleanup } = await initVault('engram-capture-chat-'));
    chat.replies.length = 0;
    chat.requests.length = 0;
  });
  afterEach(() => cleanup());

  const configure = () => writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ chat: { url: chat.url, model: 'fake-picker' } }));
  const capture = (args: string[]) => engram(vault, ['--json', '--now', '2026-11-30T10:00:00Z', 'capture', ...args, '-'], TRANSCRIPT);

  test('adds the sentences the model picks, word for word; a secret is never sent; bad picks are ignored', async () => {
    configure();
    const rules = captureStatements(readTranscript(TRANSCRIPT));
    expect(rules.statements.map((s) => [s.n, s.kind, s.text])).toEqual([[4, 'decision', 'We decided to compute the window in UTC from now on.']]);
    expect(rules.candidates.map((c) => [c.n, c.text])).toEqual([
      [1, 'The nightly report was empty again.'],
      [2, 'I looked at the job.'],
      [3, 'The report query filters on the local date instead of UTC.'],
      [4, 'We decided to compute the window in UTC from now on.'],
      [7, 'Thanks for the details.'],
    ]);
    chat.replies.push({ content: JSON.stringify({ keep: [{ n: 3, kind: 'cause' }, { n: 4, kind: 'fact' }, { n: 5, kind: 'fact' }, { n: 6, kind: 'fact' }, { n: 99, kind: 'fact' }, { n: 1, kind: 'opinion' }] }) });
    const run = await capture(['--chat']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const out = run.json();
    expect(out.statements.map((s: { kind: string; text: string }) => [s.kind, s.text])).toEqual([
      ['cause', 'The report query filters on the local date instead of UTC.'],
      ['decision', 'We decided to compute the window in UTC from now on.'],
    ]);
    expect(out.model).toEqual({ name: 'fake-picker', asked: 1, added: 1 });
    expect(out.created).toBe(2);
    expect(chat.requests).toHaveLength(1);
    const sent = JSON.stringify(chat.requests[0]!.body);
    expect(sent).not.toContain('Tr0ub4dor');
    expect(chat.requests[0]!.body.messages[1].content).toBe(
      '1 [person] The nightly report was empty again.\n2 [agent] I looked at the job.\n3 [agent] The report query filters on the local date instead of UTC.\n4 [agent] We decided to compute the window in UTC from now on.\n7 [agent] Thanks for the details.',
    );
    expect(chat.requests[0]!.body.response_format.json_schema.name).toBe('capture');
  });

  test('without --chat nothing is sent, even with an endpoint configured; --chat without one is a usage error', async () => {
    configure();
    const plain = await capture([]);
    expect([plain.code, plain.json().model, plain.json().created]).toEqual([0, null, 1]);
    expect(chat.requests).toHaveLength(0);
    writeFileSync(path.join(vault, '.engram', 'config.json'), '{}');
    const none = await capture(['--chat']);
    expect([none.code, none.stderr]).toEqual([
      2,
      'engram: capture --chat: no chat endpoint configured: set "chat": {"url": "http://127.0.0.1:11434/v1", "model": "..."} in .engram/config.json\nrun \'engram --help\' for usage\n',
    ]);
  });

  test('an endpoint that fails costs only its additions: the rules\' statements are remembered, exit 0', async () => {
    configure();
    chat.replies.push({ status: 503, body: 'overloaded' });
    const run = await capture(['--chat']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`engram: capture: the chat endpoint failed (${chat.url}/chat/completions: HTTP 503 overloaded); kept what the rules found\n`);
    expect(run.json().model).toEqual({ name: 'fake-picker', asked: 0, added: 0, error: `${chat.url}/chat/completions: HTTP 503 overloaded` });
    expect(run.json().created).toBe(1);
  });
});

describe('the model pass, with an injected completion', () => {
  test('a code fence around the answer is read; a non-JSON answer adds nothing', async () => {
    expect(parsePicks('```json\n{"keep": [{"n": 2, "kind": "fact"}]}\n```')).toEqual([{ n: 2, kind: 'fact' }]);
    expect(parsePicks('Sure! Sentences 2 and 3.')).toEqual([]);
    const capture = captureStatements(readTranscript('The deploy runs from the ops laptop every Friday.\n\nThanks!'));
    expect(capture.statements).toEqual([]);
    const pass = await withModelPass(capture, async () => '{"keep": [{"n": 1, "kind": "fact"}]}');
    expect(pass.statements.map((s) => [s.kind, s.text])).toEqual([['fact', 'The deploy runs from the ops laptop every Friday.']]);
    expect([pass.added, pass.asked]).toEqual([1, 1]);
  });
});

describe('the rules added for issue 24 keep quiet on ordinary talk', () => {
  test.each([
    "Let's use the debugger to step through deliver() once.",
    "I'll read the logs first, so we know where it stops.",
    'I moved on to the next file.',
    'Thanks, that works for me.',
    'The build is in progress.',
    'I added a log line to see what deliver() gets.',
    "I'll look at the caching layer first.",
    'BullMQ needs Redis; pg-boss uses the PostgreSQL we already have.',
  ])('%s', (text) => {
    expect(captureStatements(readTranscript(text)).statements).toEqual([]);
  });
});
