// Runs the real transformers.js path (through the built library) in its own Node process and
// prints what the test needs as JSON: jest's module system cannot load an ESM-only package.
//   node embed-worker.mjs MODELS_DIR MODEL JSON_TEXTS
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { TransformersEmbedder } = require('../../dist/lib.js');

const [models, model, textsJson] = process.argv.slice(2);
const texts = JSON.parse(textsJson);
const make = (batchSize) => new TransformersEmbedder({ model, allowRemoteModels: false, localModelPath: models, quantized: true, batchSize });
try {
  const batched = await make(8).embed(texts);
  const single = [];
  const one = make(1);
  for (const t of texts) single.push(...(await one.embed([t])));
  const again = await make(8).embed(texts);
  console.log(JSON.stringify({ model: make(1).model, batched: batched.map((v) => Array.from(v)), single: single.map((v) => Array.from(v)), again: again.map((v) => Array.from(v)) }));
} catch (error) {
  console.log(JSON.stringify({ error: error.message, name: error.name }));
}
