/**
 * Two months of a small team's work, written through the CLI as it happened (`--now` at each
 * moment): decisions taken early and never looked at again, errors and episodes spread over
 * the weeks, routine episodes that share words with later questions, a nightly
 * consolidation. Shared by the scenario test and by anyone who wants to look at the vault.
 */
import { engram } from '../helpers/cli';

export const START = Date.UTC(2026, 0, 5, 9, 0, 0); // Monday 5 January 2026, 09:00 UTC
export const at = (day: number, hour = 9): string => new Date(START + day * 86_400_000 + (hour - 9) * 3_600_000).toISOString().replace('.000Z', 'Z');

export interface Step {
  day: number;
  key?: string;
  text: string;
  args?: string[];
}

/** What was remembered, day by day. Keys name the memories the questions expect. */
export const STEPS: Step[] = [
  { day: 0, key: 'mocks', text: 'Integration tests must run against a real PostgreSQL started by Testcontainers; mocking the database in integration tests is forbidden, mocks hid a broken migration last year.', args: ['--category', 'decision', '--confidence', 'verified', '--tags', 'testing'] },
  { day: 0, key: 'port', text: 'The local development database listens on port 5433, because the system PostgreSQL already holds 5432.', args: ['--category', 'decision', '--tags', 'dev-setup'] },
  { day: 0, text: 'Set up the repository and the CI pipeline on GitHub Actions.' },
  { day: 1, key: 'deploy', text: 'Staging deploys run with make deploy-staging; production deploys need two approvals in the release channel.', args: ['--category', 'decision', '--confidence', 'verified', '--tags', 'deploy'] },
  { day: 1, key: 'errors', text: 'API errors are returned as RFC 7807 problem+json documents with a stable type URI.', args: ['--category', 'decision', '--confidence', 'verified', '--tags', 'api'] },
  { day: 2, text: 'Ran the integration tests locally; all green.' },
  { day: 2, text: 'Paired with Sam on the outbox worker.' },
  { day: 3, key: 'pgboss', text: 'Chose pg-boss for background jobs after comparing it with BullMQ: BullMQ needs Redis, and we want to run on Postgres alone.' },
  { day: 4, key: 'squash', text: 'Feature branches are squashed on merge; the commit message is the pull request title.', args: ['--category', 'decision', '--tags', 'git'] },
  { day: 6, text: 'Restarted the local database after the laptop update.' },
  { day: 8, key: 'redis', text: 'CI failed: the Redis container took more than 10 seconds to become healthy; raised the healthcheck timeout to 60 seconds.', args: ['--error', '--tags', 'ci'] },
  { day: 9, text: 'Ran the integration tests locally before pushing.' },
  { day: 10, key: 'export', text: 'Ana from the data team asked for a nightly export of the orders table to S3, as Parquet files.' },
  { day: 12, text: 'Reviewed the outbox worker pull request; asked for a retry test.' },
  { day: 14, key: 'standup-old', text: 'The daily standup is at 9:30 in the small meeting room.' },
  { day: 15, text: 'Ran the database migrations locally; no errors.' },
  { day: 17, key: 'flaky', text: 'The session expiry test is flaky in CI: the token expires while slow runs wait; the test now freezes the clock.', args: ['--error', '--tags', 'testing'] },
  { day: 19, text: 'Ran the integration tests locally; fixed two failures.' },
  { day: 21, key: 'secrets', text: 'Secrets live in Vault under secret/payments; never commit .env files.', args: ['--category', 'decision', '--confidence', 'verified', '--tags', 'security'] },
  { day: 23, text: 'Deployed the outbox worker to staging.' },
  { day: 26, text: 'The local database was slow today; restarted Docker.' },
  { day: 28, text: 'Ran the integration tests locally after the rebase.' },
  { day: 30, key: 'duplicates', text: 'Customers received duplicate emails: the outbox worker retried messages it had already sent. Fixed by storing the message id before sending.', args: ['--error', '--tags', 'outbox'] },
  { day: 33, text: 'Updated the README with the local setup steps.' },
  { day: 35, key: 'index', text: 'Migration 0042 locked the orders table for four minutes on staging; indexes on large tables must be created with CREATE INDEX CONCURRENTLY.', args: ['--error', '--tags', 'database'] },
  { day: 37, text: 'Ran the database migrations on staging.' },
  { day: 40, text: 'Ran the integration tests locally; all green.' },
  { day: 42, key: 'pnpm', text: 'Use pnpm, not npm, in the monorepo; CI rejects a package-lock.json.', args: ['--category', 'decision', '--tags', 'tooling'] },
  { day: 44, text: 'Deployed to staging again after the hotfix.' },
  { day: 47, key: 'reviewer', text: 'Sam is on holiday until the 20th; Alex reviews the payments pull requests meanwhile.' },
  { day: 50, key: 'standup-new', text: 'The standup moved to 10:15 because the Berlin team joined.' },
  { day: 52, text: 'Ran the integration tests locally; the Redis container started fine.' },
  { day: 55, text: 'Reinstalled Docker Desktop; the local database container had to be created again.' },
  { day: 57, text: 'Ran the tests locally before the release.' },
  { day: 59, text: 'Reviewed the migration for the refunds table.' },
  { day: 61, text: 'Ran the integration tests locally; all green.' },
];

