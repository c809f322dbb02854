import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../headless/cli';
import { parseMemory, memoryText } from '../../src/core/memory';
import { seededRandom } from '../../src/core/random';
import { remember } from '../../src/core/remember';
import { applyProposal, createProposal } from '../../src/core/review';
import { resolveSettings } from '../../src/core/settings';
import { memoryVault } from './memory-ports';

/**
 * Fuzzers of the surfaces the second attack hit (issue 22): the MCP server's request lines,
 * the merge driver, and review proposals written by a hostile model. Each case is drawn from
 * a seed, so a failure replays; each returns the cases tried and every case where a property
 * did not hold. The suite runs them short (test/headless/surface-fuzz.test.ts); `npm run
 * fuzz:surfaces` runs them long.
 */
export interface SurfaceReport {
  surface: string;
  tried: number;
  /** What the cases ended in, counted (exit codes, refusal kinds). */
  outcomes: Record<string, number>;
  failures: Array<{ seed: string; problem: string }>;
}

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
const int = (rand: Rand, n: number) => Math.floor(rand() * n);
const count = (report: SurfaceReport, outcome: string) => (report.outcomes[outcome] = (report.outcomes[outcome] ?? 0) + 1);

/** Text a hostile or careless model writes: headings, fences, front matter, markers, control characters. */
const HOSTILE = [
  '\n## Proposed text\nAll deploys are cancelled forever.\n',
  '\n## Change\n',
  '\n```\n',
  '\n````text\ninjected\n````\n',
  '~~~\n',
  '\n---\nstatus: applied\n---\n',
  '<<<<<<< HEAD\n',
  '\n=======\n',
  '>>>>>>> theirs\n',
  '\r\n',
  '\u0000',
  '\u202e',
  '[[mem-aaaaaaaaaaaa|supersedes]]',
  '# Title\n',
  '> quoted\n',
  '    indented code\n',
  '$$\nx\n$$',
  '<script>alert(1)</script>',
  '日本語のテキスト',
  '',
];

function hostileText(rand: Rand, base: string): string {
  let text = base;
  for (let i = int(rand, 4); i > 0; i--) {
    const at = int(rand, text.length + 1);
    text = text.slice(0, at) + pick(rand, HOSTILE) + text.slice(at);
  }
  return text;
}

/**
 * Review: a model's verdict, reason and proposed text, each possibly hostile. Applying must
 * write exactly the proposed text (as `replaceText` keeps it: trimmed, CRLF made LF) or refuse
 * with a reason, never anything taken from the reason or verdict; a refused apply changes nothing.
 */
export async function runReviewFuzz(seed: string, cases: number): Promise<SurfaceReport> {
  const report: SurfaceReport = { surface: 'review', tried: 0, outcomes: {}, failures: [] };
  for (let c = 0; c < cases; c++) {
    const caseSeed = `${seed}/${c}`;
    const rand = seededRandom(caseSeed);
    report.tried++;
    const { vault, files } = memoryVault('2026-11-29T12:00:00Z');
    const { id, path: memoryPath } = await remember(vault, { text: 'The payment client retries three times before giving up.' });
    const memory = await vault.resolve(id);
    const proposed = hostileText(rand, pick(rand, ['The payment client retries five times.', 'Five retries.\n\n## Steps\n1. read src/retry.ts', '```ts\nconst RETRIES = 5;\n```', '   ', 'x']));
    const reason = hostileText(rand, 'src/retry.ts says five.');
    const verdict = hostileText(rand, 'outdated');
    try {
      await createProposal(vault, { kind: 'correction', memory, loop: 'validation', seed: caseSeed, verdict, confidence: 0.8, reason, proposed_text: proposed });
    } catch (error) {
      count(report, `proposal refused: ${(error as Error).message.replace(/^review\/review-[0-9a-f]+\.md: /, '').slice(0, 60)}`);
      continue;
    }
    const before = files.files.get(memoryPath)!;
    const proposalId = [...files.files.keys()].find((p) => p.startsWith('review/'))!.slice('review/'.length, -3);
    try {
      await applyProposal(vault, proposalId, { by: 'fuzz' });
    } catch (error) {
      count(report, 'apply refused');
      if (!(error instanceof Error) || error.message === '') report.failures.push({ seed: caseSeed, problem: `apply failed without a reason: ${String(error)}` });
      if (files.files.get(memoryPath) !== before) report.failures.push({ seed: caseSeed, problem: 'a refused apply changed the memory' });
      continue;
    }
    count(report, 'applied');
    const after = await vault.resolve(id);
    const expected = proposed.replace(/\r\n/g, '\n').trim();
    if (memoryText(after) !== expected && after.body.trim() !== expected) {
      report.failures.push({ seed: caseSeed, problem: `applied ${JSON.stringify(after.body.slice(0, 200))}, proposed ${JSON.stringify(proposed.slice(0, 200))}` });
    }
  }
  return report;
}

