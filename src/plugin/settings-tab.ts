import { App, Notice, PluginSettingTab, Setting } from 'obsidian';
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

/**
 * The settings tab. The memory model's settings are written to `.engram/config.json` in the
 * memory folder (the runner reads the same file), each validated before it is saved; the
 * plugin's own (folder, touch on open) to the plugin's data.
 */
export class EngramSettingTab extends PluginSettingTab {
  constructor(
    app: App,
    private readonly plugin: EngramPlugin,
  ) {
    super(app, plugin);
  }

  display(): void {
    const { containerEl } = this;
    containerEl.empty();
    const service = this.plugin.service;
    const settings = service.vault.settings;
    if (service.settingsProblem) containerEl.createEl('p', { cls: 'mod-warning', text: `${service.settingsProblem}: defaults are in use until it is fixed.` });

    new Setting(containerEl)
      .setName('Memory folder')
      .setDesc('The folder of this vault that holds the memories (empty: the whole vault).')
      .addText((text) => {
        text.setValue(this.plugin.settings.folder);
        // committed on leaving the field or Enter: each keystroke would point at another folder
        text.inputEl.addEventListener('change', () => void this.plugin.setFolder(text.getValue().trim().replace(/^\/+|\/+$/g, '')));
      });
    new Setting(containerEl)
      .setName('Touch on open')
      .setDesc('Opening a memory promotes its tier, counts the access and links it to the memories opened with it.')
      .addToggle((toggle) =>
        toggle.setValue(this.plugin.settings.touchOnOpen).onChange(async (value) => {
          this.plugin.settings.touchOnOpen = value;
          await this.plugin.saveSettings();
        }),
      );
    this.number(containerEl, { path: ['coAccessWindowMinutes'], name: 'Co-access window (minutes)', desc: 'Memories opened within this time of each other are linked.' }, settings);
    this.number(containerEl, { path: ['tokenBudget'], name: 'Token budget', desc: 'The size of the agent memory block, in tokens.' }, settings);

    new Setting(containerEl).setName('Decay').setHeading();
    for (const field of DECAY) this.number(containerEl, field, settings);
    new Setting(containerEl).setName('Activation').setHeading();
    for (const field of BOOSTS) this.number(containerEl, field, settings);
    new Setting(containerEl).setName('Thresholds').setHeading();
    for (const field of THRESHOLDS) this.number(containerEl, field, settings);
    new Setting(containerEl).setName('Tiers').setHeading();
    for (const field of TIERS) this.number(containerEl, field, settings);

    new Setting(containerEl).setName('Embeddings').setHeading();
    new Setting(containerEl)
      .setName('Embedder')
      .setDesc('None: word matching only. Transformers: a local model, run in a worker. HTTP: an embedding server.')
      .addDropdown((dropdown) =>
        dropdown
          .addOptions({ none: 'None', transformers: 'Transformers (local)', http: 'HTTP server' })
          .setValue(settings.embedder.kind)
          .onChange((value) => void this.save(['embedder', 'kind'], value, true)),
      );
    if (settings.embedder.kind !== 'none') {
      this.text(new Setting(containerEl).setName('Model').setDesc('The model name, as the embedder knows it.'), ['embedder', 'model'], settings.embedder.model);
    }
    if (settings.embedder.kind === 'transformers') {
      new Setting(containerEl)
        .setName('Allow downloading the model')
        .setDesc('Off: the model must already be in the memory folder under .engram/models/. On: it is downloaded once.')
        .addToggle((toggle) =>
          toggle.setValue(settings.embedder.allowRemoteModels).onChange((value) => {
            if (!value) {
              void this.save(['embedder', 'allowRemoteModels'], false);
              return;
            }
            toggle.setValue(false);
            new ConfirmModal(
              this.app,
              'Download an embedding model?',
              `${settings.embedder.model} will be downloaded from huggingface.co (tens of megabytes) the next time memories are embedded. Nothing else leaves this device.`,
              'Allow download',
              () => void this.save(['embedder', 'allowRemoteModels'], true, true),
            ).open();
          }),
        );
    }
    if (settings.embedder.kind === 'http') {
      this.text(new Setting(containerEl).setName('Server address'), ['embedder', 'url'], settings.embedder.url);
      new Setting(containerEl).setName('Server type').addDropdown((dropdown) =>
        dropdown
          .addOptions({ ollama: 'Ollama', openai: 'OpenAI-compatible' })
          .setValue(settings.embedder.api)
          .onChange((value) => void this.save(['embedder', 'api'], value)),
      );
    }
  }

  /**
   * A number field, saved when it is committed (the input's `change` event: on leaving the field
   * or pressing Enter), not on every keystroke: typing 30 would otherwise save 3 first, which
   * cron may read. A refused value is named in a notice and the field goes back to the saved one.
   */
  private number(container: HTMLElement, field: NumberField, settings: EngramSettings): void {
    new Setting(container)
      .setName(field.name)
      .setDesc(field.desc)
      .addText((text) => {
        text.inputEl.type = 'number';
        const saved = String(valueAt(settings, field.path));
        text.setValue(saved);
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
      if (redraw) this.display();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (input) this.refuse(input, message, () => String(valueAt(this.plugin.service.vault.settings, path)));
      else new Notice(`Engram: ${message}`);
    }
  }

  /** Show the settings again if the tab is on screen (the config file changed outside). */
  refresh(): void {
    if (this.containerEl.isConnected) this.display();
  }
}
