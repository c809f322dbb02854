import * as nodePath from 'node:path';
import { EngramError, UsageError } from '../src/core/errors';
import { applyProposal, listProposals, proposedTextOf, readProposal, rejectProposal, type Decided, type Proposal } from '../src/core/review';
import { readRuns, type ValidationRun } from '../src/core/validation/runs';
import { dueForValidation, validateDue, validateMemory } from '../src/core/validation/validate';
import type { Vault } from '../src/core/vault';
import type { Command, CommandContext } from './command';
import { memoryRef, print } from './command-kit';
import { GitCli } from './git';
import { createChatModel } from './openai-chat';
import { GitProjectHistory } from './project-history';
import { openVault, type Runtime } from './runtime';

function history(context: CommandContext, runtime: Runtime): GitProjectHistory | null {
  const repo = context.options.repo as string | undefined;
  const git = repo ? GitCli.enclosing(nodePath.resolve(context.io.cwd, repo)) : GitCli.enclosing(runtime.root);
  if (repo && !git) throw new UsageError(`--repo: ${repo} is not inside a git repository`);
  return git ? new GitProjectHistory(git.root) : null;
}

function chatFor(context: CommandContext, vault: Vault) {
  const chat = createChatModel(vault.settings.chat, context.io.env);
  if (!chat) throw new EngramError('no chat endpoint configured: set "chat": {"url": "http://127.0.0.1:11434/v1", "model": "..."} in .engram/config.json');
  return chat;
}

function formatRun(run: ValidationRun): string {
  const head = `${run.run}  ${run.memory}  ${run.dry_run ? 'DRY RUN: would be ' : ''}${run.outcome}`;
  const verdict = run.verdict ? `  verdict ${run.verdict} (confidence ${run.confidence}${run.cited ? `, cites ${run.cited.join(' ')}` : ''})` : '';
  const lines = [head + verdict];
  if (run.reason) lines.push(`  ${run.reason}`);
  if (run.error) lines.push(`  ${run.error}`);
  if (run.proposed_text && run.outcome !== 'refreshed') lines.push(`  proposed: ${run.proposed_text}`);
  if (run.proposal) lines.push(`  review: ${run.proposal}`);
  return lines.join('\n');
}

/** `engram validate ID` (a person asks) or `engram validate --due` (cron). */
export const validateCommand: Command = {
  group: 'maintain',
  args: '[ID | PATH]',
  arity: [0, 1],
  summary: 'check a memory against its evidence with the configured chat model (SPEC §10, opt-in)',
  details:
    'engram validate ID      validate one memory now (it need not be due)\n' +
    'engram validate --due   validate what is due, most active first, within the daily cap (for cron)\n' +
    'engram validate --due --list   what is due, without asking the model\n' +
    'Off until validation.enabled; a dry run (only .engram/validation-runs.jsonl is written) until\n' +
    'validation.dryRun is false; at most validation.dailyCap runs a day. Valid: metadata refreshed;\n' +
    'a correction or rewording: queued for review (engram review); weak, ambiguous or unsupported:\n' +
    'flagged and rank-penalised, text untouched. Timeouts, error statuses, malformed answers and\n' +
    'verdicts citing evidence they were not shown are recorded and never applied.\n' +
    'json: the run {"run", "memory", "outcome", "verdict", "confidence", "cited", "proposal", ...}, or for --due {"due", "runs", "stopped"}',
  options: {
    due: { type: 'boolean', help: 'validate every memory that is due' },
    list: { type: 'boolean', help: 'with --due: list what is due, ask nothing' },
    repo: { type: 'string', value: 'DIR', help: 'the project repository for evidence (else the one around the vault)' },
  },
  async run(context) {
    const runtime = openVault(context.runtime);
    const { vault } = runtime;
    if (context.options.due) {
      if (context.args.length > 0) throw new UsageError('validate: give an ID or --due, not both');
      if (context.options.list) {
        const { memories } = await vault.loadAll({ archive: false });
        const due = dueForValidation(memories, vault);
        return print(context, due, () => (due.length === 0 ? 'nothing is due for validation' : due.map((d) => `${d.id}  activation ${d.activation} >= ${d.threshold}${d.volatility ? ` (volatility ${d.volatility})` : ''}`).join('\n')));
      }
      const report = await validateDue(vault, { chat: chatFor(context, vault), history: history(context, runtime) });
      return print(context, report, () =>
        [`${report.due.length} due, ${report.runs.length} validated${vault.settings.validation.dryRun ? ' (dry run: nothing changed)' : ''}`, ...report.runs.map(formatRun), ...(report.stopped ? [`stopped: ${report.stopped}`] : [])].join('\n'),
      );
    }
    if (context.options.list) throw new UsageError('validate: --list goes with --due');
    if (context.args.length !== 1) throw new UsageError('validate: give one memory id or path, or --due');
    const memory = await vault.resolve(memoryRef(runtime, context.io.cwd, context.args[0]!));
    const run = await validateMemory(vault, memory.id, { chat: chatFor(context, vault), history: history(context, runtime), manual: true });
    print(context, run, () => formatRun(run));
    return ['timeout', 'http', 'network', 'refused', 'empty', 'malformed', 'unseen_evidence'].includes(run.outcome) ? 1 : 0;
  },
};

