// Benchmarks that time the plugin's own code (its memory index, creative draw, re-embed) bundle
// it from source as the plugin build does: Node, with the plugin's YAML reader instead of js-yaml.
import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * Bundle `contents` (export lines, paths relative to the repository) and load it; `tag` names the
 * temp folder; `from`: another checkout of the repository (a baseline build's sources).
 */
export async function loadSource(contents, tag, from = root) {
  return createRequire(import.meta.url)(await bundleSource(contents, tag, from));
}

/** loadSource's bundle, written and not loaded: its path (for a child process to load). */
export async function bundleSource(contents, tag, from = root) {
  const entry = path.join(mkdtempSync(path.join(tmpdir(), `engram-bench-${tag}-`)), 'index.cjs');
  await build({
    stdin: { contents, resolveDir: from, loader: 'ts' },
    bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: entry, logLevel: 'warning',
    alias: { 'js-yaml': path.join(from, 'src', 'plugin', 'yaml-reader.ts') },
  });
  return entry;
}
