import { execFileSync } from './child-process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import * as nodePath from 'node:path';
import { examineVault, type Check, type Finding } from '../src/core/doctor';
import { mergeMemoryText } from '../src/core/merge/memory-merge';
import { MEMORY_FOLDERS, LAYOUT, tempFolders } from '../src/core/vault';
import type { Command } from './command';
import { processAlive } from './fs-files';
import { gitTextMerger } from './git-merge';
import { ATTRIBUTE_RULES, driverProblem, engramCommand, setupGit } from './git-setup';
import { openVault, type Runtime } from './runtime';

/**
 * `engram doctor [--fix]` (issue 14): the core's checks of the notes (src/core/doctor.ts) and
 * what only this machine can see: locks left by processes that died, temp files of writes that
 * were killed, a git repository without the merge driver.
 */

/** A lock is stale when its holder is a dead process of this machine, or it was not refreshed for this long. */
const STALE_LOCK_MS = 10_000;
const TEMP_NAME = /^\..+\.(\d+)\.\d+\.tmp$/;

function staleLocks(root: string, fix: boolean): Finding[] {
  const dir = nodePath.join(root, LAYOUT.machine, 'locks');
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
  const host = hostname();
  const findings: Finding[] = [];
  for (const name of names) {
    if (name.endsWith('.holder')) {
      // a process's holder file (locks.ts: each per-memory lock links to it), left by one killed
      const path = nodePath.join(dir, name);
      const owner = ownerOf(path);
      if (owner === null || owner.host !== host || processAlive(owner.pid)) continue;
      const finding: Finding = { check: 'stale-lock', path: nodePath.relative(root, path), problem: `the lock holder file of pid ${owner.pid}, no longer running`, fix: 'remove it' };
      if (fix) {
        fs.rmSync(path, { force: true });
        finding.fixed = true;
      }
      findings.push(finding);
      continue;
    }
    if (!name.endsWith('.lock')) continue;
    const path = nodePath.join(dir, name);
    const st = fs.lstatSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    const owner = st.isDirectory() ? holderOf(path.replace(/\.lock$/, '.holder.json')) : ownerOf(path);
    const age = Date.now() - st.mtimeMs;
    const dead = owner !== null && owner.host === host && !processAlive(owner.pid);
    if (!dead && age <= STALE_LOCK_MS) continue;
    if (owner !== null && owner.host === host && processAlive(owner.pid)) continue;
    const who = owner ? `pid ${owner.pid} on ${owner.host}${dead ? ', no longer running' : ''}` : 'an unknown holder';
    const finding: Finding = {
      check: 'stale-lock',
      path: nodePath.relative(root, path),
      problem: `a lock left by ${who}, ${Math.round(age / 1000)} s old`,
      fix: 'remove it (the next writer would take it over after 10 s)',
    };
    if (fix) {
      fs.rmSync(path, { recursive: true, force: true });
      if (st.isDirectory()) fs.rmSync(path.replace(/\.lock$/, '.holder.json'), { force: true });
      finding.fixed = true;
    }
    findings.push(finding);
  }
  return findings;
}

function ownerOf(path: string): { pid: number; host: string } | null {
  try {
    const m = /^(\d+)@(.+)$/.exec(fs.readFileSync(path, 'utf8').trim());
    return m ? { pid: Number(m[1]), host: m[2]! } : null;
  } catch {
    return null;
  }
}

function holderOf(path: string): { pid: number; host: string } | null {
  try {
    const holder = JSON.parse(fs.readFileSync(path, 'utf8')) as { pid?: unknown; host?: unknown };
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? { pid: holder.pid, host: holder.host } : null;
  } catch {
    return null;
  }
}

/** Temp files of atomic writes whose writer died (the file port sweeps the same ones). Exported for its tests. */
export async function tempFiles(runtime: Pick<Runtime, 'root' | 'files'>, fix: boolean): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const folder of await tempFolders(runtime.files)) {
    let names: string[];
    try {
      names = fs.readdirSync(nodePath.join(runtime.root, folder)).sort();
    } catch {
      continue;
    }
    const left = names.filter((name) => {
      const m = TEMP_NAME.exec(name);
      if (!m) return false;
      const st = fs.lstatSync(nodePath.join(runtime.root, folder, name), { throwIfNoEntry: false });
      if (!st?.isFile()) return false;
      const age = Date.now() - st.mtimeMs;
      return (age > 60_000 && !processAlive(Number(m[1]))) || age > 3_600_000;
    });
    if (left.length === 0) continue;
    const finding: Finding = { check: 'temp-file', path: folder === '.' ? left[0]! : `${folder}/${left[0]}`, problem: `${left.length} temp file${left.length === 1 ? '' : 's'} of writes that were killed${left.length > 1 ? ` (${left.slice(0, 3).join(', ')}${left.length > 3 ? ', ...' : ''})` : ''}`, fix: 'remove them' };
    if (fix) {
      // fixed when every one of them is gone: one that cannot be unlinked stays a finding
      const removed = new Set(await runtime.files.sweepTemp(folder));
      if (left.every((name) => removed.has(name))) finding.fixed = true;
    }
    findings.push(finding);
  }
  return findings;
}

