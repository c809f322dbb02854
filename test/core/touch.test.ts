import { NotFoundError, WriteConflictError } from '../../src/core/errors';
import { COUNTED_BY, machineId, usesKey } from '../../src/core/machine';
import { parseMemory } from '../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';
import { compareIds, incrementCoAccess, isArchived, linkCoAccess, recallCount, rememberedAgain, reviveFromArchive, touchFields, useMemories } from '../../src/core/touch';
import { at, memoryNote, memoryVault } from '../helpers/memory-ports';

/*
 * Use reinforces memory (SPEC §4-5), on an in-memory vault at a fixed clock: what a touch and a
 * citation write, what spreads to linked memories, the Hebbian co-access links, and an archived
 * memory brought back by a touch. Boosts (settings): read 0.25, cited 1.5; spreading halves per
 * hop and splits by fan; activation halves in 30 days; the validation threshold is 8.
 */

const NOW = '2026-06-01T00:00:00Z';
const A = 'mem-aaaaaaaaaaaa';
const B = 'mem-bbbbbbbbbbbb';
const C = 'mem-cccccccccccc';
const GONE = 'mem-000000000000';

type Fields = Record<string, string | number | boolean>;
const base = (id: string, accessed: string): Fields => ({ id, category: 'episodic', created_at: accessed, last_accessed_at: accessed });

function setup() {
  const { vault, files } = memoryVault(NOW);
  const put = (path: string, fields: Fields, body?: string) => files.files.set(path, memoryNote(fields, body));
  /** The frontmatter fields of a file, as written. */
  const fields = (path: string) => parseMemory(path, files.files.get(path)!, S);
  return { vault, files, put, fields };
}

describe('touchFields: what a touch writes besides activation', () => {
  const memory = (extra: Fields) => parseMemory(`episodic/${A}.md`, memoryNote({ ...base(A, '2026-04-12T00:00:00Z'), access_count: 3, ...extra }), S);

  it('one tier up from the tier the strength implies, the access counted, the time of access, this device\'s own use count', () => {
    // 50 days since the last access, half-life 7 + 3 × 2 = 13 days: 26.9 days of a fresh episode, cold; one up is warm
    const m = memory({ uses_m_other: 9, 'uses_m-0123456789ab': 2 });
    expect(touchFields(m, at(NOW), S, 'm-0123456789ab')).toEqual({ tier: 'warm', access_count: 4, last_accessed_at: NOW, 'uses_m-0123456789ab': 3 });
    // another device starts at its own 1, whatever this one counted
    expect(touchFields(m, at(NOW), S, 'm-ffffffffffff')).toEqual({ tier: 'warm', access_count: 4, last_accessed_at: NOW, 'uses_m-ffffffffffff': 1 });
  });

  it('a use count that is not a whole number >= 0 counts as none', () => {
    for (const bad of [2.5, -1, '"2"', true]) {
      expect([bad, touchFields(memory({ 'uses_m-0123456789ab': bad }), at(NOW), S, 'm-0123456789ab')['uses_m-0123456789ab']]).toEqual([bad, 1]);
    }
    expect(touchFields(memory({ 'uses_m-0123456789ab': 0 }), at(NOW), S, 'm-0123456789ab')['uses_m-0123456789ab']).toBe(1);
  });

  it('the time of access only moves forward: a later stored time (a fast clock elsewhere) is kept as written', () => {
    const ahead = memory({ last_accessed_at: '2026-06-03T08:00:00Z' });
    expect(touchFields(ahead, at(NOW), S, 'm-0123456789ab').last_accessed_at).toBe('2026-06-03T08:00:00Z');
    // the same instant: now, formatted (not the stored spelling)
    expect(touchFields(memory({ last_accessed_at: NOW }), at(NOW), S, 'm-0123456789ab').last_accessed_at).toBe(NOW);
    expect(touchFields(memory({ last_accessed_at: '2026-06-01T02:00:00+02:00' }), at(NOW), S, 'm-0123456789ab').last_accessed_at).toBe(NOW);
  });

  it('a core memory stays core', () => {
    expect(touchFields(memory({ tier: 'core' }), at(NOW), S, 'm-0123456789ab').tier).toBe('core');
  });
});

