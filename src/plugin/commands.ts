import { Modal, Notice, Setting, type App, type Editor, type MarkdownFileInfo, type MarkdownView } from 'obsidian';
import { agentContext, formatAgentContext } from '../core/agent-context';
import { consolidate } from '../core/consolidation/consolidate';
import { refreshVectors } from '../core/embeddings/store';
import type { Memory } from '../core/memory';
import { drawIds } from './creative-draw';
import { noteName } from '../core/links';
import { remember } from '../core/remember';
import type { Confidence, Tier } from '../core/settings';
import { GRAPH_VIEW_TYPE } from './graph/graph-view';
import { RELATED_VIEW_TYPE } from './related-view';
import { installTierGroups, tierColours } from './graph-groups';
import type EngramPlugin from './main';
import { CreativeModal, RecallModal, ReportModal } from './modals';

function message(error: unknown): string {
  return `Engram: ${error instanceof Error ? error.message : String(error)}`;
}

/** Every command (no default hotkeys: the user chooses them). */
export function registerCommands(plugin: EngramPlugin): void {
  const { app } = plugin;
  const service = () => plugin.service;
  const run = (task: () => Promise<void>) => {
    task().catch((error: unknown) => new Notice(message(error)));
  };
  /**
   * Before the memory folder exists a command writes nothing: it says so and offers the
   * first-run view (a consolidation would otherwise create the folder behind the person's back).
   */
  const whenReady = (what: string, task: () => Promise<void>): void => {
    if (!plugin.ready) {
      new Notice(`Engram: ${what} needs the memory folder, which does not exist yet. Set up Engram first.`);
      plugin.showWelcome();
      return;
    }
    run(task);
  };

  plugin.addCommand({
    id: 'recall',
    name: 'Recall memories',
    callback: () =>
      whenReady('Recall', async () => {
        const { vault } = service();
        await plugin.index.load();
        new RecallModal(app, vault, plugin.index.engine(), (result) =>
          run(async () => {
            await plugin.openMemory(result.path);
            // opening is the touch; with touch on open switched off, choosing a result still is one
            if (!plugin.settings.touchOnOpen) plugin.touch?.noteOpened(result.path, result.id);
          }),
        ).open();
      }),
  });

  plugin.addCommand({
    id: 'creative-recall',
    name: 'Creative recall (random memories)',
    callback: () =>
      whenReady('Creative recall', async () => {
        const { vault } = service();
        // drawn from the warm index (no file is read but the cards'), with the core's draw
        await plugin.index.load();
        const cards: Memory[] = [];
        for (const id of drawIds([...plugin.index.all()], plugin.settings.creativeCount, vault.now(), Math.random, vault.settings)) {
          const path = plugin.index.get(id)?.path;
          const read = path ? await vault.read(path) : null;
          if (read) cards.push(read.memory);
        }
        new CreativeModal(app, vault, cards, (path) => void plugin.openMemory(path)).open();
      }),
  });

  plugin.addCommand({
    id: 'consolidate',
    name: 'Consolidate now',
    callback: () =>
      whenReady('Consolidation', async () => {
        const notice = new Notice('Engram: consolidating...', 0);
        try {
          const report = await consolidate(service().vault, {
            dryRun: false,
            embedder: await service().embedder(),
            holder: 'Obsidian (consolidate now)',
            elapsed: () => performance.now(),
            git: null,
            checkpoint: (point) => notice.setMessage(`Engram: consolidating (${point.replace(/-/g, ' ')})`),
          });
          new ReportModal(app, report).open();
        } finally {
          notice.hide();
        }
      }),
  });

  plugin.addCommand({
    id: 'remember-selection',
    name: 'Remember the selection as a memory',
    editorCallback: (editor: Editor, ctx: MarkdownView | MarkdownFileInfo) =>
      whenReady('Remembering', async () => {
        const text = editor.getSelection().trim();
        if (text === '') {
          new Notice('Engram: select the text to remember first');
          return;
        }
        const result = await remember(service().vault, { text, category: 'episodic', source: ctx.file?.path ?? null }, null, await service().embedder());
        // a person reads note names, not ids (ADR 0005): the new note is named after its first words
        const said = result.action === 'created' ? `remembered as ${noteName(result.path)}` : result.action === 'reinforced' ? `reinforced ${noteName(result.path)}` : `remembered as ${noteName(result.path)}, which conflicts with an existing memory (${result.conflict_path ? noteName(result.conflict_path) : result.conflict_with})`;
        new Notice(`Engram: ${said}`);
      }),
  });

  plugin.addCommand({
    id: 'insert-agent-memory',
    name: 'Insert the agent memory block',
    editorCallback: (editor: Editor) =>
      whenReady('The agent memory block', async () => {
        await service().tokenizer();
        const { vault } = service();
        await plugin.index.load();
        const context = await agentContext(vault, plugin.index.engine(), editor.getSelection().trim(), { budget: vault.settings.tokenBudget, peek: true });
        editor.replaceSelection(`${formatAgentContext(context)}\n`);
        // the memories inserted were used: touched as the runner's context does (the top ones
        // linked by co-access), through the quiet queue, so no open note is written under the cursor
        const top = context.included.slice(0, vault.settings.recall.coAccessTop);
        const at = vault.now();
        for (const id of context.included) plugin.deferred?.addUse(id, 'returned', at, top.includes(id) ? top.filter((o) => o !== id) : []);
        await plugin.deferred?.flush();
      }),
  });

  plugin.addCommand({
    id: 're-embed',
    name: 'Embed memories again',
    callback: () =>
      whenReady('Embedding', async () => {
        const embedder = await service().embedder();
        if (!embedder) {
          new Notice('Engram: no embedder is configured (settings → embeddings)');
          return;
        }
        const { vault } = service();
        try {
          plugin.status?.setJob('Engram: embedding...', () => service().cancelEmbedding());
          // the warm index knows each memory's text hash: only memories whose text changed are read
          await plugin.index.load();
          const report = await refreshVectors(vault, [...plugin.index.all()], embedder, {
            onProgress: (done, total) => plugin.status?.setJob(`Engram: embedding ${done}/${total} (click to cancel)`, () => service().cancelEmbedding()),
          });
          new Notice(`Engram: embedded ${report.embedded}, kept ${report.kept}, removed ${report.removed}`);
        } finally {
          plugin.status?.setJob(null);
        }
      }),
  });

  const mark = (id: string, name: string, fields: { confidence?: Confidence; tier?: Tier }) =>
    plugin.addCommand({
      id,
      name,
      checkCallback: (checking: boolean) => {
        const active = plugin.activeMemory();
        if (!active) return false;
        if (!checking) {
          run(async () => {
            await service().vault.update(active.id, () => ({ ...fields }));
          });
        }
        return true;
      },
    });
  mark('mark-verified', 'Mark this memory as verified', { confidence: 'verified' });
  mark('mark-stale', 'Mark this memory as stale', { confidence: 'stale' });
  mark('mark-core', 'Mark this memory as core (never decays out)', { tier: 'core' });

  plugin.addCommand({
    id: 'open-graph',
    name: 'Open the memory graph',
    callback: () =>
      whenReady('The memory graph', async () => {
        const existing = app.workspace.getLeavesOfType(GRAPH_VIEW_TYPE)[0];
        const leaf = existing ?? app.workspace.getLeaf('tab');
        if (!existing) await leaf.setViewState({ type: GRAPH_VIEW_TYPE, active: true });
        await app.workspace.revealLeaf(leaf);
      }),
  });

  plugin.addCommand({
    id: 'open-related',
    name: 'Open related memories (sidebar)',
    callback: () =>
      whenReady('The related memories sidebar', async () => {
        const existing = app.workspace.getLeavesOfType(RELATED_VIEW_TYPE)[0];
        const leaf = existing ?? app.workspace.getRightLeaf(false);
        if (!leaf) return;
        if (!existing) await leaf.setViewState({ type: RELATED_VIEW_TYPE, active: true });
        await app.workspace.revealLeaf(leaf);
      }),
  });

  plugin.addCommand({
    id: 'graph-colour-groups',
    name: 'Colour tiers in the graph view',
    callback: () => new ColourGroupsModal(app).open(),
  });

  plugin.addCommand({
    id: 'initialise',
    name: 'Set up: create the memory folder',
    callback: () => {
      if (!plugin.ready) {
        plugin.showWelcome();
        return;
      }
      run(async () => {
        const created = await service().vault.init({ obsidianConfigDir: null });
        new Notice(created.length > 0 ? `Engram: created ${created.join(', ')}` : 'Engram: the memory folder is ready');
      });
    },
  });
}

