import { App, Notice, PluginSettingTab, requireApiVersion, Setting, type SettingDefinitionItem } from 'obsidian';
import type { EngramSettings } from '../core/settings';
import { ConfirmModal } from './modals';
import type EngramPlugin from './main';

interface NumberField {
  path: string[];
  name: string;
  desc: string;
}

const DECAY: NumberField[] = [
  { path: ['halfLifeDays', 'episodic'], name: 'Episodic half-life (days)', desc: 'Observations and events fade fast.' },
  { path: ['halfLifeDays', 'semantic'], name: 'Semantic half-life (days)', desc: 'Patterns and lessons.' },
  { path: ['halfLifeDays', 'decision'], name: 'Decision half-life (days)', desc: 'Decisions outlive both.' },
  { path: ['retrievalBoostDays'], name: 'Days added per access', desc: 'Spaced repetition: each access lengthens the half-life.' },
  { path: ['errorMultiplier'], name: 'Error multiplier', desc: 'Errors last this many times longer.' },
];
const BOOSTS: NumberField[] = [
  { path: ['activation', 'returnedBoost'], name: 'Boost when recalled and used', desc: 'Activation added when an agent uses a recalled memory.' },
  { path: ['activation', 'citedBoost'], name: 'Boost when cited', desc: 'Activation added when a memory is cited in an answer.' },
  { path: ['activation', 'readBoost'], name: 'Boost when opened', desc: 'Activation added when a memory is read (opening it here).' },
];
const THRESHOLDS: NumberField[] = [
  { path: ['resonance', 'lexicalThreshold'], name: 'Reinforce at similarity', desc: 'A new memory this close to an existing one reinforces it instead.' },
  { path: ['resonance', 'conflictThreshold'], name: 'Conflict at similarity', desc: 'Similar memories of opposite polarity open a conflict note.' },
  { path: ['consolidation', 'clusterThreshold'], name: 'Cluster at cosine', desc: 'Episodes this similar (vectors) become one semantic memory.' },
  { path: ['consolidation', 'lexicalClusterThreshold'], name: 'Cluster at word overlap', desc: 'The same, without an embedder.' },
  { path: ['activation', 'validationThreshold'], name: 'Validation at activation', desc: 'A memory this active is due for validation.' },
];
const TIERS: NumberField[] = [
  { path: ['tierDays', 'active'], name: 'Active until (days)', desc: 'Days since the last access.' },
  { path: ['tierDays', 'warm'], name: 'Warm until (days)', desc: 'Then cold.' },
  { path: ['tierDays', 'cold'], name: 'Cold until (days)', desc: 'Then archive.' },
];

function valueAt(settings: EngramSettings, path: string[]): unknown {
  let node: unknown = settings;
  for (const key of path) node = (node as Record<string, unknown>)[key];
  return node;
}

/** One row of the tab, described once and drawn by both of Obsidian's ways of showing a tab. */
interface Row {
  name: string;
  desc?: string;
  /** More words that find the row in Obsidian's settings search (1.13+). */
  aliases?: string[];
  /** Left out of settings search (a status line, not a setting). */
  searchable?: false;
  /** Shown only while this holds (asked again at each redraw). */
  visible?: () => boolean;
  /** Adds the row's control to a setting that already shows the row's name and description. */
  build: (setting: Setting) => void;
}

interface Section {
  heading?: string;
  rows: Row[];
}

/**
 * The settings tab. The memory model's settings are written to `.engram/config.json` in the
 * memory folder (the runner reads the same file), each validated before it is saved; the
 * plugin's own (folder, touch on open) to the plugin's data.
 *
 * Every row is described once (`sections`). Obsidian 1.13+ draws them from
 * getSettingDefinitions(), which also puts each row in its settings search; older apps call
 * display(), which draws the same rows. The rows are `render` definitions, not `control` ones:
 * a text row saves when the field is committed (its `change` event: leaving it or Enter) and is
 * validated then, which a declarative text or number control does not promise (obsidian.d.ts
 * says only that `setControlValue` is "called on user change", and a number control "falls back
 * to `defaultValue` (or `0`) if the input cannot be parsed", where Engram refuses the value and
 * names it).
 */
