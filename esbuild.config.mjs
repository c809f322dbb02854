// Builds the headless runner (dist/engram.js). The plugin bundle (main.js) is added by the plugin work.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

await build({
  entryPoints: ['headless/main.ts'],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outfile: 'dist/engram.js',
  banner: { js: '#!/usr/bin/env node' },
  sourcemap: 'linked',
  logLevel: 'warning',
});
chmodSync('dist/engram.js', 0o755);
