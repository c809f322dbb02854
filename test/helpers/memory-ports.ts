import { WriteConflictError } from '../../src/core/errors';
import type { FileStat, FileStore, Locks, Ports } from '../../src/core/ports';
import { seededRandom } from '../../src/core/random';
import { resolveSettings, type EngramSettings } from '../../src/core/settings';
import { parseTimestamp } from '../../src/core/time';
import { Vault } from '../../src/core/vault';

/** An in-memory file port for core tests: the same contract as the Node one. */
export class MemoryFileStore implements FileStore {
  readonly files = new Map<string, string>();
  readonly binary = new Map<string, Uint8Array>();
  readonly dirs = new Set<string>(['']);
  writes = 0;

  async read(path: string): Promise<Uint8Array | null> {
    const bytes = this.binary.get(path);
    if (bytes) return bytes;
    const text = this.files.get(path);
    return text === undefined ? null : new TextEncoder().encode(text);
  }
  async stat(path: string): Promise<FileStat | null> {
    const text = this.files.get(path);
    if (text !== undefined) return { size: new TextEncoder().encode(text).length, mtimeMs: 0 };
    return this.dirs.has(path) ? { size: 0, mtimeMs: 0 } : null;
  }
  async list(dir: string): Promise<string[]> {
    const prefix = `${dir}/`;
    return [...this.files.keys()].filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/')).map((p) => p.slice(prefix.length));
  }
  async folders(dir: string): Promise<string[]> {
    const prefix = `${dir}/`;
    const names = new Set<string>();
    for (const p of [...this.files.keys(), ...this.dirs]) if (p.startsWith(prefix) && p.slice(prefix.length).includes('/')) names.add(p.slice(prefix.length).split('/')[0]!);
    for (const p of this.dirs) if (p.startsWith(prefix) && p.length > prefix.length && !p.slice(prefix.length).includes('/')) names.add(p.slice(prefix.length));
    return [...names];
  }
  async listStats(dir: string): Promise<Array<FileStat & { name: string }>> {
    const names = await this.list(dir);
    return Promise.all(names.map(async (name) => ({ name, ...(await this.stat(`${dir}/${name}`))! })));
  }
  async write(path: string, data: string | Uint8Array, options: { expect?: string | null } = {}): Promise<FileStat | void> {
    if (options.expect !== undefined && (this.files.get(path) ?? null) !== options.expect) throw new WriteConflictError(path);
    if (typeof data !== 'string') {
      this.binary.set(path, data);
      this.writes++;
      return;
    }
    const text = data;
    this.files.set(path, text);
    this.writes++;
  }
  async move(from: string, to: string): Promise<void> {
    if (this.files.has(to)) throw new WriteConflictError(to);
    this.files.set(to, this.files.get(from)!);
    this.files.delete(from);
  }
  async remove(path: string): Promise<void> {
    this.files.delete(path);
    this.binary.delete(path);
  }
  async mkdir(path: string): Promise<void> {
    this.dirs.add(path);
  }
}

const held = new Map<string, string>();
export const noLocks: Locks = {
  withLock: (_key, fn) => fn(),
  tryLock: async (key, holder) => {
    const other = held.get(key);
    if (other) return { heldBy: other };
    held.set(key, holder);
    return { release: async () => void held.delete(key) };
  },
};

export function at(iso: string): number {
  return parseTimestamp(iso)!;
}

/** A vault over in-memory files with a fixed clock. */
export function memoryVault(now: string, settings: Partial<EngramSettings> = {}): { vault: Vault; files: MemoryFileStore; clock: { ms: number } } {
  const files = new MemoryFileStore();
  const clock = { ms: at(now) };
  const ports: Ports = {
    files,
    locks: noLocks,
    clock: { now: () => clock.ms },
    random: seededRandom('test'),
    tokens: { count: (text) => text.split(/\s+/).filter(Boolean).length },
  };
  return { vault: new Vault(ports, { ...resolveSettings(undefined), ...settings }), files, clock };
}

/** A memory file's text from fields (as a person would write one). */
export function memoryNote(fields: Record<string, string | number | boolean>, body = 'Some text.\n'): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${typeof v === 'string' && /^\d{4}-/.test(v) ? JSON.stringify(v) : String(v)}`);
  return `---\n${lines.join('\n')}\n---\n${body}`;
}
