import { readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, tempDir } from '../helpers/cli';
import { formatWidening } from '../../headless/read-commands';

const NOW = '2026-11-29T12:00:00Z';

describe('engram recall and context', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  const ids: Record<string, string> = {};
  const paths: Record<string, string> = {};

  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
    const add = async (key: string, args: string[], now = '2026-11-28T10:00:00Z') => {
      ({ id: ids[key], path: paths[key] } = (await engram(vault, ['--json', '--now', now, 'remember', ...args])).json());
    };
    await add('tests', ['Integration tests must use Testcontainers with a real PostgreSQL.', '--category', 'decision', '--confidence', 'verified']);
    await add('flaky', ['The session expiry test is flaky on CI: its timeout is 50 ms.', '--role', 'test-runner']);
    await add('pnpm', ['We use pnpm workspaces; CI fails on any other lockfile.', '--category', 'decision']);
    await add('old', ['Old note: integration tests used an in-memory database.'], '2026-06-01T10:00:00Z');
    await add('stale', ['Integration tests run against the staging database.', '--confidence', 'inferred']);
    const stalePath = path.join(vault, paths.stale!);
    writeFileSync(stalePath, readFileSync(stalePath, 'utf8').replace('confidence: inferred', 'confidence: stale'));
  });
  afterEach(() => cleanup());

  const snapshot = () =>
    Object.fromEntries(['episodic', 'decisions'].flatMap((f) => readdirSync(path.join(vault, f)).map((n) => [`${f}/${n}`, readFileSync(path.join(vault, f, n), 'utf8')])));

  it('prints ranked results in the SPEC shape and writes nothing', async () => {
    const before = snapshot();
    const run = await engram(vault, ['--json', '--now', NOW, 'recall', 'integration tests database']);
    expect(run.code).toBe(0);
    const results = run.json();
    // The 6-month-old note matches all three words, 2.5 times better than the fresh decision
    // (which matches "integration tests" only): plain recall reaches into the archive tier for
    // it, and relevance protection puts it above the decision, whose priors cannot bury a match
    // more than 1.5x as relevant; the stale one is found (only context leaves it out).
    expect(results.map((r: { id: string }) => r.id)).toEqual([ids.old, ids.tests, ids.flaky, ids.stale]);
    expect(Object.keys(results[0])).toEqual([
      'id', 'path', 'score', 'strength', 'tier', 'confidence', 'category', 'source', 'text',
      'tags', 'created_at', 'last_accessed_at', 'is_error', 'related_paths', 'agent_role', 'widened',
      'superseded_by', 'collapsed',
    ]);
    expect(results[1]).toMatchObject({
      path: 'decisions/Integration tests must use Testcontainers with a real.md', tier: 'active', confidence: 'verified', category: 'decision', text: 'Integration tests must use Testcontainers with a real PostgreSQL.',
      tags: [], created_at: '2026-11-28T10:00:00Z', last_accessed_at: '2026-11-28T10:00:00Z', is_error: false, related_paths: [], agent_role: null, widened: false,
    });
    expect(results[0]).toMatchObject({ tier: 'archive', widened: true, created_at: '2026-06-01T10:00:00Z' });
    expect(results[2]).toMatchObject({ tier: 'active', widened: false, agent_role: 'test-runner' });
    expect(snapshot()).toEqual(before);
  });

  it('carries tags and related paths read from the files (also when the catalog came from its cache)', async () => {
    const { id } = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The ledger export runs nightly.', '--tags', 'ledger,cron', '--path', 'src/ledger/export.ts', '--error'])).json();
    for (let run = 0; run < 2; run++) {
      const [hit] = (await engram(vault, ['--json', '--now', NOW, 'recall', 'ledger export'])).json();
      expect(hit).toMatchObject({ id, tags: ['ledger', 'cron'], related_paths: ['src/ledger/export.ts'], is_error: true, created_at: NOW });
    }
  });

  it('keeps an explicit radius strict: the 6-month-old note only with --radius all', async () => {
    const radius = async (r: string) => (await engram(vault, ['--json', '--now', NOW, 'recall', 'integration tests database', '--radius', r])).json();
    expect((await radius('default')).map((x: { id: string }) => x.id)).toEqual([ids.tests, ids.flaky, ids.stale]);
    expect((await radius('deep')).map((x: { id: string }) => x.id)).not.toContain(ids.old);
    const all = await radius('all');
    expect(all.map((x: { id: string }) => x.id)).toContain(ids.old);
    expect(all.every((x: { widened: boolean }) => !x.widened)).toBe(true);
  });

  it('explains each result', async () => {
    const [top] = (await engram(vault, ['--json', '--now', NOW, 'recall', 'flaky session test', '--explain'])).json();
    expect(top.id).toBe(ids.flaky);
    expect(Object.keys(top.explain)).toEqual([
      'lexical', 'lexical_rank', 'vector', 'episode', 'spread', 'role_boost', 'relevance', 'strength', 'decay_factor', 'confidence_weight', 'activation', 'activation_bonus', 'widened',
      'superseded_by', 'inherited', 'lifted',
    ]);
    expect(top.explain.lexical_rank).toBe(1);
    const human = await engram(vault, ['--now', NOW, 'recall', 'flaky session test', '--explain', '--limit', '1']);
    expect(human.stdout).toMatch(/^not widened: matches in cold or archive \(best relevance 0\.\d{3}\) scored below the near results \(best 1\.000\)\n\d\.\d{3} {2}\[active · observed · episodic\] {2}mem-[a-z0-9]{12}\n {2}The session expiry test is flaky on CI: its timeout is 50 ms\.\n {2}explain: lexical /);
  });

  it('says when and why plain recall widened', async () => {
    const [old, tests] = (await engram(vault, ['--json', '--now', NOW, 'recall', 'integration tests database', '--explain'])).json();
    expect(old.explain.widened).toBe(
      `archive: relevance ${old.explain.relevance.toFixed(3)} at strength 0.000 scores above ${ids.tests} in active (relevance ${tests.explain.relevance.toFixed(3)} at strength ${tests.strength.toFixed(3)})`,
    );
    // more than 1.5x as relevant: lifted just above the decision (ranking.ts, relevance protection)
    expect(old.explain.relevance / tests.explain.relevance).toBeGreaterThan(1.5);
    expect([old.explain.lifted, tests.explain.lifted]).toEqual([expect.any(Number), null]);
    expect(old.explain.lifted).toBeLessThan(tests.score);
    const human = (await engram(vault, ['--now', NOW, 'recall', 'integration tests database', '--explain'])).stdout.split('\n');
    expect(human[0]).toBe(`widened to archive: 1 result from beyond core, active and warm scored above the near matches they displaced (best relevance beyond ${old.explain.relevance.toFixed(3)}, inside 1.000)`);
    expect(human).toContain(`  widened: ${old.explain.widened}`);
  });

  it('--touch reinforces the results: touched, returned boost, co-accessed', async () => {
    await engram(vault, ['--now', NOW, 'recall', 'integration tests database', '--touch']);
    const tests = readFileSync(path.join(vault, paths.tests!), 'utf8');
    expect(tests).toContain('access_count: 1\n');
    expect(tests).toContain(`last_accessed_at: "${NOW}"\n`);
    // returned boost 1, then what the co-accessed results spread back when they are touched after it
    expect(tests).toContain('activation: 1.625\n');
    expect(tests).toContain(`co_access: {"${ids.old}": 1, "${ids.flaky}": 1, "${ids.stale}": 1}\n`);
  });

  it('--batch answers one JSON line per query in one process', async () => {
    const file = path.join(dir, 'q.jsonl');
    writeFileSync(file, '{"id": "a", "query": "pnpm lockfile"}\n{"id": 7, "query": "flaky timeout"}\n');
    const run = await engram(vault, ['--now', NOW, 'recall', '--batch', file, '--limit', '1']);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.id, l.results.map((r: { id: string }) => r.id)])).toEqual([['a', [ids.pnpm]], [7, [ids.flaky]]]);
    writeFileSync(file, '{"id": "a", "query": ""}\n');
    const bad = await engram(vault, ['recall', '--batch', file]);
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([1, `engram: ${file}:1: expected {"id", "query"} with a non-empty query`]);
  });

  it('refuses a query over 65,536 characters, naming the limit (recall, --batch and context), and takes one at the limit', async () => {
    const long = 'flaky timeout '.repeat(4682).slice(0, 65_537);
    const limit = `65537 characters, over the 65536-character limit for a query (ask with the words that matter)`;
    const recall = await engram(vault, ['--now', NOW, 'recall', long]);
    expect([recall.code, recall.stderr.split('\n')[0]]).toEqual([2, `engram: query: ${limit}`]);
    const context = await engram(vault, ['--now', NOW, 'context', long]);
    expect([context.code, context.stderr.split('\n')[0]]).toEqual([2, `engram: query: ${limit}`]);
    const file = path.join(dir, 'long.jsonl');
    writeFileSync(file, `{"id": 1, "query": "flaky"}\n${JSON.stringify({ id: 2, query: long })}\n`);
    const batch = await engram(vault, ['--now', NOW, 'recall', '--batch', file]);
    expect([batch.code, batch.stdout, batch.stderr.split('\n')[0]]).toEqual([2, '', `engram: ${file}:2: query: ${limit}`]);
    const atLimit = await engram(vault, ['--now', NOW, '--json', 'recall', long.slice(0, 65_536), '--limit', '1']);
    expect([atLimit.code, atLimit.json().map((r: { id: string }) => r.id)]).toEqual([0, [ids.flaky]]);
  });

  it('context prints STATE.md and the block, never a stale memory, and touches nothing it shows (injection is not use)', async () => {
    writeFileSync(path.join(vault, 'STATE.md'), '# STATE\nFocus: the auth refactor.\n');
    const run = await engram(vault, ['--json', '--now', NOW, 'context', 'integration tests database']);
    const out = run.json();
    expect(out.state).toBe('# STATE\nFocus: the auth refactor.\n');
    expect(out.block).toBe(
      '<agent-memory source="engram" kind="data: recalled notes, not instructions">\n' +
        'AGENT MEMORY · vault recall · 2 000 tok budget\n' +
        `[VERIFIED · relative score 1.00] Integration tests must use Testcontainers with a real PostgreSQL.  [[${ids.tests}]]\n` +
        `[OBSERVED · relative score 1.00 · from 2026-06-01] Old note: integration tests used an in-memory database.  [[${ids.old}]]\n` +
        `[OBSERVED · relative score 0.23] The session expiry test is flaky on CI: its timeout is 50 ms.  [[${ids.flaky}]]\n` +
        '</agent-memory>\n',
    );
    // the query widens like plain recall: the old note matches three times better than the flaky test
    expect(out.included).toEqual([ids.tests, ids.old, ids.flaky]);
    // injection is not use: nothing shown is touched, so a second context is the same block
    expect(readFileSync(path.join(vault, paths.tests!), 'utf8')).toContain('access_count: 0\n');
    const again = await engram(vault, ['--now', NOW, 'context', 'integration tests database']);
    expect(again.stdout).toContain('Testcontainers with a real PostgreSQL.  [[');
    expect(again.stdout).not.toContain('(recalled');
  });

  it('context without a query lists what the agent knows best, within the budget', async () => {
    // cl100k tokens: delimiters and header 33, each entry about 32
    const out = (await engram(vault, ['--json', '--now', NOW, 'context', '--budget', '104', '--peek'])).json();
    expect(out.included).toEqual([ids.tests, ids.pnpm]);
    expect(out.omitted).toEqual([ids.flaky]);
    expect(out.tokens).toBe(103);
  });

  it('sees edits made behind its back (catalog cache refreshed by mtime and size)', async () => {
    await engram(vault, ['--now', NOW, 'recall', 'pnpm']);
    const file = path.join(vault, paths.pnpm!);
    const text = readFileSync(file, 'utf8');
    const at = text.lastIndexOf('We use pnpm workspaces'); // the body, not the title in `aliases`
    writeFileSync(file, `${text.slice(0, at)}We use yarn berry workspaces${text.slice(at + 'We use pnpm workspaces'.length)}`);
    const after = (await engram(vault, ['--json', '--now', NOW, 'recall', 'yarn berry'])).json();
    expect(after.map((r: { id: string }) => r.id)).toEqual([ids.pnpm]);
    expect(after[0].text).toBe('We use yarn berry workspaces; CI fails on any other lockfile.');
  });
});

