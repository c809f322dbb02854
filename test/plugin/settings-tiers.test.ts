/**
 * @jest-environment jsdom
 */
import { installFakeWorkers, workers } from '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GraphViewFake, Notice, setApiVersion, type GraphPluginFake } from '../fakes/obsidian';
import { parseMemory } from '../../src/core/memory';
import { resolveSettings } from '../../src/core/settings';
import { currentTier } from '../../src/core/tiers';
import { field, NOW, seedRuntime, startPlugin, type Harness } from './harness';

let h: Harness;
afterEach(() => h.close());

const config = () => JSON.parse(fs.readFileSync(path.join(h.dir, 'memory', '.engram', 'config.json'), 'utf8')) as Record<string, unknown>;
const configExists = () => fs.existsSync(path.join(h.dir, 'memory', '.engram', 'config.json'));

function settingItem(name: string): HTMLElement {
  const tab = h.app.settingTabs[0]!;
  return Array.from(tab.containerEl.querySelectorAll<HTMLElement>('.setting-item')).find((el) => el.querySelector('.setting-item-name')!.textContent === name)!;
}
const settingInput = (name: string) => settingItem(name).querySelector('input')!;
/** The rows on screen: a row the app drew from a definition whose `visible` is false is hidden. */
const shownNames = () =>
  Array.from(h.app.settingTabs[0]!.containerEl.querySelectorAll('.setting-item'))
    .filter((el) => el.closest('[hidden]') === null && !el.classList.contains('setting-item-heading'))
    .map((el) => el.querySelector('.setting-item-name')!.textContent);

/** Every Engram setting, in the tab's order, with no embedder. */
const SETTINGS = [
  'Memory folder', 'Touch on open', 'Co-access window (minutes)', 'Token budget',
  'Episodic half-life (days)', 'Semantic half-life (days)', 'Decision half-life (days)', 'Days added per access', 'Error multiplier',
  'Boost when recalled and used', 'Boost when cited', 'Boost when opened',
  'Reinforce at similarity', 'Conflict at similarity', 'Cluster at cosine', 'Cluster at word overlap', 'Validation at activation',
  'Active until (days)', 'Warm until (days)', 'Cold until (days)',
  'Embedder',
];

