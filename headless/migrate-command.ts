import { readdirSync } from 'node:fs';
import * as nodePath from 'node:path';
import { migrateNames, type MigrationReport } from '../src/core/link-repair';
import type { Command } from './command';
import { NodeFileStore } from './fs-files';
import { obsidianVaultAround, openVault } from './runtime';

/**
 * `engram migrate [--apply]` (issue 21, ADR 0005): a vault whose memories are named by their ids
 * (`mem-….md`) gets readable file names, and every link follows. A dry run unless --apply;
 * running it again changes nothing.
 *
 * The person's own notes count too: when the memory folder sits inside an Obsidian vault (its
 * nearest ancestor folder with `.obsidian/`, as the plugin's `memory` folder does), every note
 * of that vault outside the memory folder (dot-folders skipped) has its `[[mem-…]]` links
 * pointed at the new names, as Obsidian would when it renames a file itself; only the link
 * target changes. A memory folder that is its own vault (its own `.obsidian/`, no ancestor
 * vault) has no notes outside. New names are unique in the whole Obsidian vault.
 */
function formatMigration(report: MigrationReport, vaultName: string | null): string {
  const verb = report.applied ? 'renamed' : 'would rename';
  const lines = report.renamed.map((r) => `  ${r.from} -> ${r.to}`);
  const notes = new Set(report.links.rewritten.map((r) => r.path)).size;
  const head = report.renamed.length === 0 && report.links.rewritten.length === 0 && report.links.recorded.length === 0 && (report.outside?.rewritten.length ?? 0) === 0
    ? 'nothing to migrate: every memory has a readable name and every link resolves'
    : `${verb} ${report.renamed.length} ${report.renamed.length === 1 ? 'memory' : 'memories'}; ${report.applied ? 'pointed' : 'would point'} ${report.links.rewritten.length} links in ${notes} notes at the new names; ${report.applied ? 'recorded' : 'would record'} link ids in ${report.links.recorded.length} memories`;
  const skipped = report.links.skipped.map((s) => `  skipped ${s.path}: ${s.reason}`);
  const outside = report.outside;
  const yours = outside && (outside.rewritten.length > 0 || outside.skipped.length > 0)
    ? [
        `${report.applied ? 'pointed' : 'would point'} ${outside.rewritten.length} links in ${new Set(outside.rewritten.map((r) => r.path)).size} of your notes in the Obsidian vault ${vaultName ?? ''} at the new names:`,
        ...[...new Set(outside.rewritten.map((r) => r.path))].map((p) => `  ${p}`),
        ...outside.skipped.map((s) => `  skipped ${s.path}: ${s.reason}`),
      ]
    : [];
  const pending = report.renamed.length > 0 || report.links.rewritten.length > 0 || (outside?.rewritten.length ?? 0) > 0;
  const tail = report.applied || !pending ? [] : ['dry run: nothing written; engram migrate --apply does it'];
  return [head, ...lines, ...skipped, ...yours, ...tail].join('\n');
}

/** The `.md` notes of an Obsidian vault outside its memory folder, sorted (dot-folders and symlinked folders left out). */
function notesOutside(obsidian: string, memoryFolder: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(nodePath.join(obsidian, rel), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && path !== memoryFolder) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) out.push(path);
    }
  };
  walk('');
  return out.sort();
}

export const MIGRATE_COMMANDS: Record<string, Command> = {
  migrate: {
    group: 'maintain',
    summary: 'give memories named by id (mem-….md) readable file names; links follow (dry run unless --apply)',
    details:
      'Each memory whose file is named by its id gets its title for a name, in the same folder (unique, safe on\n' +
      'Windows, macOS and Linux); every wikilink to it in memories, conflict and review notes is rewritten to\n' +
      'the new name, and the ids links point to are recorded in the frontmatter (link_ids). Ids never change.\n' +
      'When the memory folder sits inside an Obsidian vault (the nearest folder above it with .obsidian/), your\n' +
      'notes elsewhere in that vault have their [[mem-…]] links pointed at the new names too (only the link\n' +
      'target changes; headings and aliases stay), and new names are unique in the whole vault. Idempotent.\n' +
      'json: {"applied", "renamed": [{"id", "from", "to"}], "links": {"rewritten", "recorded", "written", "skipped"},\n' +
      '"outside": null or {"rewritten", "recorded", "written", "skipped"} (paths relative to the Obsidian vault)}',
    options: { apply: { type: 'boolean', help: 'rename and rewrite (without it: only say what would change)' } },
    async run(context) {
      const { vault, root } = openVault(context.runtime);
      const obsidian = obsidianVaultAround(root);
      const memoryFolder = obsidian ? nodePath.relative(obsidian, root).split(nodePath.sep).join('/') : '';
      const around = obsidian ? { files: new NodeFileStore(obsidian), memoryFolder, notes: notesOutside(obsidian, memoryFolder) } : null;
      const report = await migrateNames(vault, { apply: Boolean(context.options.apply), around });
      context.io.stdout(context.json ? `${JSON.stringify(report)}\n` : `${formatMigration(report, obsidian)}\n`);
      return report.links.skipped.length === 0 && (report.outside?.skipped.length ?? 0) === 0 ? 0 : 1;
    },
  },
};
