import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { engram, fileOf, initVault } from '../helpers/cli';

/**
 * Issue 24: a memory whose YAML a person broke is not read, so remembering its text again
 * created a second memory; once the YAML was repaired, neither consolidate nor doctor merged
 * them and recall returned the text twice. Now remember says where the same text is, and
 * consolidate (or doctor --fix) merges the two into the older as the reinforcement would have
 * done: counts added, tags, sources and links kept, the other file moved to .engram/merged/.
 */
const TEXT = 'Deploys go through the blue-green pipeline on Fridays.';

function fields(vault: string, rel: string): Record<string, unknown> {
  return readFrontmatter(splitFrontmatter(readFileSync(path.join(vault, rel), 'utf8'))!.yaml) as Record<string, unknown>;
}

function breakYaml(vault: string, rel: string): string {
  const file = path.join(vault, rel);
  const good = readFileSync(file, 'utf8');
  writeFileSync(file, good.replace(/^tier: active$/m, 'tier: [active'));
  return good;
}

describe('the same text remembered while its memory could not be read', () => {
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => ({ vault, cleanup } = await initVault('engram-same-text-')));
  afterEach(() => cleanup());

  const run = (now: string, args: string[]) => engram(vault, ['--now', now, ...args]);
  const json = async (now: string, args: string[]) => {
    const out = await engram(vault, ['--json', '--now', now, ...args]);
    expect(out.stderr).toBe('');
    return { code: out.code, value: out.json() };
  };

  test('remember says so, consolidate merges the two once the YAML is repaired, recall returns the text once', async () => {
    const first = (await json('2026-11-02T09:00:00Z', ['remember', TEXT])).value;
    expect((await json('2026-11-03T09:00:00Z', ['remember', TEXT, '--tags', 'ops'])).value).toMatchObject({ id: first.id, action: 'reinforced' });
    const repaired = breakYaml(vault, first.path);

    const second = await json('2026-11-04T09:00:00Z', ['remember', TEXT, '--tags', 'deploy', '--source', 'pr-12']);
    expect(second.value).toEqual({ id: second.value.id, path: second.value.path, action: 'created', same_text_unreadable: first.path });
    expect(second.value.id).not.toBe(first.id);
    expect(fields(vault, second.value.path).same_text_as).toBe(first.id);
    const human = await run('2026-11-05T09:00:00Z', ['remember', TEXT]);
    expect(human.stdout).toBe(`reinforced ${second.value.id}  ${second.value.path}\n`);
    expect((await run('2026-11-05T10:00:00Z', ['doctor'])).code).toBe(1);

    writeFileSync(path.join(vault, first.path), repaired);
    const doubled = await json('2026-11-05T11:00:00Z', ['recall', 'blue-green pipeline']);
    expect(doubled.value.map((r: { id: string }) => r.id).sort()).toEqual([first.id, second.value.id].sort());

    const plan = await run('2026-11-05T22:00:00Z', ['consolidate', '--dry-run']);
    expect(plan.stdout.split('\n')[1]).toBe('✓ merged 1 memory into the one holding the same text (1 remembered again while the memory holding their text could not be read: dry run)');
    const night = await json('2026-11-05T23:00:00Z', ['consolidate', '--verbose']);
    expect(night.code).toBe(0);
    expect(night.value.skipped).toEqual([]);
    expect(night.value.steps[0]).toMatchObject({
      step: 'same-text',
      count: 1,
      note: 'remembered again while the memory holding their text could not be read: merged into it, moved to .engram/merged/',
      changes: [{ id: first.id, change: `merged ${second.value.id} (same text), moved to .engram/merged/${second.value.path}` }],
    });
    expect(existsSync(path.join(vault, second.value.path))).toBe(false);
    expect(readFileSync(path.join(vault, '.engram/merged', second.value.path), 'utf8')).toContain(`id: ${second.value.id}\n`);
    expect(fileOf(vault, first.id)).toBe(first.path);
    // four rememberings of one text: created once, reinforced three times
    expect(fields(vault, first.path)).toMatchObject({
      access_count: 3,
      remembered_again: 3,
      amplitude: 4,
      tags: ['ops', 'deploy'],
      source: 'pr-12',
      last_accessed_at: '2026-11-05T09:00:00Z',
      merged_ids: [second.value.id],
      created_at: '2026-11-02T09:00:00Z',
    });

    const once = await json('2026-11-06T09:00:00Z', ['recall', 'blue-green pipeline']);
    expect(once.value.map((r: { id: string }) => r.id)).toEqual([first.id]);
    const again = await json('2026-11-06T23:00:00Z', ['consolidate']);
    expect(again.value.steps.map((s: { step: string }) => s.step)).not.toContain('same-text');
    expect(await run('2026-11-06T23:30:00Z', ['doctor'])).toMatchObject({ code: 0, stdout: 'no problems found\n' });
    expect((await json('2026-11-07T09:00:00Z', ['remember', TEXT])).value).toMatchObject({ id: first.id, action: 'reinforced' });
  });

  test('doctor finds them and --fix merges them, pointing co-access and link ids of other memories at the keeper', async () => {
    const first = (await json('2026-11-02T09:00:00Z', ['remember', TEXT])).value;
    const other = (await json('2026-11-02T10:00:00Z', ['remember', 'Friday deploys need a second reviewer on call.'])).value;
    const repaired = breakYaml(vault, first.path);
    // import (and capture, which goes through it) records the same
    const imported = await engram(vault, ['--json', '--now', '2026-11-04T09:00:00Z', 'import', '-'], `${JSON.stringify({ text: TEXT })}\n`);
    const second = imported.json().results[0];
    expect(second.action).toBe('created');
    expect(fields(vault, second.path).same_text_as).toBe(first.id);
    expect((await run('2026-11-04T10:00:00Z', ['touch', second.id, other.id])).code).toBe(0);
    writeFileSync(path.join(vault, first.path), repaired);

    const found = await run('2026-11-04T11:00:00Z', ['doctor']);
    expect(found.code).toBe(1);
    expect(found.stdout).toBe(
      `same-text  ${first.path}: ${first.id} and ${second.id} (${second.path}) hold the same text: remembered again while ${first.id} could not be read\n` +
        `             --fix: merge them into ${first.id} (counts added, tags, sources and links kept) and move the others to .engram/merged/\n` +
        '1 problem, 1 fixable: run engram doctor --fix\n',
    );
    const fixed = await json('2026-11-04T12:00:00Z', ['doctor', '--fix']);
    expect(fixed.value.findings).toEqual([expect.objectContaining({ check: 'same-text', path: first.path, fixed: true })]);
    expect(fields(vault, first.path)).toMatchObject({ access_count: 2, remembered_again: 1, co_access: { [other.id]: 1 }, merged_ids: [second.id] });
    expect(fields(vault, other.path)).toMatchObject({ co_access: { [first.id]: 1 } });
    expect(await run('2026-11-04T13:00:00Z', ['doctor'])).toMatchObject({ code: 0, stdout: 'no problems found\n' });
  });

  test('the same text remembered apart (two clones before they synced) stays two memories', async () => {
    const first = (await json('2026-11-02T09:00:00Z', ['remember', TEXT])).value;
    const other = await initVault('engram-same-text-clone-');
    try {
      const there = (await engram(other.vault, ['--json', '--now', '2026-11-03T09:00:00Z', 'remember', TEXT])).json();
      writeFileSync(path.join(vault, 'episodic', 'from the other clone.md'), readFileSync(path.join(other.vault, there.path), 'utf8'));
      const night = await json('2026-11-05T23:00:00Z', ['consolidate']);
      expect(night.value.steps.map((s: { step: string }) => s.step)).not.toContain('same-text');
      expect(fileOf(vault, there.id)).toBe('episodic/from the other clone.md');
      expect(fileOf(vault, first.id)).toBe(first.path);
    } finally {
      other.cleanup();
    }
  });
});