describe('recallCount and rememberedAgain', () => {
  const m = (access_count: number, remembered_again?: unknown) => ({ access_count, extra: remembered_again === undefined ? {} : { remembered_again } as Record<string, unknown> }) as Parameters<typeof recallCount>[0];

  it('recalls are the accesses less the times the same text was remembered again, never below 0', () => {
    expect(recallCount(m(5, 2))).toBe(3);
    expect(recallCount(m(5))).toBe(5);
    expect(recallCount(m(2, 2))).toBe(0);
    expect(recallCount(m(1, 3))).toBe(0);
  });

  it('remembered_again that is not a whole number >= 0 counts as 0', () => {
    expect(rememberedAgain(m(0, 4))).toBe(4);
    expect(rememberedAgain(m(0, 0))).toBe(0);
    for (const bad of [1.5, -2, '3', null, true]) expect([bad, rememberedAgain(m(0, bad))]).toEqual([bad, 0]);
  });
});

describe('incrementCoAccess and isArchived', () => {
  it('adds 1 for each partner, keeping the existing entries and their order, without changing the given mapping', () => {
    const current = { [C]: 4, [A]: 1 };
    const next = incrementCoAccess(current, [A, B]);
    expect(next).toEqual({ [C]: 4, [A]: 2, [B]: 1 });
    expect(Object.keys(next)).toEqual([C, A, B]);
    expect(current).toEqual({ [C]: 4, [A]: 1 });
  });

  it('a path is archived when it is under archive/', () => {
    expect([isArchived(`archive/${A}.md`), isArchived(`archive/sub/${A}.md`), isArchived(`episodic/${A}.md`), isArchived('archived/x.md'), isArchived('archive')]).toEqual([true, true, false, false, false]);
  });
});