/** Explains the tier colour groups for Obsidian's own graph view, and installs them first. */
class ColourGroupsModal extends Modal {
  constructor(app: App) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle('Tier colours in the graph view');
    this.contentEl.createEl('p', { text: 'Obsidian\'s graph view colours notes by search queries. Every memory has a tier property, kept current, so one group per tier shows decay at a glance, in the colours of the memory graph:' });
    const list = this.contentEl.createEl('ul');
    const colours = tierColours(this.contentEl.ownerDocument);
    for (const [tier, rgb] of Object.entries(colours)) {
      const item = list.createEl('li');
      item.createSpan({ cls: 'engram-graph-swatch' }).style.setProperty('--engram-swatch', `#${rgb.toString(16).padStart(6, '0')}`);
      item.appendText(` [tier:${tier}]`);
    }
    this.contentEl.createEl('p', { text: 'They go before your own groups (the first group that matches a note colours it); your groups are kept, in their order.' });
    new Setting(this.contentEl).addButton((b) =>
      b
        .setButtonText('Add the groups')
        .setCta()
        .onClick(() => {
          void this.addGroups(colours);
        }),
    );
  }

  private async addGroups(colours: ReturnType<typeof tierColours>): Promise<void> {
    try {
      const how = await installTierGroups(this.app, colours);
      new Notice(how === 'live' ? 'Engram: the tier groups are in the graph view' : 'Engram: the tier groups are saved; the graph view shows them when it starts');
      this.close();
    } catch (error) {
      new Notice(message(error));
    }
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
