import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

// scripts/bench-floor.mjs plan / replay: the first consolidate row's floor replays exactly the
// file changes a consolidation made (bench-cli plans them from the trees before and after)
const script = path.join(__dirname, '..', '..', 'scripts', 'bench-floor.mjs');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'engram-floor-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function tree(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
}
function contents(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  (function walk(rel: string) {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(root, p)).isDirectory()) walk(p);
      else out[p] = readFileSync(path.join(root, p), 'utf8');
    }
  })('');
  return out;
}
const floor = (...args: string[]) => execFileSync(process.execPath, [script, ...args], { encoding: 'utf8' });

test('plan names the moves, rewrites and removals between two trees, and replay makes them', () => {
  const before = {
    'episodic/a.md': 'A',
    'episodic/b.md': 'B',
    'episodic/c.md': 'C',
    'episodic/d.md': 'D',
    'episodic/gone.md': 'G',
    '.engram/cache/x.md': 'cache',
    'episodic/notes.txt': 'not a memory',
  };
  const after = {
    'archive/a.md': 'A',
    'archive/b.md': 'B tier: cold',
    'episodic/c.md': 'C2',
    'episodic/d.md': 'D',
    'semantic/new.md': 'N',
    '.engram/cache/x.md': 'another cache',
    'episodic/notes.txt': 'not a memory',
  };
  tree(path.join(dir, 'before'), before);
  tree(path.join(dir, 'after'), after);
  tree(path.join(dir, 'copy'), before);
  const counts = floor('plan', path.join(dir, 'before'), path.join(dir, 'after'), path.join(dir, 'plan.json'));
  expect(JSON.parse(counts)).toEqual({ files: 5, moves: 1, writes: 3, removes: 2 });
  const plan = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8'));
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  expect(plan).toEqual({
    moves: [['/episodic/a.md', '/archive/a.md']],
    writes: [['/archive/b.md', b64('B tier: cold')], ['/episodic/c.md', b64('C2')], ['/semantic/new.md', b64('N')]],
    removes: ['/episodic/b.md', '/episodic/gone.md'],
  });
  expect(floor('replay', path.join(dir, 'copy'), path.join(dir, 'plan.json'))).toBe('');
  // every memory file as after; what is not a memory (dot folders, other files) untouched
  expect(contents(path.join(dir, 'copy'))).toEqual({ ...after, '.engram/cache/x.md': 'cache' });
});

test('a mode given the wrong number of paths is a usage error, exit 2', () => {
  for (const args of [['plan', dir, dir], ['replay', dir], ['stat'], ['create', dir], ['move', dir]]) {
    let status: number | null = null;
    let stderr = '';
    try {
      execFileSync(process.execPath, [script, ...args], { stdio: 'pipe' });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect([args[0], status]).toEqual([args[0], 2]);
    expect(stderr).toContain('usage: bench-floor.mjs');
  }
});
