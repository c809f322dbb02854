import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { captureStatements, findSecret, readTranscript } from '../../src/core/capture';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { engram, initVault } from '../helpers/cli';

/**
 * engram capture: a session's decisions, errors with their fixes and facts, from its transcript,
 * without a model; once (a second run changes nothing); never a secret. The transcripts are
 * test/fixtures/transcripts (written by make.mjs there, in Claude Code's JSONL shape).
 */
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'transcripts');
const SECRETS = ['ghp_A1b2C3d4', 'hunter2', 'AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI', 's3cr3t', 'R3plica!pw', 'glpat-Xy12', 'Zx9pQ2rT', 'sk-live-51Hx8'];

function fields0(vault: string, rel: string): Record<string, unknown> {
  return readFrontmatter(splitFrontmatter(readFileSync(path.join(vault, rel), 'utf8'))!.yaml) as Record<string, unknown>;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('engram capture', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => ({ vault, cleanup } = await initVault('engram-capture-')));
  afterEach(() => cleanup());

  const capture = (args: string[], stdin?: string) => engram(vault, ['--json', '--now', '2026-11-30T10:00:00Z', 'capture', ...args], stdin);

  test("a Claude Code session: its decisions, its fix and its facts, with the session as source, once", async () => {
    const file = path.join(FIXTURES, 'outbox-retries.jsonl');
    const first = await capture([file]);
    expect(first.code).toBe(0);
    const out = first.json();
    expect([out.format, out.session, out.sentences, out.created, out.unchanged, out.model]).toEqual(['claude-code-jsonl', '3f1c2a9e-7d41-4b8e-9a0c-5e2d1f6b7a81', 25, 7, 0, null]);
    expect(out.statements.map((s: { kind: string; text: string }) => [s.kind, s.text])).toEqual([
      ['cause', 'The worker marks a row delivered only after the HTTP call returns, so a crash between the two sends it again.'],
      ['decision', 'We decided last week to use the row id as the Idempotency-Key header, Acme supports it.'],
      ['decision', 'Also, from now on every webhook goes through the outbox, never inline from a handler.'],
      ['fix', 'The test failed because PostgreSQL was not running: the integration tests need the Testcontainers database. The fix was to start Docker before running them; they pass now.'],
      ['fact', 'Note that the staging database is reset every Sunday at 02:00 UTC, so fixtures must be reseeded on Monday.'],
      ['fact', 'Retries use exponential backoff capped at 10 minutes.'],
      ['fact', 'The retry cap defaults to 10 minutes in config/outbox.ts; Acme asked for at most 6 attempts, which that gives.'],
    ]);
    expect(out.secrets_dropped).toEqual([{ kind: 'github-token', count: 1 }]);

    const fix = out.statements[3];
    expect(fields0(vault, out.statements[0].path)).toMatchObject({ category: 'episodic', is_error: true });
    const fields = readFrontmatter(splitFrontmatter(readFileSync(path.join(vault, fix.path), 'utf8'))!.yaml) as Record<string, unknown>;
    expect(fields).toMatchObject({ category: 'episodic', is_error: true, source: 'session:3f1c2a9e-7d41-4b8e-9a0c-5e2d1f6b7a81', session: '3f1c2a9e-7d41-4b8e-9a0c-5e2d1f6b7a81', tags: ['captured'], created_at: '2026-11-20T09:03:00Z' });
    expect(out.statements[1].path).toMatch(/^decisions\//);
    expect(out.statements[4].path).toMatch(/^semantic\//);

    const again = (await engram(vault, ['--json', '--now', '2026-12-01T10:00:00Z', 'capture', file])).json();
    expect([again.created, again.reinforced, again.unchanged]).toEqual([0, 0, 7]);
    expect(again.statements.map((s: { id: string }) => s.id)).toEqual(out.statements.map((s: { id: string }) => s.id));
  });

  test("a Claude Code hook's payload on standard input names the transcript", async () => {
    const payload = JSON.stringify({ session_id: '9b7e0d12-44aa-4c1f-8d2e-0f3a6b5c4d21', transcript_path: path.join(FIXTURES, 'ledger-migration.jsonl'), hook_event_name: 'Stop', stop_hook_active: false, cwd: '/home/dev/harbor-api' });
    const run = await capture([], payload);
    expect(run.code).toBe(0);
    expect(run.json().statements.map((s: { kind: string; text: string }) => [s.kind, s.text])).toEqual([
      ['fix', 'error: column "balance_minor" contains null values: Root cause: the backfill step ran after the constraint.'],
      ['fix', 'error: column "balance_minor" contains null values: I moved the UPDATE before ALTER TABLE ... SET NOT NULL, and the migration succeeds now.'],
      ['decision', "Let's use a separate backfill migration for big tables from now on, not one migration that does both."],
      ['change', 'I split it into 0047_backfill_balance and 0048_balance_not_null.'],
      ['decision', 'We chose the read replica over the primary for the backfill because the primary is latency sensitive.'],
      ['fact', 'For the record, the ledger table has 41 million rows in production, so the backfill runs in batches of 10,000.'],
      ['fact', 'CI runs migrations on an empty database, so a NULL in existing rows never shows there.'],
      ['decision', 'Never run migrations against production from a laptop; they go through the deploy pipeline.'],
    ]);
  });

  test('plain text, and no secret of any transcript reaches the vault', async () => {
    const text = await capture([path.join(FIXTURES, 'pairing-notes.txt')]);
    expect(text.json().format).toBe('text');
    expect(text.json().statements.map((s: { kind: string; text: string }) => [s.kind, s.text])).toEqual([
      ['decision', 'Then we decided: pg-boss for background jobs.'],
      ['decision', 'We will not add Redis just for a queue.'],
      ['fix', 'The export job failed last night with "out of memory" because it loaded every invoice at once. The fix is to stream rows with a cursor of 500; memory stays under 200 MB now.'],
      ['fact', 'Keep in mind that the exports bucket is in eu-central-1, not us-east-1.'],
      ['fact', 'What time does the export run? It runs at 01:30 UTC.'],
      ['fact', 'The cron line is in deploy/cron.yaml.'],
      ['decision', 'Always run the export against the read replica.'],
    ]);
    await capture([path.join(FIXTURES, 'outbox-retries.jsonl')]);
    await capture([path.join(FIXTURES, 'ledger-migration.jsonl')]);
    await capture([path.join(FIXTURES, 'held-out-prices.txt')]);
    const leaked = filesUnder(vault).filter((f) => SECRETS.some((s) => readFileSync(f, 'utf8').includes(s)));
    expect(leaked).toEqual([]);
  });

  test('a transcript written after the rules (held-out-prices.txt): 3 of its 10 worth keeping before the second round of rules, all 10 after', async () => {
    const out = (await capture([path.join(FIXTURES, 'held-out-prices.txt')])).json();
    expect(out.statements.map((s: { kind: string; text: string }) => [s.kind, s.text])).toEqual([
      ['fact', 'The price service caches product documents in Redis with a one hour TTL, and nothing invalidates them when a price changes.'],
      ['decision', 'Go with the invalidation event.'],
      ['fact', 'We already have the pricing.updated topic on the bus.'],
      ['change', 'I added a consumer in src/cache/price-invalidator.ts that deletes the product key on pricing.updated.'],
      ['fix', 'The first run crashed with "TypeError: Cannot read properties of undefined (reading \'sku\')". The event payload nests the product under data, so the consumer now reads event.data.sku; the tests pass now.'],
      ['fact', 'For the record, the bus retains events for 7 days, so a consumer that was down catches up.'],
      ['fact', 'About 200 ms from the price update to the key being gone, measured on staging.'],
      ['decision', "Please don't cache prices in the browser either; the CDN must pass price responses through."],
      ['change', 'I set Cache-Control: no-store on /api/prices.'],
      ['fact', 'The price service is owned by the checkout team, by the way; ask them before changing its schema.'],
    ]);
  });

  test('--dry-run writes nothing; empty input is a usage error', async () => {
    const dry = await capture(['--dry-run', path.join(FIXTURES, 'pairing-notes.txt')]);
    expect([dry.json().dry_run, dry.json().created]).toEqual([true, 7]);
    expect((await engram(vault, ['--json', 'stats'])).json().memories).toBe(0);
    const empty = await capture(['-'], '  \n');
    expect([empty.code, empty.stderr]).toEqual([2, "engram: capture: standard input held no transcript\nrun 'engram --help' for usage\n"]);
  });
});

describe('what capture recognises', () => {
  test.each([
    ['aws-access-key', 'the key is AKIAIOSFODNN7EXAMPLE'],
    ['aws-secret-key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG'],
    ['github-token', 'token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'],
    ['github-token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop'],
    ['slack-token', 'xoxb-1234567890-abcdefghij'],
    ['stripe-key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
    ['private-key', '-----BEGIN OPENSSH PRIVATE KEY-----'],
    ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['bearer-token', 'curl -H "Authorization: Bearer abcdef0123456789abcdef"'],
    ['basic-auth-url', 'postgres://ledger:s3cr3t@db.internal:5432/ledger'],
    ['password', 'password=hunter2-staging'],
    ['password', 'API_KEY: "0123456789abcdef"'],
  ])('%s in %s', (kind, text) => {
    expect(findSecret(text)).toBe(kind);
  });

  test('ordinary prose holds none', () => {
    for (const text of ['We rotate the password every 90 days.', 'The token bucket refills at 10 per second.', 'See https://example.com/docs for the API key rotation guide.']) expect(findSecret(text)).toBeNull();
  });

  test('a cue with a secret drops the whole sentence; questions and code blocks are never kept', () => {
    const capture = captureStatements(readTranscript('Note that the deploy key is ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8.\n\nShould we decide to use Kafka from now on?\n\n```\n# we decided to use X\n```\n\nFrom now on we deploy on Tuesdays.'));
    expect(capture.statements.map((s) => s.text)).toEqual(['From now on we deploy on Tuesdays.']);
    expect(capture.secrets).toEqual([{ kind: 'github-token', count: 1 }]);
  });
});

describe('context --hook (Claude Code UserPromptSubmit)', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => ({ vault, cleanup } = await initVault('engram-hook-')));
  afterEach(() => cleanup());

  test("the hook payload's prompt is the query; no prompt (SessionStart) is no query", async () => {
    const kept = (await engram(vault, ['--json', '--now', '2026-11-01T10:00:00Z', 'remember', 'Outgoing webhooks go through the outbox table.'])).json().id;
    await engram(vault, ['--now', '2026-11-01T10:00:00Z', 'remember', 'Lunch on Fridays is pizza.']);
    const prompt = await engram(vault, ['--json', '--now', '2026-11-01T11:00:00Z', 'context', '--hook', '--budget', '400'], JSON.stringify({ session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'why do webhooks use the outbox?' }));
    expect(prompt.code).toBe(0);
    expect(prompt.json().included).toEqual([kept]);
    const start = await engram(vault, ['--json', '--now', '2026-11-01T11:00:00Z', 'context', '--hook'], JSON.stringify({ session_id: 's', hook_event_name: 'SessionStart', source: 'startup' }));
    expect(start.json().included).toHaveLength(2);
    const bad = await engram(vault, ['context', '--hook'], 'not json');
    expect([bad.code, bad.stderr]).toEqual([2, "engram: context --hook: standard input is not a hook payload (JSON)\nrun 'engram --help' for usage\n"]);
  });
});
