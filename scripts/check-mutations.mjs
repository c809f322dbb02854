#!/usr/bin/env node
/**
 * `npm run check:mutations`: mutations that once survived the whole suite (issue 25), each
 * applied in a temporary copy of the checkout and run against the test files that state the
 * rule it breaks. Every one must fail at least one test; a mutation that passes (survives) or
 * no longer applies (the code moved: update its `find`) fails the check.
 *
 *   node scripts/check-mutations.mjs            all of them
 *   node scripts/check-mutations.mjs prune      those whose name contains "prune"
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const MUTATIONS = [
  {
    name: 'MCP recall ignores touch: true',
    file: 'headless/mcp/tools.ts',
    find: 'const results = touch ? await touchResults(vault, found) : found;',
    replace: 'const results = touch ? found : found;',
    tests: ['test/headless/mcp-effects.test.ts'],
  },
  {
    name: 'MCP consolidate never applies its plan',
    file: 'headless/mcp/tools.ts',
    find: 'dryRun: !apply,',
    replace: 'dryRun: true,',
    tests: ['test/headless/mcp-effects.test.ts'],
  },
  {
    name: 'MCP recall default limit 12 -> 5',
    file: 'headless/mcp/tools.ts',
    find: 'const count = limit === undefined ? 12 :',
    replace: 'const count = limit === undefined ? 5 :',
    tests: ['test/headless/mcp-effects.test.ts'],
  },
  {
    name: 'prune no longer keeps verified decisions',
    file: 'src/core/consolidation/prune.ts',
    find: "if (memory.category === 'decision' && memory.confidence === 'verified') return 'keep-verified-decision';",
    replace: '',
    tests: ['test/core/consolidation/prune.test.ts', 'test/headless/consolidate.test.ts'],
  },
  {
    name: 'merge: two promotions on two machines merged as one (max instead of sum)',
    file: 'src/core/merge/fields.ts',
    find: 'const promotions = Math.max(0, eb - eo) + Math.max(0, eb - et);',
    replace: 'const promotions = Math.max(Math.max(0, eb - eo), Math.max(0, eb - et));',
    tests: ['test/core/merge/memory-merge.test.ts'],
  },
  {
    name: 'role boost applied when any role is named, not exactly one',
    file: 'src/core/recall/recall.ts',
    find: 'const boostedRole = named.length === 1 ? named[0]! : null;',
    replace: 'const boostedRole = named.length >= 1 ? named[0]! : null;',
    tests: ['test/core/recall/recall.test.ts'],
  },
  {
    name: 'lock takeover removes whatever lock is at the path, not only the one judged dead',
    file: 'headless/locks.ts',
    find: 'if (again && again.stat.ino === judged.stat.ino && again.stat.ctimeNs === judged.stat.ctimeNs && this.dead(again)) {',
    replace: 'if (again) {',
    tests: ['test/headless/concurrency.test.ts', '-t', 'interleaving'],
  },
  {
    name: 'lock takeover trusts the same inode and change time, without judging the lock it reads again (inode reuse within one tick)',
    file: 'headless/locks.ts',
    find: 'again.stat.ctimeNs === judged.stat.ctimeNs && this.dead(again)) {',
    replace: 'again.stat.ctimeNs === judged.stat.ctimeNs) {',
    tests: ['test/headless/concurrency.test.ts', '-t', 'inode reuse'],
  },
  {
    name: "consolidation lock takeover leaves the dead run's description beside the next folder",
    file: 'headless/locks.ts',
    find: 'if (holderFile !== undefined) fs.rmSync(holderFile, { force: true });',
    replace: '',
    tests: ['test/headless/locks.test.ts', '-t', 'description'],
  },
  // 'lock holder and lock identity read apart' (inspectLock's stat by name after the holder read
  // through the descriptor) was here: since the takeover reads the lock again under its guard and
  // judges that reading (the holder it names alive, or the lock fresh), it removes nothing live in
  // the interleaving the test forces, and the mutation no longer breaks the lock.
];

/** A copy of the checkout's files (tracked and untracked, not ignored), sharing node_modules. */
function copyCheckout() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'engram-mutation-'));
  for (const rel of listed.stdout.split('\0').filter(Boolean)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    try {
      cpSync(path.join(ROOT, rel), path.join(dir, rel));
    } catch (error) {
      if (error.code !== 'ENOENT') throw error; // deleted in the work tree, not yet in the index
    }
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

function main() {
  const filter = process.argv[2];
  const chosen = MUTATIONS.filter((m) => !filter || m.name.includes(filter));
  if (chosen.length === 0) {
    console.error(`check-mutations: no mutation named like ${JSON.stringify(filter)}`);
    process.exit(2);
  }
  const dir = copyCheckout();
  const failures = [];
  try {
    for (const m of chosen) {
      const target = path.join(dir, m.file);
      const original = readFileSync(target, 'utf8');
      const count = original.split(m.find).length - 1;
      if (count !== 1) {
        failures.push(`${m.name}: expected the text to mutate once in ${m.file}, found it ${count} times`);
        console.log(`? ${m.name}: does not apply (${count} matches)`);
        continue;
      }
      writeFileSync(target, original.replace(m.find, m.replace));
      const started = Date.now();
      const run = spawnSync(process.execPath, [path.join(dir, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--silent', ...m.tests], {
        cwd: dir,
        env: { ...process.env, TZ: 'UTC' },
        encoding: 'utf8',
      });
      writeFileSync(target, original);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const failed = /Tests:\s+(\d+) failed/.exec(run.stderr)?.[1];
      if (run.status !== 0 && failed) {
        console.log(`✓ killed   ${m.name} (${failed} failing in ${m.tests.join(' ')}; ${seconds} s)`);
      } else if (run.status !== 0) {
        failures.push(`${m.name}: the tests did not run (exit ${run.status})\n${run.stderr.slice(-2000)}`);
        console.log(`? ${m.name}: the tests did not run`);
      } else {
        failures.push(`${m.name}: survived ${m.tests.join(', ')}`);
        console.log(`✗ survived ${m.name}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`\ncheck-mutations: ${failures.length} of ${chosen.length} not killed:\n${failures.join('\n')}`);
    process.exit(1);
  }
  console.log(`\ncheck-mutations: all ${chosen.length} killed`);
}

main();
