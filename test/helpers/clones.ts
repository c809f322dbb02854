import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram } from './cli';
import { git } from './git';

/**
 * A vault shared through git the way a team shares one: a bare repository (the remote) and
 * clones of it in temporary folders, each with `engram init --git` run once.
 */
export async function makeOrigin(dir: string, seed: (vault: string) => Promise<void>): Promise<{ origin: string; first: string }> {
  const first = path.join(dir, 'seed');
  mkdirSync(first, { recursive: true });
  git(first, 'init', '-q', '-b', 'main');
  const init = await engram(first, ['init', '--git']);
  if (init.code !== 0) throw new Error(init.stderr);
  await seed(first);
  git(first, 'add', '-A');
  git(first, 'commit', '-q', '-m', 'seed');
  const origin = path.join(dir, 'origin.git');
  git(dir, 'clone', '-q', '--bare', first, origin);
  git(first, 'remote', 'add', 'origin', origin);
  git(first, 'fetch', '-q', 'origin');
  git(first, 'branch', '-q', '--set-upstream-to=origin/main', 'main');
  return { origin, first };
}

export async function cloneVault(dir: string, origin: string, name: string): Promise<string> {
  const vault = path.join(dir, name);
  git(dir, 'clone', '-q', origin, vault);
  const init = await engram(vault, ['init', '--git']);
  if (init.code !== 0) throw new Error(init.stderr);
  return vault;
}

/** The id of the tree the working copy would commit (staging everything). */
export function treeOf(vault: string): string {
  git(vault, 'add', '-A');
  return git(vault, 'write-tree').trim();
}

/** Every tracked file and its text, for a readable diff when trees differ. */
export function filesOf(vault: string): Record<string, string> {
  git(vault, 'add', '-A');
  const out: Record<string, string> = {};
  for (const file of git(vault, 'ls-files').trim().split('\n').filter(Boolean)) out[file] = readFileSync(path.join(vault, file), 'utf8');
  return out;
}

export function commitAll(vault: string, message: string): boolean {
  git(vault, 'add', '-A');
  if (git(vault, 'status', '--porcelain') === '') return false;
  git(vault, 'commit', '-q', '-m', message);
  return true;
}
