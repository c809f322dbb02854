import { UsageError } from '../src/core/errors';
import { observeLoopOutcomes } from '../src/core/loop-outcomes';
import { loopReports, readDecisions } from '../src/core/procedural-utility';
import type { Command } from './command';
import { openVault } from './runtime';

/** `engram loops`: each automatic loop's learned utility, decisions and a recommendation (advisory). */
export const loopsCommand: Command = {
  group: 'maintain',
  summary: "each automatic loop's learned utility, decisions and a recommendation (advisory)",
  details:
    'Procedural utility: what each automatic loop (validation, clustering, conflicts) is worth, learned from the\n' +
    'decisions on its proposals by U <- U + a(R - U): approve +1, approve after editing +0.4, reject -1, a memory\n' +
    'it produced later cited +0.5. Advisory only; procedural.utilityFloorEnabled (off) skips automatic runs of a\n' +
    'loop below procedural.utilityFloor. Decisions are audited in .engram/loops.jsonl.\n' +
    'json: {"loops": [{"loop", "utility", "decisions", "counts", "last_decision_at", "recommendation", "suppressed"}], "learned"}',
  options: { log: { type: 'boolean', help: 'print every recorded decision instead' } },
  async run(context) {
    if (context.args.length > 0) throw new UsageError(`loops: unexpected argument ${JSON.stringify(context.args[0])}`);
    const runtime = openVault(context.runtime);
    const { vault } = runtime;
    const { memories } = await vault.loadAll();
    const learned = await observeLoopOutcomes(vault, memories);
    if (context.options.log) {
      const lines = await readDecisions(vault);
      context.io.stdout(
        context.json
          ? `${JSON.stringify(lines)}\n`
          : lines.length === 0
            ? 'no decisions recorded yet\n'
            : `${lines.map((l) => `${l.at}  ${l.loop.padEnd(10)} ${l.decision.padEnd(15)} ${l.subject}  R ${l.reward >= 0 ? '+' : ''}${l.reward}  U ${l.utility_before} -> ${l.utility_after}  (${l.by}${l.reason ? `: ${l.reason}` : ''})`).join('\n')}\n`,
      );
      return 0;
    }
    const reports = await loopReports(vault);
    const floor = vault.settings.procedural;
    context.io.stdout(
      context.json
        ? `${JSON.stringify({ loops: reports, learned: learned.length })}\n`
        : [
            `${'loop'.padEnd(11)} ${'utility'.padStart(8)} ${'decisions'.padStart(9)}  approved/edited/rejected/cited  recommendation`,
            ...reports.map(
              (r) =>
                `${r.loop.padEnd(11)} ${r.utility.toFixed(3).padStart(8)} ${String(r.decisions).padStart(9)}  ${`${r.counts.approved}/${r.counts.approved_edited}/${r.counts.rejected}/${r.counts.cited}`.padEnd(30)}  ${r.recommendation ?? (r.decisions < floor.minDecisions ? `(after ${floor.minDecisions} decisions)` : '-')}${r.suppressed ? '  [automatic runs skipped: below the utility floor]' : ''}`,
            ),
            ...(learned.length > 0 ? [`(${learned.length} new decisions read from the vault)`] : []),
            floor.utilityFloorEnabled ? `utility floor on at ${floor.utilityFloor}: automatic runs of a loop below it are skipped` : 'advisory only (procedural.utilityFloorEnabled is off)',
          ].join('\n') + '\n',
    );
    return 0;
  },
};
