// `npm start`: Engram's main job on the bundled example vault. Copies examples/vault to
// .work/demo-vault (outside the tracked tree), then runs the runner on it the way an agent
// and a cron job would, printing each command and what it answered.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const vault = path.join(root, '.work', 'demo-vault');
const now = '2026-11-29T12:00:00Z';
const engram = path.join(root, 'dist', 'engram.js');

rmSync(vault, { recursive: true, force: true });
cpSync(path.join(root, 'examples', 'vault'), vault, { recursive: true });

/** Run the runner on the demo vault and print what it answered (its first `lines` lines, when given). */
function run(args, note, lines = Infinity) {
  console.log(`\n# ${note}\n$ engram ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  let out;
  try {
    out = execFileSync(process.execPath, [engram, '--vault', vault, '--now', now, ...args], { encoding: 'utf8' });
  } catch (error) {
    out = `${error.stdout ?? ''}${error.stderr ?? ''}`;
  }
  const all = out.split('\n');
  if (all.at(-1) === '') all.pop();
  const shown = all.slice(0, lines);
  if (all.length > shown.length) shown.push(`  … ${all.length - shown.length} more`);
  process.stdout.write(`${shown.join('\n')}\n`);
}

console.log(`Engram demo on a copy of examples/vault at ${path.relative(process.cwd(), vault)} (clock fixed at ${now})`);
run(['init'], 'init is idempotent: it keeps every note and adds only what the example lacks (empty folders, Engram\'s machine folders)');
run(['migrate', '--apply'], 'the example was written before notes had readable names (mem-<id>.md): migrate names each after its first words and rewrites every link (without --apply: a dry run)', 4);
run(['stats'], 'what the vault holds, by category, decay tier and confidence');
run(['remember', 'Review: PR #431 used console.log in the outbox worker again.', '--tags', 'review,logging', '--role', 'code-reviewer'], 'an agent remembers a new review finding');
run(['--json', 'remember', 'Never log full card numbers or CVCs; the pino redaction list covers card.number and card.cvc.', '--category', 'decision'], 'the same decision again: resonance reinforces it instead of writing a duplicate');
run(['remember', 'Integration tests must not use Testcontainers with a real PostgreSQL.', '--category', 'decision'], 'a contradicting decision: both are kept and a conflict note is opened');
run(['show', 'mem-2fa8e3a87f1f'], 'a cold memory, with its computed strength, half-life and activation');
run(['touch', 'mem-2fa8e3a87f1f', 'mem-844b95fa77d0'], 'the agent reads two memories to answer: one tier up each, co-access linked');
run(['recall', 'console.log in the webhook code', '--limit', '4', '--explain'], 'recall: lexical seeds, episode context, spreading activation, ranked by strength and confidence');
run(['recall', 'kafka', '--radius', 'all', '--limit', '2'], 'an old memory, found when the caller widens the radius on purpose');
run(['context', 'review the refunds handler PR', '--budget', '400'], 'what an agent gets at the start of a task: STATE.md and the AGENT MEMORY block (showing is not using: nothing is touched)');
run(['creative', '3', '--seed', 'demo'], 'creative recall: three memories favouring forgotten ones');
run(['log', 'Demo ran: reviewed the outbox worker logging.'], "append to today's daily file");
run(['consolidate', '--dry-run'], 'sleep, planned: what consolidation would do (nothing written)');
run(['consolidate'], 'sleep: forgotten memories move to archive/ (never deleted), tiers follow the days, the run is logged');
run(['budget'], 'what an agent loads every turn, against the targets');
run(['stats'], 'after the session');
