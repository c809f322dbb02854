import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFrontmatter, setFrontmatterFields, splitFrontmatter } from '../../src/core/frontmatter';
import { engram, fileOf, tempDir } from '../helpers/cli';
import { git, tryGit } from '../helpers/git';

/** `engram doctor`: what would confuse Engram or Obsidian, and `--fix` for what loses nothing. */
const NOW = '2026-11-29T12:00:00Z';
const fields = (file: string) => readFrontmatter(splitFrontmatter(readFileSync(file, 'utf8'))!.yaml) as Record<string, unknown>;

describe('engram doctor', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  const remember = async (text: string, at = '2026-11-20T10:00:00Z') => (await engram(vault, ['--json', '--now', at, 'remember', text])).json().id as string;
  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
  });
  afterEach(() => cleanup());

  it('resolves a frontmatter conflict git left (no driver installed) from the index\'s three versions, stages it, and installs the driver', async () => {
    git(vault, 'init', '-q', '-b', 'main');
    const id = await remember('The release train leaves on Tuesdays.');
    git(vault, 'add', '-A');
    git(vault, 'commit', '-q', '-m', 'seed');
    git(vault, 'checkout', '-q', '-b', 'laptop');
    await engram(vault, ['--now', '2026-11-21T10:00:00Z', 'touch', id]);
    git(vault, 'commit', '-q', '-am', 'laptop');
    git(vault, 'checkout', '-q', 'main');
    await engram(vault, ['--now', '2026-11-22T10:00:00Z', 'touch', id]);
    git(vault, 'commit', '-q', '-am', 'desk');
    expect(tryGit(vault, 'merge', '--no-edit', 'laptop').status).toBe(1);
    const file = path.join(vault, 'episodic', 'The release train leaves on Tuesdays.md');
    expect(splitFrontmatter(readFileSync(file, 'utf8'))!.yaml).toContain('<<<<<<< HEAD');

    const found = await engram(vault, ['--json', '--now', NOW, 'doctor']);
    expect(found.code).toBe(1);
    expect(found.json().findings.map((f: { check: string; path: string; fix?: string }) => [f.check, f.path, Boolean(f.fix)])).toEqual([
      ['git-setup', '.gitattributes', true],
      ['conflict-markers', 'episodic/The release train leaves on Tuesdays.md', true],
    ]);
    const fixed = await engram(vault, ['--json', '--now', NOW, 'doctor', '--fix']);
    expect(fixed.json()).toMatchObject({ fixed: 2, remaining: 0 });
    expect(fields(file)).toMatchObject({ access_count: 2, last_accessed_at: '2026-11-22T10:00:00Z' });
    expect(git(vault, 'diff', '--name-only', '--diff-filter=U')).toBe('');
    expect(git(vault, 'config', 'merge.engram.driver')).toContain('merge-file %O %A %B %P');
    git(vault, 'commit', '-q', '--no-edit');
  });

  it('reports clashes, links to nothing, an interrupted consolidation and files that do not parse; fixes what loses nothing', async () => {
    const a = await remember('The cache warmer runs at midnight.');
    const b = await remember('Payments retries use exponential backoff.');
    const c = await remember('Old note about the build cache.', '2026-05-01T10:00:00Z');
    const fa = path.join(vault, fileOf(vault, a));
    expect(fa).toBe(path.join(vault, 'episodic', 'The cache warmer runs at midnight.md'));
    writeFileSync(fa, setFrontmatterFields(readFileSync(fa, 'utf8'), { merge_clash: ['confidence: observed or verified (kept observed)'], co_access: { 'mem-00000000gone': 2 } }));
    // a memory a merge left in archive/ although it was used since
    const fc = path.join(vault, 'episodic', 'Old note about the build cache.md');
    writeFileSync(path.join(vault, 'archive', 'Old note about the build cache.md'), setFrontmatterFields(readFileSync(fc, 'utf8'), { tier: 'warm', last_accessed_at: '2026-11-28T10:00:00Z', access_count: 1 }));
    require('node:fs').unlinkSync(fc);
    writeFileSync(path.join(vault, 'episodic', 'mem-badbadbadbad.md'), '---\nid: mem-badbadbadbad\ncategory: episodic\n');
    writeFileSync(path.join(vault, '.engram', 'consolidation-plan.json'), '{"format":1}');
    // a lock and a temp file left by processes that died
    mkdirSync(path.join(vault, '.engram', 'locks'), { recursive: true });
    writeFileSync(path.join(vault, '.engram', 'locks', `${b}.lock`), `999999@${require('node:os').hostname()}`);
    // the holder file of a process killed while it held no lock (its locks are links to it)
    writeFileSync(path.join(vault, '.engram', 'locks', '999999.1764000000000.1.holder'), `999999@${require('node:os').hostname()}`);
    const temp = path.join(vault, 'episodic', `.${b}.md.999999.3.tmp`);
    writeFileSync(temp, 'half a write');
    utimesSync(temp, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));

    const found = (await engram(vault, ['--json', '--now', NOW, 'doctor'])).json();
    expect(found.findings.map((f: { check: string; path: string; fix?: string }) => [f.check, f.path, Boolean(f.fix)])).toEqual([
      ['unreadable', 'episodic/mem-badbadbadbad.md', false],
      ['merge-clash', 'episodic/The cache warmer runs at midnight.md', false],
      ['archived-alive', 'archive/Old note about the build cache.md', true],
      ['missing-link', 'episodic/The cache warmer runs at midnight.md', false],
      ['interrupted-consolidation', '.engram/consolidation-plan.json', false],
      ['stale-lock', '.engram/locks/999999.1764000000000.1.holder', true],
      ['stale-lock', `.engram/locks/${b}.lock`, true],
      ['temp-file', `episodic/.${b}.md.999999.3.tmp`, true],
    ]);
    expect(found.findings[3].problem).toBe('links to mem-00000000gone, which no file holds');
    expect(found.findings[5].problem).toBe('the lock holder file of pid 999999, no longer running');
    const human = await engram(vault, ['--now', NOW, 'doctor']);
    expect(human.code).toBe(1);
    expect(human.stdout.trim().split('\n').pop()).toBe('8 problems, 4 fixable: run engram doctor --fix');

    const fixed = await engram(vault, ['--json', '--now', NOW, 'doctor', '--fix']);
    expect(fixed.code).toBe(1);
    expect(fixed.json()).toMatchObject({ fixed: 4, remaining: 4 });
    expect(fileOf(vault, c)).toBe('episodic/Old note about the build cache.md');
    expect(existsSync(path.join(vault, '.engram', 'locks', `${b}.lock`))).toBe(false);
    expect(readdirSync(path.join(vault, '.engram', 'locks'))).toEqual([]);
    expect(existsSync(temp)).toBe(false);
  });

  it("removes a killed write's temp file beside STATE.md, at the vault's own folder, and in .engram/cache (doctor --fix and consolidate)", async () => {
    const old = new Date(Date.now() - 2 * 3_600_000);
    const temp = path.join(vault, '.STATE.md.999999.1.tmp');
    writeFileSync(temp, 'half a write');
    utimesSync(temp, old, old);
    // a recall killed while it wrote its catalog
    mkdirSync(path.join(vault, '.engram', 'cache'), { recursive: true });
    const cached = path.join(vault, '.engram', 'cache', '.catalog.json.999999.2.tmp');
    writeFileSync(cached, '{"half": ');
    utimesSync(cached, old, old);
    const found = await engram(vault, ['--json', '--now', NOW, 'doctor']);
    expect([found.code, found.json().findings.map((f: { check: string; path: string }) => [f.check, f.path])]).toEqual([1, [['temp-file', '.STATE.md.999999.1.tmp'], ['temp-file', '.engram/cache/.catalog.json.999999.2.tmp']]]);
    const fixed = await engram(vault, ['--json', '--now', NOW, 'doctor', '--fix']);
    expect([fixed.code, fixed.stderr, fixed.json()]).toMatchObject([0, '', { fixed: 2, remaining: 0 }]);
    expect([existsSync(temp), existsSync(cached)]).toEqual([false, false]);
    // a consolidation sweeps it too (it asked for the vault's folder as '.', refused until now)
    writeFileSync(temp, 'half a write');
    utimesSync(temp, old, old);
    const run = await engram(vault, ['--json', '--now', NOW, 'consolidate']);
    expect([run.code, run.json().temp_removed, existsSync(temp)]).toEqual([0, 1, false]);
  });

  it("finds and removes killed writes' temp files at depth: a person's sub-folder, archive/'s, a memory's versions, a forgotten memory's folder (doctor --fix and consolidate)", async () => {
    const old = new Date(Date.now() - 2 * 3_600_000);
    const deep = ['semantic/projects/payments/.Stripe keys.md.999999.1.tmp', 'archive/ops/.Old runbook.md.999999.2.tmp', '.engram/versions/mem-aaaaaaaaaaaa/.3.json.999999.3.tmp', '.engram/forgotten/episodic/.Gone.md.999999.4.tmp'];
    // a folder Engram does not walk (hidden, as .obsidian or .trash) keeps its files
    const hidden = 'semantic/.trash/.Binned.md.999999.5.tmp';
    const place = () => {
      for (const rel of [...deep, hidden]) {
        mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
        writeFileSync(path.join(vault, rel), 'half a write');
        utimesSync(path.join(vault, rel), old, old);
      }
    };
    place();
    const found = await engram(vault, ['--json', '--now', NOW, 'doctor']);
    expect([found.code, found.json().findings.map((f: { check: string; path: string }) => [f.check, f.path])]).toEqual([1, [
      ['temp-file', '.engram/forgotten/episodic/.Gone.md.999999.4.tmp'],
      ['temp-file', '.engram/versions/mem-aaaaaaaaaaaa/.3.json.999999.3.tmp'],
      ['temp-file', 'archive/ops/.Old runbook.md.999999.2.tmp'],
      ['temp-file', 'semantic/projects/payments/.Stripe keys.md.999999.1.tmp'],
    ]]);
    const fixed = await engram(vault, ['--json', '--now', NOW, 'doctor', '--fix']);
    expect([fixed.code, fixed.stderr, fixed.json()]).toMatchObject([0, '', { fixed: 4, remaining: 0 }]);
    expect([...deep, hidden].map((rel) => existsSync(path.join(vault, rel)))).toEqual([false, false, false, false, true]);
    place();
    const run = await engram(vault, ['--json', '--now', NOW, 'consolidate']);
    expect([run.code, run.json().temp_removed, [...deep, hidden].map((rel) => existsSync(path.join(vault, rel)))]).toEqual([0, 4, [false, false, false, false, true]]);
  });

  it('a link to a memory forgotten with plain forget (kept in .engram/forgotten, recoverable) is no missing link', async () => {
    const a = await remember('The release train leaves on Tuesdays.');
    const b = await remember('Hotfixes skip the release train.');
    await engram(vault, ['--now', '2026-11-21T10:00:00Z', 'touch', a, b]); // co-accessed: each links the other
    expect((await engram(vault, ['--now', '2026-11-22T10:00:00Z', 'forget', b])).code).toBe(0);
    expect(readFileSync(path.join(vault, 'episodic', 'The release train leaves on Tuesdays.md'), 'utf8')).toContain(`co_access: {"${b}": 1}`);
    const found = await engram(vault, ['--json', '--now', NOW, 'doctor']);
    expect([found.code, found.json().findings]).toEqual([0, []]);
  });

  it('touch and cite use a memory whose frontmatter is indented or holds __proto__/constructor/toString keys, changing only their fields (issue 22, finding 15)', async () => {
    const a = await remember('The release train leaves on Tuesdays.');
    const b = await remember('Builds run on the arm runners.');
    const fileA = path.join(vault, 'episodic', 'The release train leaves on Tuesdays.md');
    const fileB = path.join(vault, 'episodic', 'Builds run on the arm runners.md');
    const textA = readFileSync(fileA, 'utf8');
    const yamlA = splitFrontmatter(textA)!.yaml;
    writeFileSync(fileA, textA.replace(yamlA, yamlA.split('\n').map((l) => (l === '' ? l : `  ${l}`)).join('\n')));
    writeFileSync(fileB, readFileSync(fileB, 'utf8').replace('---\n', '---\n__proto__: hello\nconstructor: world\ntoString: x\n'));
    const before = [readFileSync(fileA, 'utf8'), readFileSync(fileB, 'utf8')];
    expect((await engram(vault, ['--now', '2026-11-21T10:00:00Z', 'touch', a, b])).code).toBe(0);
    expect((await engram(vault, ['--now', '2026-11-21T11:00:00Z', 'cite', a, b])).code).toBe(0);
    // every line but the counting fields' is the same, in the same place; new fields at the mapping's indentation
    const counting = /^\s*(last_accessed_at|access_count|activation|activation_at|counted_by|co_access|tier|uses_m-[0-9a-f]{12}):/;
    for (const [i, file] of [fileA, fileB].entries()) {
      const after = readFileSync(file, 'utf8');
      expect(after.split('\n').filter((l) => !counting.test(l))).toEqual(before[i]!.split('\n').filter((l) => !counting.test(l)));
      expect(after).toContain(i === 0 ? '\n  access_count: 1\n' : '\naccess_count: 1\n');
      expect(after).toContain(i === 0 ? '\n  activation_at: "2026-11-21T11:00:00Z"\n' : '\nactivation_at: "2026-11-21T11:00:00Z"\n');
      // the two new fields, this machine's stamp and its own use count (issue 21), last, at the mapping's indentation
      const stamp = /counted_by: (m-[0-9a-f]{12})/.exec(after)![1]!;
      const added = [`counted_by: ${stamp}`, `uses_${stamp}: 1`].map((l) => (i === 0 ? `  ${l}` : l));
      expect(after.split('\n---\n')[0]!.split('\n').slice(-2).sort()).toEqual(added);
    }
    expect(fields(fileB)).toMatchObject({ constructor: 'world', toString: 'x', access_count: 1 });
    const found = await engram(vault, ['--json', '--now', NOW, 'doctor']);
    expect([found.code, found.json().findings]).toEqual([0, []]);
  });

  it('names a memory whose frontmatter touches cannot edit (one flow mapping), and touch says which fields it could not set', async () => {
    const a = await remember('The release train leaves on Tuesdays.');
    const file = path.join(vault, 'episodic', 'The release train leaves on Tuesdays.md');
    const text = readFileSync(file, 'utf8');
    const yaml = splitFrontmatter(text)!.yaml;
    writeFileSync(file, text.replace(yaml, `{${yaml.trim().split('\n').join(', ')}}\n`));
    const touched = await engram(vault, ['touch', a]);
    expect(touched.code).toBe(1);
    expect(touched.stderr).toMatch(new RegExp(`^engram: episodic/The release train leaves on Tuesdays\\.md: cannot set activation, activation_at, tier, access_count, last_accessed_at, uses_m-[0-9a-f]{12}, counted_by without changing other fields of this frontmatter; edit it by hand\\n$`));
    const found = await engram(vault, ['--json', '--now', NOW, 'doctor']);
    expect(found.json().findings.map((f: { check: string; path: string; problem: string }) => [f.check, f.path, f.problem.split(':')[0]])).toEqual([['unreadable', 'episodic/The release train leaves on Tuesdays.md', 'Engram cannot record a use of it']]);
    expect(found.code).toBe(1);
  });

  it('finds nothing wrong after ordinary use: init, remember, recall (the catalog keeps no tags, paths or recalls, and doctor compares only what it keeps)', async () => {
    await engram(vault, ['remember', 'alpha beta gamma']);
    await engram(vault, ['--now', NOW, 'remember', 'The deploy script lives in ops/deploy.sh.', '--tags', 'ops,deploy']);
    expect((await engram(vault, ['recall', 'alpha'])).code).toBe(0);
    expect((await engram(vault, ['--now', NOW, 'recall', 'deploy script'])).code).toBe(0);
    expect((await engram(vault, ['--now', NOW, 'context', 'deploy'])).code).toBe(0);
    expect(existsSync(path.join(vault, '.engram', 'cache', 'catalog.json'))).toBe(true);
    const doctor = await engram(vault, ['doctor']);
    expect([doctor.code, doctor.stdout]).toEqual([0, 'no problems found\n']);
    expect((await engram(vault, ['--json', 'doctor'])).json()).toEqual({ findings: [], fixed: 0, remaining: 0 });
  });

  it('a catalog that trusts a file replaced with its size and time kept is dropped (rebuilt at the next recall)', async () => {
    const id = await remember('The cache warmer runs at midnight.');
    await engram(vault, ['--now', NOW, 'recall', 'cache warmer']);
    const file = path.join(vault, 'episodic', 'The cache warmer runs at midnight.md');
    expect(fileOf(vault, id)).toBe('episodic/The cache warmer runs at midnight.md');
    const { mtime } = statSync(file);
    // the same size: 'active' and 'warm  ' are six characters each
    writeFileSync(file, readFileSync(file, 'utf8').replace('tier: active', 'tier: warm  '));
    utimesSync(file, mtime, mtime);
    const found = (await engram(vault, ['--json', '--now', NOW, 'doctor'])).json();
    expect(found.findings).toEqual([
      { check: 'stale-cache', path: '.engram/cache/catalog.json', problem: '1 catalog rows disagree with their files (replaced with their times kept)', fix: 'remove the catalog and the recall snapshot: rebuilt at the next recall' },
    ]);
    expect((await engram(vault, ['--json', '--now', NOW, 'doctor', '--fix'])).json()).toMatchObject({ fixed: 1, remaining: 0 });
    expect(existsSync(path.join(vault, '.engram', 'cache', 'catalog.json'))).toBe(false);
  });
});
