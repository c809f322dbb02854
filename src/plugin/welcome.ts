import { Modal, Setting, type App } from 'obsidian';
import type { PinnedFile } from './downloads';
import { embeddingRuntime } from './runtime';
import { CL100K } from './token-table';

/** The embedding model's files as transformers.js fetches them (quantized ONNX, tokenizer, configs). */
export const MODEL_DOWNLOAD = { host: 'huggingface.co', megabytes: 23 };

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

function hostOf(file: PinnedFile): string {
  return /^https?:\/\/([^/]+)/.exec(file.url)?.[1] ?? file.url;
}

/** What the first-run view says Engram downloads, and when: each line names the size and the host. */
export function downloadLines(): string[] {
  const runtime = embeddingRuntime();
  const lines = [`The token table (${mb(CL100K.bytes)}, from ${hostOf(CL100K)}), the first time you insert the agent memory block, to count tokens.`];
  if (runtime) {
    lines.push(
      `Only if you switch on embeddings in this app: the embedding runtime (${mb(runtime.wasmSimd.bytes)} of WebAssembly, from ${hostOf(runtime.wasmSimd)}) and the model (about ${MODEL_DOWNLOAD.megabytes} MB, from ${MODEL_DOWNLOAD.host}), after one confirmation that shows both.`,
    );
  }
  lines.push('Each download is asked for first, pinned to one address and checked against its SHA-256. Nothing else is sent or received.');
  return lines;
}

/**
 * The first-run view: what Engram does, what it writes into notes and when, and what it
 * downloads, before anything is written. Until the person creates the memory folder here (or
 * it arrives by sync or the command line), the plugin reads nothing and writes nothing.
 */
export class WelcomeModal extends Modal {
  constructor(
    app: App,
    private readonly folder: string,
    private readonly create: (folder: string) => Promise<void>,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle('Engram: memory for your AI agents');
    const el = this.contentEl;
    el.addClass('engram-welcome');
    el.createEl('p', {
      text: 'Engram keeps what your AI agents learn as notes in one folder of this vault. Memories you use stay strong; memories nobody opens fade to colder tiers and are archived, never deleted. Your own notes outside that folder are not read or changed.',
    });
    el.createEl('h3', { text: 'What it writes, and when' });
    const writes = el.createEl('ul');
    for (const line of [
      'Creating the folder adds the category folders (episodic, semantic, decisions, daily, archive), a STATE.md and a hidden .engram folder for settings, caches and version history.',
      'Opening a memory note counts as using it: a few seconds after you open it, its properties (tier, access count, last accessed) are updated. Its text is never changed.',
      'Memories that are no longer opened fade: their tier property is kept current in batches. When many would change at once, you are asked first.',
      'Commands you run (remember the selection, consolidate, embed) write memory notes in the folder; nothing happens in the background otherwise.',
      'A few of Engram\'s own properties get a type (numbers, dates) so the properties view shows them well; generic names such as source or tier are left as you have them.',
    ])
      writes.createEl('li', { text: line });
    el.createEl('h3', { text: 'What it downloads' });
    const downloads = el.createEl('ul');
    for (const line of downloadLines()) downloads.createEl('li', { text: line });
    let folder = this.folder;
    new Setting(el)
      .setName('Memory folder')
      .setDesc('A folder of this vault; it is created if it does not exist.')
      .addText((text) =>
        text.setValue(folder).onChange((value) => {
          folder = value.trim();
        }),
      );
    new Setting(el)
      .addButton((b) => b.setButtonText('Not now').onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText('Create the memory folder')
          .setCta()
          .onClick(() => {
            this.close();
            void this.create(folder);
          }),
      );
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
