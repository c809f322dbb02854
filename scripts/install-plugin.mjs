// `npm run install-plugin -- <vault>`: copy the built plugin (main.js, manifest.json and
// styles.css, the three files the community store installs) into <vault>/.obsidian/plugins/<id>/.
// The embedding runtime (worker and WASM) is downloaded by the plugin on first use; to skip that,
// copy dist/plugin/embedding-worker.js and ort-wasm-simd.wasm into <memory folder>/.engram/runtime/.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const vault = process.argv[2];
if (!vault) {
  console.error('usage: npm run install-plugin -- <path to an Obsidian vault>');
  process.exit(2);
}
const target = path.resolve(vault);
if (!existsSync(target) || !statSync(target).isDirectory()) {
  console.error(`install-plugin: ${target} is not a folder`);
  process.exit(2);
}
const built = path.join(root, 'dist', 'plugin');
if (!existsSync(path.join(built, 'main.js'))) {
  console.error('install-plugin: dist/plugin/main.js is missing: run npm run build first');
  process.exit(1);
}
const { id } = JSON.parse(readFileSync(path.join(root, 'manifest.json'), 'utf8'));
const dir = path.join(target, '.obsidian', 'plugins', id);
mkdirSync(dir, { recursive: true });
const files = ['main.js', 'manifest.json', 'styles.css'];
for (const file of files) copyFileSync(path.join(built, file), path.join(dir, file));
console.log(`installed ${files.join(', ')} into ${dir}\nenable "Engram" in Obsidian: Settings → Community plugins`);
