import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

// scripts/bench-warm.mjs --compare: `npm run bench -- --compare c112739=...` (issue 23's own
// command) passes every compared checkout to bench-warm; c112739 predates the warm engine, and
// bench-warm died on it with esbuild's stack trace. Such a build is named and left out; a path
// with no checkout is an error that names it.
const script = path.join(__dirname, '..', '..', 'scripts', 'bench-warm.mjs');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'engram-bench-warm-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const warm = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { ...process.env, TMPDIR: dir } });

test('a --compare path that holds no checkout exits 2 and names the file it looked for', () => {
  const res = warm('--sizes', '20', '--runs', '1', '--rounds', '1', '--compare', path.join(dir, 'nothing'));
  expect(res.status).toBe(2);
  expect(res.stdout).toBe('');
  expect(res.stderr).toBe(`bench-warm: --compare ${path.join(dir, 'nothing')}: no checkout of Engram there (${path.join(dir, 'nothing', 'package.json')} is missing)\n`);
});

test('a compared checkout without the warm engine is left out by name, and this build is measured alone', () => {
  const old = path.join(dir, 'c112739');
  mkdirSync(path.join(old, 'headless'), { recursive: true });
  writeFileSync(path.join(old, 'package.json'), '{}\n');
  writeFileSync(path.join(old, 'headless', 'runtime.ts'), 'export {};\n');
  const res = warm('--sizes', '20', '--runs', '1', '--rounds', '1', '--compare', old);
  expect(res.status).toBe(0);
  const lines = res.stdout.split('\n');
  expect(lines[0]).toBe('bench-warm: c112739 left out: it has no warm engine to measure (no headless/mcp/warm-vault.ts, src/plugin/memory-index.ts)');
  const header = lines.findIndex((l) => l.startsWith('| measure |'));
  expect(lines[header]).toMatch(/^\| measure \| this \([0-9a-f]+\) \|$/);
  expect(lines[header + 1]).toBe('|---|---:|');
  // each row: the measure and this build's figure, no ratio column
  const rows = lines.slice(header + 2).filter((l) => l.startsWith('| '));
  expect(rows.length).toBe(32);
  for (const row of rows) expect(row).toMatch(/^\| [^|]+ \| \d+(\.\d\d)? \|$/);
}, 120_000);
