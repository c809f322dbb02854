import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../headless/cli';
import { frontmatterId } from '../../src/core/memory-files';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: () => any;
}

/** Run the CLI in-process against a vault, with optional standard input. */
export async function engram(vault: string, args: string[], stdin?: string, cwd = process.cwd()): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--vault', vault, ...args], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    readStdin: () => stdin ?? '',
    stdinIsTTY: stdin === undefined,
    cwd,
    env: {},
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix = 'engram-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A temporary folder holding a vault made by `engram init` (at `dir/vault`), for a test's beforeEach. */
export async function initVault(prefix?: string): Promise<{ dir: string; vault: string; cleanup: () => void }> {
  const { dir, cleanup } = tempDir(prefix);
  const vault = path.join(dir, 'vault');
  const init = await engram(vault, ['init']);
  if (init.code !== 0) {
    cleanup();
    throw new Error(`engram init failed: ${init.stderr}`);
  }
  return { dir, vault, cleanup };
}

/** The vault-relative path of the file holding memory `id` (its frontmatter's id: file names are free, ADR 0005). */
export function fileOf(vault: string, id: string): string {
  const walk = (rel: string): string | null => {
    for (const entry of readdirSync(path.join(vault, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name.startsWith('.')) continue;
        const found = walk(child);
        if (found) return found;
      } else if (entry.name.endsWith('.md') && frontmatterId(readFileSync(path.join(vault, child), 'utf8')) === id) return child;
    }
    return null;
  };
  for (const folder of ['episodic', 'semantic', 'decisions', 'archive']) {
    if (!existsSync(path.join(vault, folder))) continue;
    const found = walk(folder);
    if (found) return found;
  }
  throw new Error(`no file holds ${id} in ${vault}`);
}
