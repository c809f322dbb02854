import { useMemories, type UseOptions, type UseResult } from '../src/core/touch';
import type { Vault } from '../src/core/vault';
import type { Command } from './command';
import { print, resolveIds } from './command-kit';
import { openVault } from './runtime';
import { changesBefore, noteChange } from './recall-changes';

/**
 * touch and cite: memories used together. Apart from the other commands (headless/commands.ts)
 * because `touch` is also built alone (dist/engram-touch.js, headless/bundles.ts): what this
 * file imports is what a touch loads.
 */

function formatUse(results: UseResult[]): string {
  return results
    .map((r) => {
      const tier = r.tier_before === r.tier ? r.tier : `${r.tier_before} -> ${r.tier}`;
      const spread = Object.keys(r.spread).length > 0 ? `  spread to ${Object.keys(r.spread).length}` : '';
      const due = r.due_for_validation ? '  due for validation' : '';
      const back = r.revived_from ? `  back out of archive/ (${r.path})` : '';
      return `${r.id}  ${tier}  access_count ${r.access_count}  activation ${r.activation}${spread}${due}${back}`;
    })
    .join('\n');
}

/** touch and cite: memories used together, reinforced the way `use` says; `then`: what else the command does with them, before it prints. */
export function useCommand(name: string, summary: string, details: string, use: UseOptions, then?: (vault: Vault, ids: string[]) => Promise<void>): Command {
  return {
    group: 'use',
    args: 'ID|PATH ...',
    arity: [1, Infinity],
    summary,
    details,
    options: {},
    async run(context) {
      const runtime = openVault(context.runtime);
      const ids = await resolveIds(runtime, context, name);
      const before = changesBefore(runtime.root);
      const results = await useMemories(runtime.vault, ids, use);
      await then?.(runtime.vault, ids);
      noteChange(runtime.root, before, ids.length);
      return print(context, results, () => formatUse(results));
    },
  };
}

export const touchCommand: Command = useCommand(
  'touch',
  'the touch protocol: one tier up, access counted, read boost',
  'archive -> cold -> warm -> active (core never changes), access_count + 1, last_accessed_at = now,\n' +
    'read boost 0.25 to activation, spread to linked memories; memories touched in one call get\n' +
    'co_access += 1 on both sides.\n' +
    'json: [{"id", "path", "tier_before", "tier", "access_count", "activation", "due_for_validation", "spread"}]',
  { use: 'read', touch: true, coAccess: true },
);
