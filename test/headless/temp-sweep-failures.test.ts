import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { tempFiles } from '../../headless/doctor';
import { NodeFileStore } from '../../headless/fs-files';

// A dead temp file that cannot be unlinked (an immutable file, EPERM), or that another sweep
// removed first, is not counted as removed: `doctor --fix` reported it fixed (exit 0) and a
// consolidation counted it in temp_removed while the file stayed (a new user's trial, chattr +i).
let root: string;
const old = new Date(Date.now() - 2 * 3_600_000);
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'engram-sweep-fail-'));
  mkdirSync(path.join(root, 'episodic', 'ops'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function temp(rel: string): string {
  const full = path.join(root, rel);
  writeFileSync(full, 'half a write');
  utimesSync(full, old, old);
  return full;
}
/** The temp file turned into a folder of the same name just before its unlink: unlink fails (EISDIR or EPERM), as on an immutable file. */
const unremovable = (names: string[]) => (full: string) => {
  if (!names.includes(path.basename(full))) return;
  rmSync(full);
  mkdirSync(full);
};

test('sweepTemp returns only the names its unlink removed', async () => {
  const kept = temp('episodic/.Kept.md.999999.1.tmp');
  const gone = temp('episodic/.Gone.md.999999.2.tmp');
  const raced = temp('episodic/.Raced.md.999999.3.tmp');
  const files = new NodeFileStore(root, {
    beforeSweep: (full) => {
      unremovable(['.Kept.md.999999.1.tmp'])(full);
      if (full === raced) rmSync(full); // another sweep got there first
    },
  });
  expect((await files.sweepTemp('episodic')).sort()).toEqual(['.Gone.md.999999.2.tmp']);
  expect([statSync(kept).isDirectory(), existsSync(gone), existsSync(raced)]).toEqual([true, false, false]);
});

test('doctor --fix marks a folder\'s temp files fixed only when every one of them is gone', async () => {
  temp('episodic/.Stuck.md.999999.1.tmp');
  temp('episodic/.Other.md.999999.2.tmp');
  temp('episodic/ops/.Deep.md.999999.3.tmp');
  const files = new NodeFileStore(root, { beforeSweep: unremovable(['.Stuck.md.999999.1.tmp']) });
  const findings = await tempFiles({ root, files }, true);
  expect(findings.map((f) => [f.path, f.fixed ?? false])).toEqual([
    ['episodic/.Other.md.999999.2.tmp', false],
    ['episodic/ops/.Deep.md.999999.3.tmp', true],
  ]);
  expect([existsSync(path.join(root, 'episodic/.Other.md.999999.2.tmp')), existsSync(path.join(root, 'episodic/ops/.Deep.md.999999.3.tmp'))]).toEqual([false, false]);
  // without --fix nothing is removed or marked
  temp('episodic/ops/.Again.md.999999.4.tmp');
  expect((await tempFiles({ root, files: new NodeFileStore(root) }, false)).map((f) => [f.path, f.fixed ?? false])).toEqual([['episodic/ops/.Again.md.999999.4.tmp', false]]);
  expect(existsSync(path.join(root, 'episodic/ops/.Again.md.999999.4.tmp'))).toBe(true);
});