export class EngramSettingTab extends PluginSettingTab {
  constructor(
    app: App,
    private readonly plugin: EngramPlugin,
  ) {
    super(app, plugin);
  }

  /** Obsidian 1.13+: the rows as definitions, drawn by the app and found by its settings search. */
  override getSettingDefinitions(): SettingDefinitionItem[] {
    return this.sections().map((section) => ({
      type: 'group',
      heading: section.heading,
      items: section.rows.map((row) => ({
        name: row.name,
        desc: row.desc,
        aliases: row.aliases,
        searchable: row.searchable,
        visible: row.visible,
        render: (setting: Setting) => {
          row.build(setting);
        },
      })),
    }));
  }

  /** Obsidian before 1.13 (the manifest's minAppVersion is older): the same rows, drawn here. */
  override display(): void {
    this.draw();
  }

  private draw(): void {
    const { containerEl } = this;
    containerEl.empty();
    for (const section of this.sections()) {
      if (section.heading) new Setting(containerEl).setName(section.heading).setHeading();
      for (const row of section.rows) {
        if (row.visible && !row.visible()) continue;
        const setting = new Setting(containerEl).setName(row.name);
        if (row.desc) setting.setDesc(row.desc);
        row.build(setting);
      }
    }
  }

  /** Draw the tab again with the current values: `update()` on 1.13+, which draws the definitions again. */
  private redraw(): void {
    if (requireApiVersion('1.13.0')) this.update();
    else if (this.containerEl.isConnected) this.draw();
  }

  private sections(): Section[] {
    const service = this.plugin.service;
    const settings = () => service.vault.settings;
    const problem = service.settingsProblem;
    const embedder = (...kinds: string[]) => () => kinds.includes(settings().embedder.kind);
    return [
      {
        rows: [
          {
            name: 'Settings file problem',
            desc: problem === null ? undefined : `${problem}: defaults are in use until it is fixed.`,
            searchable: false,
            visible: () => problem !== null,
            build: (setting) => {
              setting.settingEl.addClass('mod-warning');
            },
          },
          {
            name: 'Memory folder',
            desc: 'The folder of this vault that holds the memories (empty: the whole vault).',
            build: (setting) => {
              setting.addText((text) => {
                text.setValue(this.plugin.settings.folder);
                // committed on leaving the field or Enter: each keystroke would point at another folder
                text.inputEl.addEventListener('change', () => void this.plugin.setFolder(text.getValue().trim().replace(/^\/+|\/+$/g, '')));
              });
            },
          },
          {
            name: 'Touch on open',
            desc: 'Opening a memory promotes its tier, counts the access and links it to the memories opened with it.',
            build: (setting) => {
              setting.addToggle((toggle) =>
                toggle.setValue(this.plugin.settings.touchOnOpen).onChange(async (value) => {
                  this.plugin.settings.touchOnOpen = value;
                  await this.plugin.saveSettings();
                }),
              );
            },
          },
          this.number({ path: ['coAccessWindowMinutes'], name: 'Co-access window (minutes)', desc: 'Memories opened within this time of each other are linked.' }),
          this.number({ path: ['tokenBudget'], name: 'Token budget', desc: 'The size of the agent memory block, in tokens.' }),
        ],
      },
      { heading: 'Decay', rows: DECAY.map((field) => this.number(field)) },
      { heading: 'Activation', rows: BOOSTS.map((field) => this.number(field)) },
      { heading: 'Thresholds', rows: THRESHOLDS.map((field) => this.number(field)) },
      { heading: 'Tiers', rows: TIERS.map((field) => this.number(field)) },
      {
        heading: 'Embeddings',
        rows: [
          {
            name: 'Embedder',
            desc: 'None: word matching only. Transformers: a local model, run in a worker. HTTP: an embedding server.',
            aliases: ['embeddings', 'vectors', 'semantic search'],
            build: (setting) => {
              setting.addDropdown((dropdown) =>
                dropdown
                  .addOptions({ none: 'None', transformers: 'Transformers (local)', http: 'HTTP server' })
                  .setValue(settings().embedder.kind)
                  .onChange((value) => void this.save(['embedder', 'kind'], value, true)),
              );
            },
          },
          {
            name: 'Model',
            desc: 'The model name, as the embedder knows it.',
            aliases: ['embedding model'],
            visible: embedder('transformers', 'http'),
            build: (setting) => this.text(setting, ['embedder', 'model'], settings().embedder.model),
          },
          {
            name: 'Allow downloading the model',
            desc: 'Off: the model must already be in the memory folder under .engram/models/. On: it is downloaded once.',
            visible: embedder('transformers'),
            build: (setting) => {
              setting.addToggle((toggle) =>
                toggle.setValue(settings().embedder.allowRemoteModels).onChange((value) => {
                  if (!value) {
                    void this.save(['embedder', 'allowRemoteModels'], false);
                    return;
                  }
                  toggle.setValue(false);
                  new ConfirmModal(
                    this.app,
                    'Download an embedding model?',
                    `${settings().embedder.model} will be downloaded from huggingface.co (tens of megabytes) the next time memories are embedded. Nothing else leaves this device.`,
                    'Allow download',
                    () => void this.save(['embedder', 'allowRemoteModels'], true, true),
                  ).open();
                }),
              );
            },
          },
          {
            name: 'Server address',
            aliases: ['embedding server', 'url', 'ollama'],
            visible: embedder('http'),
            build: (setting) => this.text(setting, ['embedder', 'url'], settings().embedder.url),
          },
          {
            name: 'Server type',
            aliases: ['ollama', 'openai'],
            visible: embedder('http'),
            build: (setting) => {
              setting.addDropdown((dropdown) =>
                dropdown
                  .addOptions({ ollama: 'Ollama', openai: 'OpenAI-compatible' })
                  .setValue(settings().embedder.api)
                  .onChange((value) => void this.save(['embedder', 'api'], value)),
              );
            },
          },
        ],
      },
    ];
  }