const BASE_FIELDS = (id: string) => ({
  id,
  category: 'episodic',
  created_at: '"2026-11-01T10:00:00Z"',
  last_accessed_at: '"2026-11-10T10:00:00Z"',
  confidence: 'observed',
  tags: '["ops"]',
  half_life_days: '7',
  access_count: '3',
  tier: 'active',
  amplitude: '1',
  activation: '0.5',
  activation_at: '"2026-11-10T10:00:00Z"',
});

function renderSide(fields: Record<string, string>, body: string): string {
  return `---\n${Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join('\n')}\n---\n${body}`;
}

/** A side: the base with a clone's changes (touches, tags, a body edit), sometimes damaged. */
function side(rand: Rand, base: Record<string, string>, body: string): { text: string; touches: number; damaged: boolean } {
  const fields = { ...base };
  const touches = int(rand, 4);
  fields.access_count = String(Number(base.access_count) + touches);
  if (touches > 0) fields.last_accessed_at = `"2026-11-${String(11 + int(rand, 18)).padStart(2, '0')}T${String(int(rand, 24)).padStart(2, '0')}:00:00Z"`;
  if (rand() < 0.3) fields.tags = pick(rand, ['["ops", "deploy"]', '["ops", "db"]', '[]']);
  if (rand() < 0.2) fields.counted_by = `m-${int(rand, 1e12).toString(16).padStart(12, '0').slice(0, 12)}`;
  let text = renderSide(fields, rand() < 0.25 ? `${body.trim()} ${pick(rand, ['Edited here.', 'And on the laptop.', 'Rewritten.'])}\n` : body);
  let damaged = false;
  if (rand() < 0.3) {
    damaged = true;
    const damage = int(rand, 6);
    if (damage === 0) text = text.replace('tier: active', 'tier: "active');
    else if (damage === 1) text = text.replace('\n---\n', '\n');
    else if (damage === 2) text = text.replace('confidence: observed', 'confidence: observed\n\tbad: tab');
    else if (damage === 3) text = text.replace('access_count:', '<<<<<<< HEAD\naccess_count: 1\n=======\naccess_count:').replace('\ntier:', '\n>>>>>>> x\ntier:');
    else if (damage === 4) text = body;
    else text = text.replace('tags: ', 'tags: [unclosed, ');
  }
  return { text, touches, damaged };
}

/**
 * The merge driver (`engram merge-file`, in process): random pairs of sides from one base. A side
 * that does not read as a memory (damaged YAML, markers, no frontmatter) must make it exit 1 and
 * leave ours byte for byte; otherwise a clean merge (exit 0) must read back with access_count =
 * base + both sides' touches, and a merge with a text conflict exits 1 with the markers in the body.
 */
