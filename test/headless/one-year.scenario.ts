/**
 * A year of a mobile team's work ("Harbor": a planner, a backend and a mobile agent), written
 * through the CLI as it happened: one `import` a month (each line at its own date), the facts
 * the agents used touched, `consolidate` at each month's end, `context` at each sprint
 * planning. Facts change (a gateway host twice, the Kotlin version twice, an on-call lead, a
 * release cadence), decisions are reversed in plain words, routine notes set false-conflict
 * traps, and ten reports of one build failure are worded ten ways. Shared by the year test and
 * `npm run bench:year`.
 */
import { engram } from '../helpers/cli';

export const START = Date.UTC(2026, 0, 5, 9, 0, 0); // Monday 5 January 2026
export const at = (day: number, hour = 9): string => new Date(START + day * 86_400_000 + (hour - 9) * 3_600_000).toISOString().replace('.000Z', 'Z');

export interface Note {
  day: number;
  key?: string;
  text: string;
  category?: 'episodic' | 'semantic' | 'decision';
  confidence?: 'verified' | 'observed';
  role: 'planner' | 'backend' | 'mobile';
}

const routine = (day: number, text: string, role: Note['role'] = 'planner'): Note => ({ day, text, role });

/** The year's notes. Keys name the memories the checks expect. */
export const NOTES: Note[] = [
  { day: 3, key: 'gw1', text: 'The public API gateway runs on api-gw-1.harbor.internal.', category: 'semantic', role: 'backend' },
  { day: 8, key: 'jest', text: 'Mobile unit tests run with Jest and the React Native preset.', category: 'decision', role: 'mobile' },
  { day: 10, key: 'kt1', text: 'The Android app is built with Kotlin 1.9 and Gradle 8.2.', category: 'semantic', role: 'mobile' },
  { day: 12, key: 'region', text: 'Customer data must stay in the eu-west-1 region.', category: 'decision', confidence: 'verified', role: 'backend' },
  { day: 15, key: 'train1', text: 'The mobile release train ships every 2 weeks on Thursday.', category: 'decision', role: 'planner' },
  { day: 18, key: 'tokens', text: 'Access tokens expire after 15 minutes; refresh tokens after 30 days.', category: 'decision', confidence: 'verified', role: 'backend' },
  { day: 20, key: 'oncall1', text: 'The on-call lead for the payments service is Priya Raman.', category: 'semantic', role: 'planner' },
  { day: 25, key: 'approvals', text: 'Every pull request needs two approvals before merge.', category: 'decision', role: 'planner' },
  { day: 30, key: 'sentry', text: 'Crash reports from the apps go to Sentry.', category: 'semantic', role: 'mobile' },
  { day: 40, key: 'flags', text: 'Feature toggles for the apps are read at launch and cached for one session.', category: 'decision', confidence: 'verified', role: 'mobile' },
  // routine notes, every month: the traps (a bare negation between two events is no conflict)
  ...Array.from({ length: 11 }, (_, m) => routine(33 + m * 30, m % 2 === 0 ? 'Nightly build of the mobile apps: no failures.' : 'Nightly build of the mobile apps: failure rate flat.', 'mobile')),
  ...Array.from({ length: 11 }, (_, m) => routine(36 + m * 30, `Sprint ${m + 2} retro: velocity ${28 + ((m * 7) % 9)} points, two carry-overs.`)),
  ...Array.from({ length: 11 }, (_, m) => routine(38 + m * 30, `Standup: ${['Priya', 'Marco', 'Lena'][m % 3]} reviews the offline sync pull request.`)),
  { day: 95, key: 'lock1', text: 'The schema migration locked the sessions table for a minute.', role: 'backend' },
  { day: 125, key: 'lock2', text: 'The schema migration ran without locking the sessions table.', role: 'backend' },
  { day: 120, key: 'kt2', text: 'We upgraded the Android build to Kotlin 2.0 and Gradle 8.7.', role: 'mobile' },
  { day: 150, key: 'gw2', text: 'The public API gateway moved to api-gw-2.harbor.internal after the load balancer swap.', role: 'backend' },
  { day: 160, key: 'jest2', text: 'We no longer run mobile unit tests with Jest; Vitest from now on.', category: 'decision', role: 'mobile' },
  { day: 180, key: 'approvals2', text: 'Pull requests need one approval instead of two from now on.', category: 'decision', role: 'planner' },
  { day: 200, key: 'oncall2', text: 'The on-call lead for the payments service is Marco Diaz since the reorg.', category: 'semantic', role: 'planner' },
  { day: 210, key: 'sentry2', text: 'Crash reports moved from Sentry to Bugsnag.', role: 'mobile' },
  { day: 240, key: 'train2', text: 'The mobile release train ships every 3 weeks on Thursday.', category: 'decision', role: 'planner' },
  { day: 250, key: 'region2', text: 'We will not keep customer data in eu-west-1 anymore; the new cluster is in eu-central-1.', category: 'decision', role: 'backend' },
  { day: 270, key: 'gw3', text: 'The public API gateway now runs on edge-gw.harbor.internal.', category: 'semantic', role: 'backend' },
  { day: 300, key: 'kt3', text: 'The Android app is built with Kotlin 2.1 and Gradle 8.10 now.', category: 'semantic', role: 'mobile' },
  // ten reports of one event, each worded its own way
  ...[
    'The iOS release build failed: the distribution signing certificate has expired.',
    'iOS build broke again because the signing certificate ran out.',
    'Release pipeline for iOS is red, code signing says the certificate expired.',
    'Could not sign the iOS app: expired distribution certificate.',
    'The iOS nightly failed at the signing step, certificate no longer valid.',
    'Signing the iOS build fails since the Apple certificate expired yesterday.',
    'iOS archive step errors out: certificate for distribution signing is expired.',
    'The App Store build failed, our iOS signing certificate expired.',
    'Expired signing certificate is blocking the iOS release build.',
    'iOS CI job fails on code signing; the distribution certificate has lapsed.',
  ].map((text, i): Note => ({ day: 320 + i, key: `cert${i}`, text, role: 'mobile' })),
];

