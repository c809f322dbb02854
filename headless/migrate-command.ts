import { migrateNames, type MigrationReport } from '../src/core/link-repair';
import type { Command } from './command';
import { openVault } from './runtime';

/**
 * `engram migrate [--apply]` (issue 21, ADR 0005): a vault whose memories are named by their ids
 * (`mem-….md`) gets readable file names, and every link follows. A dry run unless --apply;
 * running it again changes nothing.
 */
function formatMigration(report: MigrationReport): string {
  const verb = report.applied ? 'renamed' : 'would rename';
  const lines = report.renamed.map((r) => `  ${r.from} -> ${r.to}`);
  const notes = new Set(report.links.rewritten.map((r) => r.path)).size;
  const head = report.renamed.length === 0 && report.links.rewritten.length === 0 && report.links.recorded.length === 0
    ? 'nothing to migrate: every memory has a readable name and every link resolves'
    : `${verb} ${report.renamed.length} ${report.renamed.length === 1 ? 'memory' : 'memories'}; ${report.applied ? 'pointed' : 'would point'} ${report.links.rewritten.length} links in ${notes} notes at the new names; ${report.applied ? 'recorded' : 'would record'} link ids in ${report.links.recorded.length} memories`;
  const skipped = report.links.skipped.map((s) => `  skipped ${s.path}: ${s.reason}`);
  const tail = report.applied || (report.renamed.length === 0 && report.links.rewritten.length === 0) ? [] : ['dry run: nothing written; engram migrate --apply does it'];
  return [head, ...lines, ...skipped, ...tail].join('\n');
}

export const MIGRATE_COMMANDS: Record<string, Command> = {
  migrate: {
    group: 'maintain',
    summary: 'give memories named by id (mem-….md) readable file names; links follow (dry run unless --apply)',
    details:
      'Each memory whose file is named by its id gets its title for a name, in the same folder (unique, safe on\n' +
      'Windows, macOS and Linux); every wikilink to it in memories, conflict and review notes is rewritten to\n' +
      'the new name, and the ids links point to are recorded in the frontmatter (link_ids). Ids never change.\n' +
      'Notes outside the memory folder that link to mem-… names are not seen: rename from Obsidian (the plugin)\n' +
      'to have Obsidian update them. Idempotent.\n' +
      'json: {"applied", "renamed": [{"id", "from", "to"}], "links": {"rewritten", "recorded", "written", "skipped"}}',
    options: { apply: { type: 'boolean', help: 'rename and rewrite (without it: only say what would change)' } },
    async run(context) {
      const { vault } = openVault(context.runtime);
      const report = await migrateNames(vault, { apply: Boolean(context.options.apply) });
      context.io.stdout(context.json ? `${JSON.stringify(report)}\n` : `${formatMigration(report)}\n`);
      return report.links.skipped.length === 0 ? 0 : 1;
    },
  },
};