/** A vault in a git repository without the merge driver merges memory files as plain text. */
function gitSetup(root: string, env: Record<string, string | undefined>, fix: boolean): Finding[] {
  const git = (args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    git(['rev-parse', '--show-toplevel']);
  } catch {
    return [];
  }
  let driver = '';
  try {
    driver = git(['config', 'merge.engram.driver']);
  } catch {
    driver = '';
  }
  const probe = `${MEMORY_FOLDERS[0]}/mem-000000000000.md`;
  let attribute = '';
  try {
    attribute = git(['check-attr', 'merge', '--', probe]);
  } catch {
    attribute = '';
  }
  const missing = [...(driver === '' ? ['the merge driver is not in this clone\'s git config'] : []), ...(!attribute.endsWith(': engram') ? ['.gitattributes does not send memory files to it'] : [])];
  const broken = driver === '' ? null : driverProblem(driver);
  if (missing.length === 0 && broken === null) return [];
  const finding: Finding = missing.length > 0
    ? {
        check: 'git-setup',
        path: '.gitattributes',
        problem: `the vault is in a git repository, but ${missing.join(', and ')}: two machines that touch one memory will conflict`,
        fix: `engram init --git (${ATTRIBUTE_RULES.length} rules, the driver in the repository's config)`,
      }
    : { check: 'git-setup', path: '.git/config', problem: `${broken}: merge.engram.driver = ${driver}`, fix: 'engram git-setup (the driver line with the absolute paths of this Node and this engram)' };
  if (fix) {
    setupGit(root, engramCommand(env));
    finding.fixed = true;
  }
  return [finding];
}

/** A conflicted file's versions from git's index (stage 1 base, 2 ours, 3 theirs). */
function gitVersions(root: string, path: string): { base: string | null; ours: string; theirs: string } | null {
  const git = (args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 26 });
  try {
    const stages = new Set(git(['ls-files', '-u', '--', path]).split('\n').filter(Boolean).map((line) => line.split(/\s+/)[2]));
    if (!stages.has('2') || !stages.has('3')) return null;
    return { base: stages.has('1') ? git(['show', `:1:./${path}`]) : null, ours: git(['show', `:2:./${path}`]), theirs: git(['show', `:3:./${path}`]) };
  } catch {
    return null;
  }
}

/**
 * Memory files git left unmerged (stages in the index) that hold no conflict marker: a merge
 * driver that could not run (not found, crashed) leaves "ours" in place, which reads as a healthy
 * memory while the other side's uses wait in the index. --fix merges the three index versions
 * with the driver's rules, writes the result and stages it; a text both sides changed keeps both
 * between markers in the body, for a person, and is not staged.
 */
async function unmergedMemories(runtime: Runtime, fix: boolean, reported: Set<string>): Promise<Finding[]> {
  let listing: string;
  try {
    listing = execFileSync('git', ['-C', runtime.root, 'ls-files', '-u', '-z', '--', ...MEMORY_FOLDERS, LAYOUT.conflicts], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 26 });
  } catch {
    return [];
  }
  const paths = [...new Set(listing.split('\0').filter(Boolean).map((entry) => entry.slice(entry.indexOf('\t') + 1)))].sort();
  const findings: Finding[] = [];
  for (const path of paths) {
    if (reported.has(path) || !path.endsWith('.md')) continue;
    const finding: Finding = {
      check: 'unmerged',
      path,
      problem: "git left it unmerged (the merge driver did not run or failed): the file holds this clone's version only, the other side's changes wait in git's index",
      fix: "merge the index's three versions with the driver's rules, and stage it",
    };
    const versions = gitVersions(runtime.root, path);
    if (!versions) {
      delete finding.fix;
      finding.problem = 'git left it unmerged and one side deleted it: keep it (git add) or remove it (git rm)';
    } else if (fix) {
      const current = await runtime.vault.readText(path).catch(() => null);
      const merged = mergeMemoryText(versions.base, versions.ours, versions.theirs, { settings: runtime.vault.settings, mergeText: gitTextMerger(), path });
      if (!merged) {
        delete finding.fix;
        finding.problem += '; its versions are not memory notes Engram can merge: resolve it by hand, then git add it';
        findings.push(finding);
        continue;
      }
      await runtime.files.write(path, merged.text, current === null ? {} : { expect: current });
      if (merged.bodyConflicts === 0) {
        execFileSync('git', ['-C', runtime.root, 'add', '--', path], { stdio: 'ignore' });
        finding.fixed = true;
      } else {
        finding.problem += '; merged, but both sides changed the text: both are kept between conflict markers in the body; choose the words, then git add it';
      }
    }
    findings.push(finding);
  }
  return findings;
}

