import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFrontmatter, setFrontmatterFields, splitFrontmatter } from '../../src/core/frontmatter';
import { engram, fileOf, tempDir } from '../helpers/cli';

/**
 * Sync tools' conflict copies (issue 14): a copy Syncthing (or Dropbox, or Obsidian Sync)
 * leaves beside a memory two machines changed is merged into the memory by consolidation or
 * `engram doctor --fix`, with the counts kept, and moved out of the notes, recoverably.
 */
const NOW = '2026-11-29T12:00:00Z';
const fields = (file: string) => readFrontmatter(splitFrontmatter(readFileSync(file, 'utf8'))!.yaml) as Record<string, unknown>;

describe('sync conflict copies', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  let id: string;
  let file: string;
  let name: string;
  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
    id = (await engram(vault, ['--json', '--now', '2026-11-20T10:00:00Z', 'remember', 'The staging database is restored every Sunday.', '--tags', 'staging'])).json().id;
    name = path.basename(fileOf(vault, id), '.md'); // whatever its file is named (issue 21)
    file = path.join(vault, 'episodic', `${name}.md`);
    await engram(vault, ['--now', '2026-11-21T10:00:00Z', 'touch', id]);
  });
  afterEach(() => cleanup());

  /** What the other machine had: two more touches and a tag; this machine then touches once more. */
  function makeSyncthingCopy(): string {
    const copy = path.join(vault, 'episodic', `${name}.sync-conflict-20261128-101500-ABCDEFG.md`);
    writeFileSync(copy, setFrontmatterFields(readFileSync(file, 'utf8'), { access_count: 3, last_accessed_at: '2026-11-27T09:00:00Z', tags: ['staging', 'backups'] }));
    return copy;
  }

  it('consolidation merges a Syncthing copy into the memory (counts added, tags by union, times by the later) and moves it away', async () => {
    const copy = makeSyncthingCopy();
    await engram(vault, ['--now', '2026-11-28T08:00:00Z', 'touch', id]);
    const before = (await engram(vault, ['--json', 'stats'])).json();
    expect(before.invalid.map((p: { path: string }) => p.path)).toEqual([`episodic/${path.basename(copy)}`]);

    const report = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
    expect(report.steps[0]).toMatchObject({ step: 'copies', count: 1, note: 'of 1 memories, moved to .engram/sync-copies/' });
    // 1 use in common, the copy's 2 (counted without a device line, as an older Engram did) and
    // this machine's 1 since, which its own line `uses_m-…` shows the copy lacks: 4 (issue 21)
    expect(fields(file)).toMatchObject({ access_count: 4, last_accessed_at: '2026-11-28T08:00:00Z', tags: ['staging', 'backups'] });
    expect(existsSync(copy)).toBe(false);
    const kept = path.join(vault, '.engram', 'sync-copies', 'episodic', path.basename(copy));
    expect(fields(kept)).toMatchObject({ access_count: 3 });
    const log = readFileSync(path.join(vault, '.engram', 'sync-copies.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toEqual([
      { at: NOW, id, kept: `episodic/${name}.md`, moved: [{ from: `episodic/${path.basename(copy)}`, to: `.engram/sync-copies/episodic/${path.basename(copy)}`, kind: 'Syncthing conflict copy' }], skipped: [], clashes: [], body_conflicts: 0 },
    ]);
    expect((await engram(vault, ['--json', 'stats'])).json().invalid).toEqual([]);
    // nothing left to do
    const again = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
    expect(again.steps[0].step).toBe('prune');
  });

  it('doctor finds it; doctor --fix merges it the same way', async () => {
    const copy = makeSyncthingCopy();
    const found = await engram(vault, ['--json', '--now', NOW, 'doctor']);
    expect(found.code).toBe(1);
    expect(found.json().findings).toEqual([
      {
        check: 'duplicate-id',
        path: `episodic/${name}.md`,
        problem: `2 files hold ${id}: episodic/${path.basename(copy)} (Syncthing conflict copy)`,
        fix: `merge them into episodic/${name}.md (no-base rules) and move the copies to .engram/sync-copies/`,
      },
    ]);
    const fixed = await engram(vault, ['--json', '--now', NOW, 'doctor', '--fix']);
    expect(fixed.code).toBe(0);
    expect(fixed.json()).toMatchObject({ fixed: 1, remaining: 0 });
    expect(fields(file)).toMatchObject({ access_count: 3, tags: ['staging', 'backups'] });
    expect(readdirSync(path.join(vault, 'episodic'))).toEqual([`${name}.md`]);
    expect((await engram(vault, ['--now', NOW, 'doctor'])).stdout).toBe('no problems found\n');
  });

  it('a Dropbox copy whose text differs keeps both texts in the memory, between markers, for a person', async () => {
    const copy = path.join(vault, 'episodic', `${name} (Laptop's conflicted copy 2026-11-28).md`);
    writeFileSync(copy, readFileSync(file, 'utf8').replace('every Sunday.', 'every Saturday night.'));
    await engram(vault, ['--now', NOW, 'doctor', '--fix']);
    expect(splitFrontmatter(readFileSync(file, 'utf8'))!.body).toBe(
      `<<<<<<< episodic/${name}.md\nThe staging database is restored every Sunday.\n=======\nThe staging database is restored every Saturday night.\n>>>>>>> episodic/${path.basename(copy)}\n`,
    );
    const left = (await engram(vault, ['--json', '--now', NOW, 'doctor'])).json();
    expect(left.findings.map((f: { check: string; path: string }) => [f.check, f.path])).toEqual([['conflict-markers', `episodic/${name}.md`]]);
    expect(left.findings[0].fix).toBeUndefined();
  });

  it('the same memory in two folders (archived on one machine, used on the other) is one memory again', async () => {
    const archived = path.join(vault, 'archive', `${name}.md`);
    writeFileSync(archived, setFrontmatterFields(readFileSync(file, 'utf8'), { tier: 'archive' }));
    await engram(vault, ['--now', '2026-11-28T08:00:00Z', 'touch', id]);
    const report = (await engram(vault, ['--json', '--now', NOW, 'consolidate'])).json();
    expect(report.steps[0]).toMatchObject({ step: 'copies', count: 1 });
    expect(existsSync(archived)).toBe(false);
    expect(fields(file)).toMatchObject({ access_count: 2, tier: 'active' });
  });
});
