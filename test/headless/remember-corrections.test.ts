import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

/*
 * The user trial's corrections (notes/trial.md, problems 1 and 3), through the CLI: a reversed
 * decision is written and disputed, never folded into the decision it reverses; a corrected fact
 * names the memory it supersedes, and only the new one is injected.
 */
describe('remember keeps a reversal and a correction', () => {
  let vault: string;
  let cleanup: () => void;
  const file = (rel: string) => readFileSync(path.join(vault, rel), 'utf8');

  beforeEach(async () => {
    ({ vault, cleanup } = await initVault());
  });
  afterEach(() => cleanup());

  it("a reversed decision opens a conflict, its text is stored, and context marks both sides DISPUTED; a reversal in words of change (stop) supersedes (the tester's three calls)", async () => {
    const remember = async (text: string) => (await engram(vault, ['--json', '--now', '2026-10-01T09:00:00Z', 'remember', text, '--category', 'decision', '--confidence', 'verified'])).json();
    const original = await remember('Decided: use pnpm workspaces for the monorepo, not yarn.');
    const reversed = await remember('Decided: we will not use pnpm workspaces for the monorepo.');
    const stopped = await remember('Decided: stop using pnpm workspaces for the monorepo, not yarn.');
    const again = await remember('We decided to use pnpm workspaces in the monorepo and not yarn.');
    // a bare negation is weak evidence: a conflict; "stop using" is a reversal said in plain
    // words, and both are verified decisions: the newer wins (ADR 0004)
    expect([original.action, reversed.action, reversed.conflict_with, stopped.action, stopped.supersedes, again.action, again.id]).toEqual([
      'created', 'conflict', original.id, 'created', [original.id], 'reinforced', original.id,
    ]);
    expect(file(original.path)).toContain(`superseded_by: ${stopped.id}\n`);
    // links found in the words name the file (what Obsidian resolves) and record the id (ADR 0005)
    expect([original.path, reversed.path, stopped.path]).toEqual([
      'decisions/Decided use pnpm workspaces for the monorepo, not yarn.md',
      'decisions/Decided we will not use pnpm workspaces for the monorepo.md',
      'decisions/Decided stop using pnpm workspaces for the monorepo, not.md',
    ]);
    expect(file(stopped.path)).toContain(`\nlink_ids: ["supersedes ${original.id}"]\n`);
    expect(file(stopped.path)).toContain('\n[[Decided use pnpm workspaces for the monorepo, not yarn|supersedes]]\n');
    expect(file(reversed.path)).toContain(`\nlink_ids: ["contradicts ${original.id}"]\n`);
    expect(file(reversed.path)).toContain('\n[[Decided use pnpm workspaces for the monorepo, not yarn|contradicts]]\n');
    expect(file(reversed.path)).toContain('\nDecided: we will not use pnpm workspaces for the monorepo.\n');
    expect(file(stopped.path)).toContain('\nDecided: stop using pnpm workspaces for the monorepo, not yarn.\n');
    expect(file(original.path)).toContain('remembered_again: 1\n');
    expect(readdirSync(path.join(vault, 'conflicts')).length).toBe(1);

    // the superseded decision is never injected; its successor is
    const context = (await engram(vault, ['--json', '--now', '2026-10-02T09:00:00Z', 'context'])).json();
    expect(context.superseded).toEqual([[original.id, stopped.id]]);
    expect(context.included).toContain(stopped.id);
    expect(context.block).not.toContain(`[[${original.id}]]`);
    expect(context.block).toContain(`· DISPUTED] Decided: we will not use pnpm workspaces for the monorepo.  [[${reversed.id}]]`);

    // a person undoes the supersession with one command: the original is injected again, disputed with its reversal
    const undo = await engram(vault, ['--now', '2026-10-02T10:00:00Z', 'mark', original.id, '--not-superseded']);
    expect(undo.stdout).toBe(`${original.id}  superseded by ${stopped.id} -> not superseded\n`);
    expect(file(original.path)).toContain('superseded_by: null\n');
    const after = (await engram(vault, ['--json', '--now', '2026-10-02T10:00:00Z', 'context'])).json();
    expect(after.disputed.map((d: [string, string]) => d[0]).sort()).toEqual([original.id, reversed.id].sort());
  });

  it('remember --supersedes writes the correction with a supersedes link, marks the old fact superseded_by it, and context injects only the new one', async () => {
    const old = (await engram(vault, ['--json', '--now', '2026-09-01T09:00:00Z', 'remember', 'The staging database is PostgreSQL 14 on db-staging.internal port 5432.', '--category', 'semantic'])).json();
    const run = await engram(vault, ['--now', '2026-10-01T09:00:00Z', 'remember', 'The staging database is PostgreSQL 16 on db-staging.internal port 5432; upgraded from 14 on October 1st.', '--category', 'semantic', '--supersedes', old.id]);
    expect(run.code).toBe(0);
    const id = /^created (mem-[a-z0-9]{12}) /.exec(run.stdout)![1]!;
    expect(old.path).toBe('semantic/The staging database is PostgreSQL 14 on db-staging.internal.md');
    expect(run.stdout).toBe(`created ${id}  semantic/The staging database is PostgreSQL 16 on db-staging.internal.md\n  supersedes ${old.id} (kept, ranked below it, no longer injected; undo: engram mark ${old.id} --not-superseded)\n`);
    // the link names the file, which Obsidian resolves; link_ids keeps the id, which Engram trusts (ADR 0005)
    const written = file('semantic/The staging database is PostgreSQL 16 on db-staging.internal.md');
    expect(written).toContain('\nThe staging database is PostgreSQL 16 on db-staging.internal port 5432; upgraded from 14 on October 1st.\n\n[[The staging database is PostgreSQL 14 on db-staging.internal|supersedes]]\n');
    expect(written).toContain(`\nlink_ids: ["supersedes ${old.id}"]\n`);
    expect(file(old.path)).toContain(`confidence: observed\n`);
    expect(file(old.path)).toContain(`superseded_by: ${id}\n`);

    const context = (await engram(vault, ['--json', '--now', '2026-11-20T09:00:00Z', 'context', 'set up a connection to the staging database', '--peek'])).json();
    expect([context.included, context.block.includes('PostgreSQL 14 on')]).toEqual([[id], false]);
  });

  it('remember --supersedes: a bad id is a usage error (2), a missing memory exit 1, and nothing is written', async () => {
    const bad = await engram(vault, ['remember', 'Postgres 16 now.', '--supersedes', 'pg14']);
    expect([bad.code, bad.stderr]).toEqual([2, `engram: supersedes: expected a memory id (mem- and 12 lowercase letters or digits), got "pg14"\nrun 'engram --help' for usage\n`]);
    const missing = await engram(vault, ['remember', 'Postgres 16 now.', '--supersedes', 'mem-000000000000']);
    expect([missing.code, missing.stderr]).toEqual([1, 'engram: no memory with id mem-000000000000\n']);
    expect(readdirSync(path.join(vault, 'episodic'))).toEqual([]);
  });

  it('remember --supersedes never reinforces the memory it replaces, even with the same words', async () => {
    const old = (await engram(vault, ['--json', 'remember', 'Deploys run from the main branch.'])).json();
    const same = (await engram(vault, ['--json', 'remember', 'Deploys run from the main branch!', '--supersedes', old.id])).json();
    expect([same.action, same.id === old.id, same.superseded]).toEqual(['created', false, old.id]);
  });
  it("import says how many older memories its lines supersede, and a fact about another subject supersedes nothing (a new user's trial)", async () => {
    const jsonl = path.join(vault, '..', 'facts.jsonl');
    const lines = [
      { text: 'The staging API server listens on port 8080.', category: 'semantic', created_at: '2026-10-01T09:00:00Z' },
      { text: 'The production API server listens on port 9090.', category: 'semantic', created_at: '2026-10-02T09:00:00Z' },
      { text: 'The staging database runs on db-staging-1.internal.', category: 'semantic', created_at: '2026-10-03T09:00:00Z', session: 's1' },
      { text: 'The staging database runs on db-staging-2.internal.', category: 'semantic', created_at: '2026-10-04T09:00:00Z', session: 's1' },
      { text: 'The mobile app is built with Kotlin 1.9 and Gradle.', category: 'semantic', created_at: '2026-10-05T09:00:00Z' },
      { text: 'The mobile app is built with Kotlin 2.0 and Gradle.', category: 'semantic', created_at: '2026-10-06T09:00:00Z' },
    ];
    writeFileSync(jsonl, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const dry = (await engram(vault, ['--json', '--now', '2026-10-07T09:00:00Z', 'import', '--dry-run', jsonl])).json();
    // only the lines that supersede carry `supersedes`, naming only what they supersede (the
    // session's related link between lines 3 and 4 is no supersession)
    const ids = dry.results.map((r: { id: string }) => r.id);
    expect([dry.superseded, dry.results.map((r: { supersedes?: string[] }) => ('supersedes' in r ? r.supersedes : null))]).toEqual([2, [null, null, null, [ids[2]], null, [ids[4]]]]);
    const run = await engram(vault, ['--now', '2026-10-07T09:00:00Z', 'import', jsonl]);
    expect([run.code, run.stdout]).toEqual([0, 'imported 6 lines: 6 created, 0 reinforced, 0 conflicts, 2 superseded, 0 already imported\n']);
    // importing them again supersedes nothing more
    const again = (await engram(vault, ['--json', '--now', '2026-10-07T09:00:00Z', 'import', jsonl])).json();
    expect([again.unchanged, again.superseded]).toEqual([6, 0]);
    const staging = readdirSync(path.join(vault, 'semantic')).filter((name) => name.includes('staging API'));
    expect(staging.map((name) => file(`semantic/${name}`).includes('superseded_by'))).toEqual([false]);
  });
});
