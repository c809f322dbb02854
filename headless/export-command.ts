import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { UsageError } from '../src/core/errors';
import { CSV_FILES, edgesCsv, exportGraph, kuzuScript, neo4jScript, nodesCsv, toGraphML } from '../src/core/graph-export';
import type { Command } from './command';
import { openVault } from './runtime';

/** Write a file through a temp name in the same folder, so a reader never sees half of it. */
function writeAtomic(path: string, text: string): void {
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

/** `engram export`: the memory graph as GraphML (stdout or a file) or CSV files in a folder (SPEC §13). */
export const exportCommand: Command = {
  group: 'maintain',
  summary: 'the memory graph as GraphML, or node/edge CSV for Kuzu and Neo4j',
  details:
    'Memories (archive included) with their properties; related, co_access (weight = count), decays_from,\n' +
    'supersedes and contradicts (from conflict notes) edges. Links to missing memories are left out and counted.\n' +
    `csv writes ${CSV_FILES.nodes}, ${CSV_FILES.edges}, ${CSV_FILES.kuzu} and ${CSV_FILES.neo4j} into --out FOLDER.\n` +
    'The vault stays the authority: an export is never read back.\n' +
    'json: {"format", "nodes", "edges", "dangling", "files"}',
  options: {
    format: { type: 'string', value: 'graphml|csv', help: 'graphml (default) or csv' },
    out: { type: 'string', value: 'PATH', help: 'graphml: a file (default: standard output); csv: a folder (required)' },
  },
  async run(context) {
    const format = (context.options.format as string | undefined) ?? 'graphml';
    if (format !== 'graphml' && format !== 'csv') throw new UsageError(`--format: expected graphml or csv, got ${JSON.stringify(format)}`);
    if (context.args.length > 0) throw new UsageError(`export: unexpected argument ${JSON.stringify(context.args[0])}`);
    const out = context.options.out as string | undefined;
    if (format === 'csv' && !out) throw new UsageError('export --format csv: give --out FOLDER (two CSV files and two load scripts are written there)');
    const runtime = openVault(context.runtime);
    const graph = await exportGraph(runtime.vault);
    const written: string[] = [];
    if (format === 'graphml') {
      const text = toGraphML(graph);
      if (!out) {
        context.io.stdout(text);
        return 0;
      }
      const file = nodePath.resolve(context.io.cwd, out);
      if (existsSync(file) && statSync(file).isDirectory()) throw new UsageError(`--out: ${out} is a folder; give a file name such as memory.graphml`);
      writeAtomic(file, text);
      written.push(file);
    } else {
      const folder = nodePath.resolve(context.io.cwd, out!);
      if (existsSync(folder) && !statSync(folder).isDirectory()) throw new UsageError(`--out: ${out} is a file; csv needs a folder`);
      mkdirSync(folder, { recursive: true });
      const files: Array<[string, string]> = [
        [CSV_FILES.nodes, nodesCsv(graph)],
        [CSV_FILES.edges, edgesCsv(graph)],
        [CSV_FILES.kuzu, kuzuScript(folder)],
        [CSV_FILES.neo4j, neo4jScript()],
      ];
      for (const [name, text] of files) {
        writeAtomic(nodePath.join(folder, name), text);
        written.push(nodePath.join(folder, name));
      }
    }
    const summary = { format, nodes: graph.nodes.length, edges: graph.edges.length, dangling: graph.dangling, files: written };
    context.io.stdout(
      context.json
        ? `${JSON.stringify(summary)}\n`
        : `exported ${summary.nodes} memories and ${summary.edges} edges as ${format}${graph.dangling ? ` (${graph.dangling} links to missing memories left out)` : ''}:\n${written.map((f) => `  ${f}`).join('\n')}\n`,
    );
    return 0;
  },
};