// The same behaviour whichever way the app shows the tab: drawn by Obsidian 1.13+ from
// getSettingDefinitions(), or by display() on the older apps manifest.json's minAppVersion allows.
describe.each([
  ['1.13.1', 'definitions'],
  ['1.8.7', 'display'],
])('settings (Obsidian %s: tab drawn from %s)', (version, drawn) => {
  beforeEach(async () => {
    setApiVersion(version);
    h = await startPlugin();
    h.app.openSettingTab(h.app.settingTabs[0]!); // the user opens Engram's tab
    expect(h.app.settingTabs[0]!.drawn).toBe(drawn);
  });
  afterEach(() => {
    // an unguarded 1.13 call (update, refreshDomState) on an older app would be a TypeError
    expect(Notice.shown.filter((m) => /is not a function/.test(m))).toEqual([]);
    setApiVersion('1.13.1');
  });

  it('shows every setting, and the embedder\'s own rows for its kind only', async () => {
    expect(shownNames()).toEqual(SETTINGS);
    const select = settingItem('Embedder').querySelector('select')!;
    select.value = 'http';
    select.dispatchEvent(new Event('change'));
    await h.flush();
    expect(shownNames()).toEqual([...SETTINGS, 'Model', 'Server address', 'Server type']);
    expect(settingInput('Server address').value).toBe('http://127.0.0.1:11434');
    select.value = 'transformers';
    select.dispatchEvent(new Event('change'));
    await h.flush();
    expect(shownNames()).toEqual([...SETTINGS, 'Model', 'Allow downloading the model']);
    expect(config()).toEqual({ embedder: { kind: 'transformers' } });
  });

  it('saves a field when it is committed, not on each keystroke', async () => {
    const input = settingInput('Episodic half-life (days)');
    for (const typed of ['3', '30']) {
      input.value = typed;
      input.dispatchEvent(new Event('input'));
      await h.flush();
    }
    expect(configExists()).toBe(false);
    input.dispatchEvent(new Event('change')); // leaving the field, or Enter
    await h.flush();
    expect(config()).toEqual({ halfLifeDays: { episodic: 30 } });
    expect(h.plugin.service.vault.settings.halfLifeDays.episodic).toBe(30);
  });

  it('refuses a bad value when it is committed, naming it, and shows the saved value again', async () => {
    const input = settingInput('Active until (days)');
    input.value = '-3';
    input.dispatchEvent(new Event('change'));
    await h.flush();
    expect(configExists()).toBe(false);
    expect(Notice.shown.at(-1)).toMatch(/^Engram: .*tierDays\.active/);
    expect(input.value).toBe('7');
    expect(input.classList.contains('engram-invalid')).toBe(true);
    input.value = '';
    input.dispatchEvent(new Event('change'));
    await h.flush();
    expect(Notice.shown.at(-1)).toBe('Engram: Active until (days): "" is not a number');
    expect(input.value).toBe('7');
  });

  it('restarts the embedding worker only when an embedder setting changed', async () => {
    installFakeWorkers();
    seedRuntime(h.dir);
    await h.plugin.service.setSetting(['embedder', 'kind'], 'transformers');
    await h.plugin.service.embedder();
    expect(workers).toHaveLength(1);
    await h.plugin.service.setSetting(['tokenBudget'], 1500);
    await h.plugin.service.setSetting(['halfLifeDays', 'episodic'], 9);
    expect(workers[0]!.terminated).toBe(false);
    await h.plugin.service.setSetting(['embedder', 'batchSize'], 8);
    expect(workers[0]!.terminated).toBe(true);
  });

  it('reads .engram/config.json again when the runner or another device changes it', async () => {
    installFakeWorkers();
    seedRuntime(h.dir);
    await h.plugin.service.setSetting(['embedder', 'kind'], 'transformers');
    await h.plugin.service.embedder();
    fs.writeFileSync(path.join(h.dir, 'memory', '.engram', 'config.json'), JSON.stringify({ embedder: { kind: 'transformers' }, coAccessWindowMinutes: 12 }));
    await h.advance(5000);
    expect(h.plugin.service.vault.settings.coAccessWindowMinutes).toBe(12);
    expect(settingInput('Co-access window (minutes)').value).toBe('12'); // the open tab shows it
    expect(workers[0]!.terminated).toBe(false);
    fs.writeFileSync(path.join(h.dir, 'memory', '.engram', 'config.json'), '{"coAccessWindowMinutes": ');
    await h.advance(5000);
    expect(Notice.shown.at(-1)).toMatch(/^Engram: \.engram\/config\.json: /);
    expect(h.plugin.service.vault.settings.coAccessWindowMinutes).toBe(30); // defaults meanwhile
  });

  it('reads its own data.json again when Sync changes it', async () => {
    fs.writeFileSync(path.join(h.dir, '.obsidian', 'plugins', 'engram-memory', 'data.json'), JSON.stringify({ touchOnOpen: false, reopenMinutes: 3 }));
    await h.plugin.onExternalSettingsChange();
    expect(h.plugin.settings.touchOnOpen).toBe(false);
    expect(h.plugin.settings.reopenMinutes).toBe(3);
    expect(settingItem('Touch on open').querySelector('.checkbox-container')!.classList.contains('is-enabled')).toBe(false); // the open tab shows it
  });
});