const ORDER: Check[] = ['git-setup', 'unmerged', 'duplicate-id', 'conflict-markers', 'unreadable', 'merge-clash', 'archived-alive', 'same-text', 'missing-link', 'renamed-link', 'damaged-version', 'interrupted-consolidation', 'stale-cache', 'stale-lock', 'temp-file'];

export async function runDoctor(runtime: Runtime, env: Record<string, string | undefined>, fix: boolean): Promise<Finding[]> {
  const notes = await examineVault(runtime.vault, {
    fix,
    mergeText: gitTextMerger(),
    versions: (path) => gitVersions(runtime.root, path),
    resolved: (path) => execFileSync('git', ['-C', runtime.root, 'add', '--', path], { stdio: 'ignore' }),
  });
  const findings = [
    ...gitSetup(runtime.root, env, fix),
    ...(await unmergedMemories(runtime, fix, new Set(notes.filter((f) => f.check === 'conflict-markers' || f.check === 'unreadable').map((f) => f.path)))),
    ...notes,
    ...staleLocks(runtime.root, fix),
    ...(await tempFiles(runtime, fix)),
  ];
  return findings.sort((a, b) => ORDER.indexOf(a.check) - ORDER.indexOf(b.check) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function formatDoctor(findings: Finding[], fix: boolean): string {
  if (findings.length === 0) return 'no problems found';
  const width = Math.max(...findings.map((f) => f.check.length));
  const lines = findings.map((f) => {
    const state = f.fixed ? 'fixed: ' : '';
    const then = !f.fixed && f.fix ? `\n  ${' '.repeat(width)}  --fix: ${f.fix}` : '';
    return `${f.check.padEnd(width)}  ${f.path}: ${state}${f.problem}${then}`;
  });
  const fixed = findings.filter((f) => f.fixed).length;
  const fixable = findings.filter((f) => !f.fixed && f.fix).length;
  const left = findings.length - fixed;
  const summary = fix
    ? `fixed ${fixed} of ${findings.length}; ${left === 0 ? 'nothing left' : `${left} left for a person`}`
    : `${findings.length} problem${findings.length === 1 ? '' : 's'}${fixable > 0 ? `, ${fixable} fixable: run engram doctor --fix` : ''}`;
  return [...lines, summary].join('\n');
}

export const DOCTOR_COMMANDS: Record<string, Command> = {
  doctor: {
    group: 'maintain',
    summary: 'what would confuse Engram or Obsidian; --fix repairs what loses nothing',
    details:
      'Checks: files sharing an id (sync conflict copies), conflict markers, files that do not parse,\n' +
      'clashes of two people\'s edits (merge_clash), archived memories still in use, a memory\n' +
      'remembered again while the one holding its text could not be read, links to memories\n' +
      'that exist nowhere, an interrupted consolidation, caches that contradict the notes, stale locks,\n' +
      'temp files of killed writes (in sub-folders too, and in .engram/versions and .engram/forgotten),\n' +
      'a git repository without the merge driver or with one git cannot start,\n' +
      'memory files git left unmerged (a driver that did not run): --fix merges them by the driver\'s rules.\n' +
      'Exit 1 while problems remain.\n' +
      'json: {"findings": [{"check", "path", "problem", "fix"?, "fixed"?}], "fixed", "remaining"}',
    options: { fix: { type: 'boolean', help: 'repair what can be repaired without losing anything' } },
    async run(context) {
      const fix = Boolean(context.options.fix);
      const runtime = openVault(context.runtime);
      const findings = await runDoctor(runtime, context.io.env, fix);
      const fixed = findings.filter((f) => f.fixed).length;
      const remaining = findings.length - fixed;
      context.io.stdout(context.json ? `${JSON.stringify({ findings, fixed, remaining })}\n` : `${formatDoctor(findings, fix)}\n`);
      return remaining === 0 ? 0 : 1;
    },
  },
};
