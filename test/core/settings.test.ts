import { DEFAULT_SETTINGS, resolveSettings } from '../../src/core/settings';

describe('settings', () => {
  it('merges user values over the SPEC defaults', () => {
    const s = resolveSettings({ halfLifeDays: { episodic: 10 }, tierDays: { active: 5 }, alwaysLoaded: ['RULES.md'] });
    expect(s.halfLifeDays).toEqual({ episodic: 10, semantic: 30, decision: 90 });
    expect(s.tierDays).toEqual({ active: 5, warm: 21, cold: 60 });
    expect(s.alwaysLoaded).toEqual(['RULES.md']);
    expect(resolveSettings(undefined)).toEqual(DEFAULT_SETTINGS);
  });

  it('names what is wrong', () => {
    expect(() => resolveSettings({ halfLife: 3 }, 'config.json')).toThrow('config.json.halfLife: unknown setting');
    expect(() => resolveSettings({ halfLifeDays: { episodic: 'seven' } }, 'c')).toThrow('c.halfLifeDays.episodic: expected a positive number, got "seven"');
    expect(() => resolveSettings({ halfLifeDays: { episodic: 0 } }, 'c')).toThrow('c.halfLifeDays.episodic: expected a positive number, got 0');
    expect(() => resolveSettings({ retrievalBoostDays: -1 }, 'c')).toThrow('c.retrievalBoostDays: expected a non-negative number, got -1');
    expect(() => resolveSettings({ tierDays: 3 }, 'c')).toThrow('c.tierDays: expected an object');
    expect(() => resolveSettings([1], 'c')).toThrow('c: expected an object');
    expect(() => resolveSettings({ embedder: { kind: 'openai' } }, 'c')).toThrow('c.embedder.kind: expected one of none, transformers, http, got "openai"');
    expect(() => resolveSettings({ embedder: { allowRemoteModels: 'yes' } }, 'c')).toThrow('c.embedder.allowRemoteModels: expected a boolean, got "yes"');
    expect(() => resolveSettings({ embedder: { api: 'cohere' } }, 'c')).toThrow('c.embedder.api: expected ollama or openai, got "cohere"');
  });
});
