import { execFileSync } from './child-process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { EngramError } from '../src/core/errors';
import { LAYOUT, MACHINE_GITIGNORE } from '../src/core/vault';

/**
 * Git as the substrate between machines (issue 14): `engram init --git` (or `engram git-setup`)
 * makes a memory folder merge well. Git reads merge drivers only from a repository's config,
 * which a clone does not copy, so every clone runs this once; the rules themselves live in the
 * committed `.gitattributes`.
 */
export const ATTRIBUTE_RULES = [
  // memories in the person's sub-folders too (ADR 0005); `**/` also matches no folder
  'episodic/**/*.md merge=engram',
  'semantic/**/*.md merge=engram',
  'decisions/**/*.md merge=engram',
  'archive/**/*.md merge=engram',
  // conflict notes have a frontmatter too (status, winner, resolved_at): merged by the same rules
  'conflicts/*.md merge=engram',
  // daily files only grow: both machines' lines are kept
  'daily/*.md merge=union',
];

const ATTRIBUTES_HEADER = '# Engram (engram init --git): memory files merge field by field, daily logs keep both sides\' lines';

export interface GitSetupReport {
  repository: string;
  /** The folder was not in a repository: \`git init\` made one. */
  initialised: boolean;
  attributes: string;
  added_rules: string[];
  /** Empty files that keep the layout's folders in git. */
  folders_kept: string[];
  machine_ignore: string | null;
  driver: string;
}

function git(cwd: string, args: string[]): string {
  try {
    return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new EngramError(`git in ${cwd}: ${stderr || (error as Error).message}`);
  }
}

function toplevel(dir: string): string | null {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--show-toplevel'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

/** Quote a word for the shell git runs drivers with. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * How git should start this Engram: this Node and this script by absolute path, never a bare
 * `engram` looked up on PATH. Git runs the driver with the PATH of whatever runs git (a GUI, an
 * IDE, cron, a shell without npm's folder); a driver that is not found leaves the memory files
 * unmerged as "ours", silently losing the other side's uses. A global install keeps its script
 * at the same path across reinstalls; a Node that moved is reported by `engram doctor`, which
 * rewrites the line with --fix. ENGRAM_COMMAND overrides (a wrapper of your own).
 */
export function engramCommand(env: Record<string, string | undefined>): string {
  if (env.ENGRAM_COMMAND) return env.ENGRAM_COMMAND;
  const script = [nodePath.join(__dirname, 'engram.js'), nodePath.join(__dirname, '..', 'dist', 'engram.js')].find((p) => existsSync(p));
  if (!script) throw new EngramError('cannot find engram.js to give git as the merge driver: run this from an installed engram (or set ENGRAM_COMMAND)');
  return `${shellWord(process.execPath)} ${shellWord(realpathSync(script))}`;
}

/**
 * What is wrong with a merge driver line, or null: a bare command git would look up on PATH,
 * or a program or script (an absolute path) that is no longer there.
 */
export function driverProblem(driver: string): string | null {
  const words = shellWords(driver);
  const program = words[0] ?? '';
  if (!nodePath.isAbsolute(program)) return `the merge driver runs \`${program}\` from PATH, which git started by a GUI, an IDE or cron may not have (the memory files are then left unmerged)`;
  for (const word of words.slice(0, words.indexOf('merge-file') > 0 ? words.indexOf('merge-file') : 1)) {
    if (nodePath.isAbsolute(word) && !existsSync(word)) return `the merge driver names ${word}, which is not there any more (engram or Node moved)`;
  }
  return null;
}

/** The words of a command line as the shell splits them (plain words and single quotes, what shellWord writes). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (let m = pattern.exec(line); m; m = pattern.exec(line)) words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
  return words;
}

/** Install the merge driver, the attributes and the machine-data ignore rules for a vault. */
export function setupGit(root: string, command: string): GitSetupReport {
  let repository = toplevel(root);
  let initialised = false;
  if (!repository) {
    git(root, ['init', '--quiet']);
    repository = toplevel(root) ?? root;
    initialised = true;
  }
  const attributes = nodePath.join(root, '.gitattributes');
  const current = existsSync(attributes) ? readFileSync(attributes, 'utf8') : '';
  const have = new Set(current.split(/\r?\n/).map((l) => l.trim()));
  const missing = ATTRIBUTE_RULES.filter((rule) => !have.has(rule));
  if (missing.length > 0) {
    const lead = current === '' ? '' : current.endsWith('\n') ? '\n' : '\n\n';
    const header = have.has(ATTRIBUTES_HEADER) ? '' : `${ATTRIBUTES_HEADER}\n`;
    writeFileSync(attributes, `${current}${lead}${header}${missing.join('\n')}\n`);
  }
  // git keeps no empty folders: a checkout or a clone would drop episodic/, archive/ or daily/
  // while they are empty, and Engram's next write there would find no folder
  const kept: string[] = [];
  for (const folder of LAYOUT.folders.filter((f) => !f.startsWith(LAYOUT.machine))) {
    const keep = nodePath.join(root, folder, '.gitkeep');
    if (existsSync(keep)) continue;
    mkdirSync(nodePath.dirname(keep), { recursive: true });
    writeFileSync(keep, '');
    kept.push(`${folder}/.gitkeep`);
  }
  let machineIgnore: string | null = null;
  const ignore = nodePath.join(root, LAYOUT.gitignore);
  if (!existsSync(ignore)) {
    mkdirSync(nodePath.dirname(ignore), { recursive: true });
    writeFileSync(ignore, MACHINE_GITIGNORE);
    machineIgnore = nodePath.relative(root, ignore);
  }
  const driver = `${command} merge-file %O %A %B %P`;
  git(repository, ['config', '--local', 'merge.engram.name', 'Engram: memory files merged field by field']);
  git(repository, ['config', '--local', 'merge.engram.driver', driver]);
  return { repository, initialised, attributes: nodePath.relative(repository, attributes), added_rules: missing, folders_kept: kept, machine_ignore: machineIgnore, driver };
}

export function formatGitSetup(report: GitSetupReport): string {
  return [
    ...(report.initialised ? [`git: created a git repository in ${report.repository} (git init): the memory folder was in none`] : []),
    `git: memory files merge field by field with engram merge-file (repository ${report.repository})`,
    report.added_rules.length > 0 ? `  ${report.attributes}: added ${report.added_rules.join('; ')}` : `  ${report.attributes}: rules already there`,
    ...(report.folders_kept.length > 0 ? [`  ${report.folders_kept.join(', ')}: the layout's folders stay in git while empty`] : []),
    ...(report.machine_ignore ? [`  ${report.machine_ignore}: caches, locks and logs stay out of git`] : []),
    `  merge.engram.driver = ${report.driver}`,
    'Run engram init --git once in every clone: git does not copy a repository\'s config.',
  ].join('\n');
}
