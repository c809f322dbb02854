import { mkdirSync } from 'node:fs';
import * as nodePath from 'node:path';
import lockfile from 'proper-lockfile';
import { LockError } from '../src/core/errors';
import { sha256Hex } from '../src/core/ids';
import type { Locks } from '../src/core/ports';

/**
 * Inter-process locks in `.engram/locks/`, one per key (a memory id, a daily file). A lock
 * is a directory created atomically with mkdir and kept fresh while held; one left by a dead
 * process goes stale after `staleMs` and is taken over. Obsidian does not take these locks:
 * the vault's compare-and-swap write covers it.
 */
export class NodeLocks implements Locks {
  private readonly dir: string;
  private ready = false;

  constructor(vaultRoot: string, private readonly staleMs = 10_000) {
    this.dir = nodePath.join(vaultRoot, '.engram', 'locks');
  }

  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (!this.ready) {
      mkdirSync(this.dir, { recursive: true });
      this.ready = true;
    }
    const name = /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : sha256Hex(key).slice(0, 24);
    const target = nodePath.join(this.dir, name);
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(target, {
        realpath: false,
        lockfilePath: `${target}.lock`,
        stale: this.staleMs,
        retries: { retries: 4000, factor: 1.1, minTimeout: 1, maxTimeout: 20, randomize: true },
      });
    } catch (error) {
      throw new LockError(`could not lock ${key}: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      return await fn();
    } finally {
      await release().catch(() => undefined);
    }
  }
}