describe('useMemories', () => {
  it('touch: activation decayed then boosted, one tier up, counted on this device, co-access both ways, the boost spread along the links', async () => {
    const s = setup();
    // A: activation 2 given 30 days ago (worth 1 now), used with B twice before; B never used
    s.put(`episodic/${A}.md`, { ...base(A, '2026-05-22T00:00:00Z'), access_count: 3, activation: 2, activation_at: '2026-05-02T00:00:00Z', co_access: `{"${B}": 2}` });
    s.put(`episodic/${B}.md`, { ...base(B, '2026-05-31T00:00:00Z') });
    const machine = await machineId(s.vault);
    const results = await useMemories(s.vault, [A, B, A], { use: 'read', touch: true, coAccess: true });
    // A first: 1 + 0.25; its co-access with B written, then a half of 0.25 spreads to B (its one edge)
    // B: 0.125 from A, + 0.25; its new edge to A spreads 0.125 back
    expect(results).toEqual([
      { id: A, path: `episodic/${A}.md`, tier_before: 'active', tier: 'active', access_count: 4, activation: 1.25, due_for_validation: false, spread: { [B]: 0.125 } },
      { id: B, path: `episodic/${B}.md`, tier_before: 'active', tier: 'active', access_count: 1, activation: 0.375, due_for_validation: false, spread: { [A]: 0.125 } },
    ]);
    expect(s.fields(`episodic/${A}.md`)).toMatchObject({ access_count: 4, activation: 1.375, activation_at: NOW, last_accessed_at: NOW, co_access: { [B]: 3 }, tier: 'active', extra: { [usesKey(machine)]: 1, [COUNTED_BY]: machine } });
    expect(s.fields(`episodic/${B}.md`)).toMatchObject({ access_count: 1, activation: 0.375, activation_at: NOW, last_accessed_at: NOW, co_access: { [A]: 1 }, tier: 'active', extra: { [usesKey(machine)]: 1, [COUNTED_BY]: machine } });
  });

  it('cite: the citation boost only, no tier, count or time of access; no co-access without coAccess', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, '2026-05-02T00:00:00Z'), access_count: 3, activation: 1, activation_at: NOW });
    s.put(`episodic/${B}.md`, { ...base(B, '2026-05-02T00:00:00Z') });
    const machine = await machineId(s.vault);
    const results = await useMemories(s.vault, [A, B], { use: 'cited', touch: false, coAccess: false });
    expect(results.map((r) => [r.id, r.tier_before, r.tier, r.access_count, r.activation, r.spread])).toEqual([
      // 30 days at half-life 13 is 16.2 days of a fresh episode (warm); B's 30 days, cold
      [A, 'warm', 'warm', 3, 2.5, {}],
      [B, 'cold', 'cold', 0, 1.5, {}],
    ]);
    const a = s.fields(`episodic/${A}.md`);
    expect([a.access_count, a.last_accessed_at, a.tier, a.co_access, a.activation, a.extra[usesKey(machine)], a.extra[COUNTED_BY]]).toEqual([3, '2026-05-02T00:00:00Z', null, {}, 2.5, undefined, machine]);
    expect(s.files.files.get(`episodic/${B}.md`)).not.toContain('co_access');
  });

  it('the returned boost (a recall result used) is 1', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, base(A, NOW));
    expect((await useMemories(s.vault, [A], { use: 'returned', touch: false, coAccess: false }))[0]!.activation).toBe(1);
  });

  it('due for validation when this use carries activation from below the threshold (8) to it or above, not when it was there already', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), activation: 6.5, activation_at: NOW });
    s.put(`episodic/${B}.md`, { ...base(B, NOW), activation: 8, activation_at: NOW });
    s.put(`episodic/${C}.md`, { ...base(C, NOW), activation: 6.4999, activation_at: NOW });
    const cite = async (id: string) => (await useMemories(s.vault, [id], { use: 'cited', touch: false, coAccess: false }))[0]!;
    expect([(await cite(A)).activation, (await cite(B)).activation, (await cite(C)).activation]).toEqual([8, 9.5, 7.9999]);
    // A again: 8 before, 9.5 after
    expect((await cite(A)).due_for_validation).toBe(false);
    const fresh = setup();
    fresh.put(`episodic/${A}.md`, { ...base(A, NOW), activation: 6.5, activation_at: NOW });
    fresh.put(`episodic/${B}.md`, { ...base(B, NOW), activation: 8, activation_at: NOW });
    fresh.put(`episodic/${C}.md`, { ...base(C, NOW), activation: 6.4999, activation_at: NOW });
    const due = async (id: string) => (await useMemories(fresh.vault, [id], { use: 'cited', touch: false, coAccess: false }))[0]!.due_for_validation;
    expect([await due(A), await due(B), await due(C)]).toEqual([true, false, false]);
  });

  it('activation given at a later time than now (a fast clock elsewhere) is not decayed, and its time is kept', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), activation: 1, activation_at: '2026-06-02T00:00:00Z' });
    await useMemories(s.vault, [A], { use: 'cited', touch: false, coAccess: false });
    expect([s.fields(`episodic/${A}.md`).activation, s.fields(`episodic/${A}.md`).activation_at]).toEqual([2.5, '2026-06-02T00:00:00Z']);
  });

  it('coAccessWith links each memory to the others named too (itself never), with or without the memories used together', async () => {
    const s = setup();
    for (const id of [A, B, C]) s.put(`episodic/${id}.md`, base(id, NOW));
    await useMemories(s.vault, [A], { use: 'read', touch: true, coAccess: false, coAccessWith: [B, A, B], spread: 'defer' });
    expect([s.fields(`episodic/${A}.md`).co_access, s.fields(`episodic/${B}.md`).co_access]).toEqual([{ [B]: 1 }, {}]);
    await useMemories(s.vault, [A, B], { use: 'read', touch: true, coAccess: true, coAccessWith: [C], spread: 'defer' });
    expect([s.fields(`episodic/${A}.md`).co_access, s.fields(`episodic/${B}.md`).co_access, s.fields(`episodic/${C}.md`).co_access]).toEqual([{ [B]: 2, [C]: 1 }, { [A]: 1, [C]: 1 }, {}]);
  });

  it("spread 'defer' computes the shares without writing them; 'write' (the default) writes them, in id order", async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), co_access: `{"${C}": 1, "${B}": 1}` });
    s.put(`episodic/${B}.md`, { ...base(B, NOW), activation: 1, activation_at: NOW });
    s.put(`episodic/${C}.md`, base(C, NOW));
    const bBefore = s.files.files.get(`episodic/${B}.md`);
    // cited 1.5: a half split between two edges, 0.375 each
    const [deferred] = await useMemories(s.vault, [A], { use: 'cited', touch: false, coAccess: false, spread: 'defer' });
    expect(deferred!.spread).toEqual({ [B]: 0.375, [C]: 0.375 });
    expect(Object.keys(deferred!.spread)).toEqual([B, C]);
    expect(s.files.files.get(`episodic/${B}.md`)).toBe(bBefore);
    const machine = await machineId(s.vault);
    const [written] = await useMemories(s.vault, [A], { use: 'cited', touch: false, coAccess: false });
    expect(Object.keys(written!.spread)).toEqual([B, C]);
    expect([s.fields(`episodic/${B}.md`).activation, s.fields(`episodic/${C}.md`).activation, s.fields(`episodic/${B}.md`).activation_at, s.fields(`episodic/${B}.md`).extra[COUNTED_BY]]).toEqual([1.375, 0.375, NOW, machine]);
  });

  it('spreads a second hop, halved again and split by fan, never back to the source nor to a memory that does not exist', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), co_access: `{"${B}": 1, "${GONE}": 1}` });
    s.put(`episodic/${B}.md`, { ...base(B, NOW), co_access: `{"${A}": 1, "${C}": 1}` });
    s.put(`episodic/${C}.md`, base(C, NOW));
    // cited 1.5 from A: B gets 0.75 (GONE is no edge), then from B to C 0.375 (A, the source, is no edge)
    const [result] = await useMemories(s.vault, [A], { use: 'cited', touch: false, coAccess: false });
    expect(result!.spread).toEqual({ [B]: 0.75, [C]: 0.375 });
    expect([s.fields(`episodic/${B}.md`).activation, s.fields(`episodic/${C}.md`).activation]).toEqual([0.75, 0.375]);
    expect(s.files.files.has(`episodic/${GONE}.md`)).toBe(false);
  });

  it('writes each memory the spread reached from the text it read it from, unless that file changed since', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), co_access: `{"${B}": 1}` });
    s.put(`episodic/${B}.md`, { ...base(B, NOW), co_access: `{"${A}": 1, "${C}": 1}` });
    s.put(`episodic/${C}.md`, base(C, NOW));
    await s.vault.locate(A); // the id index made, reading every file once
    const reads: string[] = [];
    const read = s.files.read.bind(s.files);
    s.files.read = async (path: string) => (reads.push(path), read(path));
    const [result] = await useMemories(s.vault, [A], { use: 'cited', touch: false, coAccess: false });
    expect(result!.spread).toEqual({ [B]: 0.75, [C]: 0.375 });
    // B and C read once each, to follow the links; written from those texts, not read again
    expect(reads.filter((p) => p.startsWith('episodic/') && p !== `episodic/${A}.md`)).toEqual([`episodic/${B}.md`, `episodic/${C}.md`]);
    expect([s.fields(`episodic/${B}.md`).activation, s.fields(`episodic/${C}.md`).activation]).toEqual([0.75, 0.375]);
    // a person's edit of C between the spread's read and its write: C is written from a fresh read, the edit kept
    s.files.read = async (path: string) => {
      const bytes = await read(path);
      if (path === `episodic/${C}.md`) s.files.files.set(path, s.files.files.get(path)!.replace('Some text.', 'Some text, edited.'));
      return bytes;
    };
    await useMemories(s.vault, [A], { use: 'cited', touch: false, coAccess: false });
    expect([s.fields(`episodic/${C}.md`).activation, s.fields(`episodic/${C}.md`).body]).toEqual([0.75, 'Some text, edited.\n']);
  });

  it('a linked file that cannot be read receives nothing, and the use goes on', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), co_access: `{"${B}": 1, "${C}": 1}` });
    s.put(`episodic/${B}.md`, base(B, NOW));
    s.files.files.set(`episodic/${C}.md`, `---\nid: ${C}\ncategory: episodic\ncreated_at: nonsense\n---\nBroken.\n`);
    const [result] = await useMemories(s.vault, [A], { use: 'cited', touch: false, coAccess: false });
    expect(result!.spread).toEqual({ [B]: 0.75 });
  });

  it('alsoWrite adds fields to the same write, from the memory as it was read', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), access_count: 2 });
    await useMemories(s.vault, [A], { use: 'read', touch: true, coAccess: false, alsoWrite: (m) => ({ remembered_again: m.access_count }) });
    expect([s.fields(`episodic/${A}.md`).access_count, s.fields(`episodic/${A}.md`).extra.remembered_again]).toEqual([3, 2]);
  });

  it('a touch brings an archived memory back to its folder; a citation leaves it in archive/', async () => {
    const s = setup();
    s.put(`archive/${A}.md`, { ...base(A, '2026-01-22T00:00:00Z'), tier: 'archive' });
    s.put(`archive/${B}.md`, { ...base(B, '2026-01-22T00:00:00Z'), tier: 'archive' });
    const [cited] = await useMemories(s.vault, [B], { use: 'cited', touch: false, coAccess: false });
    expect([cited!.path, cited!.tier_before, cited!.tier, 'revived_from' in cited!]).toEqual([`archive/${B}.md`, 'archive', 'archive', false]);
    const [touched] = await useMemories(s.vault, [A], { use: 'read', touch: true, coAccess: false });
    expect(touched).toEqual({ id: A, path: `episodic/${A}.md`, tier_before: 'archive', tier: 'cold', access_count: 1, activation: 0.25, due_for_validation: false, spread: {}, revived_from: `archive/${A}.md` });
    expect([s.files.files.has(`archive/${A}.md`), s.fields(`episodic/${A}.md`).tier]).toEqual([false, 'cold']);
    // touched again where it is now: no revived_from
    const [again] = await useMemories(s.vault, [A], { use: 'read', touch: true, coAccess: false });
    expect([again!.path, 'revived_from' in again!]).toEqual([`episodic/${A}.md`, false]);
  });

  it('an unknown id is refused (NotFoundError)', async () => {
    const s = setup();
    await expect(useMemories(s.vault, [GONE], { use: 'read', touch: true, coAccess: false })).rejects.toThrow(new NotFoundError(`no memory with id ${GONE}`));
  });
});

