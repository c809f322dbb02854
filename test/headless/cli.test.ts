import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, initVault } from '../helpers/cli';

const T0 = '2026-11-01T10:00:00Z';

describe('engram runner', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => ({ dir, vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  const read = (rel: string) => readFileSync(path.join(vault, rel), 'utf8');
  const remember = async (args: string[], now = T0) => (await engram(vault, ['--json', '--now', now, 'remember', ...args])).json();

  describe('init', () => {
    it('creates the layout, STATE.md, .engram and an .obsidian with tier colour groups; again changes nothing', async () => {
      for (const folder of ['episodic', 'semantic', 'decisions', 'daily', 'conflicts', 'archive', '.engram', '.obsidian']) {
        expect([folder, existsSync(path.join(vault, folder))]).toEqual([folder, true]);
      }
      expect(read('.engram/version')).toBe('1\n');
      const graph = JSON.parse(read('.obsidian/graph.json'));
      expect(graph.colorGroups.map((g: { query: string }) => g.query)).toEqual(['[tier:core]', '[tier:active]', '[tier:warm]', '[tier:cold]', '[tier:archive]']);
      const again = await engram(vault, ['--json', 'init']);
      expect(again.json()).toEqual({ vault, created: [] });
    });

    it('adds no .obsidian when the folder is inside a vault', async () => {
      mkdirSync(path.join(dir, 'notes', '.obsidian'), { recursive: true });
      const inner = path.join(dir, 'notes', 'memory');
      expect((await engram(inner, ['init'])).code).toBe(0);
      expect(existsSync(path.join(inner, '.obsidian'))).toBe(false);
      expect(existsSync(path.join(inner, 'episodic'))).toBe(true);
    });
  });

  describe('remember', () => {
    it('writes a memory file in SPEC form', async () => {
      const result = await remember([
        'Found a flaky test in the auth suite: timeout too short for CI.',
        '--tags', 'testing,ci', '--error', '--path', 'src/auth/session.ts', '--role', 'code-reviewer', '--source', 'pr-42',
      ]);
      expect(result).toEqual({ id: 'mem-6570690b3af9', path: 'episodic/Found a flaky test in the auth suite timeout too short for.md', action: 'created' });
      expect(read(result.path)).toBe(`---
id: mem-6570690b3af9
category: episodic
created_at: "2026-11-01T10:00:00Z"
last_accessed_at: "2026-11-01T10:00:00Z"
agent_role: code-reviewer
confidence: observed
tags: ["testing", "ci"]
half_life_days: 7
access_count: 0
is_error: true
tier: active
co_access: {}
related_paths: ["src/auth/session.ts"]
amplitude: 1
activation: 0
activation_at: "2026-11-01T10:00:00Z"
content_hash: "0dfc057040dd4078"
source: pr-42
aliases: ["Found a flaky test in the auth suite: timeout too short for"]
---
Found a flaky test in the auth suite: timeout too short for CI.
`);
    });

    it('reinforces a near-identical memory instead of writing a duplicate', async () => {
      const first = await remember(['Use pnpm, not npm, in this repository.', '--category', 'decision']);
      const again = await remember(['use pnpm (not npm) in this repository!', '--category', 'decision'], '2026-11-02T10:00:00Z');
      expect(again).toEqual({ id: first.id, path: first.path, action: 'reinforced' });
      const shown = (await engram(vault, ['--json', '--now', '2026-11-02T10:00:00Z', 'show', first.id])).json();
      expect([shown.amplitude, shown.access_count]).toEqual([2, 1]);
      expect(readdirSync(path.join(vault, 'decisions'))).toEqual([path.basename(first.path)]);
    });

    it('opens a conflict when a memory negates one on the same subject', async () => {
      const old = await remember(['Integration tests must use Testcontainers for the database.', '--category', 'decision']);
      const neu = await remember(['Integration tests must not use Testcontainers for the database.', '--category', 'decision']);
      expect(neu.action).toBe('conflict');
      expect(neu.conflict_with).toBe(old.id);
      const note = read(neu.conflict_path);
      expect(note).toContain(`sides: ["${old.id}", "${neu.id}"]`);
      expect(note).toContain('- Existing: [[Integration tests must use Testcontainers for the database|contradicts]]');
      expect(note).toContain('status: open');
      expect((await engram(vault, ['--json', 'stats'])).json().open_conflicts).toBe(1);
    });

    it('reads the text from standard input', async () => {
      const run = await engram(vault, ['--json', '--now', T0, 'remember', '-'], 'Prefer small pull requests.\n');
      expect(run.json().action).toBe('created');
      expect(read(run.json().path).endsWith('---\nPrefer small pull requests.\n')).toBe(true);
    });

    it('recall, context and list say alike that memory files could not be read (not with --json)', async () => {
      await engram(vault, ['--now', T0, 'remember', 'The cache warmer runs at midnight.']);
      writeFileSync(path.join(vault, 'episodic', 'mem-badbadbadbad.md'), '---\nid: mem-badbadbadbad\ncategory: episodic\n');
      writeFileSync(path.join(vault, 'decisions', 'mem-badbadbad002.md'), 'no frontmatter at all\n');
      const warning = 'engram: 2 memory files could not be read (engram stats lists them)\n';
      for (const args of [['recall', 'cache warmer'], ['context', 'cache warmer', '--peek'], ['list']]) {
        const run = await engram(vault, ['--now', T0, ...args]);
        expect([args, run.code, run.stderr]).toEqual([args, 0, warning]);
        expect(run.stdout).toContain('The cache warmer runs at midnight.');
        expect((await engram(vault, ['--json', '--now', T0, ...args])).stderr).toBe('');
      }
      rmSync(path.join(vault, 'decisions', 'mem-badbadbad002.md'));
      expect((await engram(vault, ['--now', T0, 'recall', 'cache warmer'])).stderr).toBe('engram: 1 memory file could not be read (engram stats lists them)\n');
      rmSync(path.join(vault, 'episodic', 'mem-badbadbadbad.md'));
      expect((await engram(vault, ['--now', T0, 'recall', 'cache warmer'])).stderr).toBe('');
    });

    it('names the command when standard input holds no text', async () => {
      for (const [command, stdin] of [['remember', ''], ['log', ' \n'], ['remember', '\n\n']] as const) {
        const run = await engram(vault, ['--now', T0, command, '-'], stdin);
        expect([run.code, run.stderr.split('\n')[0]]).toEqual([2, `engram: ${command}: standard input held no text (give the text as an argument, or pipe it in)`]);
      }
    });

    it('rejects bad input with exit 2 and writes nothing', async () => {
      for (const args of [['x', '--category', 'procedural'], ['x', '--confidence', 'stale'], ['x', '--bogus'], ['   ']]) {
        const run = await engram(vault, ['--now', T0, 'remember', ...args]);
        expect([args, run.code]).toEqual([args, 2]);
      }
      expect((await engram(vault, ['--now', T0, 'remember', 'x', '--category', 'procedural'])).stderr).toBe(
        'engram: --category: expected one of episodic, semantic, decision, got "procedural"\nrun \'engram --help\' for usage\n',
      );
      expect(readdirSync(path.join(vault, 'episodic'))).toEqual([]);
    });
  });

  describe('show', () => {
    it('prints frontmatter fields plus computed strength, half-life and activation', async () => {
      const { id } = await remember(['Lint rule no-console is enforced in CI.', '--tags', 'lint']);
      const shown = (await engram(vault, ['--json', '--now', '2026-11-08T10:00:00Z', 'show', id])).json();
      expect(shown).toMatchObject({
        id, category: 'episodic', tags: ['lint'], access_count: 0, tier: 'active', amplitude: 1,
        strength: 0.5, effective_half_life_days: 7, activation_now: 0, tier_now: 'active', tier_by_days: 'active', days_since_access: 7,
        text: 'Lint rule no-console is enforced in CI.', due_for_validation: false,
      });
    });

    it('keeps unknown fields in its output', async () => {
      const { id, path: rel } = await remember(['Cache keys include the locale.']);
      writeFileSync(path.join(vault, rel), read(rel).replace('---\nCache', 'owner: platform-team\n---\nCache'));
      expect((await engram(vault, ['--json', '--now', T0, 'show', id])).json().owner).toBe('platform-team');
    });
  });

  describe('touch and cite', () => {
    it('walks archive -> cold -> warm -> active, counting accesses, body untouched', async () => {
      const { id, path: rel } = await remember(['The payments service retries three times.']);
      const original = read(rel);
      writeFileSync(path.join(vault, rel), original.replace('tier: active', 'tier: archive'));
      const body = original.slice(original.lastIndexOf('---\n') + 4);
      const tiers: string[] = [];
      for (let i = 1; i <= 4; i++) {
        const run = await engram(vault, ['--json', '--now', `2026-11-0${1 + i}T10:00:00Z`, 'touch', id]);
        expect(run.code).toBe(0);
        tiers.push(run.json()[0].tier);
      }
      expect(tiers).toEqual(['cold', 'warm', 'active', 'active']);
      const text = read(rel);
      expect(text.endsWith(`---\n${body}`)).toBe(true);
      expect(text).toContain('access_count: 4\n');
      expect(text).toContain('last_accessed_at: "2026-11-05T10:00:00Z"\n');
      // ACT-R: four reads of 0.25 a day apart, each earlier one decayed by 0.5^(1/30) per day
      expect(text).toContain('activation: 0.9663\nactivation_at: "2026-11-05T10:00:00Z"\n');
    });

    it('never changes a core memory tier', async () => {
      const { id, path: rel } = await remember(['Never commit secrets.', '--category', 'decision']);
      writeFileSync(path.join(vault, rel), read(rel).replace('tier: active', 'tier: core'));
      const run = (await engram(vault, ['--json', '--now', T0, 'touch', id])).json()[0];
      expect([run.tier_before, run.tier, run.access_count]).toEqual(['core', 'core', 1]);
    });

    it('links memories touched together by co-access on both sides (Hebb)', async () => {
      const a = await remember(['Auth tokens expire after one hour.']);
      const b = await remember(['Session cookies are httpOnly and secure.']);
      await engram(vault, ['--now', T0, 'touch', a.id, b.id]);
      await engram(vault, ['--now', T0, 'touch', b.path, a.path]);
      expect(read(a.path)).toContain(`co_access: {"${b.id}": 2}\n`);
      expect(read(b.path)).toContain(`co_access: {"${a.id}": 2}\n`);
    });

    it('cite adds the citation boost and spreads half of it across the links', async () => {
      const a = await remember(['Retry budget is three attempts.']);
      const b = await remember(['Backoff starts at 200 ms.']);
      const c = await remember(['Timeouts are 5 seconds.']);
      writeFileSync(path.join(vault, a.path), `${read(a.path)}\n[[${b.id}|related]] [[${c.id}|supersedes]]\n`);
      const [result] = (await engram(vault, ['--json', '--now', T0, 'cite', a.id])).json();
      expect(result.activation).toBe(1.5);
      expect(result.spread).toEqual({ [b.id]: 0.75 });
      expect(read(b.path)).toContain('activation: 0.75\n');
      expect(read(c.path)).toContain('activation: 0\n');
      expect(read(a.path)).toContain('access_count: 0\n');
    });

    it('refuses paths outside the vault, and unknown ids', async () => {
      writeFileSync(path.join(dir, 'outside.md'), '---\nid: mem-aaaaaaaaaaaa\ncategory: episodic\ncreated_at: "2026-01-01T00:00:00Z"\n---\nx\n');
      symlinkSync(path.join(dir, 'outside.md'), path.join(vault, 'episodic', 'mem-aaaaaaaaaaaa.md'));
      const cases: Array<[string, string]> = [
        ['../outside.md', 'engram: invalid path "../outside.md": leaves the vault\n'],
        [path.join(dir, 'outside.md'), `engram: ${path.join(dir, 'outside.md')}: not inside the vault ${vault}\n`],
        ['episodic/mem-aaaaaaaaaaaa.md', 'engram: invalid path "episodic/mem-aaaaaaaaaaaa.md": resolves outside the vault\n'],
        // named by the id: found, and refused when read
        ['mem-aaaaaaaaaaaa', 'engram: invalid path "episodic/mem-aaaaaaaaaaaa.md": resolves outside the vault\n'],
        ['mem-bbbbbbbbbbbb', 'engram: no memory with id mem-bbbbbbbbbbbb\n'],
      ];
      for (const [ref, message] of cases) {
        const run = await engram(vault, ['touch', ref], undefined, vault);
        expect([ref, run.code === 0, run.stderr]).toEqual([ref, false, message]);
      }
      expect(readFileSync(path.join(dir, 'outside.md'), 'utf8')).toContain('id: mem-aaaaaaaaaaaa\n');
    });

    it('takes a file by its real path when the vault is reached through a symbolic link (--vault LINK show REALPATH/...)', async () => {
      const a = await remember(['The build cache lives on the shared volume.']);
      const link = path.join(dir, 'vault-link');
      symlinkSync(vault, link);
      const shown = await engram(link, ['--json', 'show', path.join(vault, a.path)]);
      expect([shown.code, shown.stderr, shown.code === 0 && shown.json().id]).toEqual([0, '', a.id]);
      const back = await engram(vault, ['--json', 'show', path.join(link, a.path)]);
      expect([back.code, back.code === 0 && back.json().id]).toEqual([0, a.id]);
    });
  });

  describe('import', () => {
    it('imports JSONL, links each session as a chain of related neighbours', async () => {
      const file = path.join(dir, 'turns.jsonl');
      writeFileSync(
        file,
        [
          { text: 'Caroline: I went to the LGBTQ support group yesterday.', session: 's1', source: 'D1:1', created_at: '2023-05-08T13:56:00Z' },
          { text: 'Melanie: That sounds wonderful, how was it?', session: 's1', source: 'D1:2', created_at: '2023-05-08T13:56:30Z' },
          { text: 'Caroline: Very empowering, I felt accepted.', session: 's1', source: 'D1:3', created_at: '2023-05-08T13:57:00Z' },
          { text: 'Melanie: I painted a sunrise last week.', session: 's2', source: 'D2:1', created_at: '2023-05-25T13:14:00Z', tags: ['painting'] },
        ].map((l) => JSON.stringify(l)).join('\n') + '\n',
      );
      const run = await engram(vault, ['--json', '--now', '2023-06-01T00:00:00Z', 'import', file]);
      expect(run.code).toBe(0);
      const summary = run.json();
      expect([summary.lines, summary.created, summary.reinforced, summary.conflicts]).toEqual([4, 4, 0, 0]);
      const [a, b, c, d] = summary.results.map((r: { id: string }) => r.id);
      const paths = summary.results.map((r: { path: string }) => r.path);
      expect(paths).toEqual([
        'episodic/Caroline I went to the LGBTQ support group yesterday.md',
        'episodic/Melanie That sounds wonderful, how was it.md',
        'episodic/Caroline Very empowering, I felt accepted.md',
        'episodic/Melanie I painted a sunrise last week.md',
      ]);
      const body = (id: string) => read(paths[[a, b, c, d].indexOf(id)]).split('---\n')[2];
      expect(body(a)).toBe('Caroline: I went to the LGBTQ support group yesterday.\n\n[[Melanie That sounds wonderful, how was it|related]]\n');
      expect(body(b)).toBe('Melanie: That sounds wonderful, how was it?\n\n[[Caroline I went to the LGBTQ support group yesterday|related]] [[Caroline Very empowering, I felt accepted|related]]\n');
      expect(body(c)).toBe('Caroline: Very empowering, I felt accepted.\n\n[[Melanie That sounds wonderful, how was it|related]]\n');
      expect(body(d)).toBe('Melanie: I painted a sunrise last week.\n');
      expect(read(paths[0])).toContain(`link_ids: ["related ${b}"]\n`);
      expect(read(paths[1])).toContain(`link_ids: ["related ${a}", "related ${c}"]\n`);
      expect(read(paths[0])).toContain('created_at: "2023-05-08T13:56:00Z"\n');
      expect(read(paths[0])).toContain('source: "D1:1"\n');
    });

    it('checks every line first: one bad line writes nothing and names the line', async () => {
      const file = path.join(dir, 'bad.jsonl');
      const cases: Array<[string, string]> = [
        ['{"text": "ok"}\n{"text": 3}\n', 'bad.jsonl:2: field "text" must be a string'],
        ['{"text": "ok"}\nnot json\n', 'bad.jsonl:2: not valid JSON'],
        ['{"text": "ok", "colour": "red"}\n', 'bad.jsonl:1: unknown field "colour"'],
        ['{"text": "ok", "created_at": "last week"}\n', 'bad.jsonl:1: created_at: expected an ISO-8601 date-time, got "last week"'],
        ['{"text": "ok", "category": "procedural"}\n', 'bad.jsonl:1: category: expected one of episodic, semantic, decision, got "procedural"'],
        ['[1, 2]\n', 'bad.jsonl:1: expected a JSON object'],
      ];
      for (const [content, message] of cases) {
        writeFileSync(file, content);
        const run = await engram(vault, ['import', 'bad.jsonl'], undefined, dir);
        expect([run.code, run.stderr.split('\n')[0]!.startsWith(`engram: ${message}`)]).toEqual([1, true]);
      }
      expect(readdirSync(path.join(vault, 'episodic'))).toEqual([]);
    });
  });

  describe('log, budget, creative, stats', () => {
    it('log appends to the UTC day file', async () => {
      await engram(vault, ['--now', '2026-11-29T08:05:00Z', 'log', 'Started the auth refactor.']);
      const run = await engram(vault, ['--json', '--now', '2026-11-29T17:30:00Z', 'log', 'Auth refactor merged;\nfollow-up: docs']);
      expect(run.json()).toEqual({ path: 'daily/2026-11-29.md', bytes: 124, over_limit: false });
      expect(read('daily/2026-11-29.md')).toBe(
        '---\ndate: "2026-11-29"\n---\n# 2026-11-29\n\n- 08:05 Started the auth refactor.\n- 17:30 Auth refactor merged;\n  follow-up: docs\n',
      );
    });

    it('budget counts STATE.md and the last 7 days of daily files', async () => {
      writeFileSync(path.join(vault, 'STATE.md'), 'Focus: ship the auth refactor.\n');
      writeFileSync(path.join(vault, 'daily', '2026-11-25.md'), 'x'.repeat(100));
      writeFileSync(path.join(vault, 'daily', '2026-11-01.md'), 'old day, not loaded');
      writeFileSync(path.join(vault, 'daily', '2026-11-28.md'), 'y'.repeat(21 * 1024));
      const report = (await engram(vault, ['--json', '--now', '2026-11-29T12:00:00Z', 'budget'])).json();
      expect(report.files.map((f: { path: string; bytes: number }) => [f.path, f.bytes])).toEqual([
        ['STATE.md', 31],
        ['daily/2026-11-25.md', 100],
        ['daily/2026-11-28.md', 21504],
      ]);
      expect(report.files[0].tokens).toBe(7);
      expect(report.total_bytes).toBe(21635);
      expect(report.over).toEqual(['daily/2026-11-28.md is 21504 bytes: over 20 KB: compress into memories']);
    });

    it('creative draws the same memories for the same seed, favouring forgotten ones', async () => {
      for (let i = 0; i < 12; i++) await remember([`Observation number ${i} about subsystem ${String.fromCharCode(97 + i)}.`], `2026-${String(1 + (i % 10)).padStart(2, '0')}-01T00:00:00Z`);
      const draw = async (seed: string) => (await engram(vault, ['--json', '--now', '2026-11-15T00:00:00Z', 'creative', '4', '--seed', seed])).json();
      const one = await draw('alpha');
      expect(one).toHaveLength(4);
      expect(await draw('alpha')).toEqual(one);
      expect(await draw('beta')).not.toEqual(one);
      expect(one.every((m: { strength: number }) => m.strength < 0.5)).toBe(true);
    });

    it('stats counts by category, tier and confidence', async () => {
      await remember(['A decision about queues.', '--category', 'decision', '--confidence', 'verified']);
      await remember(['An error in the parser.', '--error'], '2026-10-01T00:00:00Z');
      const stats = (await engram(vault, ['--json', '--now', '2026-11-01T10:00:00Z', 'stats'])).json();
      expect(stats).toMatchObject({
        memories: 2,
        errors: 1,
        by_category: { episodic: 1, semantic: 0, decision: 1 },
        by_confidence: { verified: 1, observed: 1, inferred: 0, stale: 0 },
        // the error, last accessed 31 days ago with a half-life of 14 days (errors × 2), is as strong
        // as an episode of 15.5 days: warm (the file still says active until consolidation)
        by_tier: { core: 0, active: 1, warm: 1, cold: 0, archive: 0 },
        invalid: [],
      });
    });
  });

  describe('usage errors', () => {
    it('exit 2 for usage, 1 for failures, messages on stderr', async () => {
      const cases: Array<[string[], number, string]> = [
        [['frobnicate'], 2, 'engram: unknown command "frobnicate"'],
        [['--now', 'yesterday', 'stats'], 2, 'engram: --now: expected an ISO-8601 date-time such as 2026-04-30T09:10:00Z, got "yesterday"'],
        [['creative', 'many'], 2, 'engram: creative N: expected a whole number from 1 to 50, got "many"'],
        [['show'], 2, 'engram: show: missing argument: engram show ID|PATH'],
        [['show', 'mem-000000000000'], 1, 'engram: no memory with id mem-000000000000'],
        [['export', '--format', 'pdf'], 2, 'engram: --format: expected graphml or csv, got "pdf"'],
        [['recall', 'x', '--radius', 'far'], 2, 'engram: --radius: expected one of default, deep, all, got "far"'],
      ];
      for (const [args, code, message] of cases) {
        const run = await engram(vault, args);
        expect([args, run.code, run.stderr.split('\n')[0]]).toEqual([args, code, message]);
        expect(run.stdout).toBe('');
      }
      const uninitialised = await engram(path.join(dir, 'nothing-here'), ['stats']);
      expect([uninitialised.code, uninitialised.stderr]).toEqual([1, `engram: ${path.join(dir, 'nothing-here')}: no such folder (run engram init)\n`]);
    });
  });
});