function proposalLine(p: Proposal): string {
  const verdict = p.verdict ? `${p.verdict} ${p.confidence ?? ''}`.trim() : p.loop;
  return `${p.id}  ${p.status.padEnd(8)} ${p.kind.padEnd(10)} ${p.memory}  ${verdict}  ${p.created_at}`;
}

function decidedLine(d: Decided): string {
  const what = d.proposal.kind === 'flag' ? (d.proposal.status === 'applied' ? 'the memory is now stale' : 'the memory holds; flag lifted') : d.proposal.status === 'applied' ? `new version ${d.version} of ${d.proposal.memory}` : 'text kept';
  return `${d.proposal.id} ${d.proposal.status}: ${what} (confidence ${d.confidence}); the ${d.proposal.loop} loop learned: ${d.decision}`;
}

/** `engram review list|show|apply|reject`: the review queue. */
export const reviewCommand: Command = {
  group: 'curate',
  args: 'list | show ID | apply ID | reject ID',
  arity: [1, 2],
  summary: 'the review queue: proposals of validation and consolidation, decided by a person',
  details:
    'Each proposal is a note in review/ (the memory, the verdict, the proposed text you may edit, the diff, the evidence).\n' +
    'list [--all]: open proposals (--all: decided ones too, and what dry-run validation would have queued)\n' +
    'show ID: the note; apply ID: the proposed text (as edited in the note) becomes a new version of the memory\n' +
    '(a flag: the memory becomes stale); reject ID [--reason TEXT]: the text stays (a flag: the memory holds).\n' +
    'Every decision teaches the proposing loop (engram loops).',
  options: {
    all: { type: 'boolean', help: 'list: decided proposals and dry-run results too' },
    reason: { type: 'string', value: 'TEXT', help: 'reject: why (recorded in the note)' },
  },
  async run(context) {
    const [sub, ref] = context.args as [string, string | undefined];
    const runtime = openVault(context.runtime);
    const { vault } = runtime;
    const needRef = () => {
      if (!ref) throw new UsageError(`review ${sub}: give the proposal id (review-…), see engram review list`);
      return ref;
    };
    switch (sub) {
      case 'list': {
        if (ref) throw new UsageError('review list takes no id');
        const proposals = await listProposals(vault, { all: Boolean(context.options.all) });
        const dry = context.options.all ? (await readRuns(vault)).filter((r) => r.dry_run) : [];
        return print(context, context.options.all ? { proposals, dry_run: dry } : proposals, () =>
          [
            ...(proposals.length === 0 ? [context.options.all ? 'no proposals' : 'the review queue is empty'] : proposals.map(proposalLine)),
            ...(dry.length > 0 ? ['', 'dry-run validation (nothing was changed):', ...dry.map(formatRun)] : []),
          ].join('\n'),
        );
      }
      case 'show': {
        const { proposal, text } = await readProposal(vault, needRef());
        return print(context, { ...proposal, proposed_text: proposedTextOf(text), note: text }, () => text.trimEnd());
      }
      case 'apply': {
        const decided = await applyProposal(vault, needRef(), { by: 'cli' });
        return print(context, decided, () => decidedLine(decided));
      }
      case 'reject': {
        const decided = await rejectProposal(vault, needRef(), { by: 'cli', reason: (context.options.reason as string | undefined) ?? '' });
        return print(context, decided, () => decidedLine(decided));
      }
      default:
        throw new UsageError(`review: expected list, show, apply or reject, got ${JSON.stringify(sub)}`);
    }
  },
};
