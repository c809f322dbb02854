import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { engram, tempDir } from '../helpers/cli';
import { cloneVault, commitAll, makeOrigin } from '../helpers/clones';
import { git, tryGit } from '../helpers/git';

/**
 * Two machines sharing a vault through git (issue 22): what each did is counted once per
 * machine and `git pull` never stops on a memory Engram wrote, whatever the clocks say.
 */
const T0 = '2026-11-20T10:00:00Z';
const fieldsOf = (file: string) => readFrontmatter(splitFrontmatter(readFileSync(file, 'utf8'))!.yaml) as Record<string, unknown>;

describe('two clones pulling each other\'s uses', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  async function run(vault: string, ...args: string[]) {
    const r = await engram(vault, args);
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
    return r;
  }

  /** Origin with the memories `seed` makes, and two clones of it: a (which pushes first) and b (which pulls). */
  async function twoClones(seed: (vault: string) => Promise<void>) {
    const { origin } = await makeOrigin(dir, seed);
    return { a: await cloneVault(dir, origin, 'a'), b: await cloneVault(dir, origin, 'b') };
  }
  const push = (vault: string, message: string) => {
    commitAll(vault, message);
    git(vault, 'push', '-q', 'origin', 'HEAD:main');
  };
  const pull = (vault: string, message: string) => {
    commitAll(vault, message);
    return tryGit(vault, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
  };

  it('identical touches on two clones (same instant, same state) count twice', async () => {
    let id = '';
    const { a, b } = await twoClones(async (v) => {
      id = (await run(v, '--json', '--now', T0, 'remember', 'The staging database is reset every Sunday night.')).json().id;
    });
    const file = 'episodic/The staging database is reset every Sunday night.md';
    for (const vault of [a, b]) await run(vault, '--now', '2026-11-21T09:00:00Z', 'touch', id);
    push(a, 'a: touch');
    expect(pull(b, 'b: touch')).toMatchObject({ status: 0 });
    expect(fieldsOf(path.join(b, file))).toMatchObject({ access_count: 2, last_accessed_at: '2026-11-21T09:00:00Z' });
  });

  it('the same text remembered again on two clones reinforces twice', async () => {
    let id = '';
    const text = 'Releases are cut from the main branch on Thursdays.';
    const { a, b } = await twoClones(async (v) => {
      id = (await run(v, '--json', '--now', T0, 'remember', text)).json().id;
    });
    for (const vault of [a, b]) expect((await run(vault, '--json', '--now', '2026-11-21T09:00:00Z', 'remember', text)).json().action).toBe('reinforced');
    push(a, 'a: remember again');
    expect(pull(b, 'b: remember again')).toMatchObject({ status: 0 });
    expect(fieldsOf(path.join(b, 'episodic/Releases are cut from the main branch on Thursdays.md'))).toMatchObject({ id, access_count: 2, amplitude: 3, remembered_again: 2 });
  });

  it('two clones consolidating the same episodes (one had edited an episode) pull without a conflict: the later consolidation\'s text', async () => {
    const ids: string[] = [];
    const { a, b } = await twoClones(async (v) => {
      for (const [k, day] of ['01', '02', '03'].entries()) {
        ids.push((await run(v, '--json', '--now', `2026-11-${day}T10:00:00Z`, 'remember', `The nightly build failed because the cache volume was full on runner ${k + 1}`)).json().id);
      }
    });
    // b's person corrected an episode before its night: its pattern quotes another example
    // the three titles are alike up to the 60th character: the names are numbered in the order written
    const episode = path.join(b, 'episodic/The nightly build failed because the cache volume was full 3.md');
    expect(fieldsOf(episode).id).toBe(ids[2]);
    writeFileSync(episode, readFileSync(episode, 'utf8').replace('on runner 3', 'on runner 3 (the arm64 one)'));
    await run(a, '--now', '2026-11-05T03:00:00Z', 'consolidate');
    await run(b, '--now', '2026-11-05T04:00:00Z', 'consolidate');
    const semantic = readdirSync(path.join(a, 'semantic')).filter((n) => n.endsWith('.md'));
    expect(readdirSync(path.join(b, 'semantic')).filter((n) => n.endsWith('.md'))).toEqual(semantic);
    expect(semantic).toHaveLength(1);
    const rel = `semantic/${semantic[0]}`;
    expect(readFileSync(path.join(a, rel), 'utf8')).not.toBe(readFileSync(path.join(b, rel), 'utf8'));
    const later = readFileSync(path.join(b, rel), 'utf8');
    push(a, 'a: night');
    const pulled = pull(b, 'b: night');
    expect(pulled).toMatchObject({ status: 0 });
    const merged = readFileSync(path.join(b, rel), 'utf8');
    expect(merged).not.toContain('<<<<<<<');
    expect(splitFrontmatter(merged)!.body).toBe(splitFrontmatter(later)!.body);
    expect(fieldsOf(path.join(b, rel))).toMatchObject({ source: 'consolidation', aliases: fieldsOf(path.join(b, rel)).aliases, cluster_size: 3 });
    expect(fieldsOf(path.join(b, rel)).merge_clash).toBeUndefined();
    // and the other way round gives the same text
    expect(tryGit(a, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main').status).toBe(0);
    git(b, 'push', '-q', 'origin', 'HEAD:main');
    expect(tryGit(a, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main').status).toBe(0);
    expect(readFileSync(path.join(a, rel), 'utf8')).toBe(merged);
  });

  it('a side whose frontmatter does not parse stops the merge loudly and is left for doctor, never merged as lines', async () => {
    let id = '';
    const { a, b } = await twoClones(async (v) => {
      id = (await run(v, '--json', '--now', T0, 'remember', 'The VPN drops every 8 hours.')).json().id;
    });
    const file = 'episodic/The VPN drops every 8 hours.md';
    await run(a, '--now', '2026-11-21T09:00:00Z', 'touch', id);
    await run(a, '--now', '2026-11-21T09:05:00Z', 'touch', id);
    push(a, 'a: two touches');
    await run(b, '--now', '2026-11-21T09:00:00Z', 'touch', id);
    await run(b, '--now', '2026-11-21T09:05:00Z', 'touch', id);
    // b's copy is broken by hand below its counters: its frontmatter no longer parses
    const broken = readFileSync(path.join(b, file), 'utf8').replace('is_error: false\n', 'is_error: [false\n');
    writeFileSync(path.join(b, file), broken);
    const pulled = pull(b, 'b: two touches, broken');
    expect(pulled.status).toBe(1);
    expect(pulled.stderr).toContain(`engram merge-file: ${file}: ours: its frontmatter does not parse (`);
    expect(readFileSync(path.join(b, file), 'utf8')).toBe(broken);
    expect(git(b, 'diff', '--name-only', '--diff-filter=U')).toBe(`${file}\n`);
    const doctor = await engram(b, ['--json', 'doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.json().findings.map((f: { check: string; path: string }) => [f.check, f.path])).toContainEqual(['unreadable', file]);
  });

  it('a touch from a slow clock counts, and never moves last_accessed_at back', async () => {
    let id = '';
    const { a } = await twoClones(async (v) => {
      id = (await run(v, '--json', '--now', T0, 'remember', 'The office printer needs the blue driver.')).json().id;
    });
    await run(a, '--now', '2026-11-21T09:00:00Z', 'touch', id);
    await run(a, '--now', '2026-10-01T09:00:00Z', 'touch', id); // a clock seven weeks slow
    const fields = fieldsOf(path.join(a, 'episodic/The office printer needs the blue driver.md'));
    expect([fields.access_count, fields.last_accessed_at, fields.activation_at]).toEqual([2, '2026-11-21T09:00:00Z', '2026-11-21T09:00:00Z']);
  });
});
