// src/core/merge/same-text.ts in process (issue 24's merge of a memory remembered again while
// the one holding its text could not be read): which memories are grouped, the keeper's fields
// after a merge (each rule of the module's comment), the notes repointed, and the merge on an
// in-memory vault (file moved to .engram/merged/, the log line). test/headless/same-text.test.ts
// runs the same through the CLI.
import { parseMemory, type Memory } from '../../../src/core/memory';
import { findSameText, mergeAllSameText, repointFields, sameTextFields, MERGED_LOG } from '../../../src/core/merge/same-text';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at, memoryVault } from '../../helpers/memory-ports';

const NOW = '2026-06-01T00:00:00Z';
const K = 'mem-kkkkkkkkkkkk';
const O = 'mem-oooooooooooo';
const P = 'mem-pppppppppppp';
const X = 'mem-xxxxxxxxxxxx';
const Y = 'mem-yyyyyyyyyyyy';
const Z = 'mem-zzzzzzzzzzzz';
const J = 'mem-jjjjjjjjjjjj';

function mem(id: string, o: Partial<Memory> = {}): Memory {
  return {
    id,
    path: `episodic/${id}.md`,
    category: 'episodic',
    created_at: '2026-05-01T00:00:00Z',
    last_accessed_at: '2026-05-01T00:00:00Z',
    agent_role: null,
    confidence: 'observed',
    tags: [],
    half_life_days: 7,
    access_count: 0,
    is_error: false,
    tier: null,
    co_access: {},
    related_paths: [],
    amplitude: 1,
    activation: 0,
    activation_at: null,
    content_hash: null,
    source: null,
    session: null,
    body: 'Deploys go out on Fridays.\n',
    links: [],
    extra: {},
    ...o,
  };
}

const vault = { settings: S };

describe('findSameText', () => {
  it('groups under the named memory those holding its text (white space folded), oldest first, then by id', () => {
    const keep = mem(K);
    const late = mem(O, { created_at: '2026-05-03T00:00:00Z', extra: { same_text_as: ` ${K} ` }, body: 'Deploys  go out\non Fridays.\n\n' });
    const early = mem(P, { created_at: '2026-05-02T00:00:00Z', extra: { same_text_as: K } });
    const tie = mem(X, { created_at: '2026-05-02T00:00:00Z', extra: { same_text_as: K } });
    const other = mem(Y, { extra: { same_text_as: K }, body: 'Deploys go out on Mondays.\n' });
    const self = mem(Z, { extra: { same_text_as: Z } });
    const unknown = mem('mem-111111111111', { extra: { same_text_as: 'mem-222222222222' } });
    const notString = mem('mem-333333333333', { extra: { same_text_as: 5 } });
    const j = mem(J, { body: 'Another text.' });
    const jOther = mem('mem-444444444444', { body: 'Another text.', extra: { same_text_as: J } });
    const groups = findSameText([late, keep, tie, other, self, unknown, notString, early, jOther, j]);
    expect(groups.map((g) => [g.keep.id, g.others.map((m) => m.id)])).toEqual([
      [J, ['mem-444444444444']],
      [K, [P, X, O]],
    ]);
  });

  it('an unparseable creation time counts as the oldest; no group without a named memory', () => {
    const groups = findSameText([mem(K), mem(O, { extra: { same_text_as: K } }), mem(P, { created_at: 'never', extra: { same_text_as: K } })]);
    expect(groups[0]!.others.map((m) => m.id)).toEqual([P, O]);
    expect(findSameText([mem(K), mem(O)])).toEqual([]);
    expect(findSameText([])).toEqual([]);
  });
});

