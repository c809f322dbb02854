// `npm run bench` (part): recall through `engram mcp` (one warm process, the SDK's own client over
// stdio) beside recall in process and a cold `engram recall` CLI process, on the same vault and
// queries, in the same run (the machine is shared and noisy: medians, and ratios).
//   node scripts/bench-mcp.mjs [--sizes 10000,100000] [--queries 200]
//
// The vault: N episodic memories written as files (Zipf-distributed words over a 5,000-word
// vocabulary, sessions of 20, created over a year). Queries are four words of a memory's text.
// - in process: the engine opened once (openRecall), then search + reading the texts of the hits
//   + the JSON the tool answers: what the MCP tool does without the protocol;
// - MCP warm: tools/call recall over stdio, after a first call that builds the engine;
// - MCP after a change: a memory saved in place (as Obsidian does) before each call, so each
//   call applies the change (LiveIndex: the memory's row re-indexed, or a new row; the change
//   alone is timed by bench-warm.mjs);
// - CLI cold: `engram recall` as a new process, caches built.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { rng, zipfSampler } from './zipf.mjs';

const require = createRequire(import.meta.url);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const lib = await import(path.join(root, 'dist', 'lib.js'));
const { openVault, openRecall, hydrate, toResult } = lib.default ?? lib;
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const ENGRAM = path.join(root, 'dist', 'engram.js');
const NOW = '2026-11-29T12:00:00Z';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,100000' }, queries: { type: 'string', default: '200' } } });
const SIZES = values.sizes.split(',').map(Number);
const QUERIES = Number(values.queries);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const p10 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.1)];
const time = async (fn) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

/** N memory files, written directly (the import pipeline is measured by bench.mjs). */
function writeVault(dir, n) {
  execFileSync(process.execPath, [ENGRAM, '--vault', dir, 'init']);
  const rand = rng(7);
  const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
  const zipf = zipfSampler(rand, vocabulary);
  const start = Date.parse('2025-12-01T00:00:00Z');
  const texts = [];
  for (let i = 0; i < n; i++) {
    const id = `mem-${i.toString(36).padStart(12, '0')}`;
    const text = `Observation ${i}: ${Array.from({ length: 12 + Math.floor(rand() * 20) }, zipf).join(' ')}.`;
    const at = new Date(start + Math.floor((i / n) * 360 * 86400e3)).toISOString().replace(/\.\d+Z$/, 'Z');
    writeFileSync(
      path.join(dir, 'episodic', `${id}.md`),
      `---\nid: ${id}\ncategory: episodic\ncreated_at: "${at}"\nconfidence: observed\ntags: ["bench"]\nsession: "s${Math.floor(i / 20)}"\n---\n${text}\n`,
    );
    texts.push({ id, text });
  }
  return texts;
}

/** CPU clock ticks a process has used (Linux /proc/PID/stat: utime + stime), or null elsewhere. */
function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Until process `pid` has used no CPU time for 300 ms (its background work done), at most 120 s; at once where /proc is not there. */
async function idle(pid) {
  let last = cpuTicks(pid);
  if (last === null) return;
  let still = 0;
  for (const end = Date.now() + 120_000; still < 3 && Date.now() < end; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ticks = cpuTicks(pid);
    still = ticks === last ? still + 1 : 0;
    last = ticks;
  }
}