describe('settings in Obsidian 1.13\'s settings search', () => {
  beforeEach(async () => {
    h = await startPlugin();
  });

  it('finds every Engram setting by its name, description or aliases, without the tab having been opened', async () => {
    const tab = h.app.settingTabs[0]!;
    const display = jest.spyOn(tab, 'display');
    expect(h.app.searchSettings('').map((r) => r.name)).toEqual(SETTINGS); // what addSettingTab stored
    for (const name of SETTINGS) expect(h.app.searchSettings(name)).toContainEqual({ tab: 'Engram', name });
    // names and descriptions ("each access lengthens the half-life")
    expect(h.app.searchSettings('half-life').map((r) => r.name)).toEqual(['Episodic half-life (days)', 'Semantic half-life (days)', 'Decision half-life (days)', 'Days added per access']);
    expect(h.app.searchSettings('semantic search').map((r) => r.name)).toEqual(['Embedder']); // an alias
    expect(h.app.searchSettings('ollama')).toEqual([]); // the HTTP rows are hidden with no HTTP embedder
    h.app.openSettingTab(tab);
    expect(display).not.toHaveBeenCalled(); // drawn from the definitions, as the app does
    const select = settingItem('Embedder').querySelector('select')!;
    select.value = 'http';
    select.dispatchEvent(new Event('change'));
    await h.flush();
    expect(h.app.searchSettings('ollama').map((r) => r.name)).toEqual(['Server address', 'Server type']);
    expect(settingItem('Server address').closest('.setting-group')).not.toBeNull(); // drawn again by the app (update()), not by the tab itself
    expect(display).not.toHaveBeenCalled();
    expect(h.app.searchSettings('').map((r) => r.name)).toEqual([...SETTINGS, 'Model', 'Server address', 'Server type']);
  });

  it('shows a broken config file at the top of the tab, out of search, and the defaults in the fields', async () => {
    fs.writeFileSync(path.join(h.dir, 'memory', '.engram', 'config.json'), '{"tokenBudget": ');
    await h.advance(5000);
    const tab = h.app.settingTabs[0]!;
    h.app.openSettingTab(tab);
    const first = tab.containerEl.querySelector('.setting-item')!;
    expect(first.classList.contains('mod-warning')).toBe(true);
    expect(first.querySelector('.setting-item-description')!.textContent).toMatch(/^\.engram\/config\.json: .*: defaults are in use until it is fixed\.$/);
    expect(h.app.searchSettings('problem')).toEqual([]);
    expect(settingInput('Token budget').value).toBe('2000');
  });

  it('saves a number row drawn by the app when it is committed, not while typing, and shows it when the tab opens again', async () => {
    h.app.openSettingTab(h.app.settingTabs[0]!);
    const input = settingInput('Token budget');
    input.value = '15';
    input.dispatchEvent(new Event('input'));
    await h.flush();
    expect(configExists()).toBe(false);
    input.value = '1500';
    input.dispatchEvent(new Event('change'));
    await h.flush();
    expect(config()).toEqual({ tokenBudget: 1500 });
    h.app.closeSettings();
    h.app.openSettingTab(h.app.settingTabs[0]!);
    expect(settingInput('Token budget').value).toBe('1500');
  });
});

describe('tier upkeep', () => {
  const LATER = NOW + 20 * 86_400_000; // three weeks on: several tiers have decayed since the files were written

  it('writes the tier the core rule gives, for every memory whose written tier is out of date, when the vault opens', async () => {
    h = await startPlugin({ now: LATER });
    const settings = resolveSettings(undefined);
    const memoryDir = path.join(h.dir, 'memory');
    const stale: string[] = [];
    for (const folder of ['episodic', 'semantic', 'decisions', 'archive']) {
      for (const name of fs.existsSync(path.join(memoryDir, folder)) ? fs.readdirSync(path.join(memoryDir, folder)) : []) {
        const p = `${folder}/${name}`;
        const memory = parseMemory(p, fs.readFileSync(path.join(memoryDir, p), 'utf8'), settings);
        if (currentTier(memory, LATER, settings) !== memory.tier) stale.push(p);
      }
    }
    expect(stale.length).toBeGreaterThan(3);
    const open = stale[0]!;
    await h.open(open); // open: its tier waits (and the open itself is a touch)
    await h.advance(9000);
    expect(h.writes.size).toBe(1);
    await h.advance(32_000); // the pass at 10 s, its batch 30 s later
    for (const p of stale.slice(1)) {
      const memory = parseMemory(p, h.read(p), settings);
      expect([p, memory.tier]).toEqual([p, currentTier(memory, LATER, settings)]);
      expect([p, h.writes.get(p)]).toEqual([p, 1]);
    }
    expect(h.writes.size).toBe(stale.length);
    // nothing else changed in those files but the tier
    const before = fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'vault', stale[1]!), 'utf8').split('\n');
    const after = h.read(stale[1]!).split('\n');
    expect(after.filter((line, i) => line !== before[i]).every((line) => line.startsWith('tier: '))).toBe(true);
  });

  it('runs once when the vault opens (not again within the hour), then daily', async () => {
    h = await startPlugin();
    await h.advance(11_000);
    const at = h.app.loadLocalStorage('engram-tier-pass-at') as number;
    expect(at).toBeGreaterThanOrEqual(NOW + 10_000);
    expect(at).toBeLessThanOrEqual(NOW + 11_000);
    const runs: string[][] = [];
    const run = h.plugin.tiers.run.bind(h.plugin.tiers);
    h.plugin.tiers.run = async () => {
      const out = await run();
      runs.push(out);
      return out;
    };
    await h.plugin.tiers.maybeRun(true);
    expect(runs).toHaveLength(0); // within the hour
    await h.advance(24 * 3_600_000); // the hourly check at 24 h: 10 s short of a day since the pass
    expect(runs).toHaveLength(0);
    await h.advance(3_600_000);
    expect(runs).toHaveLength(1);
  }, 120_000);
});