describe('reviveFromArchive', () => {
  it('moves the file back to its category folder with its name and sub-folder', async () => {
    const s = setup();
    s.put(`archive/jobs/Chose pg-boss.md`, { ...base(A, NOW), category: 'decision' }, 'Chose pg-boss.\n');
    const text = s.files.files.get('archive/jobs/Chose pg-boss.md');
    expect(await reviveFromArchive(s.vault, A)).toBe('decisions/jobs/Chose pg-boss.md');
    expect([s.files.files.get('decisions/jobs/Chose pg-boss.md'), s.files.files.has('archive/jobs/Chose pg-boss.md')]).toEqual([text, false]);
  });

  it('a name taken there by another note gets a number', async () => {
    const s = setup();
    s.put(`archive/Note.md`, base(A, NOW), 'Archived.\n');
    s.put(`episodic/Note.md`, base(B, NOW), 'Another.\n');
    s.put(`episodic/Note 2.md`, base(C, NOW), 'A third.\n');
    expect(await reviveFromArchive(s.vault, A)).toBe('episodic/Note 3.md');
    expect([s.files.files.has('archive/Note.md'), s.fields('episodic/Note 3.md').id, s.fields('episodic/Note.md').id]).toEqual([false, A, B]);
  });

  it('a move cut short (the same bytes on both sides) is completed, whichever side locate finds', async () => {
    const s = setup();
    s.put(`archive/Note.md`, base(A, NOW), 'Archived.\n');
    s.files.files.set('episodic/Note.md', s.files.files.get('archive/Note.md')!);
    expect(await reviveFromArchive(s.vault, A)).toBe('episodic/Note.md');
    expect([...s.files.files.keys()].filter((p) => p.endsWith('.md'))).toEqual(['episodic/Note.md']);
  });

  it('a move cut short, found on the archive side (the id index still points there): completed too', async () => {
    const s = setup();
    s.put(`archive/Note.md`, base(A, NOW), 'Archived.\n');
    expect(await s.vault.locate(A)).toBe('archive/Note.md');
    s.files.files.set('episodic/Note.md', s.files.files.get('archive/Note.md')!);
    expect(await s.vault.locate(A)).toBe('archive/Note.md');
    expect(await reviveFromArchive(s.vault, A)).toBe('episodic/Note.md');
    expect([...s.files.files.keys()].filter((p) => p.endsWith('.md'))).toEqual(['episodic/Note.md']);
  });

  it('reads the archived file stable (waiting out a save in progress) before moving it', async () => {
    const s = setup();
    s.put(`archive/Note.md`, base(A, NOW), 'Archived.\n');
    const reads: unknown[] = [];
    const read = s.files.read.bind(s.files);
    s.files.read = async (path: string, options?: { stable?: boolean }) => {
      if (path === 'archive/Note.md') reads.push(options ?? null);
      return read(path);
    };
    expect(await reviveFromArchive(s.vault, A)).toBe('episodic/Note.md');
    expect(reads).toContainEqual({ stable: true });
  });

  it('a memory already out of archive/ stays; an archive copy is removed only when it holds the same bytes', async () => {
    const s = setup();
    s.put(`episodic/Note.md`, base(A, NOW), 'Kept.\n');
    expect(await reviveFromArchive(s.vault, A)).toBe('episodic/Note.md');
    s.files.files.set('archive/Note.md', `${s.files.files.get('episodic/Note.md')!}Changed since.\n`);
    expect(await reviveFromArchive(s.vault, A)).toBe('episodic/Note.md');
    expect(s.files.files.has('archive/Note.md')).toBe(true);
  });

  it('a move that loses a race (the target appeared meanwhile) leaves the file where it is', async () => {
    const s = setup();
    s.put(`archive/Note.md`, base(A, NOW), 'Archived.\n');
    const move = s.files.move.bind(s.files);
    s.files.move = async (from, to) => {
      s.files.files.set(to, 'someone else\n');
      return move(from, to);
    };
    expect(await reviveFromArchive(s.vault, A)).toBe('archive/Note.md');
    expect(s.files.files.has('archive/Note.md')).toBe(true);
    s.files.move = async () => {
      throw new Error('disk on fire');
    };
    s.files.files.delete('episodic/Note.md');
    await expect(reviveFromArchive(s.vault, A)).rejects.toThrow('disk on fire');
  });

  it('an unknown id, or a file that is not there when read: NotFoundError', async () => {
    const s = setup();
    await expect(reviveFromArchive(s.vault, GONE)).rejects.toThrow(new NotFoundError(`no memory with id ${GONE}`));
    s.put(`archive/Note.md`, base(A, NOW), 'Archived.\n');
    await s.vault.locate(A);
    const read = s.vault.read.bind(s.vault);
    s.vault.read = async (path, options) => (path === 'archive/Note.md' ? null : read(path, options));
    await expect(reviveFromArchive(s.vault, A)).rejects.toThrow(new NotFoundError(`no memory with id ${A}`));
  });
});

