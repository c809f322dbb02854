import { App, Modal, Setting, SuggestModal } from 'obsidian';
import type { ConsolidationReport } from '../core/consolidation/consolidate';
import type { Memory } from '../core/memory';
import type { RecallEngine } from '../core/recall/recall';
import { hydrate, toResult, type RecallResult } from '../core/recall/results';
import { memoryStrength } from '../core/decay';
import { currentTier } from '../core/tiers';
import type { Vault } from '../core/vault';

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/** Recall: ranked memories as the user types, with scores and, when asked, the explanation. */
export class RecallModal extends SuggestModal<RecallResult> {
  private explain = false;

  constructor(
    app: App,
    private readonly vault: Vault,
    private readonly engine: RecallEngine,
    private readonly choose: (result: RecallResult) => void,
  ) {
    super(app);
    this.setPlaceholder('Recall memories...');
    this.setInstructions([
      { command: '↵', purpose: 'open (a touch)' },
      { command: '?', purpose: 'end the query with ? to explain the scores' },
    ]);
  }

  async getSuggestions(query: string): Promise<RecallResult[]> {
    this.explain = query.trimEnd().endsWith('?');
    const text = query.replace(/\?\s*$/, '').trim();
    if (text === '') return [];
    // plain recall: widens beyond the default radius by itself, like the runner without --radius
    const hits = this.engine.recall(text, { limit: 20 }, this.vault.now());
    return (await hydrate(this.vault, hits)).map((h) => toResult(h, this.explain));
  }

  renderSuggestion(result: RecallResult, el: HTMLElement): void {
    el.addClass('engram-recall-item');
    el.createDiv({ cls: 'engram-recall-text', text: firstLine(result.text) });
    el.createDiv({ cls: 'engram-recall-meta', text: `${result.score.toFixed(3)} · ${result.category} · ${result.tier} · ${result.confidence} · ${result.id}` });
    if (this.explain && result.explain) {
      el.createDiv({
        cls: 'engram-recall-explain',
        text: Object.entries(result.explain)
          .map(([k, v]) => `${k} ${typeof v === 'number' ? v.toFixed(3) : JSON.stringify(v)}`)
          .join(' · '),
      });
    }
  }

  onChooseSuggestion(result: RecallResult): void {
    this.choose(result);
  }
}

/** Creative recall: cards drawn at random, favouring forgotten memories; each opens its note. */
export class CreativeModal extends Modal {
  constructor(
    app: App,
    private readonly vault: Vault,
    private readonly cards: Memory[],
    private readonly openPath: (path: string) => void,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle('Creative recall');
    this.contentEl.addClass('engram-creative');
    if (this.cards.length === 0) {
      this.contentEl.createEl('p', { text: 'No memories to draw from yet.' });
      return;
    }
    const now = this.vault.now();
    for (const memory of this.cards) {
      const card = this.contentEl.createDiv({ cls: 'engram-card' });
      const tier = currentTier(memory, now, this.vault.settings);
      card.createDiv({ cls: `engram-card-meta engram-tier-${tier}`, text: `${memory.category} · ${tier} · strength ${memoryStrength(memory, now, this.vault.settings).toFixed(2)}` });
      card.createDiv({ cls: 'engram-card-text', text: firstLine(memory.body) });
      new Setting(card).addButton((b) =>
        b.setButtonText('Open').setTooltip(`Open: ${firstLine(memory.body)}`).onClick(() => {
          this.close();
          this.openPath(memory.path);
        }),
      );
    }
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

const STEP_LABEL: Record<string, string> = {
  copies: 'sync-conflict copies merged',
  links: 'links repaired (renamed notes)',
  prune: 'pruned (moved to archive/)',
  git: 'downgraded → stale',
  embed: 'embedded',
  cluster: 'clusters → semantic memories',
  strengthen: 'strengthened',
  conflicts: 'conflicts resolved',
  tiers: 'tiers demoted',
  log: 'logged to .engram/runs.jsonl',
};

/**
 * A step's note as the person in Obsidian reads it: the code check needs a project repository,
 * which only the command line is given (`--repo`); here that is said without a command-line flag.
 */
function noteFor(step: string, note: string): string {
  return step === 'git' && note.includes('--repo') ? 'no code repository checked: checking memories against code is done by the engram command line' : note;
}

/** The consolidation report, one line per step with its count and time. */
export class ReportModal extends Modal {
  constructor(
    app: App,
    private readonly report: ConsolidationReport,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle(this.report.dry_run ? 'Consolidation plan (dry run)' : 'Consolidation');
    const list = this.contentEl.createEl('ul', { cls: 'engram-report' });
    for (const step of this.report.steps) {
      const total = step.total !== undefined ? `/${step.total}` : '';
      const note = step.note ? ` (${noteFor(step.step, step.note)})` : '';
      list.createEl('li', { text: `${step.count}${total} ${STEP_LABEL[step.step] ?? step.step}${note} · ${Math.round(step.ms)} ms` });
    }
    this.contentEl.createEl('p', { text: `Complete in ${(this.report.duration_ms / 1000).toFixed(1)} s.` });
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}

/** Ask before anything is downloaded (an embedding model from Hugging Face). */
export class ConfirmModal extends Modal {
  constructor(
    app: App,
    private readonly title: string,
    private readonly message: string,
    private readonly action: string,
    private readonly onConfirm: () => void,
    private readonly onCancel: () => void = () => undefined,
  ) {
    super(app);
  }

  private answered = false;

  override onOpen(): void {
    this.setTitle(this.title);
    this.contentEl.createEl('p', { text: this.message });
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText('Cancel').onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText(this.action)
          .setCta()
          .onClick(() => {
            this.answered = true;
            this.close();
            this.onConfirm();
          }),
      );
  }

  override onClose(): void {
    this.contentEl.empty();
    if (!this.answered) this.onCancel();
  }
}
