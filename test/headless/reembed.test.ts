import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, tempDir } from '../helpers/cli';

const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const MODELS = path.join(__dirname, '..', '..', '.work', 'test-models');
const NOW = '2026-11-29T12:00:00Z';

describe('engram reembed and vector seeds (real transformers.js, built runner)', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  const cli = (args: string[]) => spawnSync(process.execPath, [ENGRAM, '--vault', vault, '--now', NOW, ...args], { encoding: 'utf8' });

  beforeAll(async () => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    await engram(vault, ['init']);
    for (const text of ['Integration tests use postgres.', 'Lunch was pizza on Friday.', 'The payments service retries with backoff.']) {
      await engram(vault, ['--now', NOW, 'remember', text]);
    }
  });
  afterAll(() => cleanup());

  it('says what to configure when no embedder is set', () => {
    const run = cli(['reembed']);
    expect([run.status, run.stderr]).toEqual([1, 'engram: no embedder configured: set "embedder": {"kind": "transformers" | "http", "model": ...} in .engram/config.json\n']);
  });

  it('embeds every memory once, then only what changed', () => {
    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ embedder: { kind: 'transformers', model: 'engram/tiny-bert', localModelPath: MODELS } }));
    const first = JSON.parse(cli(['--json', 'reembed']).stdout);
    expect(first).toMatchObject({ model: 'transformers:engram/tiny-bert', dimensions: 32, total: 3, embedded: 3, kept: 0, removed: 0, rebuilt: null });
    const again = JSON.parse(cli(['--json', 'reembed']).stdout);
    expect([again.embedded, again.kept]).toEqual([0, 3]);
    expect(readFileSync(path.join(vault, '.engram', 'embeddings.bin')).length).toBe(3 * 32 * 4);
  });

  it('feeds vector seeds into recall, fused with the lexical ones', () => {
    const results = JSON.parse(cli(['--json', 'recall', 'postgres tests', '--explain']).stdout);
    expect(results[0].text).toBe('Integration tests use postgres.');
    expect(results.every((r: { explain: { vector: number | null } }) => typeof r.explain.vector === 'number')).toBe(true);
  });

  it('rebuilds a truncated bin, saying so', () => {
    truncateSync(path.join(vault, '.engram', 'embeddings.bin'), 100);
    const run = cli(['--json', 'reembed']);
    expect(run.stderr).toBe('engram: .engram/embeddings.bin has 100 bytes where its index says 384: the embeddings will be rebuilt\n');
    expect(JSON.parse(run.stdout).embedded).toBe(3);
  });

  it('falls back to lexical recall, with a message, when the model disappears', () => {
    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ embedder: { kind: 'transformers', model: 'engram/tiny-bert', localModelPath: path.join(dir, 'nowhere') } }));
    const run = cli(['--json', 'recall', 'postgres tests']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)[0].text).toBe('Integration tests use postgres.');
    expect(run.stderr).toMatch(/^engram: embedding model engram\/tiny-bert is not available offline .*; recalling with lexical seeds only\n$/);
  });

  it('migrates to another model with --model and records it, memory files untouched', () => {
    const before = execFileSync('sh', ['-c', `cat ${vault}/episodic/*.md`], { encoding: 'utf8' });
    writeFileSync(path.join(vault, '.engram', 'config.json'), JSON.stringify({ embedder: { kind: 'transformers', model: 'engram/other', localModelPath: MODELS } }));
    const run = JSON.parse(cli(['--json', 'reembed', '--model', 'engram/tiny-bert']).stdout);
    expect([run.model, run.embedded]).toEqual(['transformers:engram/tiny-bert', 3]);
    expect(JSON.parse(readFileSync(path.join(vault, '.engram', 'config.json'), 'utf8')).embedder.model).toBe('engram/tiny-bert');
    expect(execFileSync('sh', ['-c', `cat ${vault}/episodic/*.md`], { encoding: 'utf8' })).toBe(before);
  });
});
