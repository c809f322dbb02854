import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

/**
 * The embedding worker as the plugin runs it: a Web Worker in Chromium, transformers.js on
 * onnxruntime-web's WASM, the model and the WASM files served from 127.0.0.1 (the plugin
 * bundles them; nothing comes from a CDN). Needs Debian's chromium (.ci/run installs it) or
 * the browser ENGRAM_CHROMIUM names (the GitHub workflow's Linux jobs: the runner's Chrome); on a
 * machine without one this suite is skipped, saying so.
 */
// Debian's chromium by default; CI points ENGRAM_CHROMIUM at the runner's Chrome
const CHROMIUM = process.env.ENGRAM_CHROMIUM || '/usr/bin/chromium';
const ROOT = path.join(__dirname, '..', '..');
const MODELS = path.join(ROOT, '.work', 'test-models');
const PLUGIN = path.join(ROOT, 'dist', 'plugin');
const suite = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`browser worker tests skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);

const PAGE = `<!doctype html><script>
window.messages = [];
const worker = new Worker('/plugin/embedding-worker.js');
worker.onmessage = (e) => window.messages.push({ ...e.data, vectors: e.data.vectors && e.data.vectors.map((v) => Array.from(v)) });
worker.onerror = (e) => window.messages.push({ type: 'worker-error', message: e.message });
window.embed = (id, texts) => worker.postMessage({ type: 'embed', id, texts, wasmPaths: '/plugin/',
  options: { model: 'engram/tiny-bert', allowRemoteModels: false, localModelPath: '/models/', quantized: true, batchSize: 2 } });
</script>`;

suite('embedding worker in headless Chromium (WASM)', () => {
  let server: Server;
  let base: string;
  const requested: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = decodeURIComponent((req.url ?? '/').split('?')[0]!);
      requested.push(url);
      const file = url === '/' ? null : url.startsWith('/plugin/') ? path.join(PLUGIN, url.slice(8)) : url.startsWith('/models/') ? path.join(MODELS, url.slice(8)) : undefined;
      if (file === null) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(PAGE);
        return;
      }
      if (!file || !existsSync(file)) {
        res.writeHead(404);
        res.end();
        return;
      }
      const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.wasm') ? 'application/wasm' : file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
      res.writeHead(200, { 'content-type': type });
      res.end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('loads the bundled model and WASM from the plugin, embeds off the main thread, and matches Node', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(base);
      const texts = ['Integration tests use postgres.', 'Lunch was pizza on Friday.', 'The payments service retries with backoff.'];
      await page.evaluate((t) => (window as any).embed(1, t), texts);
      await page.waitForFunction(() => (window as any).messages.some((m: { type: string }) => m.type !== 'progress'), undefined, { timeout: 60_000 });
      const messages = await page.evaluate(() => (window as any).messages);
      expect(messages.map((m: { type: string }) => m.type)).toEqual(['progress', 'progress', 'result']);
      expect(messages.slice(0, 2).map((m: { done: number; total: number }) => [m.done, m.total])).toEqual([[2, 3], [3, 3]]);
      const browserVectors: number[][] = messages[2].vectors;
      const node = JSON.parse(execFileSync(process.execPath, [path.join(__dirname, '..', 'helpers', 'embed-worker.mjs'), MODELS, 'engram/tiny-bert', JSON.stringify(texts)], { encoding: 'utf8' }));
      browserVectors.forEach((v, i) => v.forEach((x, j) => expect(Math.abs(x - node.batched[i][j])).toBeLessThan(1e-4)));
      expect(requested.filter((u) => !(u === '/' || u === '/favicon.ico' || u.startsWith('/plugin/') || u.startsWith('/models/')))).toEqual([]);
      expect(requested.filter((u) => u.endsWith('.wasm')).length).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
