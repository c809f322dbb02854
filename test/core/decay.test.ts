import { effectiveHalfLife, memoryStrength, strengthAfter } from '../../src/core/decay';
import { parseMemory } from '../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';
import { at, memoryNote } from '../helpers/memory-ports';

const memory = (fields: Record<string, string | number | boolean>) =>
  parseMemory('episodic/mem-abc123def456.md', memoryNote({ id: 'mem-abc123def456', created_at: '2026-04-01T00:00:00Z', ...fields }), S);

describe('Ebbinghaus decay (SPEC §3)', () => {
  it('halves a fresh episodic memory in 7 days', () => {
    const m = memory({ category: 'episodic', last_accessed_at: '2026-04-01T00:00:00Z' });
    expect(memoryStrength(m, at('2026-04-08T00:00:00Z'), S)).toBe(0.5);
    expect(memoryStrength(m, at('2026-04-15T00:00:00Z'), S)).toBe(0.25);
    expect(memoryStrength(m, at('2026-04-01T00:00:00Z'), S)).toBe(1);
  });

  it('uses the category half-lives 7, 30 and 90 days', () => {
    expect(memoryStrength(memory({ category: 'semantic' }), at('2026-05-01T00:00:00Z'), S)).toBe(0.5);
    expect(memoryStrength(memory({ category: 'decision' }), at('2026-06-30T00:00:00Z'), S)).toBe(0.5);
  });

  it('adds 2 days per access: after 3 touches the half-life is 13 days', () => {
    expect(effectiveHalfLife(7, 3, false, S)).toBe(13);
    const m = memory({ category: 'episodic', access_count: 3 });
    expect(memoryStrength(m, at('2026-04-14T00:00:00Z'), S)).toBe(0.5);
  });

  it('doubles the base half-life of errors before adding boosts', () => {
    expect(effectiveHalfLife(7, 0, true, S)).toBe(14);
    expect(effectiveHalfLife(7, 2, true, S)).toBe(18);
    const m = memory({ category: 'episodic', is_error: true, access_count: 2 });
    expect(memoryStrength(m, at('2026-04-19T00:00:00Z'), S)).toBe(0.5);
  });

  it('honours a half_life_days written in the file and configured multipliers', () => {
    const m = memory({ category: 'episodic', half_life_days: 10 });
    expect(memoryStrength(m, at('2026-04-11T00:00:00Z'), S)).toBe(0.5);
    expect(effectiveHalfLife(10, 1, true, { ...S, errorMultiplier: 3, retrievalBoostDays: 5 })).toBe(35);
  });

  it('does not decay core memories, and treats a future access as now', () => {
    expect(memoryStrength(memory({ category: 'episodic', tier: 'core' }), at('2027-04-01T00:00:00Z'), S)).toBe(1);
    expect(strengthAfter(-3, 7)).toBe(1);
    expect(strengthAfter(14, 7)).toBe(0.25);
  });
});
