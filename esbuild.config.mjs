// Builds the headless runner (dist/engram.js) and its library entry (dist/lib.js).
// The plugin bundle (main.js) is added by the plugin work.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

const node = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: 'linked', logLevel: 'warning' };

await Promise.all([
  build({ ...node, entryPoints: ['headless/main.ts'], outfile: 'dist/engram.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...node, entryPoints: ['headless/index.ts'], outfile: 'dist/lib.js' }),
]);
chmodSync('dist/engram.js', 0o755);
