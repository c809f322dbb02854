import { PRUNE_STRENGTH, WELL_CONNECTED, degreeOf, pruneVerdict } from '../../../src/core/consolidation/prune';
import { memoryStrength } from '../../../src/core/decay';
import { parseMemory, type Memory } from '../../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { at, memoryNote } from '../../helpers/memory-ports';

const NOW = at('2026-11-29T12:00:00Z');
const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;

function memory(n: number, fields: Record<string, string | number>, body = 'Some text.\n'): Memory {
  const folder = fields.category === 'decision' ? 'decisions' : 'episodic';
  return parseMemory(`${folder}/${id(n)}.md`, memoryNote({ id: id(n), category: 'episodic', created_at: '2025-06-01T00:00:00Z', last_accessed_at: '2025-06-01T00:00:00Z', half_life_days: 90, ...fields }, body), S);
}

describe('prune (SPEC §8 step 1)', () => {
  // 546 days since access with a 90-day half-life: 0.5^(546/90) = 0.0150, under the threshold
  const old = { last_accessed_at: '2025-06-01T00:00:00Z' };

  it('prunes a memory under 0.05 that nothing keeps', () => {
    const weak = memory(1, { ...old, category: 'decision', confidence: 'observed' });
    expect(memoryStrength(weak, NOW, S)).toBeCloseTo(Math.pow(0.5, 546.5 / 90), 12);
    expect(pruneVerdict(weak, 0, NOW, S)).toBe('prune');
  });

  it('keeps a verified decision under the threshold; an observed or inferred decision, or a verified episode, of the same age is pruned', () => {
    expect(pruneVerdict(memory(1, { ...old, category: 'decision', confidence: 'verified' }), 0, NOW, S)).toBe('keep-verified-decision');
    expect(pruneVerdict(memory(2, { ...old, category: 'decision', confidence: 'inferred' }), 0, NOW, S)).toBe('prune');
    expect(pruneVerdict(memory(3, { ...old, category: 'episodic', confidence: 'verified' }), 0, NOW, S)).toBe('prune');
    expect(pruneVerdict(memory(4, { ...old, category: 'semantic', confidence: 'verified' }), 0, NOW, S)).toBe('prune');
  });

  it('keeps core whatever its age, and a memory at or above the threshold as strong', () => {
    expect(pruneVerdict(memory(1, { ...old, tier: 'core' }), 0, NOW, S)).toBe('keep-core');
    // at exactly the threshold: kept (strength >= 0.05); the day before it falls under, pruned
    const days = (90 * Math.log(1 / PRUNE_STRENGTH)) / Math.log(2); // 388.97 days
    const edge = NOW - Math.floor(days) * 86_400_000;
    const kept = memory(2, { last_accessed_at: new Date(edge).toISOString() });
    expect(pruneVerdict(kept, 0, NOW, S)).toBe('keep-strong');
    expect(pruneVerdict(kept, 0, edge + Math.ceil(days) * 86_400_000, S)).toBe('prune');
    // a strong verified decision is kept for its strength (the first reason that applies)
    expect(pruneVerdict(memory(3, { last_accessed_at: '2026-11-01T00:00:00Z', category: 'decision', confidence: 'verified' }), 0, NOW, S)).toBe('keep-strong');
  });

  it('keeps a memory with three or more associations, prunes one with two', () => {
    const weak = memory(1, old);
    expect(WELL_CONNECTED).toBe(3);
    expect([pruneVerdict(weak, 2, NOW, S), pruneVerdict(weak, 3, NOW, S), pruneVerdict(weak, 4, NOW, S)]).toEqual(['prune', 'keep-connected', 'keep-connected']);
    // a verified decision is kept as such before its connections are counted
    expect(pruneVerdict(memory(2, { ...old, category: 'decision', confidence: 'verified' }), 5, NOW, S)).toBe('keep-verified-decision');
  });

  it('counts associations once per partner, either way: links and co-access, never a memory with itself', () => {
    const hub = memory(1, { co_access: `{"${id(2)}": 3, "${id(4)}": 1}` }, `Hub.\n\n[[${id(2)}|related]] [[${id(3)}|related]] [[${id(1)}|related]]\n`);
    const two = memory(2, {}, `Two.\n\n[[${id(1)}|related]]\n`);
    const three = memory(3, { co_access: `{"${id(4)}": 2}` });
    expect(Object.fromEntries(degreeOf([hub, two, three]))).toEqual({ [id(1)]: 3, [id(2)]: 1, [id(3)]: 2, [id(4)]: 2 });
    // in the order each memory is first met
    expect([...degreeOf([hub, two, three])]).toEqual([[id(1), 3], [id(2), 1], [id(3), 2], [id(4), 2]]);
    expect([...degreeOf([three, two])]).toEqual([[id(3), 1], [id(4), 1], [id(2), 1], [id(1), 1]]);
  });

  it('counts a hub of many partners, each once, in the order met, past the short list', () => {
    const partners = Array.from({ length: 12 }, (_, k) => id(10 + k));
    // every partner linked twice and named again by co-access; the hub links to itself too
    const links = [...partners, ...partners, id(1)].map((p) => `[[${p}|related]]`).join(' ');
    const coAccess = `{${partners.map((p) => `"${p}": 1`).join(', ')}}`;
    const hub = memory(1, { co_access: coAccess }, `Hub.\n\n${links}\n`);
    const degree = degreeOf([hub]);
    expect(degree.get(id(1))).toBe(12);
    expect([...degree.keys()]).toEqual([id(1), ...partners]);
    expect(partners.map((p) => degree.get(p))).toEqual(Array(12).fill(1));
    // eight partners stay a list, nine make it a set: both counted the same
    for (const n of [8, 9]) expect(degreeOf([memory(2, {}, `Eight.\n\n${partners.slice(0, n).map((p) => `[[${p}]] [[${p}|related]]`).join(' ')}\n`)]).get(id(2))).toBe(n);
  });
});
