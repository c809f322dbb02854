import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { bpeCounter, sortedRankOf, type SortedRanks } from '../../src/core/bpe-count';
import { seededRandom } from '../../src/core/random';
import { tempDir } from '../helpers/cli';

/**
 * The CLI counts the context block's tokens with the sorted rank table the build writes
 * (dist/cl100k.js), not gpt-tokenizer: the counts must be gpt-tokenizer's, to the token.
 */
const root = path.join(__dirname, '..', '..');
const table = require(path.join(root, 'dist', 'cl100k.js')) as SortedRanks;

describe('cl100k counts from the sorted rank table', () => {
  it('holds every rank of cl100k_base once, in byte order', () => {
    const keys = Array.from(table.ranks, (_, i) => table.keys.slice(table.offsets[i], table.offsets[i + 1]));
    expect([table.ranks.length, new Set(table.ranks).size, Math.max(...table.ranks)]).toEqual([100256, 100256, 100255]);
    expect(keys.every((key, i) => i === 0 || keys[i - 1]! < key)).toBe(true);
  });

  it('counts as gpt-tokenizer does: every example note, awkward text, 2,000 random texts', () => {
    const count = bpeCounter(sortedRankOf(table));
    const texts = ['', ' ', 'Ça déjà vu — 東京 🎉 I\'LL DON\'T\r\n\r\n  x   ', '12345678 3.14159 a\tb\n\n\nc', '\u0000\u00ff\ud83d'];
    const vault = path.join(root, 'examples', 'vault');
    for (const folder of ['episodic', 'semantic', 'decisions', 'daily']) for (const f of fs.readdirSync(path.join(vault, folder))) texts.push(fs.readFileSync(path.join(vault, folder, f), 'utf8'));
    const random = seededRandom('issue-23 tokens');
    const atoms = ['the', ' ', '  ', '\n', '\r\n', 'ing', 'Ä', 'é', '東', '🎉', "'s", "'LL", '0', '123', '4567', '.', '...', '!?', '—', '-', '_', 'http://x.io/a?b=c', 'mem-0a1b2c3d4e5f', '[[', ']]', '\t', 'Z', 'qu', 'xyzzy'];
    for (let i = 0; i < 2000; i++) texts.push(Array.from({ length: 1 + Math.floor(random() * 40) }, () => atoms[Math.floor(random() * atoms.length)]).join(''));
    const differing = texts.filter((t) => count(t) !== countTokens(t));
    expect(differing).toEqual([]);
  });

  it('engram context --json reports the block as gpt-tokenizer counts it', () => {
    const { dir, cleanup } = tempDir();
    try {
      fs.cpSync(path.join(root, 'examples', 'vault'), path.join(dir, 'vault'), { recursive: true });
      const out = execFileSync(process.execPath, [path.join(root, 'dist', 'engram.js'), '--vault', path.join(dir, 'vault'), '--now', '2026-11-29T12:00:00Z', '--json', 'context', '--peek', 'flaky auth test timeout'], {
        encoding: 'utf8',
        env: { ...process.env, ENGRAM_COMPILE_CACHE: 'off' },
      });
      const result = JSON.parse(out) as { block: string; tokens: number; included: string[] };
      expect([result.included.length, result.tokens]).toEqual([17, 936]);
      expect(result.tokens).toBe(countTokens(result.block));
    } finally {
      cleanup();
    }
  });
});
