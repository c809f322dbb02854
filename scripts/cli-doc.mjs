// `npm run docs:cli`: writes docs/cli.md from the command table and docs/mcp-tools.md from the MCP
// server's tool list (through dist/lib.js, built first by the npm script). `--check` writes
// nothing and exits 1 when either is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { cliReference, mcpReference } = createRequire(import.meta.url)(path.join(root, 'dist', 'lib.js'));
let stale = false;
for (const [name, text] of [['cli.md', cliReference()], ['mcp-tools.md', await mcpReference()]]) {
  const target = path.join(root, 'docs', name);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // missing: out of date
    }
    if (current !== text) {
      console.error(`docs/${name} is out of date: run npm run docs:cli`);
      stale = true;
    }
  } else {
    writeFileSync(target, text);
    console.log(`wrote docs/${name} (${text.length} bytes)`);
  }
}
process.exit(stale ? 1 : 0);
