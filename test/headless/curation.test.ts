import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadVectors, saveVectors } from '../../src/core/embeddings/store';
import { openVault } from '../../headless/runtime';
import { engram, initVault } from '../helpers/cli';
import { git, tryGit } from '../helpers/git';

const T0 = '2026-11-01T10:00:00Z';

describe('curation from the CLI', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => ({ dir, vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  const read = (rel: string) => readFileSync(path.join(vault, rel), 'utf8');
  const run = (args: string[], now = T0, stdin?: string) => engram(vault, ['--now', now, ...args], stdin);
  const json = async (args: string[], now = T0) => {
    const r = await run(['--json', ...args], now);
    if (r.code !== 0) throw new Error(r.stderr);
    return r.json();
  };
  const remember = (text: string, ...args: string[]) => json(['remember', text, ...args]);

  describe('init', () => {
    it('writes .engram/.gitignore: machine data out of git, versions and forgotten memories in', async () => {
      git(vault, 'init', '-q', '-b', 'main');
      const ignored = (rel: string) => tryGit(vault, 'check-ignore', '-q', rel).status === 0;
      const cases = ['.engram/cache/catalog.json', '.engram/locks/mem-aaaaaaaaaaaa.lock', '.engram/embeddings.bin', '.engram/runs.jsonl', '.engram/models/x/model.onnx',
        '.engram/version', '.engram/config.json', '.engram/versions/mem-aaaaaaaaaaaa/000001-x.json', '.engram/forgotten/episodic/mem-aaaaaaaaaaaa.md', 'episodic/mem-aaaaaaaaaaaa.md'];
      expect(cases.map((c) => [c, ignored(c)])).toEqual(cases.map((c, i) => [c, i < 5]));
    });
  });

  describe('mark', () => {
    it('sets confidence and core status; not a touch', async () => {
      const m = await remember('Integration tests use Testcontainers.', '--category', 'decision');
      expect(await json(['mark', m.id, '--verified', '--core'])).toEqual([
        { id: m.id, path: m.path, confidence_before: 'observed', confidence: 'verified', tier_before: 'active', tier: 'core', changed: true },
      ]);
      expect(read(m.path)).toContain('confidence: verified\n');
      expect(read(m.path)).toContain('tier: core\n');
      expect(read(m.path)).toContain('access_count: 0\n');
      // 200 days later a core memory is still core; --no-core gives it the tier its strength implies
      const later = await json(['mark', m.id, '--no-core', '--stale'], '2027-05-20T10:00:00Z');
      expect(later[0]).toMatchObject({ confidence: 'stale', tier_before: 'core', tier: 'warm', changed: true });
      const again = await run(['mark', m.id, '--stale'], '2027-05-20T10:00:00Z');
      expect(again.stdout).toBe(`${m.id}  unchanged (stale, warm)\n`);
    });

    it('refuses two confidences, --core with --no-core, and nothing to mark', async () => {
      const m = await remember('Something to mark.');
      const cases: Array<[string[], string]> = [
        [['mark', m.id, '--verified', '--stale'], 'engram: mark: one confidence at a time, got --verified --stale'],
        [['mark', m.id, '--core', '--no-core'], 'engram: mark: --core or --no-core, not both'],
        [['mark', m.id], 'engram: mark: say what to mark: --verified, --observed, --inferred, --stale, --core, --no-core or --not-superseded'],
      ];
      for (const [args, message] of cases) {
        const r = await run(args);
        expect([args, r.code, r.stderr.split('\n')[0]]).toEqual([args, 2, message]);
      }
    });
  });

  describe('forget', () => {
    it('takes a memory out of recall and the vault folders, and --undo brings back the same bytes', async () => {
      const m = await remember('The staging database password rotates monthly.');
      const before = read(m.path);
      expect((await json(['recall', 'staging database password'])).map((r: { id: string }) => r.id)).toEqual([m.id]);
      expect(await json(['forget', m.id])).toEqual([{ id: m.id, from: m.path, to: `.engram/forgotten/${m.path}` }]);
      expect(existsSync(path.join(vault, m.path))).toBe(false);
      expect(await json(['recall', 'staging database password', '--radius', 'all'])).toEqual([]);
      expect((await json(['stats'])).memories).toBe(0);
      const shown = await run(['show', m.id]);
      expect([shown.code, shown.stderr]).toEqual([1, `engram: no memory with id ${m.id} (it was forgotten: engram forget --undo ${m.id} brings it back)\n`]);
      expect((await json(['list', '--forgotten'])).map((e: { id: string }) => e.id)).toEqual([m.id]);
      const twice = await run(['forget', m.id]);
      expect([twice.code, twice.stderr.split('\n')[0]]).toEqual([1, `engram: no memory with id ${m.id} (it was forgotten: engram forget --undo ${m.id} brings it back)`]);
      expect(await json(['forget', '--undo', m.id])).toEqual([{ id: m.id, from: `.engram/forgotten/${m.path}`, to: m.path }]);
      expect(read(m.path)).toBe(before);
      expect((await json(['recall', 'staging database password'])).map((r: { id: string }) => r.id)).toEqual([m.id]);
    });

    it('--purge removes every trace: file, versions, vector, links, co-access, conflict notes, caches', async () => {
      const secret = await remember('The deploy token is ghp_Zq81xSecretTokenValue42 for the staging cluster.');
      expect(secret.path).toBe('episodic/The deploy token is ghp Zq81xSecretTokenValue42 for the.md');
      const linker = await remember('Deploys to staging run from the release pipeline.');
      const child = await remember('Staging deploys need the VPN.');
      // a link Engram writes names the file (ADR 0005), and the name holds the token: it goes too
      const rotated = await remember('Deploy tokens now live in the secrets manager.', '--supersedes', secret.id);
      expect(read(rotated.path)).toContain('\n[[The deploy token is ghp Zq81xSecretTokenValue42 for the|supersedes]]\n');
      // links in both directions, co-access, a decays_from property, a conflict note, a version, a vector
      writeFileSync(path.join(vault, linker.path), read(linker.path).replace('co_access: {}', `co_access: {"${secret.id}": 2, "${child.id}": 1}`).replace(/\n$/, `\n\n[[${secret.id}|related]] [[${child.id}|related]]\n`));
      writeFileSync(path.join(vault, child.path), read(child.path).replace('---\nStaging', `decays_from: "[[${secret.id}]]"\n---\nStaging`));
      writeFileSync(path.join(vault, 'conflicts', 'conflict-aaaaaaaaaaaa.md'), `---\nid: conflict-aaaaaaaaaaaa\nstatus: open\nsides: ["${secret.id}", "${child.id}"]\n---\n> The deploy token is ghp_Zq81xSecretTokenValue42\n`);
      writeFileSync(path.join(vault, 'daily', '2026-11-01.md'), '- 10:00 The deploy token is ghp_Zq81xSecretTokenValue42 for the staging cluster.\n');
      await json(['edit', secret.id, 'The deploy token is ghp_Zq81xSecretTokenValue42 for staging.']);
      const { vault: core } = openVault({ vault, cwd: dir, env: {} });
      await saveVectors(core, { model: 'test', dimensions: 2, ids: [secret.id, linker.id], hashes: ['a', 'b'], vectors: new Float32Array([1, 0, 0, 1]) });
      await json(['recall', 'deploy token staging']); // fills the recall caches
      const result = await json(['forget', '--purge', secret.id]);
      expect(result).toEqual([
        {
          id: secret.id,
          removed: [secret.path, 'conflicts/conflict-aaaaaaaaaaaa.md', `.engram/versions/${secret.id}/ (2 versions)`],
          unlinked: [rotated.id, linker.id, child.id], // in the vault's order: episodic/Deploy tokens..., episodic/Deploys to staging..., episodic/Staging deploys...
          vectors_removed: true,
          also_contains: ['daily/2026-11-01.md'],
          also_contains_fragments: { 'daily/2026-11-01.md': ['ghp_Zq81xSecretTokenValue42', 'The deploy token is ghp_Zq81xSecretTokenValue42 for the staging cluster'] },
        },
      ]);
      expect(read(linker.path)).toContain(`co_access: {"${child.id}": 1}\n`);
      expect(read(linker.path).endsWith(`---\nDeploys to staging run from the release pipeline.\n\n[[${child.id}|related]]\n`)).toBe(true);
      expect(read(child.path)).not.toContain('decays_from');
      expect(read(rotated.path).endsWith('\nlink_ids: []\n---\nDeploy tokens now live in the secrets manager.\n')).toBe(true);
      expect((await loadVectors(core)).vectors!.ids).toEqual([linker.id]);
      const traces: string[] = [];
      const walk = (d: string) => {
        for (const entry of readdirSync(d, { withFileTypes: true })) {
          const full = path.join(d, entry.name);
          if (entry.isDirectory()) walk(full);
          // the token was in the memory's file name too (named after its title): no name keeps it either
          else if (entry.name.toLowerCase().includes('zq81x') || readFileSync(full).toString('latin1').toLowerCase().includes('zq81x')) traces.push(path.relative(vault, full));
        }
      };
      walk(vault);
      expect(traces).toEqual(['daily/2026-11-01.md']);
      // the note that linked it records its first version without the link, not the token in a version file
      expect((await json(['history', rotated.id])).map((v: { n: number; reason: string; body: string }) => [v.n, v.reason, v.body])).toEqual([[1, 'created', 'Deploy tokens now live in the secrets manager.\n']]);
      expect(readdirSync(path.join(vault, '.engram', 'versions', secret.id))).toEqual([]);
    });
  });

  describe('forget --purge lists every file still holding a piece of the text', () => {
    it('a secret pasted again in a daily log, a sentence restated in a semantic memory, a review note, an edited memory\'s version; not a memory sharing only common words', async () => {
      const secret = await remember('The payments API key is sk-live-ABCDEF123456. Rotate it every quarter with the vault tool.', '--tags', 'secret');
      await run(['log', 'pasted sk-live-ABCDEF123456 by mistake']);
      const semantic = await remember('Payments: rotate it every quarter with the vault tool, says the runbook.', '--category', 'semantic');
      const edited = await remember('Try the key sk-live-ABCDEF123456 against the sandbox first.');
      await json(['edit', edited.id, 'Try the payments key against the sandbox first.']);
      await remember('The payments API rate limit is 100 requests per second.');
      mkdirSync(path.join(vault, 'review'));
      writeFileSync(path.join(vault, 'review', 'review-aaaaaaaaaaaa.md'), '---\nid: review-aaaaaaaaaaaa\n---\n> the payments   API key is\nsk-live-ABCDEF123456\n');
      const versions = readdirSync(path.join(vault, '.engram', 'versions', edited.id)).sort();
      const result = await json(['forget', '--purge', secret.id]);
      const fragments = {
        [edited.path]: ['sk-live-ABCDEF123456'], // its aliases still hold the first text
        [semantic.path]: ['Rotate it every quarter with the vault tool'],
        'daily/2026-11-01.md': ['sk-live-ABCDEF123456'],
        'review/review-aaaaaaaaaaaa.md': ['sk-live-ABCDEF123456', 'The payments API key is sk-live-ABCDEF123456'],
        [`.engram/versions/${edited.id}/${versions[0]}`]: ['sk-live-ABCDEF123456'],
      };
      expect(result[0].also_contains).toEqual(Object.keys(fragments));
      expect(result[0].also_contains_fragments).toEqual(fragments);
    });

    it('says plainly which files still contain it, and that none do when none do', async () => {
      const secret = await remember('The payments API key is sk-live-ABCDEF123456.');
      await run(['log', 'pasted sk-live-ABCDEF123456 by mistake']);
      const purged = await run(['forget', '--purge', secret.id]);
      expect([purged.code, purged.stdout]).toEqual([
        0,
        `purged ${secret.id}: removed ${secret.path}\n` +
          '  this file still contains pieces of its text (not rewritten: edit them by hand, or they keep it):\n' +
          '    daily/2026-11-01.md: "sk-live-ABCDEF123456"\n',
      ]);
      const clean = await remember('The staging password is hunter2hunter2.');
      expect((await run(['forget', '--purge', clean.id])).stdout).toBe(
        `purged ${clean.id}: removed ${clean.path}\n` +
          '  no other file holds a long token or a sentence of its text (memories, forgotten ones, versions, daily logs, conflict and review notes, STATE.md)\n',
      );
    });
  });

  describe('edit, history, revert', () => {
    it('edit writes a new version, keeps links and touches; history lists; revert restores exact bytes', async () => {
      const m = await remember('Retries start at 200 ms.');
      const other = await remember('Timeouts are 5 s.');
      writeFileSync(path.join(vault, m.path), read(m.path).replace(/\n$/, `\n\n[[${other.id}|supersedes]]\n`));
      const v1 = read(m.path).split('---\n')[2];
      const edited = await json(['edit', m.id, 'Retries start at 500 ms, doubling to 30 s.', '--role', 'reviewer'], '2026-11-02T09:00:00Z');
      expect(edited).toEqual({ id: m.id, path: m.path, version: 2, changed: true });
      expect(read(m.path).split('---\n')[2]).toBe(`Retries start at 500 ms, doubling to 30 s.\n\n[[${other.id}|supersedes]]\n`);
      expect(read(m.path)).toContain('access_count: 1\n');
      expect(read(m.path)).toContain('last_accessed_at: "2026-11-02T09:00:00Z"\n');
      // from standard input, and a text that starts with -
      expect((await run(['edit', m.id, '-'], '2026-11-03T09:00:00Z', '-1 retries means none.\n')).code).toBe(0);
      expect((await run(['edit', m.id, '--', '-2 means unlimited.'], '2026-11-04T09:00:00Z')).code).toBe(0);
      const history = await json(['history', m.id]);
      // version 1 is the body as it was found: changed by hand after remember, so timed by the file's mtime
      expect(history.map((v: { n: number; at: string; reason: string; by: string | null; recorded: boolean }) => [v.n, v.at, v.reason, v.by, v.recorded]).slice(1)).toEqual([
        [2, '2026-11-02T09:00:00Z', 'edit', 'reviewer', true],
        [3, '2026-11-03T09:00:00Z', 'edit', null, true],
        [4, '2026-11-04T09:00:00Z', 'edit', null, true],
      ]);
      expect([history[0].n, history[0].reason, history[0].recorded, history[0].body]).toEqual([1, 'changed outside Engram', true, v1]);
      const human = await run(['history', m.id]);
      expect(human.stdout.split('\n')[0]).toBe(`${m.id}: 4 versions (engram history ${m.id} N shows one; engram revert ${m.id} N restores it)`);
      expect((await run(['history', m.id, '1'])).stdout).toBe(v1);
      expect(await json(['revert', m.id, '1'])).toEqual({ id: m.id, path: m.path, version: 5, changed: true, reverted_to: 1, dropped_links: [] });
      expect(read(m.path).split('---\n')[2]).toBe(v1);
      const bad = await run(['revert', m.id, '9']);
      // a version that does not exist is missing (exit 1, README's table); one that cannot exist is a usage error
      expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([1, `engram: revert: ${m.id} has versions 1 to 5, not 9`]);
      const zero = await run(['revert', m.id, '0']);
      expect([zero.code, zero.stderr.split('\n')[0]]).toEqual([2, 'engram: revert N: expected a whole number of at least 1, got 0']);
      const missing = await run(['history', m.id, '9']);
      expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([1, `engram: history: ${m.id} has versions 1 to 5, not 9`]);
      const empty = await run(['edit', m.id, '']);
      expect([empty.code, empty.stderr.split('\n')[0]]).toEqual([2, 'engram: edit: the text is empty (give the text, or - to read standard input)']);
    });

    it('a damaged version record: history lists it in its place and exits 1 naming its path; doctor reports it (issue 22, finding 13)', async () => {
      const m = await remember('The cache keeps ten entries.');
      await run(['edit', m.id, 'The cache keeps twenty entries.'], '2026-11-02T10:00:00Z');
      await run(['edit', m.id, 'The cache keeps thirty entries.'], '2026-11-03T10:00:00Z');
      const folder = path.join(vault, '.engram', 'versions', m.id);
      const names = readdirSync(folder).sort();
      const rel = `.engram/versions/${m.id}/${names[1]}`;
      writeFileSync(path.join(folder, names[1]!), '{"format":1,"id":"x","se');
      const human = await run(['history', m.id]);
      expect(human.code).toBe(1);
      expect(human.stdout.split('\n').map((l) => l.trimEnd())).toEqual([
        `${m.id}: 3 versions (engram history ${m.id} N shows one; engram revert ${m.id} N restores it)`,
        '    1  2026-11-01T10:00:00Z  created',
        '       The cache keeps ten entries.',
        `    2  DAMAGED RECORD: ${rel}: it is not valid JSON (cut short, or edited by hand)`,
        '    3  2026-11-03T10:00:00Z  edit',
        '       The cache keeps thirty entries.',
        '',
      ]);
      expect(human.stderr).toBe(`engram: history: version 2 of ${m.id} cannot be read: ${rel}: it is not valid JSON (cut short, or edited by hand)\n`);
      const one = await run(['history', m.id, '2']);
      expect([one.code, one.stderr]).toEqual([1, `engram: ${rel}: version 2 of ${m.id} cannot be read: it is not valid JSON (cut short, or edited by hand)\n`]);
      expect((await run(['history', m.id, '3'])).stdout).toBe('The cache keeps thirty entries.\n');
      const doctor = await run(['doctor']);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain(rel);
      expect(doctor.stdout).toContain(`a version of ${m.id} cannot be read: it is not valid JSON (cut short, or edited by hand)`);
    });

    it('refuses a text over the size limit, naming the limit, and writes nothing', async () => {
      const m = await remember('Short.');
      const before = read(m.path);
      const r = await run(['edit', m.id, '-'], T0, 'y'.repeat(270_000));
      expect([r.code, r.stderr]).toEqual([2, `engram: text: 270000 bytes, over the 253952-byte limit for a memory's text (a memory file holds at most 262144 bytes)\nrun 'engram --help' for usage\n`]);
      expect(read(m.path)).toBe(before);
    });
  });

  describe('list', () => {
    it('filters by category, tag, tier, confidence, role, dates and conflict; sorts; table and JSON', async () => {
      const a = await json(['remember', 'Use pnpm in this repository.', '--category', 'decision', '--tags', 'tooling', '--role', 'lead'], '2026-09-01T00:00:00Z');
      const b = await json(['remember', 'The flaky auth test times out on CI.', '--tags', 'testing,ci', '--role', 'reviewer', '--error'], '2026-10-25T00:00:00Z');
      const c = await json(['remember', 'Lint runs before tests in CI.', '--tags', 'ci'], '2026-10-31T00:00:00Z');
      const d = await json(['remember', 'The cache warms in about ten minutes.'], '2026-10-15T00:00:00Z');
      await json(['mark', c.id, '--stale']);
      const conflict = await json(['remember', 'Do not use pnpm in this repository.', '--category', 'decision'], '2026-10-31T12:00:00Z');
      const ids = async (...args: string[]) => (await json(['list', ...args])).map((e: { id: string }) => e.id);
      expect(await ids()).toEqual([conflict.id, c.id, b.id, d.id, a.id]);
      expect(await ids('--sort', 'created', '--reverse')).toEqual([a.id, d.id, b.id, c.id, conflict.id]);
      expect(await ids('--category', 'decision')).toEqual([conflict.id, a.id]);
      expect(await ids('--tag', 'ci')).toEqual([c.id, b.id]);
      expect(await ids('--tag', 'ci', '--tag', 'testing')).toEqual([b.id]);
      expect(await ids('--stale')).toEqual([c.id]);
      expect(await ids('--confidence', 'observed', '--role', 'reviewer')).toEqual([b.id]);
      expect(await ids('--since', '2026-10-01', '--until', '2026-10-31')).toEqual([c.id, b.id, d.id]);
      expect(await ids('--since', '2d')).toEqual([conflict.id, c.id]);
      expect(await ids('--tier', 'warm')).toEqual([d.id]);
      expect(await ids('--conflict')).toEqual([conflict.id, a.id]);
      expect(await ids('--sort', 'strength', '--limit', '2')).toEqual([conflict.id, c.id]);
      const entry = (await json(['list', '--tag', 'testing']))[0];
      expect(entry).toEqual({
        id: b.id, path: b.path, category: 'episodic', tier: 'active', confidence: 'observed', strength: 0.693, activation: 0, access_count: 0,
        created_at: '2026-10-25T00:00:00Z', last_accessed_at: '2026-10-25T00:00:00Z', agent_role: 'reviewer', tags: ['testing', 'ci'], in_conflict: false,
        text: 'The flaky auth test times out on CI.',
      });
      const table = await run(['list', '--category', 'decision']);
      expect(table.stdout).toBe(
        [
          'ID                CATEGORY  TIER NOW  CONFIDENCE  STRENGTH  CREATED     TEXT',
          `${conflict.id}  decision  active    observed!   0.99      2026-10-31  Do not use pnpm in this repository.`,
          `${a.id}  decision  active    observed!   0.62      2026-09-01  Use pnpm in this repository.`,
          '2 memories (! in an open conflict)',
          '',
        ].join('\n'),
      );
      const bad = await run(['list', '--since', 'last week']);
      expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([2, 'engram: --since: expected a date (2026-11-01), a date-time (2026-11-01T10:00:00Z) or days ago (7d), got "last week"']);
    });
  });
});
