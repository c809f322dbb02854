import { MarkdownView, Modal, Notice, Setting, type App, type TFile } from 'obsidian';
import { applyProposal, rejectProposal, type Decided } from '../core/review';
import type EngramPlugin from './main';

/**
 * The review queue in Obsidian (SPEC §10): with a proposal note (`review/review-….md`) open,
 * "Apply this review proposal" writes its proposed text (as edited in the note) as a new
 * version of the memory, and "Reject this review proposal" asks why and keeps the text. Both
 * go through the core's review module, like `engram review apply|reject`.
 */
const PROPOSAL = /^review\/review-[a-z0-9]{12}\.md$/;

function describe(d: Decided): string {
  if (d.proposal.kind === 'flag') return d.proposal.status === 'applied' ? `${d.proposal.memory} is now stale` : `${d.proposal.memory} holds; flag lifted`;
  return d.proposal.status === 'applied' ? `version ${d.version ?? '?'} of ${d.proposal.memory} written` : `${d.proposal.memory} kept as it was`;
}

export function registerReviewCommands(plugin: EngramPlugin): void {
  const { app } = plugin;
  /** The open proposal note, when it is still open for a decision. */
  const activeProposal = (): { file: TFile; path: string } | null => {
    const file = app.workspace.getActiveViewOfType(MarkdownView)?.file ?? app.workspace.getActiveFile();
    const path = file ? plugin.service.files.relative(file.path) : null;
    if (!file || !path || !PROPOSAL.test(path)) return null;
    const status: unknown = app.metadataCache.getFileCache(file)?.frontmatter?.status;
    return status === undefined || status === 'open' ? { file, path } : null;
  };
  const fail = (error: unknown) => new Notice(`Engram: ${error instanceof Error ? error.message : String(error)}`);

  plugin.addCommand({
    id: 'review-apply',
    name: 'Apply this review proposal',
    checkCallback: (checking: boolean) => {
      const active = activeProposal();
      if (!active) return false;
      if (!checking) {
        applyProposal(plugin.service.vault, active.path, { by: 'obsidian' })
          .then((d) => new Notice(`Engram: applied ${d.proposal.id}: ${describe(d)}`))
          .catch(fail);
      }
      return true;
    },
  });

  plugin.addCommand({
    id: 'review-reject',
    name: 'Reject this review proposal',
    checkCallback: (checking: boolean) => {
      const active = activeProposal();
      if (!active) return false;
      if (!checking) {
        new RejectModal(app, (reason) => {
          rejectProposal(plugin.service.vault, active.path, { by: 'obsidian', reason })
            .then((d) => new Notice(`Engram: rejected ${d.proposal.id}: ${describe(d)}`))
            .catch(fail);
        }).open();
      }
      return true;
    },
  });
}

/** Asks why a proposal is rejected (the reason is recorded in the note). */
class RejectModal extends Modal {
  private reason = '';

  constructor(
    app: App,
    private readonly onReject: (reason: string) => void,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle('Reject this review proposal');
    new Setting(this.contentEl)
      .setName('Why')
      .setDesc('Recorded in the proposal note; the memory keeps its text.')
      .addText((t) => t.setPlaceholder('The memory still holds because...').onChange((value) => (this.reason = value)));
    new Setting(this.contentEl)
      .addButton((b) => b.setButtonText('Cancel').onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText('Reject')
          .setCta()
          .onClick(() => {
            this.close();
            this.onReject(this.reason.trim());
          }),
      );
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
