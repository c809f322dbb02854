// A Stryker ignorer (and a reporter, below) for `npm run mutate:sample` (scripts/mutate-sample.mjs): the sample is a set of
// lines, each run as the span of the mutants that start on it; a mutant nested in that span but
// starting on a later line (a statement inside a sampled block) is not in the sample, so it is
// ignored rather than tested. The spans come from the file ENGRAM_SAMPLE_SPANS names.
import * as fs from 'node:fs';
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

const spans = (process.env.ENGRAM_SAMPLE_SPANS ? JSON.parse(fs.readFileSync(process.env.ENGRAM_SAMPLE_SPANS, 'utf8')) : []).map((s) => {
  const [, file, l1, c1, l2, c2] = /^(.*):(\d+):(\d+)-(\d+):(\d+)$/.exec(s);
  return { file, start: { line: +l1, column: +c1 }, end: { line: +l2, column: +c2 } };
});

const before = (a, b) => a.line < b.line || (a.line === b.line && a.column <= b.column);

export const strykerPlugins = [
  // each mutant's result as it is known, one JSON line (ENGRAM_SAMPLE_LOG): Stryker writes its
  // report only at the end, and a run stopped early still shows what survived
  declareValuePlugin(PluginKind.Reporter, 'engram-sample-log', {
    onMutantTested(result) {
      if (!process.env.ENGRAM_SAMPLE_LOG) return;
      // statusReason: why a mutant was a RuntimeError (a suite that failed to run) or was killed
      const { fileName, location, mutatorName, replacement, status, statusReason } = result;
      fs.appendFileSync(process.env.ENGRAM_SAMPLE_LOG, `${JSON.stringify({ fileName, location, mutatorName, replacement, status, statusReason: statusReason?.slice(0, 2000) })}\n`);
    },
  }),
  declareValuePlugin(PluginKind.Ignore, 'engram-sample', {
    shouldIgnore(path) {
      const loc = path.node.loc;
      const name = path.hub?.file?.opts?.filename;
      if (!loc || !name) return undefined;
      const file = name.split('\\').join('/');
      const here = spans.filter((s) => file.endsWith(`/${s.file}`));
      // (ignoring a node ignores all it holds: not one that spans another sampled line)
      const inside = here.some((s) => loc.start.line > s.start.line && before(s.start, loc.start) && before(loc.end, s.end)) && !here.some((s) => loc.start.line <= s.start.line && s.start.line <= loc.end.line);
      return inside ? 'nested in a sampled span, not itself sampled' : undefined;
    },
  }),
];
