import { LIST_SORTS, forgetMemory, type ForgetResult, type PurgeResult, listMemories, markMemories, purgeMemory, restoreMemory, type ListEntry, type ListFilter, type ListSort, type MarkChange } from '../src/core/curation';
import { UsageError } from '../src/core/errors';
import { CATEGORIES, CONFIDENCES, TIERS, type Category, type Confidence, type Tier } from '../src/core/settings';
import { MS_PER_DAY, parseTimestamp } from '../src/core/time';
import { useMemories } from '../src/core/touch';
import { editText, memoryHistory, revertTo, versionOf, type MemoryVersion } from '../src/core/versions';
import type { Command, CommandContext } from './command';
import { ARGUMENT_RANGES, wholeNumberIn } from '../src/core/arguments';
import { memoryRef, oneOf, print, resolveIds, textArgument, warnUnreadable } from './command-kit';
import { openVault, type Runtime } from './runtime';

/** Curation from the command line (issue 13): mark, forget, edit, history, revert, list. */

const CONFIDENCE_FLAGS = ['verified', 'observed', 'inferred', 'stale'] as const;

async function oneId(runtime: Runtime, context: CommandContext): Promise<string> {
  return (await runtime.vault.resolve(memoryRef(runtime, context.io.cwd, context.args[0]!))).id;
}

/** `--since 2026-11-01`, `--since 2026-11-01T10:00:00Z`, or `--since 7d` (days before now). */
export function parseWhen(value: unknown, label: string, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const days = /^(\d+(?:\.\d+)?)d$/.exec(text);
  if (days) return now - Number(days[1]) * MS_PER_DAY;
  const ms = parseTimestamp(text);
  if (ms === null) throw new UsageError(`${label}: expected a date (2026-11-01), a date-time (2026-11-01T10:00:00Z) or days ago (7d), got ${JSON.stringify(text)}`);
  return ms;
}

