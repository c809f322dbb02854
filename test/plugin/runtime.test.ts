/**
 * @jest-environment jsdom
 */
import { blobs, installFakeWorkers, workers } from '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Modal, Notice, requestLog, routeRequests } from '../fakes/obsidian';
import { startPlugin, type Harness } from './harness';

/*
 * The embedding runtime (the worker script and onnxruntime-web's WASM, 0.8 + 10 MB) is not
 * something the community store installs: on first use, after one question, the plugin
 * downloads this version's release assets from their pinned URLs, checks the SHA-256 built into
 * main.js, keeps them in .engram/runtime/ and starts the worker from blob URLs. The pinned
 * release URLs are routed to a local server holding dist/plugin's files: no network.
 */
const DIST = path.join(__dirname, '..', '..', 'dist', 'plugin');
const RELEASE = 'https://github.com/engram-memory/engram/releases/download/0.1.0/';

let server: Server;
const served: string[] = [];
let tamper = false;
let h: Harness;

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    served.push(name);
    const bytes = fs.readFileSync(path.join(DIST, name));
    if (tamper && name.endsWith(".wasm")) bytes.writeUInt8(bytes.readUInt8(100) ^ 0xff, 100);
    res.writeHead(200);
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  for (const name of ['embedding-worker.js', 'ort-wasm-simd.wasm', 'ort-wasm.wasm']) routeRequests.set(`${RELEASE}${name}`, `${local}${name}`);
});
afterAll(async () => {
  routeRequests.clear();
  await new Promise((r) => server.close(r));
});
beforeEach(async () => {
  served.length = 0;
  requestLog.length = 0;
  tamper = false;
  installFakeWorkers();
  h = await startPlugin();
  await h.plugin.service.setSetting(['embedder', 'kind'], 'transformers');
  // the model's weights already in the memory folder (copied by hand, or by the runner)
  seedModel();
});