describe('tier colours in Obsidian\'s graph', () => {
  const userGroups = [{ query: 'tag:#project', color: { a: 1, rgb: 0x123456 } }, { query: '[tier:active]', color: { a: 1, rgb: 0xffffff } }];

  it('go before the user\'s groups, into the running graph plugin, and survive the graph view closing', async () => {
    h = await startPlugin({
      before: (_dir, app) => {
        (app.internalPlugins.getPluginById('graph') as GraphPluginFake).instance.options.colorGroups = userGroups;
      },
    });
    const leaf = h.app.workspace.getLeaf('tab');
    await leaf.setViewState({ type: 'graph', active: true });
    expect(h.app.commands.executeCommandById('engram-memory:graph-colour-groups')).toBe(true);
    const modal = (await import('../fakes/obsidian')).Modal.openModals.at(-1)!;
    modal.contentEl.querySelector('button')!.click();
    await h.flush();
    const queries = ['[tier:core]', '[tier:active]', '[tier:warm]', '[tier:cold]', '[tier:archive]', 'tag:#project'];
    const view = leaf.view as GraphViewFake;
    expect((view.groups as Array<{ query: string }>).map((g) => g.query)).toEqual(queries); // the open view shows them
    expect((view.groups as Array<{ color: { rgb: number } }>).map((g) => g.color.rgb).slice(0, 5)).toEqual([0xa882ff, 0x44cf6e, 0xe0ac00, 0x027aff, 0x8a8a8a]);
    await leaf.detach(); // the graph plugin saves its options when its view closes
    const saved = JSON.parse(fs.readFileSync(path.join(h.dir, '.obsidian', 'graph.json'), 'utf8')) as { colorGroups: Array<{ query: string }> };
    expect(saved.colorGroups.map((g) => g.query)).toEqual(queries);
    expect(Notice.shown.at(-1)).toBe('Engram: the tier groups are in the graph view');
  });

  it('a graph.json written by hand under the running graph plugin is lost when its view closes (why Engram does not)', async () => {
    h = await startPlugin();
    const leaf = h.app.workspace.getLeaf('tab');
    await leaf.setViewState({ type: 'graph', active: true });
    fs.writeFileSync(path.join(h.dir, '.obsidian', 'graph.json'), JSON.stringify({ colorGroups: userGroups }));
    await leaf.detach();
    expect(JSON.parse(fs.readFileSync(path.join(h.dir, '.obsidian', 'graph.json'), 'utf8'))).toEqual({});
  });

  it('are written to graph.json when the graph plugin is off', async () => {
    h = await startPlugin({
      before: (dir, app) => {
        (app.internalPlugins.getPluginById('graph') as GraphPluginFake).enabled = false;
        fs.writeFileSync(path.join(dir, '.obsidian', 'graph.json'), JSON.stringify({ showTags: true, colorGroups: userGroups }));
      },
    });
    h.app.commands.executeCommandById('engram-memory:graph-colour-groups');
    const { Modal } = await import('../fakes/obsidian');
    Modal.openModals.at(-1)!.contentEl.querySelector('button')!.click();
    await h.flush();
    const saved = JSON.parse(fs.readFileSync(path.join(h.dir, '.obsidian', 'graph.json'), 'utf8')) as { showTags: boolean; colorGroups: Array<{ query: string }> };
    expect(saved.showTags).toBe(true);
    expect(saved.colorGroups.map((g) => g.query)).toEqual(['[tier:core]', '[tier:active]', '[tier:warm]', '[tier:cold]', '[tier:archive]', 'tag:#project']);
  });
});

export { field };

describe('property types', () => {
  it('registers the types of Engram\'s own fields only, keeping a type the user chose, leaving generic names alone', async () => {
    h = await startPlugin({ before: (_dir, app) => void (app.metadataTypeManager.types.access_count = { name: 'access_count', type: 'text' }) });
    await h.advance(100);
    const types = h.app.metadataTypeManager.types;
    expect(types.access_count?.type).toBe('text'); // the user's choice stands
    expect(types.last_accessed_at?.type).toBe('datetime');
    expect(types.is_error?.type).toBe('checkbox');
    // generic names are also the person's own properties: not typed by Engram
    for (const name of ['source', 'category', 'tier', 'activation', 'confidence', 'amplitude', 'created_at', 'tags', 'aliases']) expect(types[name]).toBeUndefined();
    expect((JSON.parse(fs.readFileSync(path.join(h.dir, '.obsidian', 'types.json'), 'utf8')) as { types: Record<string, string> }).types.half_life_days).toBe('number');
  });
});
