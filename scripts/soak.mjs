// Soak test (outside CI): `npm run soak -- --minutes 10`. For the given time, on one vault:
// agents touching memories, agents remembering (repeats reinforce a memory of the pool, new
// texts create memories), a person editing notes in place (in one write or two), and nightly
// consolidations, while a killer sends SIGKILL to random writers and consolidations (each is
// restarted). Then one last consolidation, and an audit:
// - every touch and reinforcement that reported success is in its memory's access_count, and
//   nothing else is: done <= access_count <= done + the ones in flight when a writer was killed;
// - every edit the person saved is in its note, once, with the note's original body;
// - every note reads back; no temp file, duplicate id, lock or plan is left.
// Prints the figures as JSON; exits 1 if anything is unaccounted for.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '5' }, memories: { type: 'string', default: '30' }, dir: { type: 'string' } } });
const root = path.resolve(values.dir ?? path.join('.work', `soak-${Date.now()}`));
const vault = path.join(root, 'vault');
const logs = path.join(root, 'logs');
mkdirSync(logs, { recursive: true });
const ENGRAM = path.resolve('dist', 'engram.js');
const WORKER = path.resolve('scripts', 'soak-worker.cjs');
const cli = (...args) => spawnSync(process.execPath, [ENGRAM, '--vault', vault, ...args], { encoding: 'utf8' });

// the pool: memories the agents touch and reinforce and the person edits
cli('init');
const pool = {};
for (let i = 0; i < Number(values.memories); i++) {
  const text = `Soak memory ${i}: the ${['cache', 'queue', 'schema', 'deploy', 'runner'][i % 5]} of service ${i} keeps its ${['locale', 'retries', 'timeouts'][i % 3]} ${i * 7919}`;
  const result = JSON.parse(cli('--json', 'remember', text).stdout);
  pool[result.id] = text;
}
const ids = Object.keys(pool);
const original = Object.fromEntries(ids.map((id) => [id, `${pool[id]}\n`]));

const started = Date.now();
const until = started + Number(values.minutes) * 60_000;
const figures = { minutes: Number(values.minutes), memories: ids.length, writers_started: 0, writers_killed: 0, consolidations: 0, consolidations_killed: 0, consolidation_failures: 0 };
const live = new Set();
let seq = 0;

function startWriter(kind, argument) {
  const log = path.join(logs, `${kind}-${++seq}.log`);
  const child = spawn(process.execPath, [WORKER, kind, vault, log, String(seq * 7919), String(until), JSON.stringify(argument)], { stdio: ['ignore', 'ignore', 'inherit'] });
  figures.writers_started++;
  const entry = { kind, child, argument, killable: kind !== 'person' };
  live.add(entry);
  child.on('exit', () => {
    live.delete(entry);
    if (Date.now() < until - 2000) startWriter(kind, argument); // a killed writer comes back
  });
}

for (let i = 0; i < 3; i++) startWriter('touch', ids);
for (let i = 0; i < 2; i++) startWriter('remember', pool);
startWriter('person', ids);

