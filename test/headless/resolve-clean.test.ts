import * as nodePath from 'node:path';
import { isCleanRelative, NodeFileStore } from '../../headless/fs-files';
import { safeRelativePath } from '../../src/core/ids';
import { seededRandom } from '../../src/core/random';

/**
 * NodeFileStore.resolve joins a path already in its safe form to the root as it is (the
 * listings' paths, 10,000 at a first recall); every other path goes through safeRelativePath
 * and path.join. For every path it takes as clean, both ways give the same.
 */
const ROOT = '/vault/root';
const slow = (rel: string): string | null => {
  try {
    return nodePath.join(ROOT, ...safeRelativePath(rel).split('/'));
  } catch {
    return null;
  }
};

describe('clean relative paths', () => {
  it('are the listings\' paths, and nothing safeRelativePath or path.join would change', () => {
    const clean = ['episodic/Observation 9729 auth token.md', 'a', 'archive/episodic/x.md', '.hidden/x.md', 'a/.b/..c/c..', 'é/ü.md', 'a b/ c .md', '...', 'x/...'];
    const unclean = ['', '/abs.md', 'a//b.md', 'a/', './a.md', 'a/./b.md', 'a/../b.md', '..', '.', 'a\\b.md', 'a\u0000b', 'C:/x.md', 'c:x.md', '1:x'];
    expect(clean.map(isCleanRelative)).toEqual(clean.map(() => true));
    expect(unclean.map(isCleanRelative)).toEqual(unclean.map(() => false));
    for (const rel of clean) expect([rel, `${ROOT}/${rel}`]).toEqual([rel, slow(rel)]);
  });

  it('agree with safeRelativePath and path.join on 5,000 random paths', () => {
    const random = seededRandom('issue-23-resolve');
    const atoms = ['a', 'B', '.', '..', '/', '//', '\\', ':', ' ', 'é', '\u0000', 'x.md', '-', '~'];
    let taken = 0;
    for (let i = 0; i < 5000; i++) {
      const rel = Array.from({ length: 1 + Math.floor(random() * 6) }, () => atoms[Math.floor(random() * atoms.length)]!).join('');
      if (!isCleanRelative(rel)) continue;
      taken++;
      expect([rel, safeRelativePath(rel)]).toEqual([rel, rel]);
      expect([rel, `${ROOT}/${rel}`]).toEqual([rel, slow(rel)]);
    }
    expect(taken).toBeGreaterThan(1000);
  });

  it('resolve the same through the store, inside the vault or refused', () => {
    const store = new NodeFileStore(process.cwd());
    expect(store.resolve('test/headless/resolve-clean.test.ts')).toBe(nodePath.join(process.cwd(), 'test', 'headless', 'resolve-clean.test.ts'));
    expect(store.resolve('test//headless/./x.md')).toBe(nodePath.join(process.cwd(), 'test', 'headless', 'x.md'));
    expect(() => store.resolve('test/../../x.md')).toThrow('leaves the vault');
  });
});