/** Plain questions an agent asks on day 62, and the memory that answers each. */
export const QUESTIONS: Array<[question: string, key: string]> = [
  ['Can I mock the database in the integration tests?', 'mocks'],
  ['Which port does the local database use?', 'port'],
  ['How do we deploy to staging?', 'deploy'],
  ['What format should API errors use?', 'errors'],
  ['How are feature branches merged?', 'squash'],
  ['Why did the Redis container fail in CI?', 'redis'],
  ['Why is the session expiry test flaky?', 'flaky'],
  ['Where do we keep secrets?', 'secrets'],
  ['Why did customers get duplicate emails?', 'duplicates'],
  ['How should I add an index to a large table?', 'index'],
  ['Should I use npm or pnpm?', 'pnpm'],
  ['Who reviews the payments pull requests while Sam is away?', 'reviewer'],
  ['When is the standup?', 'standup-new'],
  // episodes nobody used since: archived by day 62
  ['Why did we pick pg-boss over BullMQ?', 'pgboss'],
  ['What did the data team ask for?', 'export'],
];

/** The agent starts a task with `engram context TASK` now and then; what it injects is used (touched). */
export const SESSIONS: Array<[day: number, task: string]> = [
  [11, 'fix the failing CI job'],
  [24, 'review the outbox worker pull request'],
  [38, 'add an index to the payments table'],
  [53, 'deploy the refunds service to staging'],
];

export const ASK_DAY = 62;

/**
 * Write the two months into `vault` (initialised here), consolidating every night at 03:00 and
 * starting the sessions of SESSIONS with `engram context`. Returns the ids by key.
 */
export async function writeTwoMonths(vault: string): Promise<Record<string, string>> {
  await engram(vault, ['--now', at(0, 8), 'init']);
  const ids: Record<string, string> = {};
  let hour = 10;
  let lastDay = 0;
  const sessions = [...SESSIONS];
  for (const step of STEPS) {
    for (let night = lastDay; night < step.day; night++) {
      await engram(vault, ['--now', at(night + 1, 3), 'consolidate']);
      if (sessions[0]?.[0] === night + 1) await engram(vault, ['--now', at(night + 1, 9), 'context', sessions.shift()![1]]);
    }
    hour = step.day === lastDay ? hour + 1 : 10;
    lastDay = step.day;
    const run = await engram(vault, ['--json', '--now', at(step.day, hour), 'remember', step.text, ...(step.args ?? [])]);
    if (run.code !== 0) throw new Error(`remember failed: ${run.stderr}`);
    if (step.key) ids[step.key] = run.json().id;
  }
  for (let night = lastDay; night < ASK_DAY; night++) await engram(vault, ['--now', at(night + 1, 3), 'consolidate']);
  return ids;
}