describe('linkCoAccess', () => {
  it('co_access += 1 on both sides, each partner once, never itself; nothing else changes', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, { ...base(A, NOW), access_count: 2 });
    s.put(`episodic/${B}.md`, base(B, NOW));
    s.put(`episodic/${C}.md`, { ...base(C, NOW), co_access: `{"${A}": 3}` });
    const machine = await machineId(s.vault);
    expect(await linkCoAccess(s.vault, A, [B, C, A, B])).toEqual([B, C]);
    expect([s.fields(`episodic/${A}.md`).co_access, s.fields(`episodic/${B}.md`).co_access, s.fields(`episodic/${C}.md`).co_access]).toEqual([{ [B]: 1, [C]: 1 }, { [A]: 1 }, { [A]: 4 }]);
    expect([s.fields(`episodic/${A}.md`).access_count, s.fields(`episodic/${A}.md`).activation, s.fields(`episodic/${A}.md`).extra[COUNTED_BY]]).toEqual([2, 0, machine]);
  });

  it('skips partners that no longer exist; with none left, the memory is not written', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, base(A, NOW));
    s.put(`episodic/${B}.md`, base(B, NOW));
    expect(await linkCoAccess(s.vault, A, [GONE, B])).toEqual([B]);
    expect(s.fields(`episodic/${A}.md`).co_access).toEqual({ [B]: 1 });
    const before = s.files.files.get(`episodic/${A}.md`);
    expect(await linkCoAccess(s.vault, A, [GONE, A])).toEqual([]);
    expect(s.files.files.get(`episodic/${A}.md`)).toBe(before);
    // a memory never written by this device: still untouched (no counted_by either)
    s.put(`episodic/${C}.md`, base(C, NOW));
    const fresh = s.files.files.get(`episodic/${C}.md`);
    expect(await linkCoAccess(s.vault, C, [GONE])).toEqual([]);
    expect(s.files.files.get(`episodic/${C}.md`)).toBe(fresh);
  });

  it('an error other than a missing partner is not swallowed', async () => {
    const s = setup();
    s.put(`episodic/${A}.md`, base(A, NOW));
    s.put(`episodic/${B}.md`, base(B, NOW));
    await machineId(s.vault);
    s.files.write = async (path) => {
      throw new WriteConflictError(path);
    };
    await expect(linkCoAccess(s.vault, A, [B])).rejects.toThrow(WriteConflictError);
  });
});

