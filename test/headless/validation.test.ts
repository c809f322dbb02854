import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { memoryHistory, revertTo } from '../../src/core/versions';
import { openVault } from '../../headless/runtime';
import { engram, tempDir } from '../helpers/cli';
import { startFakeChat, type FakeChat } from '../helpers/fake-chat';

const NOW = '2026-11-29T12:00:00Z';

/** The text after the frontmatter, byte for byte. */
const bodyOf = (file: string) => {
  const text = readFileSync(file, 'utf8');
  return text.slice(text.indexOf('\n---\n') + 5);
};
const field = (file: string, name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(readFileSync(file, 'utf8'))?.[1];

describe('engram validate and the review queue (SPEC §10), against a fake chat server on 127.0.0.1', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  let repo: string;
  let chat: FakeChat;
  const ids: Record<string, string> = {};

  // a chat server that answers is never timed out, however loaded the machine; only the one that
  // hangs meets a short timeout (the outcome is a timeout whatever the machine's speed)
  const configure = (validation: Record<string, unknown>, timeoutMs = 60_000) =>
    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ validation: { enabled: true, dryRun: false, ...validation }, chat: { url: chat.url, model: 'fake-judge', timeoutMs } }));
  const validate = (id: string, now = NOW) => engram(vault, ['--json', '--now', now, 'validate', id, '--repo', repo]);
  const verdict = (v: Record<string, unknown>) => ({ verdict: { verdict: 'valid', confidence: 0.9, wording: 'clear', evidence: ['E1', 'E3'], reason: 'checked', proposed_text: null, ...v } });

  beforeAll(async () => {
    chat = await startFakeChat();
  });
  afterAll(() => chat.close());

  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    chat.replies.length = 0;
    chat.requests.length = 0;
    repo = path.join(dir, 'project');
    mkdirSync(path.join(repo, 'src'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'src', 'retry.ts'), 'export const RETRIES = 5;\n');
    git('add', '.');
    git('commit', '-q', '-m', 'Retry five times');
    vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
    const say = async (key: string, text: string, extra: string[] = []) => {
      const created = (await engram(vault, ['--json', '--now', '2026-11-20T10:00:00Z', 'remember', text, '--path', 'src/retry.ts', ...extra])).json();
      expect(created.path).toBe(NAMES[key]);
      ids[key] = created.id;
    };
    await say('retries', 'The payment client retries three times before giving up.', ['--category', 'decision', '--confidence', 'verified']);
    await say('other', 'Webhook handlers must be idempotent.');
    configure({});
  });
  afterEach(() => cleanup());

  /** Where remember put each (named after its title, ADR 0005); a new version of the text keeps the name. */
  const NAMES: Record<string, string> = { retries: 'decisions/The payment client retries three times before giving up.md', other: 'episodic/Webhook handlers must be idempotent.md' };
  const file = (key: string) => path.join(vault, NAMES[key]!);

  it('shows the model the evidence by id (the memory, the git history of its paths, their content) and asks for structured output', async () => {
    chat.replies.push(verdict({}));
    const run = await validate(ids.retries!);
    expect(run.code).toBe(0);
    const request = chat.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.body).toMatchObject({ model: 'fake-judge', temperature: 0, response_format: { type: 'json_schema', json_schema: { name: 'memory_verdict', strict: true } } });
    const user = request.body.messages[1].content as string;
    expect(user).toContain(`[E1] (memory)\nMemory ${ids.retries} (decision, confidence verified, created 2026-11-20T10:00:00Z):\nThe payment client retries three times before giving up.\nRelated paths: src/retry.ts`);
    expect(user).toMatch(/\[E2\] \(commit\)\nCommit [0-9a-f]{12} \(.*\): Retry five times\nFiles: src\/retry.ts/);
    expect(user).toContain('[E3] (file)\nFile src/retry.ts now:\nexport const RETRIES = 5;\n');
    expect(run.json()).toMatchObject({ memory: ids.retries, outcome: 'refreshed', verdict: 'valid', shown: ['E1', 'E2', 'E3'], model: 'fake-judge', manual: true, dry_run: false });
  });

  it('the policy table, verdict by verdict; no weak verdict changes a memory\'s text', async () => {
    const cases: Array<{ reply: Record<string, unknown>; outcome: string; kind?: string; flagged: boolean; textChanged: boolean }> = [
      { reply: {}, outcome: 'refreshed', flagged: false, textChanged: false },
      { reply: { wording: 'unclear', proposed_text: 'The payment client retries 3 times, then fails.' }, outcome: 'queued', kind: 'rewording', flagged: false, textChanged: false },
      { reply: { verdict: 'partially_valid', proposed_text: 'The payment client retries five times.' }, outcome: 'queued', kind: 'correction', flagged: true, textChanged: false },
      { reply: { verdict: 'outdated', proposed_text: 'The payment client retries five times (src/retry.ts).' }, outcome: 'queued', kind: 'correction', flagged: true, textChanged: false },
      { reply: { verdict: 'outdated' }, outcome: 'flagged', kind: 'flag', flagged: true, textChanged: false },
      { reply: { verdict: 'ambiguous', proposed_text: 'Maybe five.' }, outcome: 'flagged', kind: 'flag', flagged: true, textChanged: false },
      { reply: { verdict: 'unsupported', evidence: [] }, outcome: 'flagged', kind: 'flag', flagged: true, textChanged: false },
      { reply: { verdict: 'outdated', confidence: 0.3, proposed_text: 'Five.' }, outcome: 'flagged', kind: 'flag', flagged: true, textChanged: false },
      { reply: { verdict: 'valid', confidence: 0.3, wording: 'unclear', proposed_text: 'Three.' }, outcome: 'flagged', kind: 'flag', flagged: true, textChanged: false },
    ];
    const original = readFileSync(file('retries'), 'utf8');
    for (const c of cases) {
      writeFileSync(file('retries'), original);
      for (const f of existsSync(path.join(vault, 'review')) ? readdirSync(path.join(vault, 'review')) : []) require('node:fs').rmSync(path.join(vault, 'review', f));
      chat.replies.push(verdict(c.reply));
      const run = (await validate(ids.retries!)).json();
      const label = JSON.stringify(c.reply);
      expect([label, run.outcome]).toEqual([label, c.outcome]);
      expect([label, bodyOf(file('retries'))]).toEqual([label, original.slice(original.indexOf('\n---\n') + 5)]);
      expect([label, field(file('retries'), 'needs_review')]).toEqual([label, c.flagged ? 'true' : undefined]);
      // a flag is a rank penalty: one confidence step down, remembered for the review
      expect([label, field(file('retries'), 'confidence')]).toEqual([label, c.flagged ? 'observed' : 'verified']);
      const notes = existsSync(path.join(vault, 'review')) ? readdirSync(path.join(vault, 'review')) : [];
      expect([label, notes.length]).toEqual([label, c.kind ? 1 : 0]);
      if (c.kind) expect([label, field(path.join(vault, 'review', notes[0]!), 'kind')]).toEqual([label, c.kind]);
    }
  });

  it('an automatic rewording needs auto-apply and high confidence; it is a new version that revert undoes to the exact bytes', async () => {
    configure({ autoApplyRewording: true });
    const before = readFileSync(file('retries'), 'utf8');
    chat.replies.push(verdict({ wording: 'unclear', confidence: 0.8, proposed_text: 'Retries: three.' }));
    expect((await validate(ids.retries!)).json().outcome).toBe('queued');
    expect(bodyOf(file('retries'))).toBe(before.slice(before.indexOf('\n---\n') + 5));
    chat.replies.push(verdict({ wording: 'unclear', confidence: 0.95, proposed_text: 'The payment client makes three attempts, then gives up.' }));
    expect((await validate(ids.retries!, '2026-11-29T13:00:00Z')).json().outcome).toBe('reworded');
    expect(bodyOf(file('retries'))).toBe('The payment client makes three attempts, then gives up.\n');
    const runtime = openVault({ vault, now: '2026-11-29T14:00:00Z', cwd: dir, env: {} });
    expect((await memoryHistory(runtime.vault, ids.retries!)).map((v) => [v.n, v.reason, v.by])).toEqual([
      [1, 'created', null],
      [2, expect.stringMatching(/^rewording by validation val-[0-9a-f]{12} \(confidence 0\.95\)$/), 'validation'],
    ]);
    await revertTo(runtime.vault, ids.retries!, 1);
    expect(bodyOf(file('retries'))).toBe(before.slice(before.indexOf('\n---\n') + 5));
    expect(field(file('retries'), 'content_hash')).toBe(/^content_hash: (.*)$/m.exec(before)![1]);
  });

  it('citing unseen evidence, malformed JSON, a refusal, an error status and a timeout are recorded and change nothing', async () => {
    const original = readFileSync(file('retries'), 'utf8');
    const failures: Array<[unknown, string, RegExp]> = [
      [verdict({ verdict: 'outdated', evidence: ['E1', 'E9'], proposed_text: 'Five.' }), 'unseen_evidence', /^cites evidence it was not shown: E9$/],
      [{ content: '{"verdict": "valid", "confidence": ' }, 'malformed', /^not JSON/],
      [{ content: '{"verdict": "probably", "confidence": 0.9, "evidence": ["E1"]}' }, 'malformed', /^verdict: expected one of valid, partially_valid, outdated, ambiguous, unsupported/],
      [{ refusal: 'I cannot help with that.' }, 'refused', /^the model refused: I cannot help with that\.$/],
      [{ status: 503, body: 'overloaded' }, 'http', /HTTP 503 overloaded$/],
      [{ hang: true }, 'timeout', /no answer within 300 ms$/],
    ];
    for (const [reply, outcome, error] of failures) {
      if ('hang' in (reply as object)) configure({}, 300);
      chat.replies.push(reply as never);
      const run = await validate(ids.retries!);
      expect([outcome, run.code]).toEqual([outcome, 1]);
      expect(run.json().outcome).toBe(outcome);
      expect(run.json().error).toMatch(error);
      expect(readFileSync(file('retries'), 'utf8')).toBe(original);
    }
    expect(existsSync(path.join(vault, 'review'))).toBe(false);
    const log = readFileSync(path.join(vault, '.engram', 'validation-runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).outcome);
    expect(log).toEqual(['unseen_evidence', 'malformed', 'malformed', 'refused', 'http', 'timeout']);
  });

  it('off by default, a dry run when first turned on, and a daily cap', async () => {
    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ chat: { url: chat.url, model: 'fake-judge' } }));
    const off = await validate(ids.retries!);
    expect([off.code, off.stderr]).toEqual([1, 'engram: validation is off: set "validation": {"enabled": true} in .engram/config.json (it starts as a dry run) and configure "chat"\n']);
    expect(chat.requests).toHaveLength(0);

    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ validation: { enabled: true, dailyCap: 2 }, chat: { url: chat.url, model: 'fake-judge' } }));
    const original = readFileSync(file('retries'), 'utf8');
    chat.replies.push(verdict({ verdict: 'outdated', proposed_text: 'The payment client retries five times.' }));
    const dry = (await validate(ids.retries!)).json();
    expect(dry).toMatchObject({ dry_run: true, outcome: 'queued', verdict: 'outdated' });
    expect(readFileSync(file('retries'), 'utf8')).toBe(original);
    expect(existsSync(path.join(vault, 'review'))).toBe(false);
    const listed = await engram(vault, ['--now', NOW, 'review', 'list', '--all']);
    expect(listed.stdout).toContain('dry-run validation (nothing was changed):\n');
    expect(listed.stdout).toContain(`${ids.retries}  DRY RUN: would be queued  verdict outdated (confidence 0.9, cites E1 E3)`);

    chat.replies.push(verdict({}));
    expect((await validate(ids.other!)).code).toBe(0);
    const capped = await validate(ids.retries!);
    expect([capped.code, capped.stderr]).toEqual([1, 'engram: the daily validation cap is reached (2 of 2 runs today); try again tomorrow or raise validation.dailyCap\n']);
    expect(chat.requests).toHaveLength(2);
    chat.replies.push(verdict({}));
    expect((await validate(ids.retries!, '2026-11-30T00:00:01Z')).code).toBe(0);
  });

  it('applies exactly the text proposed, whatever the model put in its reason or its text (headings, fences)', async () => {
    const proposed = 'The payment client retries five times.\n\n## Steps\n\n1. read src/retry.ts\n```ts\nexport const RETRIES = 5;\n```\n## Proposed text\nstill the proposal';
    chat.replies.push(verdict({ verdict: 'outdated', confidence: 0.85, reason: 'src/retry.ts says five.\n## Proposed text\nAll deploys are cancelled forever.\n## Change\n', proposed_text: proposed }));
    const queued = (await validate(ids.retries!)).json();
    const id = path.basename(queued.proposal, '.md');
    const note = readFileSync(path.join(vault, queued.proposal), 'utf8');
    expect(note).toContain('Verdict: **outdated** (confidence 0.85). src/retry.ts says five. ## Proposed text All deploys are cancelled forever. ## Change\n');
    expect(note).toContain(`## Proposed text\n\n\`\`\`\`text\n${proposed}\n\`\`\`\`\n`);
    expect((await engram(vault, ['--json', '--now', NOW, 'review', 'show', id])).json().proposed_text).toBe(proposed);
    const applied = await engram(vault, ['--json', '--now', '2026-11-29T13:00:00Z', 'review', 'apply', id]);
    expect(applied.json()).toMatchObject({ decision: 'approved', version: 2 });
    expect(bodyOf(file('retries'))).toBe(`${proposed}\n`);
    expect(field(path.join(vault, queued.proposal), 'edited')).toBeUndefined();
  });

  it('refuses a note from before the fence whose section is not the text proposed (a reason that injected a heading)', async () => {
    chat.replies.push(verdict({ verdict: 'outdated', confidence: 0.85, reason: 'src/retry.ts says five', proposed_text: 'The payment client retries five times.' }));
    const queued = (await validate(ids.retries!)).json();
    const id = path.basename(queued.proposal, '.md');
    const note = path.join(vault, queued.proposal);
    const old = readFileSync(note, 'utf8').replace('````text\nThe payment client retries five times.\n````', 'The payment client retries five times.').replace('```text\nThe payment client retries five times.\n```', 'The payment client retries five times.');
    // the old layout, with a reason that held "\n## Proposed text\n..." before the real section
    writeFileSync(note, old.replace('## Current text', '## Proposed text\n\nAll deploys are cancelled forever.\n\n## Current text'));
    const refused = await engram(vault, ['--now', NOW, 'review', 'apply', id]);
    expect([refused.code, refused.stderr]).toEqual([1, `engram: ${queued.proposal}: the "## Proposed text" section is not the text proposed and is not in a fenced block; nothing applied (put the text to apply in a \`\`\`text block under the heading, or reject the proposal)\n`]);
    expect(bodyOf(file('retries'))).toBe('The payment client retries three times before giving up.\n');
    writeFileSync(note, old); // the old layout as written: the very text proposed is applied
    const applied = await engram(vault, ['--json', '--now', NOW, 'review', 'apply', id]);
    expect(applied.json()).toMatchObject({ decision: 'approved', version: 2 });
    expect(bodyOf(file('retries'))).toBe('The payment client retries five times.\n');
  });

  it('review round trip through the CLI: list, show, edit the proposal in the note, apply as a new version; reject with a reason; the loop learns', async () => {
    chat.replies.push(verdict({ verdict: 'outdated', confidence: 0.85, reason: 'src/retry.ts says five', proposed_text: 'The payment client retries five times before giving up.' }));
    const queued = (await validate(ids.retries!)).json();
    const id = path.basename(queued.proposal, '.md');
    const list = await engram(vault, ['--json', '--now', NOW, 'review', 'list']);
    expect(list.json().map((p: { id: string; kind: string; memory: string; status: string }) => [p.id, p.kind, p.memory, p.status])).toEqual([[id, 'correction', ids.retries, 'open']]);
    const shown = (await engram(vault, ['--json', '--now', NOW, 'review', 'show', id])).json();
    expect(shown.proposed_text).toBe('The payment client retries five times before giving up.');
    expect(shown.note).toContain('```diff\n- The payment client retries three times before giving up.\n+ The payment client retries five times before giving up.\n```');
    expect(shown.note).toContain(`Verdict: **outdated** (confidence 0.85). src/retry.ts says five`);
    expect(field(file('retries'), 'review')).toBe(`"[[${id}]]"`);

    // a person improves the proposal in Obsidian, then applies it
    const note = path.join(vault, queued.proposal);
    writeFileSync(note, readFileSync(note, 'utf8').replace('\nThe payment client retries five times before giving up.\n', '\nThe payment client retries five times (RETRIES in src/retry.ts), then gives up.\n'));
    const applied = await engram(vault, ['--json', '--now', '2026-11-29T13:00:00Z', 'review', 'apply', id]);
    expect(applied.json()).toMatchObject({ decision: 'approved_edited', version: 2, confidence: 'verified', proposal: { status: 'applied' } });
    expect(bodyOf(file('retries'))).toBe('The payment client retries five times (RETRIES in src/retry.ts), then gives up.\n');
    expect([field(file('retries'), 'needs_review'), field(file('retries'), 'confidence'), field(file('retries'), 'review')]).toEqual(['false', 'verified', 'null']);
    expect(field(note, 'status')).toBe('applied');
    expect(field(note, 'edited')).toBe('true');
    const again = await engram(vault, ['--now', NOW, 'review', 'apply', id]);
    expect([again.code, again.stderr]).toEqual([1, `engram: ${id} was already applied at 2026-11-29T13:00:00Z\n`]);

    chat.replies.push(verdict({ verdict: 'ambiguous', reason: 'handlers differ' }));
    const flagged = (await validate(ids.other!)).json();
    const flag = path.basename(flagged.proposal, '.md');
    const rejected = await engram(vault, ['--json', '--now', NOW, 'review', 'reject', flag, '--reason', 'every handler checks the event id']);
    expect(rejected.json()).toMatchObject({ decision: 'rejected', confidence: 'observed' });
    expect(field(path.join(vault, flagged.proposal), 'decision_reason')).toBe('every handler checks the event id');
    expect(bodyOf(file('other'))).toBe('Webhook handlers must be idempotent.\n');
    expect(field(file('other'), 'needs_review')).toBe('false');

    const loops = (await engram(vault, ['--json', '--now', NOW, 'loops'])).json().loops;
    // 0 -> 0 + 0.2 (0.4 - 0) = 0.08 -> 0.08 + 0.2 (-1 - 0.08) = -0.136
    expect(loops.find((l: { loop: string }) => l.loop === 'validation')).toMatchObject({ utility: -0.136, decisions: 2, counts: { approved: 0, approved_edited: 1, rejected: 1, cited: 0 } });
  });
  it('validate --due asks about every due memory, most active first, as automatic runs (manual: false), and stops at the daily cap', async () => {
    // activation 9 and 8.5 at NOW: over the threshold of 8 (no volatility)
    for (const [key, activation] of [['retries', 9], ['other', 8.5]] as const) {
      writeFileSync(file(key), readFileSync(file(key), 'utf8').replace(/^activation: .*$/m, `activation: ${activation}`).replace(/^activation_at: .*$/m, `activation_at: "${NOW}"`));
    }
    configure({ dailyCap: 1 });
    chat.replies.push(verdict({}));
    const run = await engram(vault, ['--json', '--now', NOW, 'validate', '--due', '--repo', repo]);
    expect(run.code).toBe(0);
    const report = run.json();
    expect(report.due).toEqual([
      { id: ids.retries, activation: 9, threshold: 8, volatility: 0 },
      { id: ids.other, activation: 8.5, threshold: 8, volatility: 0 },
    ]);
    expect(report.runs.map((r: { memory: string; manual: boolean; outcome: string }) => [r.memory, r.manual, r.outcome])).toEqual([[ids.retries, false, 'refreshed']]);
    expect(report.stopped).toBe('daily cap reached (1 of 1)');
    expect(chat.requests).toHaveLength(1);
    const logged = readFileSync(path.join(vault, '.engram', 'validation-runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(logged.map((r) => [r.memory, r.manual])).toEqual([[ids.retries, false]]);
  });
});
