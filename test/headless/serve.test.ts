import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../headless/cli';
import { WarmVault } from '../../headless/mcp/warm-vault';
import { CliServer, RETRY_MS, serveAlongside } from '../../headless/serve';
import { viaServer, type ClientProcess } from '../../headless/serve-client';
import { buildStamp, fnv1a, servedCommand, socketPath, SOCKET_PATH_MAX, vaultOption } from '../../headless/serve-protocol';
import { MACHINE_FOLDER } from '../../headless/vault-root';
import { LAYOUT } from '../../src/core/vault';
import { engram, fileOf, initVault, tempDir } from '../helpers/cli';

/**
 * `engram serve` and the launcher's client (headless/serve.ts, serve-client.ts), in process: a
 * command the server runs prints what it prints in its own process, byte for byte, and sees the
 * vault as it is on disk at the moment it is asked; anything the server cannot answer as the
 * command's own process would comes back before anything is done (status null: the launcher
 * then runs it itself). The launcher's wiring is tested on the built dist/engram.js in
 * serve-launcher.test.ts.
 */

const NOW = '2026-11-10T10:00:00Z';

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  stdin: string | null;
}

/** The launcher's client, asked for argv, with the given standard input (read only if the client asks). */
async function client(vault: string, argv: string[], over: Partial<ClientProcess> = {}, stdin = ''): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const got = await viaServer({
    argv: ['--vault', vault, ...argv],
    cwd: path.dirname(vault),
    env: {},
    platform: process.platform,
    bundle: '/nonexistent/engram-cli.js',
    readStdin: () => stdin,
    isatty: () => false,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    chdir: (dir) => process.chdir(dir),
    processCwd: () => process.cwd(),
    ...over,
  });
  return { ...got, stdout, stderr };
}

/** The command in this process, as the launcher runs it without a server. */
async function here(vault: string, argv: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--vault', vault, ...argv], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readStdin: () => stdin, stdinIsTTY: false, stdoutIsTTY: false, cwd: path.dirname(vault), env: {} });
  return { code, stdout, stderr };
}