// an agent over MCP (issue 22): one `engram mcp` for the whole soak, touching pool memories
// (logged like the touch writers, so the audit counts them) between hostile lines: junk JSON,
// params of the wrong type, queries at and over the length limit, a line over the 4 MiB
// request limit now and then. Every request it sends must be answered once, for its id.
const mcp = { requests: 0, answered: 0, errors: 0, junk_lines: 0, oversized_lines: 0, answered_twice: 0, unanswered: [], touches_done: 0, exit: null };
const mcpSession = (async () => {
  const log = openSync(path.join(logs, 'touch-mcp.log'), 'a');
  const child = spawn(process.execPath, [ENGRAM, '--vault', vault, 'mcp'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const reply = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      if (reply.id === null || reply.id === 'init') continue;
      const request = waiting.get(reply.id);
      if (!request) {
        mcp.answered_twice++;
        continue;
      }
      waiting.delete(reply.id);
      mcp.answered++;
      const failed = reply.error || reply.result?.isError;
      if (failed) mcp.errors++;
      if (request.touch) {
        writeSync(log, `${failed ? 'F' : 'D'} ${reply.id} ${request.touch}${failed ? ` ${JSON.stringify(reply.error ?? reply.result.content?.[0]?.text ?? '').slice(0, 200)}` : ''}\n`);
        if (!failed) mcp.touches_done++;
      }
    }
  });
  const closed = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const send = (line) => new Promise((resolve) => (child.stdin.write(`${line}\n`) ? resolve() : child.stdin.once('drain', resolve)));
  await send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'soak', version: '0' } } }));
  await send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const request = async (method, params, touch = null) => {
    const id = ++mcp.requests;
    waiting.set(id, { touch });
    if (touch) writeSync(log, `I ${id} ${touch}\n`);
    await send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  };
  while (Date.now() < until - 3000) {
    const roll = Math.random();
    if (roll < 0.5) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      await request('tools/call', { name: 'touch', arguments: { ids: [id] } }, id);
    }
    else if (roll < 0.7) await request('tools/call', { name: 'recall', arguments: { query: Math.random() < 0.2 ? 'q'.repeat(65_537) : `the cache of service ${Math.floor(Math.random() * 30)}` } });
    else if (roll < 0.8) await request('tools/call', Math.random() < 0.5 ? 'stats' : { name: 'touch', arguments: { ids: 7 } });
    else if (roll < 0.95) {
      mcp.junk_lines++;
      await send(['{', '[]', 'null', '{"jsonrpc":"2.0","id":', '"x"'][Math.floor(Math.random() * 5)]);
    } else {
      mcp.oversized_lines++;
      await send(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${'p'.repeat(4 * 1024 * 1024 + 10)}"}}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
  }
  child.stdin.end();
  mcp.exit = await closed;
  mcp.unanswered = [...waiting.keys()].slice(0, 20);
  closeSync(log);
})();