function preview(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

function formatTable(entries: ListEntry[]): string {
  if (entries.length === 0) return 'no memories match';
  const header = ['ID', 'CATEGORY', 'TIER NOW', 'CONFIDENCE', 'STRENGTH', 'CREATED', 'TEXT'];
  const rows = entries.map((e) => [e.id, e.category, e.tier, `${e.confidence}${e.in_conflict ? '!' : ''}`, e.strength.toFixed(2), e.created_at.slice(0, 10), preview(e.text, 60)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  const conflicted = entries.some((e) => e.in_conflict);
  return [line(header), ...rows.map(line), `${entries.length} ${entries.length === 1 ? 'memory' : 'memories'}${conflicted ? ' (! in an open conflict)' : ''}`].join('\n');
}

function formatHistory(id: string, versions: MemoryVersion[]): string {
  return [
    `${id}: ${versions.length} ${versions.length === 1 ? 'version' : 'versions'} (engram history ${id} N shows one; engram revert ${id} N restores it)`,
    ...versions.map((v) =>
      v.damaged
        ? `  ${String(v.n).padStart(3)}  DAMAGED RECORD: ${v.damaged}`
        : `  ${String(v.n).padStart(3)}  ${v.at}  ${v.reason}${v.by ? ` (${v.by})` : ''}${v.recorded ? '' : ' [current, not yet recorded]'}\n       ${preview(v.body, 90)}`,
    ),
  ].join('\n');
}

export const CURATION_COMMANDS: Record<string, Command> = {
  mark: {
    group: 'curate',
    args: 'ID|PATH ...',
    arity: [1, Infinity],
    summary: 'set confidence (verified, observed, inferred, stale) or core status',
    details:
      'A confidence flag and/or --core / --no-core. Core memories never decay and stay in the default\n' +
      'radius; --no-core returns one to the tier its strength implies. Stale memories are never\n' +
      'injected into a context. Marking is not a touch.\n' +
      'json: [{"id", "path", "confidence_before", "confidence", "tier_before", "tier", "changed"}]',
    options: {
      verified: { type: 'boolean', help: 'checked and true (weight 1.0)' },
      observed: { type: 'boolean', help: 'seen to happen (weight 0.7)' },
      inferred: { type: 'boolean', help: 'concluded, not seen (weight 0.4)' },
      stale: { type: 'boolean', help: 'no longer true: kept, never injected (weight 0.1)' },
      core: { type: 'boolean', help: 'always present: never decays' },
      'no-core': { type: 'boolean', help: 'back to the tier its strength implies' },
      'not-superseded': { type: 'boolean', help: 'undo a supersession: clear superseded_by (ranked and injected again)' },
    },
    async run(context) {
      const o = context.options;
      const confidences = CONFIDENCE_FLAGS.filter((c) => o[c]);
      if (confidences.length > 1) throw new UsageError(`mark: one confidence at a time, got --${confidences.join(' --')}`);
      if (o.core && o['no-core']) throw new UsageError('mark: --core or --no-core, not both');
      const change: MarkChange = {};
      if (confidences[0]) change.confidence = confidences[0];
      if (o.core) change.core = true;
      if (o['no-core']) change.core = false;
      if (o['not-superseded']) change.superseded = false;
      if (change.confidence === undefined && change.core === undefined && change.superseded === undefined) {
        throw new UsageError('mark: say what to mark: --verified, --observed, --inferred, --stale, --core, --no-core or --not-superseded');
      }
      const runtime = openVault(context.runtime);
      const ids = await resolveIds(runtime, context, 'mark');
      const results = await markMemories(runtime.vault, ids, change);
      return print(context, results, () =>
        results
          .map((r) => {
            if (!r.changed) return `${r.id}  unchanged (${r.confidence}, ${r.tier})`;
            const parts = [];
            if (r.confidence !== r.confidence_before) parts.push(`${r.confidence_before} -> ${r.confidence}`);
            if (r.tier !== r.tier_before) parts.push(`${r.tier_before} -> ${r.tier}`);
            if (r.superseded_by_before) parts.push(`superseded by ${r.superseded_by_before} -> not superseded`);
            return `${r.id}  ${parts.join(', ')}`;
          })
          .join('\n'),
      );
    },
  },

  forget: {
    group: 'curate',
    args: 'ID|PATH ...',
    arity: [1, Infinity],
    summary: 'take memories out of recall, recoverably (--purge: remove every trace)',
    details:
      'A forgotten memory moves to .engram/forgotten/ (hidden from Obsidian, out of recall,\n' +
      'consolidation and stats) and comes back with --undo. --purge deletes it instead, with its\n' +
      'recorded versions, its vector, conflict notes it is a side of, and every other memory\'s\n' +
      'co_access entry and links to it. Files that still hold a piece of its text (a long token such\n' +
      'as a key, or a whole sentence: a daily log, a semantic memory, a review note) are listed with\n' +
      'the piece found, not rewritten: edit them by hand (a vault kept in git still has it in its history).\n' +
      'json: [{"id", "from", "to"}]; with --purge [{"id", "removed", "unlinked", "vectors_removed", "also_contains", "also_contains_fragments"}]',
    options: {
      undo: { type: 'boolean', help: 'bring forgotten memories back' },
      purge: { type: 'boolean', help: 'delete every trace (a pasted secret); cannot be undone' },
    },
    async run(context) {
      const { undo, purge } = context.options;
      if (undo && purge) throw new UsageError('forget: --undo or --purge, not both');
      const runtime = openVault(context.runtime);
      const { vault } = runtime;
      const ids: string[] = [];
      for (const ref of context.args) {
        // a forgotten memory is not in the vault's folders: take its id as given
        ids.push(/^mem-[a-z0-9]{12}$/.test(ref) && (undo || purge) ? ref : (await vault.resolve(memoryRef(runtime, context.io.cwd, ref))).id);
      }
      if (purge) {
        const results: PurgeResult[] = [];
        for (const id of ids) results.push(await purgeMemory(vault, id));
        return print(context, results, () =>
          results
            .map((r) =>
              [
                `purged ${r.id}: removed ${r.removed.join(', ')}${r.vectors_removed ? ', its vector' : ''}`,
                ...(r.unlinked.length ? [`  unlinked from ${r.unlinked.join(', ')}`] : []),
                ...(r.also_contains.length
                  ? [
                      `  ${r.also_contains.length === 1 ? 'this file still contains' : `these ${r.also_contains.length} files still contain`} pieces of its text (not rewritten: edit them by hand, or they keep it):`,
                      ...r.also_contains.map((p) => `    ${p}: ${(r.also_contains_fragments[p] ?? []).map((f) => JSON.stringify(f.length > 60 ? `${f.slice(0, 59)}…` : f)).join(', ')}`),
                    ]
                  : ['  no other file holds a long token or a sentence of its text (memories, forgotten ones, versions, daily logs, conflict and review notes, STATE.md)']),
              ].join('\n'),
            )
            .join('\n'),
        );
      }
      const results: ForgetResult[] = [];
      for (const id of ids) results.push(undo ? await restoreMemory(vault, id) : await forgetMemory(vault, id));
      return print(context, results, () => results.map((r) => (undo ? `restored ${r.id} to ${r.to}` : `forgot ${r.id} (engram forget --undo ${r.id} brings it back)`)).join('\n'));
    },
  },

  edit: {
    group: 'curate',
    args: 'ID|PATH [TEXT | -]',
    arity: [1, Infinity],
    takesText: true,
    summary: 'a new version of the text (the old one stays in history; links kept)',
    details:
      'Replaces the text of a memory; its link line ([[mem-…|related]] …) is kept, and so are its id\n' +
      'and every link to it. The previous text is recorded as a version (engram history ID) and can be\n' +
      'restored (engram revert ID N). An edit is a touch (SPEC §4: the memory was updated).\n' +
      'json: {"id", "path", "version", "changed"}',
    options: {
      role: { type: 'string', value: 'R', help: 'who made the change (recorded with the version)' },
      reason: { type: 'string', value: 'TEXT', help: 'why (recorded with the version; default "edit")' },
    },
    async run(context) {
      const runtime = openVault(context.runtime);
      const id = await oneId(runtime, context);
      const text = textArgument({ ...context, args: context.args.slice(1) }, 'edit');
      const result = await editText(runtime.vault, id, text, { reason: (context.options.reason as string | undefined) ?? 'edit', by: (context.options.role as string | undefined) ?? null });
      if (result.changed) await useMemories(runtime.vault, [id], { use: 'read', touch: true, coAccess: false });
      return print(context, result, () => (result.changed ? `${id} is now version ${result.version}  ${result.path}` : `${id} unchanged (already this text, version ${result.version})`));
    },
  },

  history: {
    group: 'curate',
    args: 'ID|PATH [N]',
    arity: [1, 2],
    summary: "a memory's versions, oldest first; with N, version N's text exactly",
    details:
      'A version whose record cannot be read is listed in its place as DAMAGED RECORD with its path\n' +
      '(its number kept), named on stderr, and the exit status is 1; engram doctor reports it too.\n' +
      'json: [{"n", "at", "hash", "reason", "by", "body", "recorded", "damaged"?}]; with N, that one version',
    options: {},
    async run(context) {
      const runtime = openVault(context.runtime);
      const id = await oneId(runtime, context);
      const versions = await memoryHistory(runtime.vault, id);
      if (context.args[1] !== undefined) {
        const n = wholeNumberIn(context.args[1], ARGUMENT_RANGES.version, 'history N');
        const version = versionOf(versions, id, n, 'history');
        if (context.json) return print(context, version, () => '');
        context.io.stdout(version.body);
        return 0;
      }
      print(context, versions, () => formatHistory(id, versions));
      // a damaged record is listed in its place and heard of: exit 1, its path on stderr
      const damaged = versions.filter((v) => v.damaged);
      for (const v of damaged) context.io.stderr(`engram: history: version ${v.n} of ${id} cannot be read: ${v.damaged}\n`);
      return damaged.length > 0 ? 1 : 0;
    },
  },

  revert: {
    group: 'curate',
    args: 'ID|PATH N',
    arity: [2, 2],
    summary: 'restore version N of a memory, as a new version',
    details:
      "Version N's text comes back byte for byte, as a new version (nothing is erased from the history);\n" +
      'links to memories that no longer exist are left out and listed.\n' +
      'json: {"id", "path", "version", "changed", "reverted_to", "dropped_links"}',
    options: { role: { type: 'string', value: 'R', help: 'who made the change (recorded with the version)' } },
    async run(context) {
      const runtime = openVault(context.runtime);
      const id = await oneId(runtime, context);
      const n = wholeNumberIn(context.args[1]!, ARGUMENT_RANGES.version, 'revert N');
      const result = await revertTo(runtime.vault, id, n, { by: (context.options.role as string | undefined) ?? null });
      return print(context, result, () =>
        result.changed
          ? `${id}: version ${n} restored as version ${result.version}${result.dropped_links.length ? ` (left out links to ${result.dropped_links.join(', ')}, which no longer exist)` : ''}`
          : `${id} already holds the text of version ${n}`,
      );
    },
  },

  list: {
    group: 'curate',
    summary: 'memories by category, tag, tier, confidence, role, date, conflict; sorted',
    details:
      'Every filter narrows the list (tags: all of them). Dates: 2026-11-01, 2026-11-01T10:00:00Z or 7d\n' +
      '(days before now). A table for people; with --json one array.\n' +
      'json: [{"id", "path", "category", "tier", "confidence", "strength", "activation", "access_count",\n' +
      '"created_at", "last_accessed_at", "agent_role", "tags", "in_conflict", "text"}]',
    options: {
      category: { type: 'string', value: 'episodic|semantic|decision', help: 'only this category' },
      tag: { type: 'string', value: 'T', multiple: true, help: 'only memories with this tag' },
      tier: { type: 'string', value: 'core|active|warm|cold|archive', help: 'only this tier (as it is now)' },
      confidence: { type: 'string', value: 'verified|observed|inferred|stale', help: 'only this confidence' },
      stale: { type: 'boolean', help: 'only stale memories (--confidence stale)' },
      role: { type: 'string', value: 'R', help: 'only memories of this agent role' },
      since: { type: 'string', value: 'WHEN', help: 'created at or after' },
      until: { type: 'string', value: 'WHEN', help: 'created at or before' },
      'accessed-since': { type: 'string', value: 'WHEN', help: 'last accessed at or after' },
      'accessed-until': { type: 'string', value: 'WHEN', help: 'last accessed at or before' },
      conflict: { type: 'boolean', help: 'only memories in an open conflict' },
      forgotten: { type: 'boolean', help: 'list the forgotten memories instead' },
      sort: { type: 'string', value: LIST_SORTS.join('|'), help: 'order, largest or newest first (created)' },
      reverse: { type: 'boolean', help: 'the other way round' },
      limit: { type: 'string', value: 'N', help: `at most N memories (${ARGUMENT_RANGES.listLimit.min} to ${ARGUMENT_RANGES.listLimit.max})` },
    },
    async run(context) {
      const o = context.options;
      const runtime = openVault(context.runtime);
      const now = runtime.vault.now();
      if (o.stale && o.confidence !== undefined && o.confidence !== 'stale') throw new UsageError('list: --stale and --confidence disagree');
      const filter: ListFilter = {
        category: oneOf<Category>(o.category, CATEGORIES, 'category'),
        tags: (o.tag as string[] | undefined)?.map((t) => t.trim()),
        tier: oneOf<Tier>(o.tier, TIERS, 'tier'),
        confidence: o.stale ? 'stale' : oneOf<Confidence>(o.confidence, CONFIDENCES, 'confidence'),
        role: o.role as string | undefined,
        since: parseWhen(o.since, '--since', now),
        until: parseWhen(o.until, '--until', now),
        accessedSince: parseWhen(o['accessed-since'], '--accessed-since', now),
        accessedUntil: parseWhen(o['accessed-until'], '--accessed-until', now),
        inConflict: Boolean(o.conflict),
        forgotten: Boolean(o.forgotten),
      };
      const sort = oneOf<ListSort>(o.sort, LIST_SORTS, 'sort') ?? 'created';
      const limit = o.limit === undefined ? Infinity : wholeNumberIn(String(o.limit), ARGUMENT_RANGES.listLimit, '--limit');
      const { entries, unreadable } = await listMemories(runtime.vault, filter, sort, Boolean(o.reverse));
      const shown = entries.slice(0, limit);
      warnUnreadable(context, unreadable);
      return print(context, shown, () => formatTable(shown));
    },
  },
};
