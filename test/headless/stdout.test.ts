import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { writeAllSync } from '../../headless/stdout';
import { engram } from '../helpers/cli';

const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

describe('results written to fd 1 with write(2)', () => {
  it('writes the whole text as UTF-8', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engram-stdout-'));
    try {
      const file = path.join(dir, 'out');
      const fd = openSync(file, 'w');
      const text = `${'é'.repeat(100_000)}\n${'x'.repeat(70_000)} 🧠\n`;
      writeAllSync(fd, text);
      closeSync(fd);
      expect(readFileSync(file, 'utf8')).toBe(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a result larger than a pipe holds reaches its reader whole', async () => {
    // 1,000 memories listed as JSON: several times what a 64 KB pipe holds, read by wc (the vault
    // is made in process: only the listing needs a process of its own, writing to a pipe)
    const dir = mkdtempSync(path.join(tmpdir(), 'engram-stdout-'));
    try {
      const vault = path.join(dir, 'vault');
      expect((await engram(vault, ['init'])).code).toBe(0);
      const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ text: `Memory number ${i} about the pipe writer and its reader, ${'which writes until the reader has every byte; '.repeat(4)}`, created_at: '2026-01-01T00:00:00Z' }));
      writeFileSync(path.join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
      expect((await engram(vault, ['--now', '2026-01-02T00:00:00Z', 'import', path.join(dir, 'in.jsonl')])).code).toBe(0);
      const args = `"${process.execPath}" "${ENGRAM}" --vault "${vault}" --now 2026-01-02T00:00:00Z --json list --limit 100000`;
      const direct = spawnSync('sh', ['-c', `${args} > "${dir}/out.json"`]);
      const piped = spawnSync('sh', ['-c', `${args} | wc -c`], { encoding: 'utf8' });
      const bytes = readFileSync(path.join(dir, 'out.json'));
      expect([direct.status, piped.status, Number(piped.stdout.trim())]).toEqual([0, 0, bytes.length]);
      expect(bytes.length).toBeGreaterThan(200_000);
      expect(JSON.parse(bytes.toString('utf8'))).toHaveLength(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an error other than a closed reader is thrown (a closed reader, EPIPE: see cli-conventions)', () => {
    let closed = 0;
    const fd = openSync('/dev/full', 'w'); // every write fails with ENOSPC
    try {
      expect(() =>
        writeAllSync(fd, 'x', () => {
          closed++;
          throw new Error('closed');
        }),
      ).toThrow(/ENOSPC/);
      expect(closed).toBe(0);
    } finally {
      closeSync(fd);
    }
  });
});