describe('sameTextFields: the keeper after the other is merged in', () => {
  it('adds the counts, keeps the later, longer, warmer, higher and more certain, unites the lists', () => {
    const keep = mem(K, {
      created_at: '2026-01-01T00:00:00Z',
      last_accessed_at: '2026-05-01T00:00:00Z',
      access_count: 3,
      amplitude: 1.25,
      activation: 0.5,
      activation_at: '2026-05-01T00:00:00Z',
      confidence: 'inferred',
      tags: ['Deploy', 'ci'],
      related_paths: ['a.ts'],
      source: 'chat-1',
      co_access: { [X]: 2, [O]: 1 },
      extra: { remembered_again: 1, merged_ids: ['mem-old000000001'], sources: ['chat-0'], link_ids: [`related ${Y}`] },
    });
    const other = mem(O, {
      created_at: '2026-02-01T00:00:00Z',
      last_accessed_at: '2026-05-20T00:00:00Z',
      access_count: 2,
      amplitude: 0.50004,
      half_life_days: 14,
      tier: 'core',
      activation: 2,
      activation_at: '2026-05-20T00:00:00Z',
      confidence: 'verified',
      tags: ['deploy', 'Friday'],
      related_paths: ['a.ts', 'b.ts'],
      source: 'chat-2',
      is_error: true,
      agent_role: 'reviewer',
      session: 's-9',
      co_access: { [K]: 4, [O]: 1, [X]: 1, [Y]: 3 },
      extra: {
        remembered_again: 2,
        merged_ids: ['mem-old000000001', 'mem-old000000002'],
        sources: ['chat-3', 'chat-1'],
        superseded_by: Z,
        decays_from: ' ',
        link_ids: [`supersedes ${K}`, `related ${Y}`, `contradicts ${Z}`, `related ${O}`, 'not a link'],
      },
    });
    expect(sameTextFields(keep, other, at(NOW), vault)).toEqual({
      access_count: 6,
      remembered_again: 4,
      amplitude: 1.75,
      merged_ids: ['mem-old000000001', O, 'mem-old000000002'],
      last_accessed_at: '2026-05-20T00:00:00Z',
      half_life_days: 14,
      tier: 'core',
      // the other's 2 at 12 days, activation half-life 30 days
      activation: 1.5157,
      activation_at: NOW,
      confidence: 'verified',
      tags: ['Deploy', 'ci', 'Friday'],
      related_paths: ['a.ts', 'b.ts'],
      sources: ['chat-0', 'chat-2', 'chat-3'],
      is_error: true,
      agent_role: 'reviewer',
      session: 's-9',
      superseded_by: Z,
      co_access: { [X]: 3, [O]: 1, [Y]: 3 },
      link_ids: [`related ${Y}`, `contradicts ${Z}`],
    });
  });

  it('writes only the counts when the keeper already holds the rest', () => {
    const keep = mem(K, {
      last_accessed_at: '2026-05-31T00:00:00Z',
      tier: 'active',
      half_life_days: 14,
      activation: 1,
      activation_at: NOW,
      confidence: 'verified',
      tags: ['deploy'],
      related_paths: ['a.ts'],
      source: 'chat-1',
      is_error: true,
      agent_role: 'writer',
      session: 's-1',
      extra: { superseded_by: Y, remembered_again: 'x', link_ids: [`related ${Y}`] },
    });
    const other = mem(O, {
      last_accessed_at: '2026-04-01T00:00:00Z',
      half_life_days: 14,
      activation: 0.2,
      activation_at: '2026-04-01T00:00:00Z',
      confidence: 'stale',
      tags: ['DEPLOY'],
      related_paths: ['a.ts'],
      source: 'chat-1',
      is_error: true,
      agent_role: 'reviewer',
      session: 's-2',
      co_access: { [K]: 2, [O]: 1 },
      extra: { superseded_by: Z, decays_from: '', remembered_again: -3, link_ids: [`related ${K}`, `related ${Y}`] },
    });
    expect(sameTextFields(keep, other, at(NOW), vault)).toEqual({ access_count: 1, remembered_again: 1, amplitude: 2, merged_ids: [O] });
  });

  it('the keeper without a source takes the other\'s; without sources the list starts empty; an other without a source adds none', () => {
    expect(sameTextFields(mem(K), mem(O, { source: 'chat-2' }), at(NOW), vault)).toMatchObject({ source: 'chat-2' });
    expect(sameTextFields(mem(K), mem(O, { source: 'chat-2' }), at(NOW), vault)).not.toHaveProperty('sources');
    expect(sameTextFields(mem(K, { source: 'chat-1' }), mem(O, { source: 'chat-2' }), at(NOW), vault)).toMatchObject({ sources: ['chat-2'] });
    const none = sameTextFields(mem(K, { source: 'chat-1' }), mem(O, { extra: { sources: ['chat-3'] } }), at(NOW), vault)!;
    expect(none).not.toHaveProperty('sources');
    expect(none).not.toHaveProperty('source');
    // the other's only source is the keeper's own: nothing to add
    expect(sameTextFields(mem(K, { source: 'chat-1' }), mem(O, { source: 'chat-3', extra: { sources: ['chat-1'] } }), at(NOW), vault)).toMatchObject({ sources: ['chat-3'] });
  });

  it('superseded_by and decays_from pass to a keeper that has none (null or empty counts as none)', () => {
    for (const had of [undefined, null, '']) {
      const keep = mem(K, { extra: had === undefined ? {} : { superseded_by: had, decays_from: had } });
      expect(sameTextFields(keep, mem(O, { extra: { superseded_by: Y, decays_from: Z } }), at(NOW), vault)).toMatchObject({ superseded_by: Y, decays_from: Z });
    }
    expect(sameTextFields(mem(K), mem(O, { extra: { superseded_by: 7 } }), at(NOW), vault)).not.toHaveProperty('superseded_by');
  });

  it('the later access by time, not by spelling; an unreadable time loses', () => {
    const keep = mem(K, { last_accessed_at: '2026-05-10T00:00:00Z' });
    expect(sameTextFields(keep, mem(O, { last_accessed_at: '2026-05-10T02:00:00+02:00' }), at(NOW), vault)).not.toHaveProperty('last_accessed_at');
    expect(sameTextFields(keep, mem(O, { last_accessed_at: '2026-05-10T01:00:00+00:30' }), at(NOW), vault)).toMatchObject({ last_accessed_at: '2026-05-10T01:00:00+00:30' });
    expect(sameTextFields(keep, mem(O, { last_accessed_at: 'soon' }), at(NOW), vault)).not.toHaveProperty('last_accessed_at');
  });

  it('nothing when the keeper records the other as merged already (a run cut short)', () => {
    expect(sameTextFields(mem(K, { extra: { merged_ids: [P, O] } }), mem(O), at(NOW), vault)).toBeNull();
  });

  it('the keeper\'s warmer tier stays; the other\'s colder is not taken', () => {
    const fields = sameTextFields(mem(K, { tier: 'active', last_accessed_at: NOW }), mem(O, { tier: 'cold', last_accessed_at: '2026-01-01T00:00:00Z' }), at(NOW), vault)!;
    expect(fields).not.toHaveProperty('tier');
    expect(sameTextFields(mem(K, { tier: 'cold', last_accessed_at: '2026-01-01T00:00:00Z' }), mem(O, { tier: 'active', last_accessed_at: NOW }), at(NOW), vault)).toMatchObject({ tier: 'active' });
  });
});

