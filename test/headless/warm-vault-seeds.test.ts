import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { WarmVault } from '../../headless/mcp/warm-vault';
import { engram, initVault } from '../helpers/cli';

/**
 * WarmVault's vector seeds and embedder (what recall and context ask for in `engram mcp`),
 * against an OpenAI-compatible embedding server in this process whose vectors are known: a text
 * about retries is [1, 0, 0], one about deploys [0, 1, 0], anything else [0, 0, 1]. Seeds are
 * then exact cosines, 1 or 0. No model is downloaded, nothing depends on the machine's speed.
 */

const NOW = '2026-11-10T10:00:00Z';

function vectorOf(text: string): number[] {
  if (/retr/i.test(text)) return [1, 0, 0];
  if (/deploy/i.test(text)) return [0, 1, 0];
  return [0, 0, 1];
}

describe('WarmVault: vector seeds from the configured embedder and the stored vectors', () => {
  let vault: string;
  let dir: string;
  let cleanup: () => void;
  let server: Server;
  let url: string;
  let failing = false;
  let requests = 0;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        requests++;
        if (failing) {
          res.writeHead(500).end('down');
          return;
        }
        const { input } = JSON.parse(body) as { input: string[] };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vectorOf(t) })) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(async () => {
    ({ dir, vault, cleanup } = await initVault());
    for (const [key, text] of [['retries', 'Retries use exponential backoff from 200 ms.'], ['deploys', 'Deploys happen on Tuesdays.'], ['cache', 'The cache warms in ten minutes.']] as const) {
      ids[key] = (await engram(vault, ['--json', '--now', NOW, 'remember', text])).json().id;
    }
    failing = false;
  });
  afterEach(() => cleanup());

  const configure = (model: string) => writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ embedder: { kind: 'http', api: 'openai', url, model } }));
  const entries = (seeds: Array<Map<string, number> | undefined>) => seeds.map((s) => (s ? [...s.entries()] : s));

  it('without an embedder: no seeds, one undefined per query, and no embedder', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      expect(await warm.vectorSeeds(['retries', 'deploys'])).toEqual([undefined, undefined]);
      expect(warm.embedder()).toBeNull();
      expect(warm.preloadSlices).toEqual([]); // no preload has run
    } finally {
      warm.close();
    }
  });

  it('with an embedder and vectors of its model: each query its nearest memories by cosine, best first', async () => {
    configure('toy');
    expect((await engram(vault, ['--json', '--now', NOW, 'reembed'])).json()).toMatchObject({ model: `openai:toy@${url}`, dimensions: 3, embedded: 3 });
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      const before = requests;
      expect(entries(await warm.vectorSeeds(['how do retries work', 'when do we deploy']))).toEqual([
        // ties in the stored rows' order: the files' path order (Deploys…, Retries…, The cache…)
        [[ids.retries, 1], [ids.deploys, 0], [ids.cache, 0]],
        [[ids.deploys, 1], [ids.retries, 0], [ids.cache, 0]],
      ]);
      expect(requests).toBe(before + 1); // both queries in one request
      // the embedder is kept between requests (loading a model is slow)
      expect(warm.embedder()).toBe(warm.embedder());
    } finally {
      warm.close();
    }
  });

  it('reads the stored vectors again when they change (a purge takes its vector out)', async () => {
    configure('toy');
    await engram(vault, ['--now', NOW, 'reembed']);
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      expect(entries(await warm.vectorSeeds(['retries']))).toEqual([[[ids.retries, 1], [ids.deploys, 0], [ids.cache, 0]]]);
      expect((await engram(vault, ['forget', '--purge', ids.deploys!])).code).toBe(0);
      expect(entries(await warm.vectorSeeds(['retries']))).toEqual([[[ids.retries, 1], [ids.cache, 0]]]);
    } finally {
      warm.close();
    }
  });

  it('no seeds, and nothing asked of the server, without stored vectors or with vectors of another model', async () => {
    configure('toy');
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      const before = requests;
      expect(await warm.vectorSeeds(['retries', 'deploys'])).toEqual([undefined, undefined]);
      await engram(vault, ['--now', NOW, 'reembed']);
      const toy = warm.embedder();
      expect(toy?.model).toBe(`openai:toy@${url}`);
      expect(entries(await warm.vectorSeeds(['deploys']))).toEqual([[[ids.deploys, 1], [ids.retries, 0], [ids.cache, 0]]]);
      // another model configured: a new embedder, and the stored vectors are not its own
      configure('other');
      const other = warm.embedder();
      expect([other === toy, other?.model]).toEqual([false, `openai:other@${url}`]);
      const asked = requests;
      expect(await warm.vectorSeeds(['deploys'])).toEqual([undefined]);
      expect([asked - before, requests - asked]).toEqual([2, 0]); // reembed's one and the seeds' one; none for another model
    } finally {
      warm.close();
    }
  });

  it('an embedder that fails: lexical seeds only (none), with a message saying so', async () => {
    configure('toy');
    await engram(vault, ['--now', NOW, 'reembed']);
    const warnings: string[] = [];
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, (m) => warnings.push(m));
    try {
      failing = true;
      expect(await warm.vectorSeeds(['retries', 'deploys'])).toEqual([undefined, undefined]);
      expect(warnings).toEqual([`embedding server ${url} (model toy): HTTP 500 Internal Server Error; recalling with lexical seeds only`]);
    } finally {
      warm.close();
    }
  });
});