const rows = [];
const work = mkdtempSync(path.join(tmpdir(), 'engram-bench-mcp-'));
try {
  for (const n of SIZES) {
    const dir = path.join(work, `vault-${n}`);
    mkdirSync(dir);
    const texts = writeVault(dir, n);
    const queries = Array.from({ length: QUERIES }, (_, i) => texts[(i * 7919) % n].text.split(' ').slice(2, 6).join(' '));
    const cli = (q) => execFileSync(process.execPath, [ENGRAM, '--vault', dir, '--now', NOW, '--json', 'recall', q]);
    const firstCli = await time(() => cli(queries[0])); // builds the catalog and the snapshot
    const cold = [];
    for (let i = 0; i < 11; i++) cold.push(await time(() => cli(queries[i % queries.length])));

    // in process: the same engine, search + texts + JSON
    const { vault } = openVault({ vault: dir, now: NOW, cwd: root, env: {} });
    const now = vault.now();
    const engine = await openRecall(vault);
    const inProcess = async (q) => JSON.stringify((await hydrate(vault, engine.search(q, { limit: 12 }, now).hits)).map((h) => toResult(h, false)));

    // MCP over stdio
    const transport = new StdioClientTransport({ command: process.execPath, args: [ENGRAM, '--vault', dir, '--now', NOW, 'mcp'], stderr: 'ignore' });
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(transport);
    const mcp = async (q) => {
      const result = await client.callTool({ name: 'recall', arguments: { query: q } });
      if (result.isError) throw new Error(result.content[0].text);
      return result.content[0].text;
    };
    const firstMcp = await time(() => mcp(queries[0]));
    // the same answers both ways
    for (const q of queries.slice(0, 5)) {
      const a = JSON.parse(await mcp(q)).map((r) => r.id);
      const b = JSON.parse(await inProcess(q)).map((r) => r.id);
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`MCP and in-process recall differ for ${q}`);
    }
    // alternate the two, 20 queries at a time, after warming both; the server loads its documents
    // in the background after its first call (WarmVault's preload, in slices), so these first calls
    // share its main thread with that load
    const early = [];
    for (const q of queries.slice(0, 20)) {
      early.push(await time(() => mcp(q)));
      await inProcess(q);
    }
    // then warm: the preload over, the server idle (its CPU time still for 300 ms)
    const preloadLeft = await time(() => idle(transport.pid));
    const pings = [];
    for (let i = 0; i < 100; i++) pings.push(await time(() => client.ping()));
    const warm = [];
    const local = [];
    for (let round = 0; round < QUERIES / 20; round++) {
      for (let i = 0; i < 20; i++) warm.push(await time(() => mcp(queries[round * 20 + i])));
      for (let i = 0; i < 20; i++) local.push(await time(() => inProcess(queries[round * 20 + i])));
    }
    // changes made on disk by another writer before a call, by kind (see WarmVault)
    const changed = path.join(dir, 'episodic', `${texts[0].id}.md`);
    const original = readFileSync(changed, 'utf8');
    const afterChange = { touch: [], remember: [], edit: [] };
    for (let i = 0; i < 7; i++) {
      writeFileSync(changed, original.replace('tags: ["bench"]', `tags: ["bench"]\naccess_count: ${i + 1}`)); // a field only
      afterChange.touch.push(await time(() => mcp(queries[i])));
    }
    for (let i = 0; i < 7; i++) {
      const id = `mem-new${String(i).padStart(9, '0')}`;
      writeFileSync(path.join(dir, 'episodic', `${id}.md`), `---\nid: ${id}\ncategory: episodic\ncreated_at: "${NOW}"\n---\nA new memory number ${i} about w1 w2 w3.\n`);
      afterChange.remember.push(await time(() => mcp(queries[i])));
    }
    for (let i = 0; i < 5; i++) {
      writeFileSync(changed, original.replace('Observation 0:', `Observation 0 (edit ${i}):`)); // new words
      afterChange.edit.push(await time(() => mcp(queries[i])));
    }
    writeFileSync(changed, original);
    await client.close();
    // the same text rewrite, then a cold CLI recall (it rebuilds its catalog and snapshot)
    const coldAfterEdit = [];
    for (let i = 0; i < 3; i++) {
      writeFileSync(changed, original.replace('Observation 0:', `Observation 0 (cli edit ${i}):`));
      coldAfterEdit.push(await time(() => cli(queries[i])));
    }
    writeFileSync(changed, original);

    rows.push([`recall through MCP, the 20 calls after the first (the documents preloading meanwhile), at ${n} (p50)`, median(early), median(local), 'in process, same engine work, p50']);
    rows.push([`  the rest of the preload, waited for before the warm calls (ms)`, preloadLeft, null, 'until the server process used no CPU for 300 ms']);
    rows.push([`recall through MCP, warm, at ${n} (p50)`, median(warm), median(local), 'in process, same engine work (search + texts + JSON), p50']);
    rows.push([`recall through MCP, warm, at ${n} (p10)`, p10(warm), p10(local), 'in process p10 (the machine at its quietest)']);
    rows.push([`recall through MCP, warm, at ${n} (p95)`, p95(warm), p95(local), 'in process p95']);
    rows.push([`  difference, MCP warm minus in process, p50 (ms)`, median(warm) - median(local), null, 'what the protocol and the process boundary cost']);
    rows.push([`  MCP ping round trip, p50`, median(pings), null, 'the floor: JSON-RPC over stdio to another process and back']);
    rows.push([`recall, cold CLI process at ${n} (p50 of 11)`, median(cold), median(warm), 'MCP warm p50']);
    rows.push([`recall through MCP after another writer changed a field of a memory, at ${n} (p50 of 7)`, median(afterChange.touch), median(warm), 'MCP warm p50 (no change)']);
    rows.push([`recall through MCP after another writer added a memory, at ${n} (p50 of 7)`, median(afterChange.remember), median(warm), 'MCP warm p50 (no change)']);
    rows.push([`recall through MCP after a person rewrote a memory's text, at ${n} (p50 of 5)`, median(afterChange.edit), median(coldAfterEdit), 'cold CLI recall after the same rewrite (p50 of 3)']);
    rows.push([`first recall through MCP at ${n} (opens the engine from the snapshot)`, firstMcp, firstCli, 'first CLI recall (builds the catalog and snapshot)']);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(`\nRecall through engram mcp: ${QUERIES} queries per size (ms)\n`);
console.log('| measure | engram | baseline | ratio | baseline is |');
console.log('|---|---:|---:|---:|---|');
for (const [name, ms, base, what] of rows) {
  const ratio = base ? `${(ms / base).toFixed(2)}x` : '';
  console.log(`| ${name} | ${ms.toFixed(2)} | ${base === null ? '' : base.toFixed(2)} | ${ratio} | ${what} |`);
}
