// `npm run docs:cli`: writes docs/cli.md from the command table (through dist/lib.js, built
// first by the npm script). `--check` writes nothing and exits 1 when docs/cli.md is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { cliReference } = createRequire(import.meta.url)(path.join(root, 'dist', 'lib.js'));
const target = path.join(root, 'docs', 'cli.md');
const text = cliReference();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: out of date
  }
  if (current !== text) {
    console.error('docs/cli.md is out of date: run npm run docs:cli');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  console.log(`wrote docs/cli.md (${text.length} bytes)`);
}