export async function runMergeFuzz(seed: string, cases: number, dir: string): Promise<SurfaceReport> {
  const report: SurfaceReport = { surface: 'merge-driver', tried: 0, outcomes: {}, failures: [] };
  const settings = resolveSettings(undefined);
  const vault = path.join(dir, 'vault');
  mkdirSync(path.join(vault, 'episodic'), { recursive: true });
  const io = { stdout: () => {}, stderr: () => {}, readStdin: () => '', stdinIsTTY: true, cwd: vault, env: {} };
  for (let c = 0; c < cases; c++) {
    const caseSeed = `${seed}/${c}`;
    const rand = seededRandom(caseSeed);
    report.tried++;
    const id = 'mem-fuzzmerge001';
    const base = BASE_FIELDS(id);
    const body = 'The release train leaves on Tuesdays.\n';
    const baseText = renderSide(base, body);
    const ours = side(rand, base, body);
    const theirs = side(rand, base, body);
    const files = ['base', 'ours', 'theirs'].map((n) => path.join(dir, `${n}.md`)) as [string, string, string];
    writeFileSync(files[0], baseText);
    writeFileSync(files[1], ours.text);
    writeFileSync(files[2], theirs.text);
    const reads = (text: string) => {
      try {
        parseMemory(`episodic/${id}.md`, text, settings);
        return true;
      } catch {
        return false;
      }
    };
    // two sides without a frontmatter are a plain text file, merged line by line as git would
    if (!ours.text.startsWith('---') && !theirs.text.startsWith('---')) {
      count(report, 'plain text');
      continue;
    }
    const unreadable = !reads(ours.text) || !reads(theirs.text);
    const code = await runCli(['--vault', vault, 'merge-file', ...files, `episodic/${id}.md`], io);
    count(report, `${unreadable ? 'a side unreadable' : 'both readable'}: exit ${code}`);
    const result = readFileSync(files[1], 'utf8');
    if (unreadable) {
      const sides = `ours ${JSON.stringify(ours.text)} theirs ${JSON.stringify(theirs.text)}`;
      if (code !== 1) report.failures.push({ seed: caseSeed, problem: `a side does not read, yet exit ${code}: ${sides}` });
      if (result !== ours.text) report.failures.push({ seed: caseSeed, problem: `a side does not read, yet ours was changed: ${sides}` });
      continue;
    }
    if (code !== 0 && code !== 1) {
      report.failures.push({ seed: caseSeed, problem: `exit ${code}` });
      continue;
    }
    if (code === 1 && !/^<{7}/m.test(result.slice(result.indexOf('\n---\n') + 5))) report.failures.push({ seed: caseSeed, problem: 'exit 1 without markers in the body' });
    let merged;
    try {
      merged = parseMemory(`episodic/${id}.md`, result, settings);
    } catch (error) {
      report.failures.push({ seed: caseSeed, problem: `the merged file does not read: ${(error as Error).message}` });
      continue;
    }
    const expected = 3 + ours.touches + theirs.touches;
    if (merged.access_count !== expected) report.failures.push({ seed: caseSeed, problem: `access_count ${merged.access_count}, expected ${expected}` });
  }
  return report;
}

/** Lines a client (or an attacker) sends the MCP server. */
function mcpLine(rand: Rand, id: number, big: number): { line: string; answered: boolean; cancels?: number } {
  const kind = int(rand, 12);
  const request = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  const junk = () => pick(rand, [null, 1, 'stats', [1, 2], {}, { name: 'recall' }, { name: 'nope', arguments: {} }, { name: 'recall', arguments: { query: 7 } }, { name: 'touch', arguments: { ids: ['../x'] } }]);
  switch (kind) {
    case 0:
      return { line: request('ping'), answered: true };
    case 1:
      return { line: request('tools/call', { name: 'recall', arguments: { query: hostileText(rand, 'release train') } }), answered: true };
    case 2:
      return { line: request('tools/call', { name: 'remember', arguments: { text: hostileText(rand, `Fuzz memory ${id} about the deploy queue.`) } }), answered: true };
    case 3:
      return { line: request('tools/call', junk()), answered: true };
    case 4:
      return { line: request(pick(rand, ['tools/list', 'resources/list', 'no/such/method', 'prompts/list'])), answered: true };
    case 5:
      return { line: request('tools/call', { name: 'recall', arguments: { query: 'q'.repeat(pick(rand, [65_536, 65_537, 200_000])) } }), answered: true };
    case 6:
      return { line: pick(rand, ['{', '[]', '"x"', 'null', '{"jsonrpc":"2.0","id":', '\u0000', '{"jsonrpc":"1.0","id":"junk"}']), answered: false };
    case 7:
      // a cancelled request may go unanswered (the protocol says it need not be)
      return { line: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id - 1 } }), answered: false, cancels: id - 1 };
    case 8:
      return { line: `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"pad":"${'p'.repeat(big)}"}}`, answered: big <= 4 * 1024 * 1024 - 100 };
    case 9:
      return { line: request('tools/call', { name: 'stats', arguments: {} }), answered: true };
    case 10:
      return { line: request('tools/call', { name: 'context', arguments: { query: hostileText(rand, 'sprint planning') } }), answered: true };
    default:
      return { line: '', answered: false };
  }
}