describe('compareIds', () => {
  it("orders as localeCompare does: memory ids and 5,000 seeded strings of letters, digits and hyphens by code units, others by localeCompare", () => {
    let seed = 11;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const chars = 'abcxyz0189-';
    const strings = Array.from({ length: 5000 }, (_, k) => (k % 2 === 0 ? 'mem-' : '') + Array.from({ length: next(14) }, () => chars[next(chars.length)]).join(''));
    strings.push('mem-aaaaaaaaaaaa', 'mem-0aaaaaaaaaaa', 'Mem-B', 'mém-a', 'mem_a', 'mem a');
    const sign = (x: number) => Math.sign(x);
    const pairs = strings.map((a, i) => [a, strings[(i * 7 + 1) % strings.length]!] as const);
    expect(pairs.map(([a, b]) => sign(compareIds(a, b)))).toEqual(pairs.map(([a, b]) => sign(a.localeCompare(b))));
    expect([...strings].sort(compareIds)).toEqual([...strings].sort((a, b) => a.localeCompare(b)));
    expect(['mem-b', 'mem-0', 'mem-a', 'mem--'].sort(compareIds)).toEqual(['mem--', 'mem-0', 'mem-a', 'mem-b']);
  });

  it('answers 0 for equal strings, and never asks localeCompare about two ids (its first call starts ICU, the cost it avoids)', () => {
    const spy = jest.spyOn(String.prototype, 'localeCompare');
    try {
      expect([compareIds('mem-a', 'mem-a'), compareIds('mem-a', 'mem-b'), compareIds('mem-b', 'mem-a'), compareIds('', ''), compareIds('mem-a1', 'mem-a')]).toEqual([0, -1, 1, 0, 1]);
      expect(spy).not.toHaveBeenCalled();
      expect(compareIds('Mem-B', 'Mem-B')).toBe(0);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
