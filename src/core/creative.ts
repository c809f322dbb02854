import { memoryStrength } from './decay';
import type { Memory } from './memory';
import type { Random } from './ports';
import type { EngramSettings } from './settings';

/**
 * Creative mode (SPEC §11): N memories drawn at random from every tier, favouring the
 * forgotten ones, for serendipitous connections. Weighted sampling without replacement
 * (Efraimidis–Spirakis): weight = 1 − strength + floor, so a fresh memory can still come up.
 */
const FLOOR = 0.05;

export function creativeDraw(memories: Memory[], n: number, now: number, random: Random, settings: EngramSettings): Memory[] {
  const keyed = [...memories]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((memory) => {
      const weight = 1 - memoryStrength(memory, now, settings) + FLOOR;
      return { memory, key: Math.pow(random(), 1 / weight) };
    });
  keyed.sort((a, b) => b.key - a.key);
  return keyed.slice(0, Math.max(0, n)).map((k) => k.memory);
}
