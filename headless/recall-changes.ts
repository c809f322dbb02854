import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { CHANGES_FILE, changesSince, changesText, MAX_NOTED_CHANGES, SNAPSHOT_FILE } from './bundles';

/** What a command saw before it wrote memory files: the snapshot's mtime and how many noted commands changed the folders since (changesSince). */
export interface ChangesBefore {
  snapshot: number;
  commands: number;
}

/**
 * Before a `remember` or `touch` writes: whether the changes since the recall snapshot are known
 * (the snapshot fresh, or changed only by at most MAX_NOTED_CHANGES commands that noted it);
 * null otherwise, and then the command notes nothing. Never throws (an optimisation).
 */
export function changesBefore(root: string): ChangesBefore | null {
  try {
    const commands = changesSince(root, mtimeOf, readOrNull);
    const snapshot = mtimeOf(nodePath.join(root, SNAPSHOT_FILE));
    // more than MAX_NOTED_CHANGES already: noteChange writes nothing
    return commands === null || snapshot === null ? null : { snapshot, commands };
  } catch {
    return null;
  }
}

/**
 * After the command wrote its memory files (so this file's mtime is at or after the folders'):
 * `commands` more (a touch of 3 memories counts 3) since the snapshot the command found (temp file, then renamed over the name).
 * A recall's launcher reads it (headless/bundles.ts changesSince); a snapshot written since, or a
 * folder changed by anyone else after this, makes it say nothing. Never throws.
 */
export function noteChange(root: string, before: ChangesBefore | null, commands = 1): void {
  if (before === null || before.commands + commands > MAX_NOTED_CHANGES) return;
  const file = nodePath.join(root, CHANGES_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, changesText(before.snapshot, before.commands + commands));
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // not there
    }
  }
}

function mtimeOf(path: string): number | null {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
