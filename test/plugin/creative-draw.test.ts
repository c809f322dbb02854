import { creativeDraw } from '../../src/core/creative';
import { parseMemory, type Memory } from '../../src/core/memory';
import { toRecallDoc } from '../../src/core/recall/catalog';
import { resolveSettings } from '../../src/core/settings';
import { drawIds } from '../../src/plugin/creative-draw';

/* Creative recall over the plugin's index draws exactly the cards the core's draw gives for the same random numbers. */
it('draws the same memories as the core draw over the same memories and random numbers', () => {
  const settings = resolveSettings(undefined);
  const memories: Memory[] = [];
  for (let i = 0; i < 200; i++) {
    const id = `mem-${(i * 2654435761 % 2 ** 40).toString(16).padStart(12, '0')}`;
    const day = String(1 + (i % 28)).padStart(2, '0');
    const tier = i % 17 === 0 ? 'core' : 'warm';
    memories.push(parseMemory(`episodic/${id}.md`, `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-0${1 + (i % 9)}-${day}T10:00:00Z"\nlast_accessed_at: "2026-${String(1 + (i % 11)).padStart(2, '0')}-${day}T10:00:00Z"\nhalf_life_days: ${3 + (i % 20)}\naccess_count: ${i % 6}\nis_error: ${i % 9 === 0}\ntier: ${tier}\n---\nMemory ${i}.\n`, settings));
  }
  const now = Date.parse('2026-11-29T12:00:00Z');
  const seeded = () => {
    let s = 42;
    return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  };
  const core = creativeDraw(memories, 7, now, seeded(), settings).map((m) => m.id);
  const docs = memories.map((m) => toRecallDoc(m, false));
  expect(drawIds(docs.reverse(), 7, now, seeded(), settings)).toEqual(core);
  expect(core).toHaveLength(7);
});
