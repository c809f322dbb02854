import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { engram, initVault } from '../helpers/cli';

/**
 * Input that Engram could not read back is refused at the door, with the field named
 * (writes-memories-it-cannot-read.sh, lenient-dates.sh), and agents remembering the same
 * text at the same moment reinforce one memory (remember-same-text-race.sh).
 */
const run = promisify(execFile);
const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');

describe('what is refused at the door', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => ({ dir, vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  const memoryFiles = () => ['episodic', 'semantic', 'decisions'].flatMap((f) => readdirSync(path.join(vault, f)));

  it('refuses texts over the size limit and NUL bytes, writing nothing (writes-memories-it-cannot-read.sh)', async () => {
    // a bad input line is a failure (exit 1), a bad option a usage error (exit 2)
    const cases: Array<[string, string]> = [
      [JSON.stringify({ text: 'big '.repeat(80_000) }), "file.jsonl:1: text: 319999 bytes, over the 253952-byte limit for a memory's text (a memory file holds at most 262144 bytes)"],
      [JSON.stringify({ text: 'a NUL \u0000 inside' }), 'file.jsonl:1: text: contains a NUL byte'],
      [JSON.stringify({ text: 'nul in a path', related_paths: ['src/a\u0000b.ts'] }), 'file.jsonl:1: related_paths: contains a NUL byte'],
      [JSON.stringify({ text: 'nul in a tag', tags: ['ok', 'b\u0000d'] }), 'file.jsonl:1: tags: contains a NUL byte'],
    ];
    for (const [line, message] of cases) {
      const file = path.join(dir, 'file.jsonl');
      writeFileSync(file, `${line}\n`);
      const result = await engram(vault, ['import', 'file.jsonl'], undefined, dir);
      expect([result.code, result.stderr.split('\n')[0]]).toEqual([1, `engram: ${message}`]);
    }
    const remembered = await engram(vault, ['remember', '--path', 'src/a\u0000b.ts', 'text']);
    expect([remembered.code, remembered.stderr.split('\n')[0]]).toEqual([2, 'engram: related_paths: contains a NUL byte']);
    expect(memoryFiles()).toEqual([]);
    expect((await engram(vault, ['--json', 'stats'])).json().invalid).toEqual([]);
  });

  it('refuses impossible dates in files, in --now and in imports (lenient-dates.sh)', async () => {
    writeFileSync(path.join(vault, 'episodic', 'mem-feb300000001.md'), '---\nid: mem-feb300000001\ncategory: episodic\ncreated_at: "2026-02-30T10:00:00Z"\n---\nx\n');
    const stats = (await engram(vault, ['--json', '--now', '2026-03-05T00:00:00Z', 'stats'])).json();
    expect([stats.memories, stats.invalid]).toEqual([
      0,
      [{ path: 'episodic/mem-feb300000001.md', reason: 'field "created_at": expected an ISO-8601 date-time such as "2026-04-28T10:23:00Z", got "2026-02-30T10:00:00Z"' }],
    ]);
    const now = await engram(vault, ['--now', '2026-02-30T00:00:00Z', 'stats']);
    expect([now.code, now.stderr.split('\n')[0]]).toEqual([2, 'engram: --now: expected an ISO-8601 date-time such as 2026-04-30T09:10:00Z, got "2026-02-30T00:00:00Z"']);
    const file = path.join(dir, 'dates.jsonl');
    writeFileSync(file, '{"text": "x", "created_at": "2025-02-29T10:00:00Z"}\n');
    const imported = await engram(vault, ['import', 'dates.jsonl'], undefined, dir);
    expect([imported.code, imported.stderr.split('\n')[0]]).toEqual([1, 'engram: dates.jsonl:1: created_at: expected an ISO-8601 date-time, got "2025-02-29T10:00:00Z"']);
  });

  it('four agents remembering the same text at the same moment make one memory reinforced three times (remember-same-text-race.sh)', async () => {
    const agents = await Promise.all(
      [1, 2, 3, 4].map(() => run(process.execPath, [ENGRAM, '--vault', vault, '--json', '--now', '2026-11-30T10:00:00Z', 'remember', 'The staging cluster needs a VPN to reach the registry']).then((r) => JSON.parse(r.stdout))),
    );
    expect(agents.map((a) => a.action).sort()).toEqual(['created', 'reinforced', 'reinforced', 'reinforced']);
    expect(new Set(agents.map((a) => a.id)).size).toBe(1);
    const files = memoryFiles();
    expect(files).toHaveLength(1);
    const text = readFileSync(path.join(vault, 'episodic', files[0]!), 'utf8');
    expect(/^access_count: (\d+)$/m.exec(text)?.[1]).toBe('3');
  }, 30_000);
});
