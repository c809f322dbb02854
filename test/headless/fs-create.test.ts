// the module itself (a namespace import's properties cannot be spied on), as fs-files.ts reads it
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
// the module itself, as createInBackground requires it (its Worker is spied on)
import threads from 'node:worker_threads';
import { NodeFileStore } from '../../headless/fs-files';
import { WriteConflictError } from '../../src/core/errors';

/**
 * An exclusive create (FileStore.write with `expect: null`): a complete hidden temp file beside
 * the note, linked to its name (link(2) fails on an existing name), then unlinked. A text is
 * written as the write call encodes it (no Buffer made for it): the bytes must be Buffer.from's.
 */
describe('an exclusive create', () => {
  let root: string;
  let store: NodeFileStore;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'engram-create-'));
    fs.mkdirSync(path.join(root, 'episodic'));
    store = new NodeFileStore(root);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(root, { recursive: true, force: true });
  });

  const names = () => readdirSync(path.join(root, 'episodic')).sort();

  it('writes the text as UTF-8, byte for byte what Buffer.from makes of it (lone surrogates too), and leaves no temp file', async () => {
    const texts = ['plain ascii\n', 'é ü — “quotes” ✓\n', 'emoji 😀 and a lone \ud800 high and \udc00 low surrogate\n', 'x'.repeat(70_000) + 'é\n', ''];
    for (const [i, text] of texts.entries()) await store.write(`episodic/n${i}.md`, text, { expect: null });
    for (const [i, text] of texts.entries()) expect(readFileSync(path.join(root, 'episodic', `n${i}.md`))).toEqual(Buffer.from(text, 'utf8'));
    expect(names()).toEqual(['n0.md', 'n1.md', 'n2.md', 'n3.md', 'n4.md']);
  });

  it('returns the version written: the size, the mtime as a stat gives it, and the tag of inode, size and mtime in ns', async () => {
    const written = await store.write('episodic/a.md', 'héllo\n', { expect: null });
    const stat = statSync(path.join(root, 'episodic', 'a.md'));
    const big = statSync(path.join(root, 'episodic', 'a.md'), { bigint: true });
    expect(written).toEqual({ size: 7, mtimeMs: stat.mtimeMs, tag: `${big.ino}:7:${big.mtimeNs}` });
    // marked ours: the mtime was set (so it differs from the ctime the link and unlink left)
    expect(big.mtimeNs).not.toBe(big.ctimeNs);
  });

  it('goes through a hidden temp name beside the note (.NAME.PID.N.tmp), linked to the note, and removed', async () => {
    const link = jest.spyOn(fs, 'linkSync');
    const unlink = jest.spyOn(fs, 'unlinkSync');
    await store.write('episodic/Some title.md', 'text\n', { expect: null });
    const [from, to] = link.mock.calls[0]! as [string, string];
    expect(to).toBe(path.join(root, 'episodic', 'Some title.md'));
    expect(path.dirname(from)).toBe(path.join(root, 'episodic'));
    expect(path.basename(from)).toMatch(new RegExp(`^\\.Some title\\.md\\.${process.pid}\\.\\d+\\.tmp$`));
    expect(unlink.mock.calls).toEqual([[from]]);
    expect(names()).toEqual(['Some title.md']);
  });

  it('completes a short write from the text\'s bytes', async () => {
    const real = fs.writeSync;
    let first = true;
    // the first write puts only 5 bytes (a full disk, a signal): the rest follows from the encoded text
    jest.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: string | Uint8Array, ...rest: unknown[]) => {
      if (first && typeof data === 'string') {
        first = false;
        return real(fd, Buffer.from(data, 'utf8').subarray(0, 5));
      }
      return (real as (...args: unknown[]) => number)(fd, data, ...rest);
    }) as typeof fs.writeSync);
    const text = 'ab😀cdé and more\n';
    const written = await store.write('episodic/short.md', text, { expect: null });
    expect(readFileSync(path.join(root, 'episodic', 'short.md'))).toEqual(Buffer.from(text, 'utf8'));
    expect(written).toMatchObject({ size: Buffer.byteLength(text) });
  });

  it('refuses a name that exists, even as a dangling link, keeps what is there and leaves no temp file', async () => {
    writeFileSync(path.join(root, 'episodic', 'taken.md'), 'theirs\n');
    symlinkSync('nowhere.md', path.join(root, 'episodic', 'link.md'));
    await expect(store.write('episodic/taken.md', 'ours\n', { expect: null })).rejects.toThrow(WriteConflictError);
    await expect(store.write('episodic/link.md', 'ours\n', { expect: null })).rejects.toThrow(WriteConflictError);
    expect(readFileSync(path.join(root, 'episodic', 'taken.md'), 'utf8')).toBe('theirs\n');
    expect(fs.readlinkSync(path.join(root, 'episodic', 'link.md'))).toBe('nowhere.md');
    expect(names()).toEqual(['link.md', 'taken.md']);
  });

  it('reports another error as it is, and leaves no temp file', async () => {
    jest.spyOn(fs, 'linkSync').mockImplementation(() => {
      throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
    });
    await expect(store.write('episodic/x.md', 'x\n', { expect: null })).rejects.toThrow('EPERM');
    expect(names()).toEqual([]);
  });
});

