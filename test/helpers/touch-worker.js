// A separate process that touches one memory N times through the built runner library.
// Usage: node touch-worker.js VAULT ID N
const { openVault, useMemories } = require('../../dist/lib.js');

async function main() {
  const [vault, id, n] = process.argv.slice(2);
  const { vault: v } = openVault({ vault, cwd: process.cwd(), env: {} });
  for (let i = 0; i < Number(n); i++) await useMemories(v, [id], { use: 'read', touch: true, coAccess: false });
}

main().catch((error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
