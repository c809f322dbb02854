import { execFileSync } from './child-process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { EngramError, UsageError } from '../src/core/errors';
import { mergeMemoryText, unmergeableReason } from '../src/core/merge/memory-merge';
import { resolveSettings, type EngramSettings } from '../src/core/settings';
import { LAYOUT } from '../src/core/vault';
import type { Command } from './command';
import { gitTextMerger } from './git-merge';
import { engramCommand, formatGitSetup, setupGit } from './git-setup';
import { loadSettings, vaultRoot } from './runtime';

/**
 * The git side of a vault shared between machines (issue 14): the merge driver and its setup.
 */

const decoder = new TextDecoder('utf-8', { fatal: true });

function readText(file: string): string | null {
  try {
    return decoder.decode(readFileSync(file));
  } catch {
    return null;
  }
}

/** The settings of the vault a merged file belongs to: the nearest folder up with .engram/ (defaults otherwise). */
function settingsFor(cwd: string, path: string): EngramSettings {
  let dir = nodePath.dirname(nodePath.resolve(cwd, path));
  for (;;) {
    if (existsSync(nodePath.join(dir, LAYOUT.machine))) {
      try {
        return loadSettings(dir);
      } catch {
        return resolveSettings(undefined);
      }
    }
    const parent = nodePath.dirname(dir);
    if (parent === dir || !dir.startsWith(cwd)) return resolveSettings(undefined);
    dir = parent;
  }
}

/** git's own merge of the whole file, in place: for files that are not memory notes. */
function plainMerge(base: string, ours: string, theirs: string): number {
  try {
    execFileSync('git', ['merge-file', '-L', 'ours', '-L', 'base', '-L', 'theirs', ours, base, theirs], { stdio: ['ignore', 'ignore', 'inherit'] });
    return 0;
  } catch (error) {
    const status = (error as { status?: number | null }).status;
    return typeof status === 'number' && status > 0 ? 1 : 2;
  }
}

export const MERGE_COMMANDS: Record<string, Command> = {
  'merge-file': {
    group: 'maintain',
    args: 'BASE OURS THEIRS [PATH]',
    arity: [0, Infinity],
    summary: 'the git merge driver for memory files (%O %A %B %P)',
    details:
      "git's %O %A %B %P; engram init --git installs it: merges THEIRS into OURS field by field, the body\n" +
      'line by line; exit 1 when the body kept a conflict',
    options: {},
    async run(context) {
      if (context.args.length < 3 || context.args.length > 4) throw new UsageError('merge-file: give BASE OURS THEIRS and optionally PATH (git passes %O %A %B %P)');
      const [baseFile, oursFile, theirsFile] = context.args.map((f) => nodePath.resolve(context.io.cwd, f)) as [string, string, string];
      for (const file of [baseFile, oursFile, theirsFile]) {
        if (!existsSync(file) || !statSync(file).isFile()) throw new EngramError(`merge-file: ${file}: no such file`);
      }
      const path = context.args[3] ?? nodePath.relative(context.io.cwd, oursFile);
      const settings = settingsFor(context.io.cwd, path);
      const [base, ours, theirs] = [readText(baseFile), readText(oursFile), readText(theirsFile)];
      if (ours !== null && theirs !== null) {
        for (const [side, text, other] of [['ours', ours, theirs], ['theirs', theirs, ours]] as const) {
          const reason = unmergeableReason(text, other);
          if (reason === null) continue;
          // never a line merge of a memory: it would succeed wrongly (counts merged as one line)
          context.io.stderr(`engram merge-file: ${path}: ${side}: ${reason}; nothing merged, this clone's version is left in place: fix the file, then engram doctor --fix merges it\n`);
          return 1;
        }
      }
      const merged =
        ours !== null && theirs !== null && base !== null && Math.max(ours.length, theirs.length) <= settings.maxFileBytes
          ? mergeMemoryText(base.trim() === '' ? null : base, ours, theirs, { settings, mergeText: gitTextMerger(), path: path.replace(/\\/g, '/') })
          : null;
      if (!merged) return plainMerge(baseFile, oursFile, theirsFile);
      writeFileSync(oursFile, merged.text);
      if (merged.clashes.length > 0) context.io.stderr(`engram merge-file: ${path}: kept both edits in merge_clash: ${merged.clashes.join('; ')}\n`);
      if (merged.bodyConflicts > 0) context.io.stderr(`engram merge-file: ${path}: ${merged.bodyConflicts} conflict${merged.bodyConflicts === 1 ? '' : 's'} in the text (both sides changed the same lines)\n`);
      return merged.bodyConflicts > 0 ? 1 : 0;
    },
  },

  'git-setup': {
    group: 'setup',
    summary: 'install the git merge driver in this clone (the same as init --git)',
    details: "Installs the merge driver for this vault's git repository (git init when there is none).",
    options: {},
    async run(context) {
      const root = vaultRoot(context.runtime);
      if (!existsSync(nodePath.join(root, LAYOUT.version))) throw new EngramError(`${root}: not an Engram vault (run engram --vault ${root} init --git)`);
      const report = setupGit(root, engramCommand(context.io.env));
      context.io.stdout(context.json ? `${JSON.stringify(report)}\n` : `${formatGitSetup(report)}\n`);
      return 0;
    },
  },
};