describe('repointFields: a note naming a merged memory names the keeper', () => {
  it('co-access counts move to the keeper (added), a count for the note itself is dropped', () => {
    const note = mem(X, { co_access: { [O]: 2, [Y]: 1, [K]: 3 } });
    const fields = repointFields(note, new Set([O]), K)!;
    expect(fields).toEqual({ co_access: { [K]: 5, [Y]: 1 } });
    expect(Object.keys(fields.co_access as object)).toEqual([K, Y]);
    expect(repointFields(mem(K, { co_access: { [O]: 2, [Y]: 1 } }), new Set([O]), K)).toEqual({ co_access: { [Y]: 1 } });
  });

  it('link ids naming a merged memory name the keeper, once; others kept as written', () => {
    const note = mem(X, { extra: { link_ids: [`related ${O}`, ` supersedes ${Y} `, `related ${K}`, `contradicts ${P}`, 'junk'] } });
    expect(repointFields(note, new Set([O, P]), K)).toEqual({ link_ids: [`related ${K}`, ` supersedes ${Y} `, `contradicts ${K}`, 'junk'] });
  });

  it('nothing to change: null (a note naming no merged memory, link ids not a list)', () => {
    expect(repointFields(mem(X, { co_access: { [Y]: 1 }, extra: { link_ids: [`related ${Y}`] } }), new Set([O]), K)).toBeNull();
    expect(repointFields(mem(X, { extra: { link_ids: `related ${O}` } }), new Set([O]), K)).toBeNull();
  });
});

