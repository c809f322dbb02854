import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, fileOf, tempDir } from '../helpers/cli';
import { FAMILIES, NOTES, at, writeYear, type YearRun } from './one-year.scenario';

/*
 * A year of a mobile team's memory (one-year.scenario.ts): what changed must be known.
 * Changed facts and plain-word reversals rank newest first whenever asked; `context` never
 * shows an outdated value, and shows a disputed decision with its other side; routine notes
 * open no conflict; context feeds nothing back; ten paraphrased reports come back as one.
 */
jest.setTimeout(120_000);

describe('one year of a team that changes its mind', () => {
  const { dir, cleanup } = tempDir('engram-one-year-');
  const vault = path.join(dir, 'vault');
  let year: YearRun;
  const key = (id: string) => Object.entries(year.ids).find(([, v]) => v === id)?.[0] ?? id;
  const created = (k: string) => NOTES.find((n) => n.key === k)!.day;

  // the plain questions, asked as the year goes (months 6, 9, 12): ranks of each family's members
  const asked: Array<{ day: number; question: string; current: string; ranked: string[]; known: string[] }> = [];
  beforeAll(async () => {
    year = await writeYear(vault, dir, async (day) => {
      for (const family of FAMILIES) {
        const known = family.members.filter((m) => created(m) < day);
        if (known.length < 2) continue;
        const ranked = (await engram(vault, ['--json', '--now', at(day, 10), 'recall', family.question])).json().map((r: { id: string }) => r.id);
        asked.push({ day, question: family.question, current: known[known.length - 1]!, ranked, known });
      }
    });
  });
  afterAll(() => cleanup());

  it('links every change both ways: supersedes in the newer body, superseded_by in the older', () => {
    const superseded = (k: string) => /\nsuperseded_by: (mem-[a-z0-9]{12})\n/.exec(readFileSync(path.join(vault, findFile(k)), 'utf8'))?.[1] ?? null;
    const findFile = (k: string) => fileOf(vault, year.ids[k]!);
    const pairs = [['gw1', 'gw2'], ['gw2', 'gw3'], ['kt1', 'kt2'], ['kt2', 'kt3'], ['oncall1', 'oncall2'], ['train1', 'train2'], ['jest', 'jest2'], ['approvals', 'approvals2'], ['sentry', 'sentry2']];
    expect(pairs.map(([old]) => [old, superseded(old!) === null ? null : key(superseded(old!)!)])).toEqual(pairs);
    // the link names the older file (what Obsidian resolves), link_ids its id (what Engram trusts), ADR 0005
    for (const [old, by] of pairs) {
      const newer = readFileSync(path.join(vault, findFile(by!)), 'utf8');
      expect([by, newer.includes(`[[${path.basename(findFile(old!), '.md')}|supersedes]]`), /\nlink_ids: (.*)\n/.exec(newer)?.[1]]).toEqual([by, true, `["supersedes ${year.ids[old!]}"]`]);
    }
    // the verified decision reversed by an observed one is a conflict for a person, not a supersession
    expect(superseded('region')).toBeNull();
  });

  it('opens exactly one conflict all year: the verified decision reversed without verification; no routine note is in one', () => {
    const notes = readdirSync(path.join(vault, 'conflicts')).map((n) => readFileSync(path.join(vault, 'conflicts', n), 'utf8'));
    expect(notes.length).toBe(1);
    expect(notes[0]).toContain(`sides: ["${year.ids.region}", "${year.ids.region2}"]`);
  });

  it('ranks the newer side of the open conflict first meanwhile, though the older is verified', async () => {
    const ranked = (await engram(vault, ['--json', '--now', at(364, 10), 'recall', 'Which region must customer data stay in?'])).json().map((r: { id: string }) => key(r.id));
    expect(ranked.slice(0, 2)).toEqual(['region2', 'region']);
  });

  it('ranks every changed fact and every reversal newest first, at months 6, 9 and 12', () => {
    const misses: string[] = [];
    for (const { day, question, current, ranked: ids, known } of asked) {
      const ranked = ids.map(key);
      const rank = ranked.indexOf(current);
      const older = known.slice(0, -1).map((m) => ranked.indexOf(m)).filter((r) => r >= 0);
      if (rank < 0 || rank > 2 || older.some((r) => r < rank)) misses.push(`day ${day}: ${question} -> ${current} at ${rank + 1}; top 3: ${ranked.slice(0, 3).join(', ')}`);
    }
    expect(misses).toEqual([]);
    expect(asked.map((a) => `${a.day} ${a.current}`)).toEqual([
      '180 gw2', '180 kt2', '180 jest2',
      '270 gw2', '270 kt2', '270 oncall2', '270 train2', '270 jest2', '270 approvals2', '270 sentry2',
      '360 gw3', '360 kt3', '360 oncall2', '360 train2', '360 jest2', '360 approvals2', '360 sentry2',
    ]);
  });

  it('shows a superseded memory as superseded, with its successor, when it appears', async () => {
    const results = (await engram(vault, ['--json', '--now', at(364, 10), 'recall', 'api-gw-1.harbor.internal gateway host', '--limit', '3'])).json();
    expect(results.map((r: { id: string; superseded_by: string | null }) => [key(r.id), r.superseded_by && key(r.superseded_by)])).toEqual([
      ['gw3', null], ['gw2', 'gw3'], ['gw1', 'gw2'],
    ]);
    const human = (await engram(vault, ['--now', at(364, 10), 'recall', 'api-gw-1.harbor.internal gateway host', '--limit', '3'])).stdout;
    expect(human).toContain(`· superseded by ${year.ids.gw2}]  ${year.ids.gw1}`);
  });

  it('context over the months: never an outdated value, never one side of the open conflict alone', () => {
    expect(year.contexts.length).toBe(12);
    const supersededBy = new Map<string, number>([
      ['gw1', 150], ['gw2', 270], ['kt1', 120], ['kt2', 300], ['oncall1', 200], ['train1', 240], ['jest', 160], ['approvals', 180], ['sentry', 210],
    ]);
    const bad: string[] = [];
    for (const context of year.contexts) {
      const included = context.included.map(key);
      for (const k of included) if ((supersededBy.get(k) ?? Infinity) < context.day) bad.push(`day ${context.day}: ${k}`);
      if (included.includes('region') !== included.includes('region2') && context.day > 250) bad.push(`day ${context.day}: one side of the region conflict`);
    }
    expect(bad).toEqual([]);
    // the year-end block (no query, day 360) marks both sides DISPUTED, the newer first
    const last = year.contexts.find((c) => c.day === 360)!;
    expect(last.task).toBe('');
    expect(last.disputed.map(([id]) => key(id)).sort()).toEqual(['region', 'region2']);
    const lines = last.block.split('\n');
    expect(lines.findIndex((l) => l.includes(year.ids.region2!))).toBeLessThan(lines.findIndex((l) => l.includes(year.ids.region!)));
    expect(lines.filter((l) => l.includes('DISPUTED')).length).toBe(2);
  });

  it('context without a query holds every verified decision that is not superseded (or lists it in omitted)', async () => {
    const known = (await engram(vault, ['--json', '--now', at(364, 10), 'context'])).json();
    const shown = new Set([...known.included, ...known.omitted].map(key));
    for (const k of ['tokens', 'flags', 'region']) expect([k, shown.has(k)]).toEqual([k, true]);
    // on a budget too small for them, they are listed in omitted
    const small = (await engram(vault, ['--json', '--now', at(364, 10), 'context', '--budget', '120'])).json();
    for (const k of ['tokens', 'flags', 'region']) expect([...small.included, ...small.omitted].map(key)).toContain(k);
  });

  it('context feeds nothing back: twelve plannings touched nothing and linked nothing', () => {
    for (const k of ['tokens', 'flags', 'region']) {
      const file = readFileSync(path.join(vault, fileOf(vault, year.ids[k]!)), 'utf8');
      expect([k, /\naccess_count: (\d+)\n/.exec(file)![1], /\nco_access: (.*)\n/.exec(file)![1]]).toEqual([k, '0', '{}']);
    }
  });

  it('ten paraphrased reports of one build failure: one pattern in the top 10, members collapsed under it, the answer first', async () => {
    const ranked = (await engram(vault, ['--json', '--now', at(364, 10), 'recall', 'Why does the iOS release build fail?'])).json();
    const top10 = ranked.slice(0, 10) as Array<{ id: string; category: string; collapsed: string[]; text: string }>;
    const patterns = top10.filter((r) => r.category === 'semantic' && r.text.startsWith('Recurring pattern'));
    expect(patterns.length).toBe(1);
    expect(top10[0]!.id).toBe(patterns[0]!.id);
    expect(top10[0]!.text).toMatch(/^Recurring pattern in 8 episodes .*ios \(8 of 8\), signing \(8 of 8\), certificate \(8 of 8\)/);
    // eight of the ten reports were consolidated into it and come back under it; the two worded
    // furthest from the rest ("no longer valid", "lapsed") stay episodes of their own
    expect(top10[0]!.collapsed.map(key).sort()).toEqual(['cert0', 'cert1', 'cert2', 'cert3', 'cert5', 'cert6', 'cert7', 'cert8']);
    expect(top10.slice(1).map((r) => key(r.id)).filter((k) => k.startsWith('cert')).sort()).toEqual(['cert4', 'cert9']);
  });
});