describe('engram serve', () => {
  let dir: string;
  let vault: string;
  let cleanup: () => void;
  let server: CliServer;
  let logs: string[];
  // buildStamp of a bundle that does not exist is '': the client's stamp, matched by a server started with it
  const start = async (over: Partial<ConstructorParameters<typeof CliServer>[0]> = {}) => {
    logs = [];
    server = new CliServer({ runtime: { vault, now: NOW, cwd: dir, env: {} }, build: '', idleMs: null, log: (m) => logs.push(m), ...over });
    await server.start();
    return server;
  };

  beforeEach(async () => {
    ({ dir, vault, cleanup } = await initVault('engram-serve-'));
    const texts = ['Retries use exponential backoff from 200 ms.', 'Deploys happen on Tuesdays after the freeze.', 'The ledger stores money as integer cents.', 'Webhook signatures are checked with HMAC over the raw body.'];
    for (const [i, text] of texts.entries()) await engram(vault, ['--now', `2026-11-0${i + 1}T10:00:00Z`, 'remember', text]);
  });
  afterEach(async () => {
    await server?.close();
    cleanup();
  });

  it('recall, context and touch print what they print in their own process, and the server counts them', async () => {
    await start();
    expect(statSync(path.join(vault, '.engram', 'serve.sock')).mode & 0o777).toBe(0o600);
    for (const argv of [
      ['--now', NOW, '--json', 'recall', 'retry backoff'],
      ['--now', NOW, 'recall', 'deploys', '--limit', '1'],
      ['--now', NOW, '--json', 'recall', 'nothing matches this'],
      ['--now', NOW, 'context', 'webhook body'],
      ['--now', NOW, '--json', 'context'],
      ['--now', NOW, 'recall', '--limit', '0', 'retry'],
      // another clock than the server's: strengths, tiers and decay are the request's
      ['--now', '2027-06-01T00:00:00Z', '--json', 'recall', 'retry backoff deploys'],
      ['--now', '2026-11-02T00:00:00Z', '--json', 'context', 'ledger'],
    ]) {
      const served = await client(vault, argv);
      const own = await here(vault, argv);
      expect([argv, served.status, served.stdout, served.stderr]).toEqual([argv, own.code, own.stdout, own.stderr]);
    }
    expect(server.counts).toEqual({ served: 8, fallback: 0 });
    // a usage error keeps its status and message
    expect((await client(vault, ['recall', '--limit', '0', 'retry'])).status).toBe(2);
  });

  it('a touch through the server writes the file its own process would write', async () => {
    const copy = path.join(dir, 'copy');
    mkdirSync(copy);
    await start();
    const id = (await here(vault, ['--json', '--now', NOW, 'recall', 'ledger cents'])).stdout.match(/"id": ?"([^"]+)"/)![1]!;
    const file = fileOf(vault, id);
    const before = readFileSync(path.join(vault, file), 'utf8');
    const served = await client(vault, ['--now', '2026-11-12T08:00:00Z', '--json', 'touch', id]);
    expect(served.status).toBe(0);
    const afterServed = readFileSync(path.join(vault, file), 'utf8');
    writeFileSync(path.join(vault, file), before);
    const own = await here(vault, ['--now', '2026-11-12T08:00:00Z', '--json', 'touch', id]);
    expect([served.stdout, afterServed]).toEqual([own.stdout, readFileSync(path.join(vault, file), 'utf8')]);
    expect(afterServed).not.toBe(before);
  });

  it('sees a save in place, a new file and a deleted one at once, as a fresh process does', async () => {
    await start();
    const ledger = path.join(vault, fileOf(vault, (await here(vault, ['--json', '--now', NOW, 'recall', 'ledger'])).stdout.match(/"id": ?"([^"]+)"/)![1]!));
    // a person's save in place (Obsidian, VS Code): the folder's mtime does not change
    writeFileSync(ledger, `${readFileSync(ledger, 'utf8')}Never floats: the zanzibar incident.\n`);
    const argv = ['--now', NOW, '--json', 'recall', 'zanzibar'];
    const served = await client(vault, argv);
    expect(JSON.parse(served.stdout)).toHaveLength(1);
    expect(served.stdout).toBe((await here(vault, argv)).stdout);
    // a file moved out of the memory folders is gone
    renameSync(ledger, path.join(dir, 'gone.md'));
    expect(await client(vault, argv)).toEqual({ status: 0, stdout: '[]\n', stderr: '', stdin: null });
    // and back in another folder
    renameSync(path.join(dir, 'gone.md'), path.join(vault, 'semantic', 'ledger.md'));
    const back = await client(vault, argv);
    expect(back.stdout).toBe((await here(vault, argv)).stdout);
    expect(JSON.parse(back.stdout)[0].path).toBe('semantic/ledger.md');
  });

  it('says how many memory files it could not read, as the command does in its own process', async () => {
    writeFileSync(path.join(vault, 'episodic', 'broken.md'), '---\nid: [unclosed\n---\nbody\n');
    symlinkSync('loop.md', path.join(vault, 'episodic', 'loop.md')); // a symbolic link loop: not a file
    await start();
    const argv = ['--now', NOW, 'recall', 'retry'];
    const served = await client(vault, argv);
    expect(served.stderr).toBe('engram: 2 memory files could not be read (engram stats lists them)\n');
    expect([served.stdout, served.stderr]).toEqual([(await here(vault, argv)).stdout, (await here(vault, argv)).stderr]);
    // made and removed while it runs: a second loop, a FIFO-like folder named .md, the first loop gone
    symlinkSync('again.md', path.join(vault, 'semantic', 'again.md'));
    mkdirSync(path.join(vault, 'decisions', 'folder.md'));
    rmSync(path.join(vault, 'episodic', 'loop.md'));
    // not counted: a link loop not named .md, a memory saved in place
    symlinkSync('notes.txt', path.join(vault, 'semantic', 'notes.txt'));
    const saved = path.join(vault, 'episodic', readdirSync(path.join(vault, 'episodic')).find((f) => f.startsWith('Retries'))!);
    writeFileSync(saved, `${readFileSync(saved, 'utf8')}Saved again.\n`);
    const later = await client(vault, argv);
    expect(later.stderr).toBe('engram: 3 memory files could not be read (engram stats lists them)\n');
    expect(later.stderr).toBe((await here(vault, argv)).stderr);
    rmSync(path.join(vault, 'semantic', 'again.md'));
    expect((await client(vault, argv)).stderr).toBe('engram: 2 memory files could not be read (engram stats lists them)\n');
  });

  it('context --hook: the client sends the prompt it read on standard input', async () => {
    await start();
    const payload = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'how do we check webhook signatures?' });
    const served = await client(vault, ['--now', NOW, 'context', '--hook'], {}, payload);
    const own = await here(vault, ['--now', NOW, 'context', '--hook'], payload);
    expect([served.status, served.stdout, served.stderr, served.stdin]).toEqual([0, own.stdout, own.stderr, payload]);
    expect(served.stdout).toContain('HMAC');
  });

  it('sends back, before doing anything, what it cannot answer as the command would: stdin not sent, another vault, another build', async () => {
    await start();
    // a request that wants standard input the client did not read
    const line = (argv: string[], extra: object = {}) => JSON.stringify({ protocol: 1, build: '', root: vault, argv: ['--vault', vault, ...argv], cwd: dir, env: {}, stdin: null, stdinIsTTY: false, stdoutIsTTY: false, ...extra });
    expect(await server.handle(line(['context', '--hook']))).toEqual([{ fallback: 'reads standard input' }]);
    expect(await server.handle(line(['recall', 'retry'], { root: dir }))).toEqual([{ fallback: 'another vault' }]);
    expect(await server.handle(line(['recall', 'retry'], { protocol: 2 }))).toEqual([{ fallback: 'another protocol' }]);
    expect(await server.handle('{"protocol": 1, "build": "", "root": 3')).toEqual([{ fallback: 'not a request' }]);
    expect(await server.handle(line([], { argv: ['recall', 7] }))).toEqual([{ fallback: 'not a request' }]);
    expect(server.counts).toEqual({ served: 0, fallback: 5 });
    // a request naming this vault but another in its arguments: run there, with that vault's own engine
    const other = path.join(dir, 'other');
    await engram(other, ['init']);
    await engram(other, ['--now', NOW, 'remember', 'The other vault keeps its backups in Lisbon.']);
    const crossed = await server.handle(line(['--vault', other, '--now', NOW, '--json', 'recall', 'backups lisbon'], { argv: ['--vault', other, '--now', NOW, '--json', 'recall', 'backups lisbon'] }));
    expect(crossed).toEqual([{ out: (await here(other, ['--now', NOW, '--json', 'recall', 'backups lisbon'])).stdout }, { exit: 0 }]);
    expect(JSON.parse((crossed[0] as { out: string }).out)).toHaveLength(1);
    // another vault, with no server of its own: the client finds none
    expect((await client(other, ['recall', 'retry'])).status).toBeNull();
    expect(server.counts).toEqual({ served: 1, fallback: 5 });
    // a client of another build: sent back, and the server stops (its code is out of date)
    expect(await server.handle(line(['recall', 'retry'], { build: '1:2' }))).toEqual([{ fallback: 'another build' }]);
    await server.stopped();
    await start();
    writeFileSync(path.join(dir, 'engram-cli.js'), 'x');
    const rebuilt = await client(vault, ['--now', NOW, 'recall', 'retry'], { bundle: path.join(dir, 'engram-cli.js') });
    expect(rebuilt).toEqual({ status: null, stdout: '', stderr: '', stdin: null });
    await server.stopped();
    expect(logs).toEqual(['engram was rebuilt or upgraded since this server started: stopping (start it again)']);
    expect(existsSync(path.join(vault, '.engram', 'serve.sock'))).toBe(false);
    expect((await client(vault, ['recall', 'retry'])).status).toBeNull();
  });

  it("the client reads the server's replies as they come: a request in pieces, output then a broken connection, a garbled or missing reply", async () => {
    const net = await import('node:net');
    const socket = path.join(vault, '.engram', 'serve.sock');
    // a server of its own that answers each connection with `replies`, split at `cut`
    const fake = async (replies: string, cut = replies.length) => {
      const raw = net.createServer((c) => {
        c.once('data', () => {
          c.write(replies.slice(0, cut));
          setImmediate(() => c.end(replies.slice(cut)));
        });
      });
      await new Promise<void>((resolve) => raw.listen(socket, resolve));
      return raw;
    };
    const cases: Array<[string, number | undefined, Ran]> = [
      ['{"err":"first "}\n{"out":"a"}\n{"out":"b\\n"}\n{"err":"then"}\n{"exit":3}\n', 20, { status: 3, stdout: 'ab\n', stderr: 'first then', stdin: null }],
      // a fallback once output has come is not one: what came stands
      ['{"out":"a"}\n{"fallback":"late"}\n{"exit":0}\n', undefined, { status: 0, stdout: 'a', stderr: '', stdin: null }],
      // the server went away mid-command: what came, and a failure
      ['{"out":"partial"}\n', undefined, { status: 1, stdout: 'partial', stderr: 'engram: the server (engram serve) stopped before the command finished\n', stdin: null }],
      // nothing, or nothing readable, before it closed: nothing was done, the client runs it
      ['', undefined, { status: null, stdout: '', stderr: '', stdin: null }],
      ['not json\n{"exit":0}\n', undefined, { status: null, stdout: '', stderr: '', stdin: null }],
    ];
    for (const [replies, cut, expected] of cases) {
      const raw = await fake(replies, cut);
      try {
        expect([replies, await client(vault, ['--now', NOW, 'recall', 'retry'])]).toEqual([replies, expected]);
      } finally {
        await new Promise((resolve) => raw.close(resolve));
      }
    }
    // and the real server reads a request that comes in pieces
    await start();
    const request = JSON.stringify({ protocol: 1, build: '', root: vault, argv: ['--vault', vault, '--now', NOW, '--json', 'recall', 'ledger'], cwd: dir, env: {}, stdin: null, stdinIsTTY: false, stdoutIsTTY: false });
    const replies = await new Promise<string>((resolve) => {
      const c = net.connect(socket);
      let got = '';
      c.setEncoding('utf8');
      c.on('data', (d: string) => (got += d));
      c.on('close', () => resolve(got));
      c.on('connect', () => {
        c.write(request.slice(0, 40));
        setImmediate(() => c.write(`${request.slice(40)}\n{"ignored": true}\n`));
      });
    });
    expect(replies).toBe(`${JSON.stringify({ out: (await here(vault, ['--now', NOW, '--json', 'recall', 'ledger'])).stdout })}\n{"exit":0}\n`);
  });

  it('no server, a stale socket, ENGRAM_NO_SERVE, a command it does not run: the client returns null at once', async () => {
    expect((await client(vault, ['recall', 'retry'])).status).toBeNull();
    // a socket file left by a killed server: connect is refused
    writeFileSync(path.join(vault, '.engram', 'serve.sock'), '');
    expect((await client(vault, ['recall', 'retry'])).status).toBeNull();
    // the next server takes its place
    await start();
    expect((await client(vault, ['--now', NOW, 'recall', 'retry'])).status).toBe(0);
    expect((await client(vault, ['recall', 'retry'], { env: { ENGRAM_NO_SERVE: '1' } })).status).toBeNull();
    expect((await client(vault, ['stats'])).status).toBeNull();
    expect((await client(vault, ['recall', '--help'])).status).toBeNull();
    expect(server.counts).toEqual({ served: 1, fallback: 0 });
    // a second server for the same vault is refused
    const second = new CliServer({ runtime: { vault, now: NOW, cwd: dir, env: {} }, build: '', idleMs: null, log: () => undefined });
    await expect(second.start()).rejects.toThrow(`${vault} is served already (${path.join(vault, '.engram', 'serve.sock')})`);
  });

  it('alongside a warm vault of its own (engram mcp): answers the command line, one process a vault, the warm vault left open', async () => {
    symlinkSync('loop.md', path.join(vault, 'episodic', 'loop.md')); // counted as unreadable by the preload's listing too
    mkdirSync(path.join(vault, 'decisions', 'folder.md')); // and a folder named .md; not a loop named .txt
    symlinkSync('notes.txt', path.join(vault, 'semantic', 'notes.txt'));
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, () => undefined, true);
    const log: string[] = [];
    try {
      await warm.engine();
      await warm.preloadNow(); // the documents loaded in slices, as engram mcp loads them
      const timers: Array<{ ms: number; run: () => void; cancelled: boolean }> = [];
      const timer = (run: () => void, ms: number) => {
        const t = { ms, run, cancelled: false };
        timers.push(t);
        return { cancel: () => (t.cancelled = true) };
      };
      const runtime = { vault, now: NOW, cwd: dir, env: {} };
      const first = await serveAlongside({ runtime, build: '', log: (m) => log.push(m), warm, timer });
      expect(first.current).not.toBeNull();
      server = first.current!;
      const argv = ['--now', NOW, '--json', 'recall', 'webhook signatures'];
      const served = await client(vault, argv);
      expect([served.status, served.stdout]).toEqual([0, (await here(vault, argv)).stdout]);
      const plain = ['--now', NOW, 'recall', 'webhook signatures'];
      const own = await here(vault, plain);
      expect(own.stderr).toBe('engram: 2 memory files could not be read (engram stats lists them)\n');
      expect(await client(vault, plain)).toEqual({ status: 0, stdout: own.stdout, stderr: own.stderr, stdin: null });
      expect(server.counts).toEqual({ served: 2, fallback: 0 });
      // a second process finds it served, goes on quietly and tries again in RETRY_MS; ENGRAM_NO_SERVE: none is tried
      const second = await serveAlongside({ runtime, build: '', log: (m) => log.push(m), warm, timer });
      expect(second.current).toBeNull();
      expect(timers.map((t) => [t.ms, t.cancelled])).toEqual([[RETRY_MS, false]]);
      const none = await serveAlongside({ runtime: { ...runtime, env: { ENGRAM_NO_SERVE: '1' } }, build: '', log: (m) => log.push(m), warm, timer });
      expect([none.current, timers.length]).toEqual([null, 1]);
      const socket = path.join(vault, '.engram', 'serve.sock');
      expect(log).toEqual([`recall, context and touch at the command line are answered here too (${socket})`]);
      // still served at the retry: it waits again
      timers[0]!.run();
      await new Promise((resolve) => setImmediate(resolve));
      while (timers.length < 2) await new Promise((resolve) => setImmediate(resolve));
      expect([second.current, timers[1]!.ms]).toEqual([null, RETRY_MS]);
      // the first stops: the second takes the socket over at its next try
      await first.close();
      expect(existsSync(socket)).toBe(false);
      timers[1]!.run();
      while (!second.current) await new Promise((resolve) => setImmediate(resolve));
      server = second.current;
      expect(log).toEqual([`recall, context and touch at the command line are answered here too (${socket})`, `recall, context and touch at the command line are answered here too (${socket})`]);
      expect((await client(vault, argv)).stdout).toBe(served.stdout);
      expect(server.counts).toEqual({ served: 1, fallback: 0 });
      // a third finds it served; closed before its retry comes, the retry does nothing and asks for no other
      const third = await serveAlongside({ runtime, build: '', log: (m) => log.push(m), warm, timer });
      expect(timers.length).toBe(3);
      await third.close();
      expect(timers[2]!.cancelled).toBe(true);
      timers[2]!.run();
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      expect([third.current, timers.length]).toEqual([null, 3]);
      await second.close();
      expect([existsSync(socket), timers.length]).toEqual([false, 3]);
      // a folder that is no vault: said once, no retry
      const nowhere = await serveAlongside({ runtime: { ...runtime, vault: path.join(dir, 'nowhere') }, build: '', log: (m) => log.push(m), warm, timer });
      expect([nowhere.current, timers.length, log.length]).toEqual([null, 3, 3]);
      expect(log[2]).toBe(`not serving the command line: ${path.join(dir, 'nowhere')}: no such folder (run engram init)`);
      // the warm vault is its owner's still: it follows a save in place
      const ledger = path.join(vault, fileOf(vault, (await here(vault, ['--json', '--now', NOW, 'recall', 'ledger'])).stdout.match(/"id": ?"([^"]+)"/)![1]!));
      writeFileSync(ledger, `${readFileSync(ledger, 'utf8')}Audited by the quokka team.\n`);
      const engine = await warm.engine();
      expect(engine.recall('quokka', { limit: 3 }, Date.parse(NOW)).map((h) => h.doc.path)).toEqual([path.relative(vault, ledger)]);
      expect((await warm.engine()).size).toBe(4); // still the owner's
    } finally {
      warm.close();
    }
  });

  it('stops after --idle minutes without a request; each request starts the wait again', async () => {
    const timers: Array<{ ms: number; run: () => void; cancelled: boolean }> = [];
    await start({
      idleMs: 90_000,
      timer: (run, ms) => {
        const t = { ms, run, cancelled: false };
        timers.push(t);
        return { cancel: () => (t.cancelled = true) };
      },
    });
    expect(timers.map((t) => [t.ms, t.cancelled])).toEqual([[90_000, false]]);
    await client(vault, ['--now', NOW, 'recall', 'retry']);
    expect(timers.map((t) => t.cancelled)).toEqual([true, false]);
    timers[1]!.run();
    await server.stopped();
    expect(logs).toEqual(['no request for 1.5 min: stopping']);
    expect(existsSync(path.join(vault, '.engram', 'serve.sock'))).toBe(false);
  });

  it('a socket path too long for connect(2) is reached from its folder, by server and client', async () => {
    const deep = path.join(dir, 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    const { code } = await engram(deep, ['init']);
    expect(code).toBe(0);
    await engram(deep, ['--now', NOW, 'remember', 'Retries use exponential backoff from 200 ms.']);
    expect(socketPath(deep).length).toBeGreaterThan(SOCKET_PATH_MAX);
    const cwd = process.cwd();
    const chdirs: string[] = [];
    try {
      logs = [];
      server = new CliServer({ runtime: { vault: deep, now: NOW, cwd: dir, env: {} }, build: '', idleMs: null, log: (m) => logs.push(m) });
      await server.start();
      expect(process.cwd()).toBe(path.join(deep, '.engram'));
      process.chdir(cwd);
      const served = await client(deep, ['--now', NOW, '--json', 'recall', 'backoff'], { chdir: (d) => (chdirs.push(d), process.chdir(d)) });
      expect(served.status).toBe(0);
      expect(JSON.parse(served.stdout)).toHaveLength(1);
      expect(chdirs).toEqual([path.join(deep, '.engram'), cwd]);
      process.chdir(path.join(deep, '.engram')); // where the server removes its socket when it stops
      await server.close();
      expect(existsSync(socketPath(deep))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('serve-protocol', () => {
  it('finds the command and --vault as the CLI parses them; only recall, context and touch are served', () => {
    expect(servedCommand(['--vault', 'v', '--now', 'recall', 'recall', 'x'])).toEqual({ name: 'recall', vault: 'v', readsStdin: false });
    expect(servedCommand(['--vault=w', 'context', '--hook'])).toEqual({ name: 'context', vault: 'w', readsStdin: true });
    expect(servedCommand(['recall', '--hook'])).toEqual({ name: 'recall', vault: undefined, readsStdin: false });
    expect(servedCommand(['context', '--', '--hook'])).toEqual({ name: 'context', vault: undefined, readsStdin: false });
    expect(servedCommand(['context', '--', '--hook', 'q'])).toEqual({ name: 'context', vault: undefined, readsStdin: false });
    expect(servedCommand(['recall', '--', '--help', 'q'])).toEqual({ name: 'recall', vault: undefined, readsStdin: false });
    expect(servedCommand(['touch', 'abc'])).toEqual({ name: 'touch', vault: undefined, readsStdin: false });
    expect(servedCommand(['--json', 'remember', 'recall'])).toBeNull();
    expect(servedCommand(['recall', '--help'])).toBeNull();
    expect(servedCommand(['recall', '-h'])).toBeNull();
    expect(servedCommand(['--version', 'recall'])).toBeNull();
    // an option's value is not a request for help or the version
    expect(servedCommand(['recall', '--vault', '--help'])).toEqual({ name: 'recall', vault: '--help', readsStdin: false });
    expect(servedCommand(['recall', '--now', '--version'])).toEqual({ name: 'recall', vault: undefined, readsStdin: false });
    expect(servedCommand(['--', 'recall'])).toBeNull();
    expect(servedCommand([])).toBeNull();
  });

  it('finds --vault for any command, as the CLI parses it (the launcher looks there for the flag of a remember)', () => {
    const cases: Array<[string[], string | undefined]> = [
      [['--vault', 'v', 'remember', 'text'], 'v'],
      [['--now', '--vault', 'remember', '--vault=w', 'x'], 'w'],
      [['remember', '--vault', 'v', 'x'], 'v'],
      [['remember', 'x', '--', '--vault', 'v'], undefined],
      [['--vault=v', '--version'], 'v'],
      [['import', 'x.jsonl'], undefined],
      [['--', '--vault', 'v', 'remember'], undefined],
      // an option's value is not an option (commandIndex reads the command here as 'remember')
      [['--now', '--vault', 'remember', 'x'], undefined],
    ];
    expect(cases.map(([argv]) => vaultOption(argv))).toEqual(cases.map((c) => c[1]));
  });

  it('the socket is .engram/serve.sock, a named pipe on Windows; the build stamp is the bundle size and mtime', () => {
    expect(MACHINE_FOLDER).toBe(LAYOUT.machine);
    expect(socketPath('/v/x', 'linux')).toBe('/v/x/.engram/serve.sock');
    expect(socketPath('C:\\Vault', 'win32')).toBe(`\\\\.\\pipe\\engram-${fnv1a(path.resolve('C:\\Vault').toLowerCase())}`);
    expect(fnv1a('')).toBe('cbf29ce484222325');
    expect(fnv1a('a')).toBe('af63dc4c8601ec8c');
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(path.join(dir, 'b.js'), 'abc');
      expect(buildStamp(path.join(dir, 'b.js'))).toMatch(/^3:\d+(\.\d+)?$/);
      expect(buildStamp(path.join(dir, 'none.js'))).toBe('');
      symlinkSync(path.join(dir, 'b.js'), path.join(dir, 'c.js'));
      expect(buildStamp(path.join(dir, 'c.js'))).toBe(buildStamp(path.join(dir, 'b.js')));
    } finally {
      cleanup();
    }
  });
});
