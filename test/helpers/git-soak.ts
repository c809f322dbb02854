import { chmodSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { seededRandom } from '../../src/core/random';
import { formatTimestamp, parseTimestamp } from '../../src/core/time';
import { engram } from './cli';
import { cloneVault, commitAll, makeOrigin } from './clones';
import { git, tryGit } from './git';

/**
 * Many machines, one memory (issue 14): a bare repository and several clones of one vault, each
 * running a seeded random mix of remember, touch, cite, edit, mark and consolidate, then
 * committing, pulling (merge or rebase) and pushing in varying orders, some rounds offline.
 * A person resolves what git stops on (conflict markers in a text) by keeping both sides. At
 * the end every clone pulls and pushes until all agree, and the outcome is measured.
 */
export interface SoakOptions {
  dir: string;
  seed: string;
  rounds: number;
  clones: number;
  pull: 'merge' | 'rebase';
  /** Operations per clone per round: a random number up to this. */
  opsPerRound: number;
}

export interface SoakReport {
  seed: string;
  pull: 'merge' | 'rebase';
  rounds: number;
  clones: number;
  operations: Record<string, number>;
  commits: number;
  pulls: number;
  /** Merge commits in the final history (pull --no-rebase) or commits replayed (pull --rebase). */
  merges: number;
  replayed: number;
  /** Times git ran the Engram merge driver. */
  driver_runs: number;
  /** Pulls git stopped on, and the files a person resolved by keeping both sides. */
  stopped_pulls: number;
  resolved_by_hand: Record<string, number>;
  /** Sum of the access_count increments every operation made, where it ran. */
  touches_and_uses: number;
  access_count_sum: number;
  access_count_expected: number;
  memories: number;
  archived: number;
  semantic: number;
  merge_clashes: number;
  identical: boolean;
  frontmatter_markers: number;
  body_markers: number;
  invalid_files: number;
  duplicate_ids: number;
  op_mismatches: string[];
  seconds: number;
}

const TOPICS: string[][] = [
  ['session expiry test', 'flaked on CI', 'timeout too short', 'auth suite'],
  ['cache upload', 'nightly build', 'timed out', 'artifact store'],
  ['staging database', 'restored', 'every Sunday', 'snapshot'],
  ['payments retries', 'exponential backoff', 'idempotency keys', 'gateway'],
  ['release train', 'leaves on Tuesdays', 'freeze on Monday', 'changelog'],
  ['auth tokens', 'rotate hourly', 'refresh on 401', 'signing key'],
];
const DETAILS = ['again', 'today', 'after the upgrade', 'on the laptop', 'in review', 'per the runbook', 'twice', 'since Friday', 'for the third time', 'as expected'];
const MARKS = ['--verified', '--observed', '--inferred', '--stale', '--core', '--no-core'];

const MEMORY_FOLDERS = ['episodic', 'semantic', 'decisions', 'archive'];

interface MemoryFile {
  path: string;
  id: string;
  accessCount: number;
  text: string;
}

function memoryFiles(vault: string): MemoryFile[] {
  const out: MemoryFile[] = [];
  for (const folder of MEMORY_FOLDERS) {
    let names: string[];
    try {
      names = readdirSync(path.join(vault, folder)).filter((n) => n.endsWith('.md')).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const text = readFileSync(path.join(vault, folder, name), 'utf8');
      const split = splitFrontmatter(text);
      let count = 0;
      let id = '';
      try {
        const f = readFrontmatter(split?.yaml ?? '') as Record<string, unknown>;
        count = typeof f.access_count === 'number' ? f.access_count : 0;
        id = typeof f.id === 'string' ? f.id : ''; // the id is the frontmatter's, whatever the file's name
      } catch {
        count = 0;
      }
      out.push({ path: `${folder}/${name}`, id, accessCount: count, text });
    }
  }
  return out;
}

const sumAccess = (vault: string) => memoryFiles(vault).reduce((n, m) => n + m.accessCount, 0);

function hasMarker(text: string): boolean {
  return /^<{7}( |$)/m.test(text) && /^>{7}( |$)/m.test(text);
}

/** A person resolving conflict markers by keeping both sides' lines. */
function keepBoth(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^(<{7}|={7}|>{7}|\|{7})( |$)/.test(line))
    .join('\n');
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const int = (n: number) => Math.floor(random() * n);
  const pickOne = <T>(list: T[]): T => list[int(list.length)]!;
  const report: SoakReport = {
    seed: options.seed,
    pull: options.pull,
    rounds: options.rounds,
    clones: options.clones,
    operations: { remember: 0, touch: 0, cite: 0, edit: 0, mark: 0, consolidate: 0 },
    commits: 0,
    pulls: 0,
    merges: 0,
    replayed: 0,
    driver_runs: 0,
    stopped_pulls: 0,
    resolved_by_hand: {},
    touches_and_uses: 0,
    access_count_sum: 0,
    access_count_expected: 0,
    memories: 0,
    archived: 0,
    semantic: 0,
    merge_clashes: 0,
    identical: false,
    frontmatter_markers: 0,
    body_markers: 0,
    invalid_files: 0,
    duplicate_ids: 0,
    op_mismatches: [],
    seconds: 0,
  };

  let clock = parseTimestamp('2026-06-01T09:00:00Z')!;
  const { origin, first } = await makeOrigin(options.dir, async (v) => {
    for (const [i, topic] of TOPICS.entries()) {
      await engram(v, ['--now', formatTimestamp(clock + i * 60_000), 'remember', `The ${topic[0]} ${topic[1]}.`]);
    }
  });
  const vaults = [first];
  for (let i = 1; i < options.clones; i++) vaults.push(await cloneVault(options.dir, origin, `clone-${i}`));
  // count the driver's runs: git starts it through this wrapper
  const counter = path.join(options.dir, 'driver-runs.log');
  const wrapper = path.join(options.dir, 'engram-driver.sh');
  const driver = git(first, 'config', 'merge.engram.driver').trim().replace(/ merge-file %O %A %B %P$/, '');
  writeFileSync(wrapper, `#!/bin/sh\necho x >> '${counter}'\nexec ${driver} "$@"\n`);
  chmodSync(wrapper, 0o755);
  writeFileSync(counter, '');
  for (const v of vaults) git(v, 'config', 'merge.engram.driver', `'${wrapper}' merge-file %O %A %B %P`);
  const initial = sumAccess(first);
  let declared = 0;

  const run = async (vault: string, args: string[]) => {
    const result = await engram(vault, args);
    if (result.code !== 0) throw new Error(`engram ${args.join(' ')} in ${vault}: exit ${result.code}: ${result.stderr}`);
    return result;
  };

  /** One operation in one clone, with the access_count increments it should make. */
  const operate = async (vault: string, now: string, remembered: string[]) => {
    const files = memoryFiles(vault);
    const live = files.filter((f) => /^mem-[a-z0-9]{12}$/.test(f.id));
    const roll = random();
    const before = sumAccess(vault);
    let expected = 0;
    let kind: string;
    if (roll < 0.25 || live.length === 0) {
      kind = 'remember';
      let text: string;
      if (remembered.length > 0 && random() < 0.3) text = `${pickOne(remembered)} ${pickOne(DETAILS)}`;
      else {
        const topic = pickOne(TOPICS);
        text = `The ${topic[0]} ${pickOne(topic.slice(1))}, ${pickOne(topic.slice(1))} ${pickOne(DETAILS)}.`;
      }
      remembered.push(text);
      const result = (await run(vault, ['--json', '--now', now, 'remember', '--', text])).json();
      if (result.action === 'reinforced') expected = 1;
    } else if (roll < 0.55) {
      kind = 'touch';
      const ids = [...new Set(Array.from({ length: 1 + int(3) }, () => pickOne(live).id))];
      await run(vault, ['--json', '--now', now, 'touch', ...ids]);
      expected = ids.length;
    } else if (roll < 0.68) {
      kind = 'cite';
      await run(vault, ['--json', '--now', now, 'cite', pickOne(live).id]);
    } else if (roll < 0.8) {
      kind = 'edit';
      const target = pickOne(live);
      const text = `${pickOne(TOPICS)[0]} note revised ${now} ${pickOne(DETAILS)}.`;
      const result = (await run(vault, ['--json', '--now', now, 'edit', target.id, '--', text])).json();
      if (result.changed) expected = 1;
    } else if (roll < 0.92) {
      kind = 'mark';
      await run(vault, ['--json', '--now', now, 'mark', pickOne(live).id, pickOne(MARKS)]);
    } else {
      kind = 'consolidate';
      await run(vault, ['--json', '--now', now, 'consolidate']);
    }
    const delta = sumAccess(vault) - before;
    if (delta !== expected) report.op_mismatches.push(`${kind} in ${path.basename(vault)} at ${now}: access_count +${delta}, expected +${expected}`);
    report.operations[kind] = (report.operations[kind] ?? 0) + 1;
    declared += expected;
  };

  /** Pull (merge or rebase), resolving what git stops on as a person would: both sides kept. */
  const pull = (vault: string) => {
    report.pulls++;
    git(vault, 'fetch', '-q', 'origin');
    const ahead = Number(git(vault, 'rev-list', '--count', 'origin/main..HEAD').trim());
    const behind = Number(git(vault, 'rev-list', '--count', 'HEAD..origin/main').trim());
    if (options.pull === 'rebase' && ahead > 0 && behind > 0) report.replayed += ahead;
    const args = options.pull === 'rebase' ? ['pull', '-q', '--rebase', 'origin', 'main'] : ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main'];
    let result = tryGit(vault, ...args);
    if (result.status === 0) return;
    report.stopped_pulls++;
    for (let guard = 0; guard < 50; guard++) {
      const unmerged = git(vault, 'status', '--porcelain').split('\n').filter((l) => /^(UU|AA|DU|UD|AU|UA|DD) /.test(l));
      if (unmerged.length === 0) throw new Error(`pull in ${vault} failed without a conflict: ${result.stderr}`);
      for (const line of unmerged) {
        const code = line.slice(0, 2);
        const file = line.slice(3);
        const full = path.join(vault, file);
        let kind = code;
        try {
          const text = readFileSync(full, 'utf8');
          if (hasMarker(text)) {
            writeFileSync(full, keepBoth(text));
            kind = `${code} markers in ${splitFrontmatter(text) && !hasMarker(splitFrontmatter(text)!.yaml) ? 'a text' : 'a frontmatter'}`;
          }
          git(vault, 'add', '--', file);
        } catch {
          git(vault, 'rm', '-q', '--', file);
        }
        report.resolved_by_hand[kind] = (report.resolved_by_hand[kind] ?? 0) + 1;
      }
      result =
        options.pull === 'rebase'
          ? tryGit(vault, '-c', 'core.editor=true', 'rebase', '--continue')
          : tryGit(vault, 'commit', '-q', '--no-edit');
      if (result.status === 0) return;
    }
    throw new Error(`could not finish the pull in ${vault}`);
  };

  const push = (vault: string): boolean => tryGit(vault, 'push', '-q', 'origin', 'HEAD:main').status === 0;

  for (let round = 0; round < options.rounds; round++) {
    clock += (12 + int(108)) * 3_600_000; // half a day to five days between rounds: memories decay, tiers move, some are archived
    const remembered: string[][] = vaults.map(() => []);
    for (const [c, vault] of vaults.entries()) {
      const ops = 1 + int(options.opsPerRound);
      for (let k = 0; k < ops; k++) await operate(vault, formatTimestamp(clock + c * 7_000 + k * 61_000), remembered[c]!);
      if (commitAll(vault, `clone ${c} round ${round}`)) report.commits++;
    }
    // sync in a random order; some clones stay offline this round
    const order = vaults.map((_, i) => i).sort(() => random() - 0.5);
    for (const c of order) {
      if (random() < 0.25) continue;
      pull(vaults[c]!);
      if (!push(vaults[c]!)) {
        pull(vaults[c]!);
        push(vaults[c]!);
      }
    }
  }
  // everyone comes back online until all agree
  for (let pass = 0; pass < 3; pass++) {
    for (const vault of vaults) {
      pull(vault);
      push(vault);
    }
  }
  for (const vault of vaults) pull(vault);

  const trees = vaults.map((v) => git(v, 'rev-parse', 'HEAD^{tree}').trim());
  const clean = vaults.every((v) => git(v, 'status', '--porcelain') === '');
  report.identical = clean && new Set(trees).size === 1;
  const files = memoryFiles(first);
  report.memories = files.length;
  report.archived = files.filter((f) => f.path.startsWith('archive/')).length;
  report.semantic = files.filter((f) => f.path.startsWith('semantic/')).length;
  for (const f of files) {
    const split = splitFrontmatter(f.text);
    if (!split || hasMarker(split.yaml)) report.frontmatter_markers++;
    else if (hasMarker(split.body)) report.body_markers++;
    try {
      const clash = (readFrontmatter(split?.yaml ?? '') as Record<string, unknown>).merge_clash;
      if (Array.isArray(clash)) report.merge_clashes += clash.length;
    } catch {
      // counted as invalid below
    }
  }
  for (const vault of vaults) {
    const stats = (await engram(vault, ['--json', 'stats'])).json();
    report.invalid_files += stats.invalid.length;
    const doctor = (await engram(vault, ['--json', 'doctor'])).json();
    report.duplicate_ids += doctor.findings.filter((f: { check: string }) => f.check === 'duplicate-id').length;
  }
  report.merges = Number(git(first, 'rev-list', '--merges', '--count', 'HEAD').trim());
  report.driver_runs = readFileSync(counter, 'utf8').split('\n').filter(Boolean).length;
  report.touches_and_uses = declared;
  report.access_count_sum = sumAccess(first);
  report.access_count_expected = initial + declared;
  report.seconds = Math.round((Date.now() - started) / 100) / 10;
  return report;
}
