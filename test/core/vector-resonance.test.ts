import { updateVectors } from '../../src/core/embeddings/store';
import { memoryText } from '../../src/core/memory';
import type { Embedder } from '../../src/core/ports';
import { remember } from '../../src/core/remember';
import { normalise } from '../../src/embedding/vectors';
import { memoryVault } from '../helpers/memory-ports';

/** Texts about caching map to one direction, everything else to another. */
const topical: Embedder = {
  model: 'fake:topics',
  embed: async (texts) => texts.map((t) => normalise(/cache|redis/i.test(t) ? [1, 0, 0] : /lunch|pizza/i.test(t) ? [0, 1, 0] : [0, 0, 1])),
};

describe('resonance with vectors (SPEC §6)', () => {
  async function setup() {
    const { vault } = memoryVault('2026-03-01T00:00:00Z');
    const first = await remember(vault, { text: 'Sessions are cached in Redis for an hour.' });
    const { memories } = await vault.loadAll();
    await updateVectors(vault, memories.map((m) => ({ id: m.id, text: memoryText(m) })), topical);
    return { vault, first };
  }

  it('reinforces a memory whose vector is near-identical (cosine >= 0.95), even when the words differ', async () => {
    const { vault, first } = await setup();
    const again = await remember(vault, { text: 'The cache layer keeps login state in redis' }, null, topical);
    expect(again).toEqual({ id: first.id, path: first.path, action: 'reinforced' });
    const memory = await vault.resolve(first.id);
    expect([memory.amplitude, memory.access_count]).toEqual([2, 1]);
  });

  it('needs the same category, and writes a new memory otherwise', async () => {
    const { vault, first } = await setup();
    const decision = await remember(vault, { text: 'Use redis as the cache', category: 'decision' }, null, topical);
    expect(decision.action).toBe('created');
    const other = await remember(vault, { text: 'Lunch was pizza.' }, null, topical);
    expect([other.action, other.id === first.id]).toEqual(['created', false]);
  });

  it('falls back to lexical resonance when the stored vectors come from another model', async () => {
    const { vault } = await setup();
    const otherModel: Embedder = { ...topical, model: 'fake:other' };
    expect((await remember(vault, { text: 'The cache layer keeps login state in redis' }, null, otherModel)).action).toBe('created');
  });
});