const MODEL_DIR = ['.engram', 'models', 'Xenova', 'all-MiniLM-L6-v2'];
function seedModel(): void {
  fs.mkdirSync(path.join(h.dir, 'memory', ...MODEL_DIR, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(h.dir, 'memory', ...MODEL_DIR, 'onnx', 'model_quantized.onnx'), 'weights');
}
afterEach(() => h.close());

async function answer(button: 'Cancel' | 'Download'): Promise<{ title: string; text: string }> {
  await h.until(() => Modal.openModals.length > 0);
  const ask = Modal.openModals.at(-1)!;
  const shown = { title: ask.titleEl.textContent ?? '', text: ask.contentEl.textContent ?? '' };
  Array.from(ask.contentEl.querySelectorAll('button')).find((b) => b.textContent === button)!.click();
  return shown;
}

it('downloads the worker and the WASM once, after one question, checks them, and runs the worker from blob URLs', async () => {
  expect(h.app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
  const ask = await answer('Download');
  expect(ask.title).toBe('Download ort-wasm-simd.wasm?');
  expect(ask.text).toMatch(/needs ort-wasm-simd\.wasm \(9\.6 MB\)\. It is downloaded once from github\.com/);
  await h.until(() => workers.length > 0 && workers[0]!.messages.length > 0);
  // the worker is part of main.js: only the WASM is fetched
  expect(requestLog.sort()).toEqual([`${RELEASE}ort-wasm-simd.wasm`]);
  for (const name of ['ort-wasm-simd.wasm']) expect(fs.readFileSync(path.join(h.dir, 'memory', '.engram', 'runtime', name)).equals(fs.readFileSync(path.join(DIST, name)))).toBe(true);
  // the worker was started from a blob of the code built into main.js (its URL revoked once started)
  const worker = workers[0]!;
  const script = blobs.get(worker.url)!;
  expect([script.blob.size, script.revoked]).toEqual([fs.statSync(path.join(DIST, 'embedding-worker.js')).size, true]);
  const request = worker.messages[0] as { wasmPaths: Record<string, string>; modelFiles: boolean; options: { localModelPath: string } };
  expect(Object.keys(request.wasmPaths)).toEqual(['ort-wasm-simd.wasm']);
  expect(blobs.get(request.wasmPaths['ort-wasm-simd.wasm']!)!.blob.size).toBe(fs.statSync(path.join(DIST, 'ort-wasm-simd.wasm')).size);
  expect([request.modelFiles, request.options.localModelPath]).toEqual([true, '.engram/models/']);
  // the worker asks for a model file: the plugin answers from the memory folder's .engram/models/
  fs.mkdirSync(path.join(h.dir, 'memory', '.engram', 'models', 'Xenova', 'all-MiniLM-L6-v2'), { recursive: true });
  fs.writeFileSync(path.join(h.dir, 'memory', '.engram', 'models', 'Xenova', 'all-MiniLM-L6-v2', 'config.json'), '{"model_type":"bert"}');
  worker.emit({ type: 'file-request', rid: 7, path: '.engram/models/Xenova/all-MiniLM-L6-v2/config.json' });
  worker.emit({ type: 'file-request', rid: 8, path: '.engram/models/Xenova/all-MiniLM-L6-v2/tokenizer.json' });
  worker.emit({ type: 'file-request', rid: 9, path: '.engram/models/../../../.obsidian/app.json' });
  await h.until(() => worker.messages.filter((m) => (m as { type: string }).type === 'file').length === 3);
  const answers = worker.messages.filter((m) => (m as { type: string }).type === 'file') as Array<{ rid: number; bytes: ArrayBuffer | null }>;
  expect(answers.map((a) => [a.rid, a.bytes === null ? null : new TextDecoder().decode(a.bytes)]).sort((x, y) => (x[0] as number) - (y[0] as number))).toEqual([[7, '{"model_type":"bert"}'], [8, null], [9, null]]);
  // a file downloaded from the model hub is kept there for next time (and for the runner)
  worker.emit({ type: 'file-store', path: '.engram/models/Xenova/all-MiniLM-L6-v2/tokenizer.json', bytes: new TextEncoder().encode('{"v":1}').buffer });
  await h.until(() => fs.existsSync(path.join(h.dir, 'memory', '.engram', 'models', 'Xenova', 'all-MiniLM-L6-v2', 'tokenizer.json')));
  // another embedder start (settings changed) uses the cached runtime: nothing asked or fetched
  await h.plugin.service.setSetting(['embedder', 'batchSize'], 16);
  expect(h.app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
  await h.until(() => workers.length === 2 && workers[1]!.messages.length > 0);
  expect(served.sort()).toEqual(['ort-wasm-simd.wasm']);
  expect(workers[0]!.terminated).toBe(true);
});

it('runs nothing and keeps nothing when a download does not match its pinned hash', async () => {
  tamper = true;
  expect(h.app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
  await answer('Download');
  await h.until(() => Notice.shown.some((m) => m.includes('does not match its pinned SHA-256')));
  expect(workers).toHaveLength(0);
  expect(fs.existsSync(path.join(h.dir, 'memory', '.engram', 'runtime', 'ort-wasm-simd.wasm'))).toBe(false);
});

it('downloads nothing when the user declines', async () => {
  expect(h.app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
  await answer('Cancel');
  await h.until(() => Notice.shown.length > 0);
  expect(Notice.shown.at(-1)).toBe('Engram: ort-wasm-simd.wasm was not downloaded (running the embedding model in this app needs it)');
  expect(served).toEqual([]);
  expect(workers).toHaveLength(0);
});

it('downloads nothing, not even the runtime, when the model is not here and its download is switched off', async () => {
  fs.rmSync(path.join(h.dir, 'memory', ...MODEL_DIR, 'onnx'), { recursive: true });
  expect(h.app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
  await h.until(() => Notice.shown.length > 0);
  expect(Notice.shown.at(-1)).toBe('Engram: the embedding model Xenova/all-MiniLM-L6-v2 is not in .engram/models/Xenova/all-MiniLM-L6-v2/ and downloading it is switched off (settings → embeddings): nothing was downloaded');
  expect(Modal.openModals).toHaveLength(0);
  expect([served, requestLog, workers.length]).toEqual([[], [], 0]);
});

it('asks once for the runtime and the model together when the model will be downloaded too, with both sizes and hosts', async () => {
  fs.rmSync(path.join(h.dir, 'memory', ...MODEL_DIR, 'onnx'), { recursive: true });
  await h.plugin.service.setSetting(['embedder', 'allowRemoteModels'], true);
  expect(h.app.commands.executeCommandById('engram-memory:re-embed')).toBe(true);
  const ask = await answer('Cancel');
  expect(ask.text).toMatch(/needs ort-wasm-simd\.wasm \(9\.6 MB\)\. It is downloaded once from github\.com.* Then the model Xenova\/all-MiniLM-L6-v2 \(about 23 MB, from huggingface\.co\) is downloaded on first use/);
  await h.until(() => Notice.shown.length > 0);
  expect([served, workers.length]).toEqual([[], 0]);
});