describe('mergeAllSameText on a vault', () => {
  const note = (id: string, lines: string[], body = 'Deploys go out on Fridays.\n') =>
    `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-05-01T00:00:00Z"\nlast_accessed_at: "2026-05-01T00:00:00Z"\n${lines.map((l) => `${l}\n`).join('')}---\n${body}`;

  function setup() {
    const { vault, files } = memoryVault(NOW);
    const put = (path: string, text: string) => files.files.set(path, text);
    return { vault, files, put };
  }

  it('writes the keeper, moves the other to .engram/merged/, repoints the notes naming it, logs the merge', async () => {
    const { vault, files } = memoryVault(NOW);
    const texts: Record<string, string> = {
      [`episodic/${K}.md`]: note(K, ['access_count: 1']),
      [`episodic/${O}.md`]: note(O, [`same_text_as: ${K}`, 'access_count: 2']),
      [`episodic/${X}.md`]: note(X, ['co_access:', `  ${O}: 2`, 'link_ids:', `  - related ${O}`], 'A note naming the other.\n'),
      [`episodic/${Y}.md`]: note(Y, [], 'Unrelated.\n'),
    };
    for (const [path, text] of Object.entries(texts)) files.files.set(path, text);
    files.files.set(`.engram/merged/episodic/${O}.md`, 'a file in the way');
    files.files.set(MERGED_LOG, '{"earlier":true}');
    const memories = Object.entries(texts).map(([path, text]) => parseMemory(path, text, S));
    const out = await mergeAllSameText(vault, memories);
    const to = `.engram/merged/episodic/${O} (2).md`;
    expect(out).toEqual([{ kept: K, path: `episodic/${K}.md`, merged: [{ id: O, from: `episodic/${O}.md`, to }], repointed: [`episodic/${X}.md`] }]);
    const read = (path: string) => {
      const bytes = files.binary.get(path);
      return bytes ? new TextDecoder().decode(bytes) : (files.files.get(path) ?? null);
    };
    expect(read(`episodic/${O}.md`)).toBeNull();
    expect(read(to)).toBe(texts[`episodic/${O}.md`]);
    expect(read(`.engram/merged/episodic/${O}.md`)).toBe('a file in the way');
    const kept = parseMemory(`episodic/${K}.md`, read(`episodic/${K}.md`)!, S);
    expect([kept.access_count, kept.extra.remembered_again, kept.extra.merged_ids]).toEqual([4, 1, [O]]);
    const named = parseMemory(`episodic/${X}.md`, read(`episodic/${X}.md`)!, S);
    expect([named.co_access, named.extra.link_ids]).toEqual([{ [K]: 2 }, [`related ${K}`]]);
    expect(read(`episodic/${Y}.md`)).toBe(texts[`episodic/${Y}.md`]);
    expect(read(MERGED_LOG)).toBe(`{"earlier":true}\n${JSON.stringify({ at: NOW, kept: K, path: `episodic/${K}.md`, merged: [{ id: O, from: `episodic/${O}.md`, to }], repointed: [`episodic/${X}.md`] })}\n`);
    // run again: nothing left to merge
    expect(await mergeAllSameText(vault, [kept, named])).toEqual([]);
  });

  it('an other whose file is gone is not moved, and nothing is logged or repointed', async () => {
    const { vault, files, put } = setup();
    put(`episodic/${K}.md`, note(K, []));
    const other = parseMemory(`episodic/${O}.md`, note(O, [`same_text_as: ${K}`]), S);
    const naming = parseMemory(`episodic/${X}.md`, note(X, ['co_access:', `  ${O}: 2`], 'Other.\n'), S);
    put(`episodic/${X}.md`, note(X, ['co_access:', `  ${O}: 2`], 'Other.\n'));
    const keep = parseMemory(`episodic/${K}.md`, note(K, []), S);
    const out = await mergeAllSameText(vault, [keep, other, naming]);
    expect(out).toEqual([{ kept: K, path: `episodic/${K}.md`, merged: [], repointed: [] }]);
    expect(files.files.has(MERGED_LOG)).toBe(false);
    // the keeper counted it (merged_ids), so the next run does not count it twice
    const kept = parseMemory(`episodic/${K}.md`, files.files.get(`episodic/${K}.md`)!, S);
    expect(kept.extra.merged_ids).toEqual([O]);
  });
});
