// Builds the headless runner (dist/engram.js), its library entry (dist/lib.js), the embedding
// worker for the plugin (dist/plugin/embedding-worker.js, with onnxruntime-web's WASM files
// beside it) and the plugin itself (dist/plugin/main.js, with manifest.json and styles.css: the
// three files the community store installs). The worker's code is built into main.js (reviewed
// with it, started from a Blob); the WASM is not installed by the store: it is a release asset
// that the plugin downloads on first use, after the user agrees, from this version's GitHub
// release, checking the SHA-256 built into main.js here.
import { build as esbuild } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';

// Every file is written beside its place and renamed over it: esbuild (and copyFileSync) write
// in place (O_TRUNC, then the bytes), and a runner started meanwhile -- by a test of another
// jest run in the same checkout, whose global setup builds again -- read an empty
// engram-cli.js, ran nothing and exited 0 without reading its input (stdin.test's "write
// EPIPE, exit 0 for the 300 KB input"). A reader now sees the old file or the new one.
function replaceFile(path, bytes) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, bytes);
  // a script with a #! line (the launcher) is executable before it takes its name
  chmodSync(temp, bytes[0] === 0x23 && bytes[1] === 0x21 ? 0o755 : 0o644);
  renameSync(temp, path);
}
const copyFile = (from, to) => replaceFile(to, readFileSync(from));
async function build(options) {
  const result = await esbuild({ ...options, write: false });
  for (const file of result.outputFiles) replaceFile(file.path, file.contents);
  return result;
}

// The YAML libraries are a bundle of their own, dist/engram-yaml.js (headless/yaml-libs.ts), which
// headless/lazy-yaml.ts requires at their first use from beside the bundle it is in: the one
// require the Node bundles leave as it is.
function besideBundle() {
  return { name: 'beside-bundle', setup: (b) => b.onResolve({ filter: /^\.\/engram-yaml\.js$/ }, (args) => ({ path: args.path, external: true })) };
}

// gpt-tokenizer (1.1 MB of BPE ranks) and transformers.js stay in node_modules for the
// runner and load only when a command needs them: bundled, they cost every command
// ~100 ms of parsing at start. The MCP SDK (and zod) load only for `engram mcp`. SHA-256 is
// Node's (headless/node-sha2.ts): the same digests as noble's, without hashing in JavaScript. The YAML
// libraries are evaluated at their first use (headless/lazy-yaml.ts).
// No keepNames: it wrapped each function and closure in a call that set its name
// (Object.defineProperty, ~1,080 sites in engram-cli.js), paid at module load and at each
// closure made (an import made ~4 a line). Nothing reads a function's name but error.name,
// which each error class states (src/core/errors.ts).
const node = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: 'linked', minify: true, logLevel: 'warning', external: ['gpt-tokenizer', '@xenova/transformers', '@huggingface/transformers', '@modelcontextprotocol/sdk', 'zod'], alias: { '@noble/hashes/sha2': './headless/node-sha2.ts', yaml: './headless/lazy-yaml.ts', 'js-yaml': './headless/lazy-yaml.ts' }, plugins: [besideBundle()] };