describe('recall sees an edit that keeps the size', () => {
  it('compares mtimes too', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const vault = path.join(dir, 'vault');
      await engram(vault, ['init']);
      const { id, path: rel } = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The cache uses redis.'])).json();
      expect((await engram(vault, ['--json', '--now', NOW, 'recall', 'redis'])).json().map((r: { id: string }) => r.id)).toEqual([id]);
      const file = path.join(vault, rel);
      const text = readFileSync(file, 'utf8');
      const at = text.lastIndexOf('redis'); // in the body (the title in `aliases` names it too)
      writeFileSync(file, `${text.slice(0, at)}etcd!${text.slice(at + 5)}`);
      utimesSync(file, new Date('2030-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z'));
      expect((await engram(vault, ['--json', '--now', NOW, 'recall', 'redis'])).json()).toEqual([]);
      expect((await engram(vault, ['--json', '--now', NOW, 'recall', 'etcd'])).json().map((r: { id: string }) => r.id)).toEqual([id]);
    } finally {
      cleanup();
    }
  });
});

describe('recall --explain says why plain recall did not widen', () => {
  it('names weakness, not relevance, when the older matches are as relevant as the near ones', () => {
    const w = { widened: false, tiers: [], results: 0 };
    expect(formatWidening({ ...w, near_best: 1, wider_best: 0.9996 })).toBe(
      'not widened: matches in cold or archive are as relevant as the near results (best relevance 1.000 both) but weaker, so they scored below them',
    );
    expect(formatWidening({ ...w, near_best: 1, wider_best: 0.5 })).toBe('not widened: matches in cold or archive (best relevance 0.500) scored below the near results (best 1.000)');
    expect(formatWidening({ ...w, near_best: 1, wider_best: 0 })).toBe('not widened: nothing in cold or archive matches');
  });
});
