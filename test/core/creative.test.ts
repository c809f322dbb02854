import { creativeDraw } from '../../src/core/creative';
import { parseMemory } from '../../src/core/memory';
import { seededRandom } from '../../src/core/random';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';
import { at, memoryNote } from '../helpers/memory-ports';

describe('creative mode (SPEC §11)', () => {
  const now = at('2026-06-01T00:00:00Z');
  // 10 fresh memories (accessed today) and 10 forgotten ones (accessed 70 days ago)
  const memories = Array.from({ length: 20 }, (_, i) => {
    const id = `mem-${String(i).padStart(12, '0')}`;
    const accessed = i < 10 ? '2026-06-01T00:00:00Z' : '2026-03-23T00:00:00Z';
    return parseMemory(`episodic/${id}.md`, memoryNote({ id, category: 'episodic', created_at: accessed, last_accessed_at: accessed }), S);
  });

  it('is reproducible for a seed and differs across seeds', () => {
    const ids = (seed: string) => creativeDraw(memories, 5, now, seededRandom(seed), S).map((m) => m.id);
    expect(ids('a')).toEqual(ids('a'));
    expect(ids('a')).not.toEqual(ids('b'));
    expect(new Set(ids('a')).size).toBe(5);
  });

  it('favours forgotten memories: over 400 draws of 5, most picks are forgotten', () => {
    let forgotten = 0;
    for (let s = 0; s < 400; s++) {
      forgotten += creativeDraw(memories, 5, now, seededRandom(`s${s}`), S).filter((m) => Number(m.id.slice(4)) >= 10).length;
    }
    // weights: fresh 0.05, forgotten 1 - 0.5^10 + 0.05 = 1.049: a first pick is fresh with
    // probability 0.5 / 10.99 = 4.5 %, later picks a little more often as forgotten ones run out.
    // With these seeds: 1881 of 2000 picks are forgotten (94 %), and fresh ones still come up.
    expect(forgotten).toBe(1881);
  });

  it('draws from every tier, archive included, and at most N', () => {
    expect(creativeDraw(memories.slice(0, 3), 5, now, seededRandom('x'), S)).toHaveLength(3);
    expect(creativeDraw(memories, 0, now, seededRandom('x'), S)).toEqual([]);
  });
});