/** Facts an agent used in a month (touched at the month's end): the old values are used most before they change. */
export const USED: Array<[month: number, keys: string[]]> = [
  [0, ['gw1', 'kt1', 'jest']],
  [1, ['gw1', 'gw1', 'kt1', 'oncall1', 'approvals', 'sentry']],
  [2, ['gw1', 'gw1', 'kt1', 'train1', 'approvals']],
  [3, ['gw1', 'gw1', 'gw1', 'kt1', 'jest', 'sentry', 'oncall1']],
  [4, ['gw1', 'gw1', 'gw1', 'kt1', 'jest', 'approvals']],
  [6, ['gw2', 'oncall1', 'train1']],
  [8, ['gw2', 'train2']],
];

/** A family of memories about one subject, oldest first: the last is current after its day. */
export interface Family {
  question: string;
  members: string[];
}

export const FAMILIES: Family[] = [
  { question: 'Which host runs the public API gateway?', members: ['gw1', 'gw2', 'gw3'] },
  { question: 'Which Kotlin version is the Android app built with?', members: ['kt1', 'kt2', 'kt3'] },
  { question: 'Who is the on-call lead for the payments service?', members: ['oncall1', 'oncall2'] },
  { question: 'How often does the mobile release train ship?', members: ['train1', 'train2'] },
  { question: 'Which tool runs the mobile unit tests?', members: ['jest', 'jest2'] },
  { question: 'How many approvals does a pull request need?', members: ['approvals', 'approvals2'] },
  { question: 'Where do the crash reports from the apps go?', members: ['sentry', 'sentry2'] },
];

/** Days the questions are asked: the first days of months 7, 10 and 13 (after months 6, 9 and 12). */
export const ASK_DAYS = [180, 270, 360];

/** Sprint planning: the planner starts with `engram context` (a query one time, none the next). */
export const PLANNING: Array<[day: number, task: string]> = Array.from({ length: 12 }, (_, m) => [m * 30 + 29, m % 2 === 0 ? 'plan the next sprint for the mobile apps' : ''] as [number, string]);

export interface YearRun {
  ids: Record<string, string>;
  /** Each sprint planning's context (json). */
  contexts: Array<{ day: number; task: string; included: string[]; omitted: string[]; disputed: Array<[string, string]>; superseded: Array<[string, string]>; block: string }>;
}

async function ok(vault: string, args: string[]): Promise<string> {
  const run = await engram(vault, args);
  if (run.code !== 0) throw new Error(`engram ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/**
 * Write the year into `vault` (initialised here): for each month, the month's notes imported at
 * its end (one JSONL line each, at its own date), the facts used touched, `consolidate`, then
 * the sprint planning's context; `ask` is called on each of ASK_DAYS, after that night's consolidation.
 */
export async function writeYear(vault: string, dir: string, ask: (day: number) => Promise<void> = async () => {}, until = 365): Promise<YearRun> {
  const { writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  await ok(vault, ['--now', at(0, 8), 'init']);
  const ids: Record<string, string> = {};
  const contexts: YearRun['contexts'] = [];
  for (let month = 0; month * 30 < until; month++) {
    const end = Math.min(month * 30 + 29, until);
    const notes = NOTES.filter((n) => n.day >= month * 30 && n.day <= end).sort((a, b) => a.day - b.day);
    if (notes.length > 0) {
      const file = path.join(dir, `month-${month}.jsonl`);
      writeFileSync(file, notes.map((n) => JSON.stringify({ text: n.text, created_at: at(n.day, 10), category: n.category ?? 'episodic', confidence: n.confidence ?? 'observed', agent_role: n.role })).join('\n') + '\n');
      const imported = JSON.parse(await ok(vault, ['--json', '--now', at(end, 18), 'import', file])) as { results: Array<{ id: string }> };
      notes.forEach((n, i) => {
        if (n.key) ids[n.key] = imported.results[i]!.id;
      });
    }
    for (const key of USED.find(([m]) => m === month)?.[1] ?? []) await ok(vault, ['--now', at(end, 19), 'touch', ids[key]!]);
    await ok(vault, ['--now', at(end + 1, 3), 'consolidate']);
    if (ASK_DAYS.includes(end + 1)) await ask(end + 1);
    const planning = PLANNING.find(([day]) => day === end);
    if (planning) {
      const json = JSON.parse(await ok(vault, ['--json', '--now', at(end + 1, 9), 'context', ...(planning[1] ? [planning[1]] : [])]));
      contexts.push({ day: end + 1, task: planning[1], ...json });
    }
  }
  return { ids, contexts };
}
