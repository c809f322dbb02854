import type { Vault } from './vault';

/**
 * Append-only JSON-lines logs in `.engram/` (validation runs, loop decisions): one writer at a
 * time under the log's lock, each append a compare-and-swap on the whole file, so concurrent
 * writers never lose a line; a damaged line (a crash mid-write elsewhere) is skipped on read.
 */
export async function appendJsonLine(vault: Vault, path: string, value: unknown): Promise<void> {
  await vault.ports.locks.withLock(`log-${path.replace(/[^a-z0-9-]/gi, '')}`, async () => {
    const current = await vault.readText(path);
    const prefix = current === null ? '' : `${current}${current && !current.endsWith('\n') ? '\n' : ''}`;
    await vault.ports.files.mkdir(path.slice(0, path.lastIndexOf('/')));
    await vault.ports.files.write(path, `${prefix}${JSON.stringify(value)}\n`, { expect: current });
  });
}

/** The lines of a log that parse and pass `accept`, in order. */
export async function readJsonLines<T>(vault: Vault, path: string, accept: (value: T) => boolean): Promise<T[]> {
  const text = await vault.readText(path);
  if (!text) return [];
  const out: T[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const value = JSON.parse(raw) as T;
      if (value !== null && typeof value === 'object' && accept(value)) out.push(value);
    } catch {
      // a damaged line is skipped
    }
  }
  return out;
}