/**
 * createInBackground: the same creates made by a worker thread, in the order asked, while the
 * caller computes (a bulk import plans its next lines meanwhile). The worker evaluates the text
 * of the functions the main thread's create calls: each result must be what the main thread's
 * create gives.
 */
describe('exclusive creates in the background', () => {
  let root: string;
  let store: NodeFileStore;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'engram-create-bg-'));
    fs.mkdirSync(path.join(root, 'episodic'));
    store = new NodeFileStore(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const names = () => readdirSync(path.join(root, 'episodic')).sort();

  it('writes each text as UTF-8, byte for byte Buffer.from\'s, and returns the version as a stat gives it; no temp file left', async () => {
    const background = store.createInBackground(2)!;
    // a second caller gets none while the first has it on
    expect(store.createInBackground(2)).toBeNull();
    const texts = ['plain ascii\n', 'é ü — “quotes” ✓\n', 'emoji 😀 and a lone \ud800 high and \udc00 low surrogate\n', 'x'.repeat(70_000) + 'é\n', ''];
    // 150 creates: three messages to the thread (64 a message), all asked before any is made
    const asked = Array.from({ length: 150 }, (_, i) => store.write(`episodic/n${i}.md`, texts[i % texts.length]!, { expect: null }));
    const written = await Promise.all(asked);
    await background.stop();
    expect(names()).toEqual(Array.from({ length: 150 }, (_, i) => `n${i}.md`).sort());
    for (let i = 0; i < 150; i++) {
      const file = path.join(root, 'episodic', `n${i}.md`);
      const bytes = Buffer.from(texts[i % texts.length]!, 'utf8');
      expect(readFileSync(file).equals(bytes)).toBe(true);
      const big = statSync(file, { bigint: true });
      expect(written[i]).toEqual({ size: bytes.length, mtimeMs: statSync(file).mtimeMs, tag: `${big.ino}:${bytes.length}:${big.mtimeNs}` });
      // marked ours (futimes), as the main thread's create marks it
      expect(big.mtimeNs).not.toBe(big.ctimeNs);
    }
    // stopped: creates are made by the main thread again (its temp names, its link)
    const link = jest.spyOn(fs, 'linkSync');
    try {
      await store.write('episodic/after.md', 'after\n', { expect: null });
      expect(link.mock.calls).toEqual([[expect.stringMatching(new RegExp(`/episodic/\\.after\\.md\\.${process.pid}\\.\\d+\\.tmp$`)), path.join(root, 'episodic', 'after.md')]]);
    } finally {
      link.mockRestore();
    }
  });

  /**
   * The file system calls `run` makes (synchronously), in order, with their arguments and what
   * they return; the temp path, the descriptor and the time are named by their role.
   */
  function traced<T>(run: () => T): { calls: unknown[][]; value: T } {
    const calls: unknown[][] = [];
    for (const name of ['openSync', 'writeSync', 'futimesSync', 'fstatSync', 'closeSync', 'linkSync', 'unlinkSync'] as const) {
      const real = fs[name] as (...args: unknown[]) => unknown;
      jest.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
        const call: unknown[] = [name, ...args];
        calls.push(call);
        const out = real(...args);
        if (name === 'openSync' || name === 'writeSync') call.push('=>', out);
        return out;
      }) as never);
    }
    let value: T;
    try {
      value = run();
    } finally {
      jest.restoreAllMocks();
    }
    const fd = calls[0]![calls[0]!.length - 1];
    const temp = calls[0]![1];
    const roles = (x: unknown): unknown => (x === fd ? 'fd' : x === temp ? 'temp' : typeof x === 'object' && x !== null && 'size' in x ? 'stats' : x);
    const named = calls.map((call) => call.map(roles));
    // futimes: now, to the ms, for both times
    for (const call of named) if (call[0] === 'futimesSync' && call[2] === call[3] && Math.abs(Number(call[2]) * 1000 - Date.now()) < 60_000) call.splice(2, 2, 'now', 'now');
    return { calls: named, value };
  }

  it('is made by the same code as the main thread\'s create: the worker\'s source makes the same system calls, in the same order, with the same arguments', async () => {
    // the source and data the creating thread is started with, as createInBackground gives them
    const Real = threads.Worker;
    const started = jest.spyOn(threads, 'Worker').mockImplementation((...args) => new Real(...args));
    const background = store.createInBackground(2)!;
    const [source, options] = started.mock.calls[0]! as [string, { eval: boolean; workerData: unknown }];
    started.mockRestore();
    await background.stop();
    expect(options.eval).toBe(true);
    // that source run here, with a port of our own: what the thread does with a message
    const port = Object.assign(new EventEmitter(), { postMessage: (results: unknown) => replies.push(results) });
    const replies: unknown[] = [];
    const requireIn = (id: string): unknown => (id === 'node:fs' ? fs : id === 'node:worker_threads' ? { parentPort: port, workerData: options.workerData } : undefined);
    (vm.runInThisContext(`(function (require) {${source}\n})`) as (r: typeof requireIn) => void)(requireIn);
    const dir = path.join(root, 'episodic');
    writeFileSync(path.join(dir, 'taken.md'), 'theirs\n');
    for (const [name, text] of [['new.md', 'héllo 😀\n'], ['taken.md', 'ours\n']] as const) {
      const main = traced(() => store.write(`episodic/${name}`, text, { expect: null }).catch((error: Error) => error));
      const mainResult = await main.value;
      if (name === 'new.md') fs.renameSync(path.join(dir, name), path.join(dir, 'main-new.md'));
      const worker = traced(() => port.emit('message', [path.join(dir, `.${name}.worker.tmp`), path.join(dir, name), text]));
      expect(worker.calls).toEqual(main.calls);
      const reply = (replies.pop() as unknown[])[0];
      if (name === 'taken.md') expect([reply, mainResult]).toEqual(['conflict', new WriteConflictError('episodic/taken.md')]);
      else {
        // each the version of its file, as a stat gives it
        const version = (file: string) => {
          const big = statSync(path.join(dir, file), { bigint: true });
          return { size: 12, mtimeMs: statSync(path.join(dir, file)).mtimeMs, tag: `${big.ino}:12:${big.mtimeNs}` };
        };
        expect([reply, mainResult]).toEqual([version(name), version('main-new.md')]);
      }
    }
    // what the calls were: an exclusive temp, the text, the mark, its version, close, link, unlink
    expect(traced(() => store.write('episodic/seen.md', 'x\n', { expect: null })).calls).toEqual([
      ['openSync', 'temp', fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644, '=>', 'fd'],
      ['writeSync', 'fd', 'x\n', '=>', 2],
      ['futimesSync', 'fd', 'now', 'now'],
      ['fstatSync', 'fd', { bigint: true }],
      ['closeSync', 'fd'],
      ['linkSync', 'temp', path.join(dir, 'seen.md')],
      ['unlinkSync', 'temp'],
    ]);
  });

  it('works as built: the minified bundle\'s thread (dist/lib.js) gives each file and version, and the conflict, as the main thread', () => {
    writeFileSync(path.join(root, 'episodic', 'taken.md'), 'theirs\n');
    const script = `
      const { NodeFileStore } = require(${JSON.stringify(path.resolve('dist/lib.js'))});
      const store = new NodeFileStore(process.argv[1]);
      const background = store.createInBackground(2);
      const asked = ['a.md', 'b.md', 'taken.md'].map((name) => store.write('episodic/' + name, 'é ' + name + '\\n', { expect: null }).catch((e) => e.name));
      Promise.all(asked).then(async (out) => { await background.stop(); console.log(JSON.stringify(out)); });`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script, root], { encoding: 'utf8' })) as unknown[];
    const version = (name: string) => {
      const big = statSync(path.join(root, 'episodic', name), { bigint: true });
      return { size: Number(big.size), mtimeMs: statSync(path.join(root, 'episodic', name)).mtimeMs, tag: `${big.ino}:${big.size}:${big.mtimeNs}` };
    };
    expect(out).toEqual([version('a.md'), version('b.md'), 'WriteConflictError']);
    expect(readFileSync(path.join(root, 'episodic', 'b.md'), 'utf8')).toBe('é b.md\n');
    expect(names()).toEqual(['a.md', 'b.md', 'taken.md']);
  });

  it('refuses a name that exists (even a dangling link) as WriteConflictError, keeps what is there, and makes none of the creates asked after it', async () => {
    writeFileSync(path.join(root, 'episodic', 'taken.md'), 'theirs\n');
    symlinkSync('nowhere.md', path.join(root, 'episodic', 'link.md'));
    const background = store.createInBackground(2)!;
    const asked = ['a.md', 'taken.md', 'b.md', 'link.md'].map((name) => store.write(`episodic/${name}`, `ours ${name}\n`, { expect: null }));
    const settled = await Promise.allSettled(asked);
    await background.stop();
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    const reasons = settled.slice(1).map((s) => (s as PromiseRejectedResult).reason as Error);
    expect(reasons[0]).toBeInstanceOf(WriteConflictError);
    expect(reasons.map((r) => r.message)).toEqual([new WriteConflictError('episodic/taken.md').message, 'episodic/b.md: not created (a file asked before it failed)', 'episodic/link.md: not created (a file asked before it failed)']);
    expect(readFileSync(path.join(root, 'episodic', 'taken.md'), 'utf8')).toBe('theirs\n');
    expect(fs.readlinkSync(path.join(root, 'episodic', 'link.md'))).toBe('nowhere.md');
    expect(names()).toEqual(['a.md', 'link.md', 'taken.md']);
  });

  it('reports another error with its code, syscall and message, and leaves no temp file', async () => {
    const background = store.createInBackground(2)!;
    // no folder: the temp file cannot be opened
    const failed = await store.write('gone/x.md', 'x\n', { expect: null }).then(
      () => null,
      (error: NodeJS.ErrnoException) => error,
    );
    await background.stop();
    expect([failed?.code, failed?.syscall, failed?.message.startsWith('ENOENT: no such file or directory, open ')]).toEqual(['ENOENT', 'open', true]);
    expect(failed).not.toBeInstanceOf(WriteConflictError);
    expect(names()).toEqual([]);
  });

  it('keeps no process alive once stopped, and a bytes write (not a text) is made by the main thread', async () => {
    const background = store.createInBackground(2)!;
    const link = jest.spyOn(fs, 'linkSync');
    try {
      await store.write('episodic/bytes.md', Buffer.from('bytes\n'), { expect: null });
      expect(link).toHaveBeenCalledTimes(1);
    } finally {
      link.mockRestore();
    }
    await background.stop();
    expect(readFileSync(path.join(root, 'episodic', 'bytes.md'), 'utf8')).toBe('bytes\n');
    const again = store.createInBackground(2);
    expect(again).not.toBeNull();
    await again!.stop();
  });

  it('is not started on a machine with one core (the thread could only take turns with the caller)', async () => {
    expect(store.createInBackground(1)).toBeNull();
    const two = store.createInBackground(2);
    expect(two).not.toBeNull();
    await two!.stop();
  });
});
