// Builds the headless runner (dist/engram.js) and its library entry (dist/lib.js).
// The plugin bundle (main.js) is added by the plugin work.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

// gpt-tokenizer (1.1 MB of BPE ranks) stays in node_modules and loads only when a command
// counts tokens: bundled, it costs every command ~100 ms of parsing at start.
const node = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: 'linked', minify: true, keepNames: true, logLevel: 'warning', external: ['gpt-tokenizer', '@xenova/transformers'] };

await Promise.all([
  build({ ...node, entryPoints: ['headless/main.ts'], outfile: 'dist/engram.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...node, entryPoints: ['headless/index.ts'], outfile: 'dist/lib.js' }),
]);
chmodSync('dist/engram.js', 0o755);
