import { contextBudget } from '../../src/core/budget';
import { memoryVault } from '../helpers/memory-ports';

// The context budget (SPEC §11): everything an agent loads every turn against the targets,
// STATE.md under 4 KB (4096 bytes) and all of it under 25 KB (25,600 bytes).
describe('contextBudget: the always-loaded context against 4 KB and 25 KB', () => {
  const NOW = '2026-11-29T12:00:00Z';

  it('at 25,600 bytes in all the context is within its target; one byte more is over', async () => {
    const { vault, files } = memoryVault(NOW);
    files.files.set('STATE.md', 's'.repeat(4096));
    files.files.set('daily/2026-11-29.md', 'd'.repeat(20 * 1024));
    files.files.set('daily/2026-11-28.md', 'e'.repeat(25_600 - 4096 - 20 * 1024));
    const within = await contextBudget(vault);
    expect([within.total_bytes, within.state_bytes, within.state_target_bytes, within.total_target_bytes, within.over]).toEqual([25_600, 4096, 4096, 25_600, []]);
    files.files.set('STATE.md', 's'.repeat(4097));
    const over = await contextBudget(vault);
    expect(over.total_bytes).toBe(25_601);
    expect(over.over).toEqual(['STATE.md is 4097 bytes, over the 4096-byte target', 'always-loaded context is 25601 bytes, over the 25600-byte target']);
  });

  it('counts UTF-8 bytes; a missing STATE.md is 0 bytes, noted', async () => {
    const { vault, files } = memoryVault(NOW);
    files.files.set('daily/2026-11-29.md', 'é'.repeat(10));
    const report = await contextBudget(vault);
    expect(report.files).toEqual([
      { path: 'STATE.md', bytes: 0, tokens: 0, note: 'missing' },
      { path: 'daily/2026-11-29.md', bytes: 20, tokens: 1 },
    ]);
    expect(report.total_bytes).toBe(20);
  });
});
