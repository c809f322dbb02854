// Builds the headless runner (dist/engram.js), its library entry (dist/lib.js), and the
// embedding worker for the plugin (dist/plugin/embedding-worker.js, with onnxruntime-web's
// WASM files beside it: nothing is loaded from a CDN at run time), and the plugin itself
// (dist/plugin/main.js, with manifest.json and styles.css copied beside it: the folder
// `npm run install-plugin -- <vault>` copies into <vault>/.obsidian/plugins/engram-memory/).
import { build } from 'esbuild';
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';

// gpt-tokenizer (1.1 MB of BPE ranks) and transformers.js stay in node_modules for the
// runner and load only when a command needs them: bundled, they cost every command
// ~100 ms of parsing at start. The MCP SDK (and zod) load only for `engram mcp`.
const node = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: 'linked', minify: true, keepNames: true, logLevel: 'warning', external: ['gpt-tokenizer', '@xenova/transformers', '@modelcontextprotocol/sdk', 'zod'] };

await Promise.all([
  build({ ...node, entryPoints: ['headless/main.ts'], outfile: 'dist/engram.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...node, entryPoints: ['headless/index.ts'], outfile: 'dist/lib.js' }),
  build({
    entryPoints: ['src/plugin/main.ts'],
    outfile: 'dist/plugin/main.js',
    bundle: true,
    platform: 'browser',
    format: 'cjs',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'warning',
    // one YAML library in main.js: the core's reader goes through `yaml` (src/plugin/yaml-reader.ts)
    alias: { 'js-yaml': './src/plugin/yaml-reader.ts' },
    // provided by Obsidian at run time
    external: ['obsidian', 'electron', '@codemirror/*', '@lezer/*'],
  }),
  build({ entryPoints: ['src/embedding/worker-entry.ts'], bundle: true, platform: 'browser', format: 'iife', target: 'chrome114', minify: true, outfile: 'dist/plugin/embedding-worker.js', logLevel: 'warning' }),
]);
chmodSync('dist/engram.js', 0o755);
mkdirSync('dist/plugin', { recursive: true });
for (const wasm of ['ort-wasm.wasm', 'ort-wasm-simd.wasm']) copyFileSync(`node_modules/onnxruntime-web/dist/${wasm}`, `dist/plugin/${wasm}`);
for (const file of ['manifest.json', 'styles.css']) copyFileSync(file, `dist/plugin/${file}`);