  /**
   * A number field, saved when it is committed (the input's `change` event: on leaving the field
   * or pressing Enter), not on every keystroke: typing 30 would otherwise save 3 first, which
   * cron may read. A refused value is named in a notice and the field goes back to the saved one.
   */
  private number(field: NumberField): Row {
    return {
      name: field.name,
      desc: field.desc,
      build: (setting) => {
        setting.addText((text) => {
          text.inputEl.type = 'number';
          text.setValue(String(valueAt(this.plugin.service.vault.settings, field.path)));
          text.inputEl.addEventListener('change', () => {
            const value = text.getValue().trim();
            const parsed = Number(value);
            if (value === '' || !Number.isFinite(parsed)) {
              this.refuse(text.inputEl, `${field.name}: ${JSON.stringify(value)} is not a number`, () => String(valueAt(this.plugin.service.vault.settings, field.path)));
              return;
            }
            void this.save(field.path, parsed, false, text.inputEl);
          });
        });
      },
    };
  }

  /** A text field saved when committed (as `number`). */
  private text(setting: Setting, path: string[], current: string): void {
    setting.addText((text) => {
      text.setValue(current);
      text.inputEl.addEventListener('change', () => void this.save(path, text.getValue().trim(), false, text.inputEl));
    });
  }

  private refuse(input: HTMLInputElement, message: string, saved: () => string): void {
    new Notice(`Engram: ${message}`);
    input.value = saved();
    input.addClass('engram-invalid');
  }

  private async save(path: string[], value: unknown, redraw = false, input?: HTMLInputElement): Promise<void> {
    const before = valueAt(this.plugin.service.vault.settings, path);
    if (before === value) {
      input?.removeClass('engram-invalid');
      return;
    }
    try {
      await this.plugin.service.setSetting(path, value);
      input?.removeClass('engram-invalid');
      if (redraw) this.redraw();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (input) this.refuse(input, message, () => String(valueAt(this.plugin.service.vault.settings, path)));
      else new Notice(`Engram: ${message}`);
    }
  }

  /** Show the settings again (the config file or data.json changed outside). */
  refresh(): void {
    this.redraw();
  }
}
