import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { COMMANDS } from '../../headless/commands';
import { GLOBAL_OPTIONS, closest } from '../../headless/cli';
import { engram, initVault } from '../helpers/cli';

const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const T0 = '2026-11-01T10:00:00Z';

describe('CLI conventions', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeAll(async () => ({ dir, vault, cleanup } = await initVault()));
  afterAll(() => cleanup());

  describe('help generated from the command table', () => {
    it('engram --help lists every command with its arguments and every option', async () => {
      const run = await engram(vault, ['--help']);
      expect(run.code).toBe(0);
      const lines = run.stdout.split('\n');
      const missing: string[] = [];
      for (const [name, command] of Object.entries(COMMANDS)) {
        const at = lines.findIndex((l) => l.startsWith(`  ${name}${command.args ? ` ${command.args}` : ''}`));
        if (at < 0) missing.push(name);
        // the command's options follow its line, indented
        const block = lines.slice(at + 1, at + 1 + 2 * Object.keys(command.options).length).join('\n');
        for (const option of Object.keys(command.options)) if (!block.includes(`--${option}`)) missing.push(`${name} --${option}`);
      }
      for (const option of Object.keys(GLOBAL_OPTIONS)) if (!run.stdout.includes(`--${option}`)) missing.push(`--${option}`);
      expect(missing).toEqual([]);
      expect(run.stdout).toContain('engram remember -- "-5 °C broke the sensor"');
      expect(run.stdout).toContain('  2  usage: unknown command or option');
    });

    it('help COMMAND and COMMAND --help print the same page, with every option and its help', async () => {
      for (const [name, command] of Object.entries(COMMANDS)) {
        const viaHelp = await engram(vault, ['help', name]);
        const viaFlag = await engram(vault, [name, '--help']);
        expect([name, viaHelp.code, viaFlag.code, viaFlag.stdout]).toEqual([name, 0, 0, viaHelp.stdout]);
        expect(viaHelp.stdout.startsWith(`usage: engram ${name}${command.args ? ` ${command.args}` : ''}`)).toBe(true);
        for (const [option, spec] of Object.entries(command.options)) {
          expect([name, option, viaHelp.stdout.includes(`--${option}`) && viaHelp.stdout.includes(spec.help)]).toEqual([name, option, true]);
        }
      }
      expect((await engram(vault, ['help', 'remember'])).stdout).toContain('A text that starts with - goes after --');
    });

    it('suggests the nearest command or option', async () => {
      const cases: Array<[string[], string]> = [
        [['recal', 'x'], 'engram: unknown command "recal"; did you mean "recall"?'],
        [['rememebr', 'x'], 'engram: unknown command "rememebr"; did you mean "remember"?'],
        [['consolidat'], 'engram: unknown command "consolidat"; did you mean "consolidate"?'],
        [['help', 'stast'], 'engram: unknown command "stast"; did you mean "stats"?'],
        [['frobnicate'], 'engram: unknown command "frobnicate"'],
        [['recall', 'x', '--limt', '3'], 'engram: recall: unknown option --limt (did you mean --limit?)'],
        [['consolidate', '--dryrun'], 'engram: consolidate: unknown option --dryrun (did you mean --dry-run?)'],
        [['stats', '--colour'], 'engram: stats: unknown option --colour'],
        [['help', 'nosuch'], 'engram: unknown command "nosuch"'], // 2 edits from "touch": not a typo of it
        [['lsit'], 'engram: unknown command "lsit"; did you mean "list"?'],
      ];
      for (const [args, message] of cases) {
        const run = await engram(vault, args);
        expect([args, run.code, run.stderr]).toEqual([args, 2, `${message}\nrun 'engram --help' for usage\n`]);
      }
      expect(closest('tuch', ['touch', 'cite', 'stats'])).toBe('touch');
      expect(closest('zzzzzz', ['touch', 'cite', 'stats'])).toBe(null);
      expect(closest('nosuch', ['touch', 'cite', 'stats'])).toBe(null);
      expect(closest('rember', ['remember', 'recall'])).toBe('remember');
    });
  });

  describe('texts that start with -', () => {
    it('are taken as text after --, and the error without -- says so', async () => {
      const run = await engram(vault, ['--json', '--now', T0, 'remember', '--tags', 'sensors', '--', '-5 °C broke the humidity sensor', '--tags', 'x']);
      expect(run.code).toBe(0);
      const { path: rel } = run.json();
      const text = readFileSync(path.join(vault, rel), 'utf8');
      expect(text).toContain('tags: ["sensors"]\n');
      expect(text.endsWith('---\n-5 °C broke the humidity sensor --tags x\n')).toBe(true);
      const without = await engram(vault, ['remember', '-5 °C broke it']);
      expect([without.code, without.stderr.split('\n')[0]]).toEqual([2, 'engram: remember: unknown option "-5 °C broke it"; a text that starts with - goes after --: engram remember -- "-5 °C broke it"']);
      const recalled = await engram(vault, ['--json', '--now', T0, 'recall', '--', '-5 °C humidity']);
      expect(recalled.json().map((r: { text: string }) => r.text)).toEqual(['-5 °C broke the humidity sensor --tags x']);
    });
  });

  describe('exit status', () => {
    it('1 for missing or unreadable files and paths outside the vault, 2 for usage', async () => {
      mkdirSync(path.join(dir, 'a-folder'), { recursive: true });
      writeFileSync(path.join(dir, 'bad.jsonl'), '{"text": "fine"}\n{"text": 5}\n');
      const cases: Array<[string[], number, string]> = [
        [['import', path.join(dir, 'missing.jsonl')], 1, `engram: import: cannot read ${path.join(dir, 'missing.jsonl')}: no such file`],
        [['import', path.join(dir, 'a-folder')], 1, `engram: import: cannot read ${path.join(dir, 'a-folder')}: is a folder`],
        [['import', path.join(dir, 'bad.jsonl')], 1, `engram: ${path.join(dir, 'bad.jsonl')}:2: field "text" must be a string`],
        [['recall', '--batch', path.join(dir, 'missing.jsonl')], 1, `engram: recall --batch: cannot read ${path.join(dir, 'missing.jsonl')}: no such file`],
        [['show', '/etc/hostname'], 1, `engram: /etc/hostname: not inside the vault ${vault}`],
        [['touch', '../outside.md'], 1, 'engram: invalid path "../outside.md": leaves the vault'],
        [['show', 'mem-000000000000'], 1, 'engram: no memory with id mem-000000000000'],
        [['--vault', path.join(dir, 'nowhere'), 'stats'], 1, `engram: ${path.join(dir, 'nowhere')}: no such folder (run engram init)`],
        [[], 2, 'engram: no command given'],
        [['stats', 'extra'], 2, 'engram: stats takes no arguments, got "extra"'],
        [['show', 'a', 'b'], 2, 'engram: show: too many arguments ("b"): engram show ID|PATH'],
        [['touch'], 2, 'engram: touch: missing argument: engram touch ID|PATH ...'],
        [['recall', 'x', '--limit'], 2, 'engram: recall: --limit needs a value (N)'],
        [['recall', 'x', '--touch=yes'], 2, 'engram: recall: --touch takes no value'],
        [['recall', 'x', '--limit', 'ten'], 2, 'engram: --limit: expected a whole number from 1 to 100, got "ten"'],
        [['recall', 'x', '--limit', '0'], 2, 'engram: --limit: expected a whole number from 1 to 100, got 0'],
        [['context', '--budget', '10'], 2, 'engram: --budget: expected a whole number from 50 to 100000, got 10'],
        [['list', '--limit', '0'], 2, 'engram: --limit: expected a whole number from 1 to 100000, got 0'],
        [['creative', '0'], 2, 'engram: creative N: expected a whole number from 1 to 50, got 0'],
        [['--now', 'soon', 'stats'], 2, 'engram: --now: expected an ISO-8601 date-time such as 2026-04-30T09:10:00Z, got "soon"'],
      ];
      for (const [args, code, message] of cases) {
        const run = await engram(vault, args, undefined, dir);
        expect([args, run.code, run.stderr.split('\n')[0], run.stdout]).toEqual([args, code, message, '']);
      }
    });

    it('a memory over the size limit is refused when it is written, with the limit in the message', async () => {
      const big = 'x'.repeat(300_000);
      const run = await engram(vault, ['--now', T0, 'remember', '-'], big);
      expect([run.code, run.stderr.split('\n')[0]]).toEqual([2, "engram: text: 300000 bytes, over the 253952-byte limit for a memory's text (a memory file holds at most 262144 bytes)"]);
      const file = path.join(dir, 'big.jsonl');
      writeFileSync(file, `${JSON.stringify({ text: 'fine' })}\n${JSON.stringify({ text: big })}\n`);
      const imported = await engram(vault, ['import', file]);
      expect([imported.code, imported.stderr.split('\n')[0]]).toEqual([1, `engram: ${file}:2: text: 300000 bytes, over the 253952-byte limit for a memory's text (a memory file holds at most 262144 bytes)`]);
    });

    it('--version prints the package version', async () => {
      const run = await engram(vault, ['--version']);
      expect(run.stdout).toBe(`${JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version}\n`);
    });
  });

  describe('a closed pipe', () => {
    it('ends quietly: exit 0, nothing on stderr (engram --help | head -0)', async () => {
      const child = spawn(process.execPath, [ENGRAM, '--vault', vault, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader is gone before the runner writes a byte
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect([code, stderr]).toEqual([0, '']);
    });
  });
});
