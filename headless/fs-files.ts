import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { PathError, WriteConflictError } from '../src/core/errors';
import { safeRelativePath } from '../src/core/ids';
import type { FileStat, FileStore } from '../src/core/ports';

/**
 * The core's file port over a folder on disk. Every path is vault-relative and checked:
 * no `..`, no absolute paths, and no symlink that resolves outside the vault. Writes go to a
 * hidden temp file in the same folder and are renamed into place, so a reader (or a crash)
 * sees the old file or the new one, never half of one.
 *
 * The calls are synchronous behind the async port: the runner is a short-lived process (or
 * a server handling one request at a time), and sync file calls cost a third of the async
 * ones when loading thousands of small files.
 */
/** Temp names are unique per process (pid) and per write (counter). */
let tempCounter = 0;

export class NodeFileStore implements FileStore {
  private readonly root: string;
  private rootReal: string | null = null;
  private readonly checkedDirs = new Set<string>();

  constructor(root: string) {
    this.root = nodePath.resolve(root);
  }

  get rootPath(): string {
    return this.root;
  }

  private realRoot(): string {
    if (!this.rootReal) this.rootReal = fs.realpathSync(this.root);
    return this.rootReal;
  }

  private inside(real: string): boolean {
    const root = this.realRoot();
    return real === root || real.startsWith(root + nodePath.sep);
  }

  /** Absolute path of a vault-relative path, refusing anything that leaves the vault. */
  resolve(rel: string): string {
    const clean = safeRelativePath(rel);
    const full = nodePath.join(this.root, ...clean.split('/'));
    this.assertDirInside(nodePath.dirname(full), rel);
    return full;
  }

  /** The deepest existing ancestor of `dir` must really be inside the vault (symlinks followed). */
  private assertDirInside(dir: string, rel: string): void {
    if (this.checkedDirs.has(dir)) return;
    let probe = dir;
    for (;;) {
      try {
        if (!this.inside(fs.realpathSync(probe))) throw new PathError(`invalid path ${JSON.stringify(rel)}: resolves outside the vault`);
        if (probe === dir) this.checkedDirs.add(dir);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || probe === this.root) throw error;
        probe = nodePath.dirname(probe);
      }
    }
  }

  /** A file that is a symlink must point inside the vault. */
  private assertFileInside(full: string, rel: string): boolean {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(full);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    if (stat.isSymbolicLink()) {
      let real: string;
      try {
        real = fs.realpathSync(full);
      } catch {
        return false;
      }
      if (!this.inside(real)) throw new PathError(`invalid path ${JSON.stringify(rel)}: resolves outside the vault`);
    }
    return true;
  }

  async read(rel: string): Promise<Uint8Array | null> {
    const full = this.resolve(rel);
    if (!this.assertFileInside(full, rel)) return null;
    try {
      return fs.readFileSync(full);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'EISDIR') throw new PathError(`${rel}: is a folder, not a file`);
      throw error;
    }
  }

  async stat(rel: string): Promise<FileStat | null> {
    const s = fs.statSync(this.resolve(rel), { throwIfNoEntry: false });
    return s ? { size: s.size, mtimeMs: s.mtimeMs } : null;
  }

  async list(rel: string): Promise<string[]> {
    try {
      const entries = fs.readdirSync(this.resolve(`${rel}/.`), { withFileTypes: true });
      return entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async listStats(rel: string): Promise<Array<FileStat & { name: string }>> {
    const dir = this.resolve(`${rel}/.`);
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep;
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const out: Array<FileStat & { name: string }> = [];
    for (const name of names) {
      // One stat a file (it follows symlinks; a link out of the vault is refused on read).
      const s = fs.statSync(prefix + name, { throwIfNoEntry: false });
      if (s?.isFile()) out.push({ name, size: s.size, mtimeMs: s.mtimeMs });
    }
    return out;
  }

  async mkdir(rel: string): Promise<void> {
    fs.mkdirSync(this.resolve(rel), { recursive: true });
  }

  async write(rel: string, text: string | Uint8Array, options: { expect?: string | null } = {}): Promise<void> {
    const full = this.resolve(rel);
    const temp = nodePath.join(nodePath.dirname(full), `.${nodePath.basename(full)}.${process.pid}.${++tempCounter}.tmp`);
    fs.writeFileSync(temp, text, { flag: 'wx' });
    let placed = false;
    try {
      if (options.expect === null) {
        // link() fails when the target exists: an exclusive, atomic create.
        try {
          fs.linkSync(temp, full);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new WriteConflictError(rel);
          throw error;
        }
      } else {
        // Compare right before the rename: the window for a writer that does not take our
        // locks (Obsidian) is the time between this read and the rename.
        if (typeof options.expect === 'string') this.checkExpected(full, rel, options.expect);
        fs.renameSync(temp, full);
        placed = true;
      }
    } finally {
      if (!placed) {
        try {
          fs.unlinkSync(temp);
        } catch {
          // nothing to clean up
        }
      }
    }
  }

  private checkExpected(full: string, rel: string, expect: string): void {
    let current: string | null;
    try {
      current = fs.readFileSync(full, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      current = null;
    }
    if (current !== expect) throw new WriteConflictError(rel);
  }

  async remove(rel: string): Promise<void> {
    fs.rmSync(this.resolve(rel), { force: true });
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.resolve(from);
    const target = this.resolve(to);
    fs.mkdirSync(nodePath.dirname(target), { recursive: true });
    try {
      fs.linkSync(source, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new WriteConflictError(to);
      throw error;
    }
    fs.unlinkSync(source);
  }
}