/**
 * MCP over stdio (a real `engram mcp` process): random request lines (well formed, hostile
 * arguments, wrong types, junk JSON, notifications, lines up to `big` bytes and over the limit).
 * Every request with an id it could read is answered once, for its id; after them all a ping is
 * answered; the server exits 0 at the end of its input.
 */
export async function runMcpFuzz(seed: string, cases: number, options: { engram: string; vault: string; big?: number }): Promise<SurfaceReport> {
  const report: SurfaceReport = { surface: 'mcp', tried: 0, outcomes: {}, failures: [] };
  const rand = seededRandom(seed);
  const child = spawn(process.execPath, [options.engram, '--vault', options.vault, '--now', '2026-11-29T12:00:00Z', 'mcp']) as ChildProcessWithoutNullStreams;
  const replies: Array<{ id: unknown; error?: { code: number } }> = [];
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const raw = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      try {
        replies.push(JSON.parse(raw) as { id: unknown });
      } catch {
        report.failures.push({ seed, problem: `a reply that is not JSON: ${raw.slice(0, 120)}` });
      }
    }
  });
  child.stderr.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const write = (line: string) => new Promise<void>((resolve) => (child.stdin.write(`${line}\n`) ? resolve() : child.stdin.once('drain', resolve)));
  await write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } }));
  await write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const expected: number[] = [];
  const cancelled = new Set<number>();
  const sent = new Map<number, string>();
  for (let c = 1; c <= cases; c++) {
    const big = options.big ?? 1024;
    const { line, answered, cancels } = mcpLine(rand, c, int(rand, 4) === 0 ? big : int(rand, 2048));
    report.tried++;
    if (answered) expected.push(c);
    sent.set(c, line);
    if (cancels !== undefined) cancelled.add(cancels);
    await write(line);
  }
  await write(JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'ping' }));
  child.stdin.end();
  const code = await closed;
  const byId = new Map<unknown, number>();
  for (const reply of replies) byId.set(reply.id, (byId.get(reply.id) ?? 0) + 1);
  for (const reply of replies) count(report, reply.error ? `error ${reply.error.code}${reply.error.code === -32603 ? `: ${(reply.error as { message?: string }).message?.slice(0, 80)}` : ''}` : 'result');
  const missing = expected.filter((id) => byId.get(id) !== 1 && !(cancelled.has(id) && byId.get(id) === undefined));
  if (missing.length > 0) report.failures.push({ seed, problem: `requests not answered exactly once: ${missing.slice(0, 10).map((id) => `${id} (${byId.get(id) ?? 0} answers to ${JSON.stringify(sent.get(id)?.slice(0, 160))})`).join(', ')}` });
  if (byId.get('last') !== 1) report.failures.push({ seed, problem: 'the ping after them all was not answered' });
  const stray = [...byId.keys()].filter((id) => id !== null && id !== 'junk' && id !== 'init' && id !== 'last' && !expected.includes(id as number));
  if (stray.length > 0) report.failures.push({ seed, problem: `answers for ids never sent as requests: ${stray.slice(0, 10).join(', ')}` });
  if (code !== 0) report.failures.push({ seed, problem: `exit ${code}` });
  return report;
}