// consolidation every few seconds, one in three killed at a random moment
const consolidations = (async () => {
  while (Date.now() < until - 3000) {
    const child = spawn(process.execPath, [ENGRAM, '--vault', vault, '--json', 'consolidate'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const kill = Math.random() < 0.33 ? setTimeout(() => child.kill('SIGKILL'), Math.random() * 1500) : null;
    const [code, signal] = await new Promise((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    if (kill) clearTimeout(kill);
    if (signal === 'SIGKILL') figures.consolidations_killed++;
    else if (code === 0) figures.consolidations++;
    else if (!/another consolidation is running/.test(stderr)) {
      figures.consolidation_failures++;
      process.stderr.write(`consolidate failed: ${stderr}\n`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000 + Math.random() * 3000));
  }
})();

// the killer: SIGKILL a random agent every few seconds
const killer = (async () => {
  while (Date.now() < until - 3000) {
    await new Promise((resolve) => setTimeout(resolve, 1000 + Math.random() * 4000));
    const victims = [...live].filter((w) => w.killable);
    const victim = victims[Math.floor(Math.random() * victims.length)];
    if (victim) {
      victim.child.kill('SIGKILL');
      figures.writers_killed++;
    }
  }
})();

const progress = setInterval(() => process.stderr.write(`\r${Math.round((Date.now() - started) / 1000)} s: ${figures.writers_killed} writers killed, ${figures.consolidations} consolidations (${figures.consolidations_killed} killed)   `), 5000);
await Promise.all([consolidations, killer, mcpSession]);
while (live.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
clearInterval(progress);
process.stderr.write('\n');

// a last consolidation completes whatever a killed one left, and sweeps temp files
const last = cli('--json', 'consolidate');
figures.final_consolidation = last.status === 0 ? JSON.parse(last.stdout) : last.stderr;

// --- the audit ---
const done = new Map(ids.map((id) => [id, 0]));
const inFlight = new Map(ids.map((id) => [id, 0]));
const edits = new Map(ids.map((id) => [id, []]));
const counts = { touches_done: 0, reinforcements_done: 0, in_flight_at_kill: 0, failed: 0, new_memories: 0, repeats_reinforcing_a_copy: 0, edits_saved: 0, unexpected: [] };
for (const name of readdirSync(logs)) {
  const lines = readFileSync(path.join(logs, name), 'utf8').split('\n').filter(Boolean);
  const open = new Map();
  for (const line of lines) {
    const [tag, n, id, ...rest] = line.split(' ');
    if (tag === 'I') open.set(n, id);
    else if (tag === 'D') {
      open.delete(n);
      done.set(id, done.get(id) + 1);
      if (name.startsWith('touch')) counts.touches_done++;
      else counts.reinforcements_done++;
    } else if (tag === 'F') {
      open.delete(n);
      counts.failed++;
      counts.unexpected.push(`${name}: ${line}`);
    } else if (tag === 'X') {
      // the pool note's text was changed by the person's edits: the repeat no longer
      // resonates with it, made a memory of its own (and later repeats reinforce that one)
      open.delete(n);
      counts.repeats_reinforcing_a_copy++;
    } else if (tag === 'N') counts.new_memories++;
    else if (tag === 'E') {
      edits.get(n).push(id); // `E <id> <marker>`: n is the id here
      counts.edits_saved++;
    }
  }
  // a writer killed between its intent and its report: that one may or may not have landed
  for (const id of open.values()) {
    inFlight.set(id, inFlight.get(id) + 1);
    counts.in_flight_at_kill++;
  }
}
const located = (id) => ['episodic', 'semantic', 'decisions', 'archive'].map((f) => path.join(vault, f, `${id}.md`)).filter((f) => existsSync(f));
const audit = { memories_checked: 0, access_counts_exact: 0, access_counts_within_in_flight: 0, access_counts_wrong: [], edits_present: 0, edits_missing: [], edits_duplicated: [], bodies_cut: [], duplicates: [] };
for (const id of ids) {
  const files = located(id);
  if (files.length !== 1) audit.duplicates.push({ id, files });
  if (files.length === 0) continue;
  const text = readFileSync(files[0], 'utf8');
  audit.memories_checked++;
  const count = Number(/^access_count: (\d+)/m.exec(text)?.[1] ?? 0);
  const min = done.get(id);
  const max = min + inFlight.get(id);
  if (count === min) audit.access_counts_exact++;
  else if (count > min && count <= max) audit.access_counts_within_in_flight++;
  else audit.access_counts_wrong.push({ id, access_count: count, done: min, in_flight: inFlight.get(id) });
  const body = text.slice(text.indexOf('\n---\n', 4) + 5);
  if (!body.startsWith(original[id])) audit.bodies_cut.push(id);
  for (const marker of edits.get(id)) {
    const n = body.split('\n').filter((l) => l === marker).length;
    if (n === 1) audit.edits_present++;
    else if (n === 0) audit.edits_missing.push({ id, marker });
    else audit.edits_duplicated.push({ id, marker, times: n });
  }
}
const leftovers = [];
for (const folder of ['episodic', 'semantic', 'decisions', 'archive', 'daily', 'conflicts', '.engram']) {
  for (const name of readdirSync(path.join(vault, folder))) if (name.endsWith('.tmp')) leftovers.push(`${folder}/${name}`);
}
// a lock file whose holder was killed stays until the next writer of that memory takes it
// over (at once: its pid is dead); a lock of a live process would be a leak
const lockHolder = (name) => /^(\d+)@/.exec(readFileSync(path.join(vault, '.engram', 'locks', name), 'utf8'))?.[1];
const alive = (pid) => {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
};
const lockFiles = readdirSync(path.join(vault, '.engram', 'locks'));
const locks = lockFiles.filter((name) => !(name.endsWith('.lock') && lockHolder(name) && !alive(lockHolder(name))));
const deadLocks = lockFiles.length - locks.length;
const stats = JSON.parse(cli('--json', 'stats').stdout);
const verdict = {
  ...figures,
  seconds: Math.round((Date.now() - started) / 1000),
  ...counts,
  unexpected: counts.unexpected.slice(0, 20),
  audit,
  temp_files_left: leftovers,
  locks_left: locks,
  locks_left_by_killed_writers: deadLocks,
  plan_left: existsSync(path.join(vault, '.engram', 'consolidation-plan.json')),
  unreadable: stats.invalid,
  memories_in_vault: stats.memories,
  mcp,
};
const held =
  audit.access_counts_wrong.length === 0 && audit.edits_missing.length === 0 && audit.edits_duplicated.length === 0 && audit.bodies_cut.length === 0 &&
  audit.duplicates.length === 0 && leftovers.length === 0 && locks.length === 0 && !verdict.plan_left && stats.invalid.length === 0 && counts.failed === 0 &&
  mcp.unanswered.length === 0 && mcp.answered_twice === 0 && mcp.exit === 0;
verdict.held = held;
writeFileSync(path.join(root, 'audit.json'), `${JSON.stringify(verdict, null, 2)}\n`);
console.log(JSON.stringify(verdict, null, 2));
process.exitCode = held ? 0 : 1;