// The CLI bundle is ASCII, so the launcher reads it as one-byte text (headless/compile-cache.ts):
// esbuild escapes strings but leaves regular expressions' letters (’, “, —, ¹) as they are, and
// one such letter made the 590 KB source a two-byte string decoded as UTF-8 at each start (~9 ms
// of CPU, ~5 % of `node -e 0`). Each non-ASCII letter of a script is written as its \u escape
// (a backslash before it, an identity escape, is dropped): the same string, regex, identifier or
// comment. Template literals' raw text would change: the build fails if a String.raw is touched.
const asciiSource = {
  name: 'ascii-source',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!/[^\0-\x7f]/.test(text)) return undefined;
      if (text.includes('String.raw')) throw new Error(`${args.path}: non-ASCII text beside String.raw, which its escape would change`);
      const escape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
      const contents = text.replace(/(\\*)([^\0-\x7f])/g, (_, slashes, c) => '\\'.repeat(slashes.length - (slashes.length % 2)) + escape(c));
      return { contents, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

mkdirSync('dist/plugin', { recursive: true });
const worker = build({ entryPoints: ['src/embedding/worker-entry.ts'], bundle: true, platform: 'browser', format: 'iife', target: 'chrome114', minify: true, outfile: 'dist/plugin/embedding-worker.js', logLevel: 'warning' });
await Promise.all([
  // dist/engram.js is a small launcher that runs dist/engram-cli.js (or a command's own bundle) through V8's code cache
  build({ ...node, entryPoints: ['headless/main.ts'], outfile: 'dist/engram-cli.js', plugins: [...node.plugins, asciiSource] }),
  // commands built alone as well (headless/bundles.ts: the launcher runs `engram touch` with this one)
  build({ ...node, entryPoints: ['headless/touch-main.ts'], outfile: 'dist/engram-touch.js', plugins: [...node.plugins, asciiSource] }),
  build({ ...node, entryPoints: ['headless/read-main.ts'], outfile: 'dist/engram-read.js', plugins: [...node.plugins, asciiSource] }),
  build({ ...node, entryPoints: ['headless/yaml-libs.ts'], outfile: 'dist/engram-yaml.js', sourcemap: false }),
  build({ ...node, entryPoints: ['headless/launcher.ts'], outfile: 'dist/engram.js', sourcemap: false, banner: { js: '#!/usr/bin/env node' } }),
  build({ ...node, entryPoints: ['headless/index.ts'], outfile: 'dist/lib.js' }),
  worker,
]);
// cl100k_base's ranks sorted by their bytes, for the CLI's token counts (src/core/bpe-count.ts):
// found by binary search in one string, where gpt-tokenizer compiled a 1 MB array of its ranks
// and built a map of them at each start (~180 ms of every `engram context`).
const sortedRanks = readFileSync('node_modules/gpt-tokenizer/data/cl100k_base.tiktoken', 'utf8')
  .split('\n')
  .filter((line) => line.indexOf(' ') > 0)
  .map((line) => [Buffer.from(line.slice(0, line.indexOf(' ')), 'base64').toString('latin1'), Number(line.slice(line.indexOf(' ') + 1))])
  .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
const rankOffsets = new Uint32Array(sortedRanks.length + 1);
sortedRanks.forEach(([key], i) => (rankOffsets[i + 1] = rankOffsets[i] + key.length));
// dist/cl100k.bin: the table as bytes (count, then the offsets and ranks as little-endian 32-bit
// words, then the keys, one byte per char), read whole by dist/cl100k.js. The table was
// JavaScript (base64 in string literals): 1.9 MB that each `engram context` parsed, compiled
// and decoded, ~115 ms of CPU at load 20 (about half of `node -e 0`).
const keyBytes = Buffer.from(sortedRanks.map(([key]) => key).join(''), 'latin1');
const count = sortedRanks.length;
const table = Buffer.alloc(4 + 4 * (count + 1) + 4 * count + keyBytes.length);
table.writeUInt32LE(count, 0);
rankOffsets.forEach((offset, i) => table.writeUInt32LE(offset, 4 + 4 * i));
sortedRanks.forEach(([, rank], i) => table.writeUInt32LE(rank, 4 + 4 * (count + 1) + 4 * i));
keyBytes.copy(table, 4 + 8 * count + 4);
replaceFile('dist/cl100k.bin', table);
await build({
  ...node,
  sourcemap: false,
  stdin: {
    contents: [
      "// cl100k_base's ranks sorted by bytes, from dist/cl100k.bin (written by esbuild.config.mjs from gpt-tokenizer's cl100k_base.tiktoken)",
      "const bytes = require('node:fs').readFileSync(require('node:path').join(__dirname, 'cl100k.bin'));",
      'const count = bytes.readUInt32LE(0);',
      '/** n little-endian 32-bit words from byte `at` (a copy: the file\'s buffer need not be aligned) */',
      'function words(at, n) {',
      '  const out = new Uint32Array(n);',
      '  if (new Uint8Array(Uint32Array.of(1).buffer)[0] === 1) new Uint8Array(out.buffer).set(bytes.subarray(at, at + 4 * n));',
      '  else for (let i = 0; i < n; i++) out[i] = bytes.readUInt32LE(at + 4 * i);',
      '  return out;',
      '}',
      "module.exports = { keys: bytes.toString('latin1', 8 + 8 * count), offsets: words(4, count + 1), ranks: words(8 + 4 * count, count) };",
      '',
    ].join('\n'),
    loader: 'js',
  },
  outfile: 'dist/cl100k.js',
});
for (const wasm of ['ort-wasm.wasm', 'ort-wasm-simd.wasm']) copyFile(`node_modules/onnxruntime-web/dist/${wasm}`, `dist/plugin/${wasm}`);

// The runtime's pinned files: this version's release assets, each with its SHA-256.
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8'));
const repository = /github\.com[/:]([^/]+\/[^/.]+)/.exec(pkg.repository?.url ?? '')?.[1];
if (!repository) throw new Error('package.json: repository.url must name the GitHub repository the releases are published in');
const pinned = (name, purpose) => ({
  name,
  url: `https://github.com/${repository}/releases/download/${manifest.version}/${name}`,
  sha256: createHash('sha256').update(readFileSync(`dist/plugin/${name}`)).digest('hex'),
  bytes: statSync(`dist/plugin/${name}`).size,
  purpose,
});
const runtime = {
  wasmSimd: pinned('ort-wasm-simd.wasm', 'running the embedding model in this app'),
  wasm: pinned('ort-wasm.wasm', 'running the embedding model in this app'),
};

await build({
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
  // the embedding worker is part of main.js (reviewed with it, started from a Blob of this
  // text): only the WASM and the model are fetched
  define: { ENGRAM_RUNTIME: JSON.stringify(runtime), ENGRAM_WORKER_SOURCE: JSON.stringify(readFileSync('dist/plugin/embedding-worker.js', 'utf8')) },
  // one YAML library in main.js: the core's reader goes through `yaml` (src/plugin/yaml-reader.ts)
  alias: { 'js-yaml': './src/plugin/yaml-reader.ts' },
  // provided by Obsidian at run time
  external: ['obsidian', 'electron', '@codemirror/*', '@lezer/*'],
});
for (const file of ['manifest.json', 'styles.css']) copyFile(file, `dist/plugin/${file}`);
