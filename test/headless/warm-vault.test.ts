import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { WarmVault } from '../../headless/mcp/warm-vault';
import { openVault } from '../../headless/runtime';
import { loadCatalog } from '../../src/core/recall/catalog';
import { engram, initVault } from '../helpers/cli';
import { warmQueries } from '../helpers/warm';

const NOW = '2026-11-10T10:00:00Z';

describe('WarmVault: the recall engine of a long-lived process follows the vault', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => {
    ({ dir, vault, cleanup } = await initVault());
    for (const [i, text] of ['Retries use exponential backoff from 200 ms.', 'Deploys happen on Tuesdays.', 'The cache warms in ten minutes.'].entries()) {
      await engram(vault, ['--now', `2026-11-0${i + 1}T10:00:00Z`, 'remember', text]);
    }
  });
  afterEach(() => cleanup());

  const { ids, fresh } = warmQueries(() => ({ vault, dir }), NOW);

  it('applies each kind of change with the least work, and answers as an engine opened afresh', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      const first = await warm.engine();
      expect(await warm.engine()).toBe(first); // nothing changed: the same engine
      expect(warm.stats).toEqual({ opened: 1, loaded: 0, followed: 0, rebuilt: 0 });
      const [backoff] = await ids(warm, 'exponential backoff');

      // a touch from another process: the first change loads the documents
      await engram(vault, ['--now', NOW, 'touch', backoff!]);
      const engine = await warm.engine();
      expect(engine.doc(engine.table.ids.indexOf(backoff!)).access_count).toBe(1);
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 0, rebuilt: 0 });
      // the next touch changes a row of the document table
      await engram(vault, ['--now', NOW, 'touch', backoff!]);
      const touched = await warm.engine();
      expect(touched.doc(touched.table.ids.indexOf(backoff!)).access_count).toBe(2);
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 1, rebuilt: 0 });
      // touching two at once links them by co-access: their rows' links change in place
      const [deploys] = await ids(warm, 'deploys tuesdays');
      await engram(vault, ['--now', NOW, 'touch', backoff!, deploys!]);
      const linked = await warm.engine();
      expect(linked.doc(linked.table.ids.indexOf(backoff!)).co_access).toEqual({ [deploys!]: 1 });
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 2, rebuilt: 0 });

      // remember: a new row
      const added = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The zeppelin hangar door sticks in cold weather.'])).json();
      expect(await ids(warm, 'zeppelin hangar')).toEqual([added.id]);
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 3, rebuilt: 0 });

      // a person rewrites a memory in place: its words changed, its row is re-indexed
      const file = path.join(vault, added.path);
      writeFileSync(file, readFileSync(file, 'utf8').replace('The zeppelin hangar door sticks in cold weather.', 'The airship shed was repainted.'));
      expect(await ids(warm, 'zeppelin')).toEqual([]);
      expect(await ids(warm, 'airship shed')).toEqual([added.id]);
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 4, rebuilt: 0 });

      // forgotten (moved out of the folders): gone
      await engram(vault, ['forget', added.id]);
      expect(await ids(warm, 'airship shed')).toEqual([]);
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 5, rebuilt: 0 });

      for (const query of ['exponential backoff', 'deploys tuesdays', 'cache warms minutes', 'airship']) {
        expect([query, await ids(warm, query)]).toEqual([query, await fresh(query)]);
      }
    } finally {
      warm.close();
    }
  });

  it('sees edits saved in place inside a person\'s sub-folders, including one made after the server started', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      const [backoff] = await ids(warm, 'exponential backoff');
      const [deploys] = await ids(warm, 'deploys tuesdays');
      await engram(vault, ['--now', NOW, 'touch', backoff!]); // loads the documents
      await warm.engine();
      // a person files two memories in folders of their own (ADR 0005), one two levels down
      const filed = async (id: string, to: string) => {
        const from = (await engram(vault, ['--json', 'show', id])).json().path as string;
        mkdirSync(path.dirname(path.join(vault, to)), { recursive: true });
        renameSync(path.join(vault, from), path.join(vault, to));
        return path.join(vault, to);
      };
      const ops = await filed(backoff!, 'episodic/ops/Retry policy.md');
      expect(await ids(warm, 'exponential backoff')).toEqual([backoff]);
      const deep = await filed(deploys!, 'episodic/ops/releases/Deploy day.md');
      expect(await ids(warm, 'deploys tuesdays')).toEqual([deploys]);
      // each move: a row emptied, one added last (a sub-folder's files sort after the folder's own)
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 2, rebuilt: 0 });
      // then edits each in place, as Obsidian saves a note: the watch names the file
      writeFileSync(ops, readFileSync(ops, 'utf8').replace('Retries use exponential backoff from 200 ms.', 'Retries use a jittered schedule.'));
      expect(await ids(warm, 'jittered schedule')).toEqual([backoff]);
      expect(await ids(warm, 'exponential backoff')).toEqual([]);
      writeFileSync(deep, readFileSync(deep, 'utf8').replace('Deploys happen on Tuesdays.', 'Releases ship on Thursdays.'));
      expect(await ids(warm, 'releases thursdays')).toEqual([deploys]);
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 4, rebuilt: 0 }); // each edit in place, no listing needed
      for (const query of ['jittered schedule', 'releases thursdays', 'cache warms minutes']) {
        expect([query, await ids(warm, query)]).toEqual([query, await fresh(query)]);
      }
    } finally {
      warm.close();
    }
  });

  it('a create no watch event reported is found by comparing the listing (the folders changed)', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      await warm.engine();
      await engram(vault, ['--now', NOW, 'touch', (await fresh('deploys tuesdays'))[0]!]); // loads the documents
      await warm.engine();
      warm.close(); // no more events
      const added = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The nightly build takes forty minutes.'])).json();
      expect(await ids(warm, 'nightly build forty')).toEqual([added.id]);
    } finally {
      warm.close();
    }
  });

  it('preloads in slices of its budget (documents here), answering requests between them; a change mid-preload finishes it at once', async () => {
    for (let n = 0; n < 30; n++) {
      const id = `mem-bulk${String(n).padStart(8, '0')}`;
      writeFileSync(path.join(vault, 'episodic', `${id}.md`), `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-11-0${1 + (n % 9)}T10:00:00Z"\nsession: "s${n % 3}"\n---\nBulk note ${n} about the harbour crane.\n`);
    }
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, () => undefined, false, 10);
    try {
      const first = await warm.engine();
      const preload = warm.preloadNow();
      expect(await warm.engine()).toBe(first); // nothing changed: answered between two slices
      expect(warm.stats).toEqual({ opened: 1, loaded: 0, followed: 0, rebuilt: 0 });
      await preload;
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 0, rebuilt: 0 });
      // the folder's 33 entries read, their names sorted (one block), 33 stats, the listing sorted
      // (one block) and made (33), the catalog's 33 rows (one chunk decoded and parsed, a map of
      // 33), 33 files read from it, then the table (ids, 9 columns of strings, rows), words (and
      // their 4 arrays of room for rows to come), episodes (33 members, 3 sessions, 33 episode
      // numbers), the engine (made, 33 rows, its reverse links: counted, summed, filled in steps of
      // 1,024 links: none here), the rows with room, maps (paths, then the rest) and the files' versions
      expect(warm.preloadSlices.reduce((a, b) => a + b, 0)).toBe(33 + 1 + 33 + 1 + 33 + 1 + 33 + 33 + (33 + 9 + 33) + (33 + 4) + 33 + 3 + 33 + (1 + 33 + 1 + 1) + 1 + 33 * 2 + 33);
      expect(Math.max(...warm.preloadSlices)).toBe(10);
      expect(await ids(warm, 'harbour crane')).toHaveLength(5);
    } finally {
      warm.close();
    }
    const again = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, () => undefined, false, 10);
    try {
      await again.engine();
      const preload = again.preloadNow();
      await again.engine();
      const file = path.join(vault, 'episodic', 'mem-bulk00000007.md');
      writeFileSync(file, readFileSync(file, 'utf8').replace('harbour crane', 'lighthouse lamp'));
      expect(await ids(again, 'lighthouse lamp')).toEqual(['mem-bulk00000007']);
      await preload;
      expect(again.stats).toEqual({ opened: 1, loaded: 1, followed: 1, rebuilt: 0 });
      for (const query of ['lighthouse lamp', 'harbour crane', 'exponential backoff']) {
        expect([query, await ids(again, query)]).toEqual([query, await fresh(query)]);
      }
    } finally {
      again.close();
    }
  });
  it('runs no preload slice while a request is answered; a request that needs the documents, or loadNow, finishes the preload inside one', async () => {
    for (let n = 0; n < 30; n++) {
      const id = `mem-bulk${String(n).padStart(8, '0')}`;
      writeFileSync(path.join(vault, 'episodic', `${id}.md`), `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-11-0${1 + (n % 9)}T10:00:00Z"\n---\nBulk note ${n} about the harbour crane.\n`);
    }
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const done = (w: WarmVault) => w.preloadSlices.reduce((a, b) => a + b, 0);
    /** A warm vault whose engine is open and whose preload (slices of 10 units) has just started. */
    const preloading = async (run: (w: WarmVault, preload: Promise<void>) => Promise<void>) => {
      const w = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, () => undefined, false, 10);
      try {
        await w.engine();
        await run(w, w.preloadNow());
      } finally {
        w.close();
      }
    };
    /** Turns of the event loop until the preload waits for the request being answered (its slice under way, or its reads, done). */
    const untilWaiting = async (w: WarmVault) => {
      for (let i = 0; i < 10_000 && !w.preloadWaiting; i++) await turn();
      return w.preloadWaiting;
    };
    await preloading(async (warm, preload) => {
      // inside one request the preload comes to wait, and 20 more turns do none of its 482 units
      const [waits, first, last] = await warm.serve(async () => {
        const waiting = await untilWaiting(warm);
        const at = done(warm);
        for (let i = 0; i < 20; i++) await turn();
        return [waiting, at, done(warm)];
      });
      expect([waits, last! - (first as number)]).toEqual([true, 0]);
      expect(warm.preloadWaiting).toBe(false);
      expect(warm.stats).toEqual({ opened: 1, loaded: 0, followed: 0, rebuilt: 0 });
      // the request over, the preload goes on by itself
      await preload;
      expect([warm.stats, done(warm)]).toEqual([{ opened: 1, loaded: 1, followed: 0, rebuilt: 0 }, 482]);
    });
    // a request that brings a change needs the documents: it finishes the preload, which waits for no request then
    await preloading(async (changing, preload) => {
      const file = path.join(vault, 'episodic', 'mem-bulk00000007.md');
      const found = await changing.serve(async () => {
        expect(await untilWaiting(changing)).toBe(true);
        writeFileSync(file, readFileSync(file, 'utf8').replace('harbour crane', 'lighthouse lamp'));
        return ids(changing, 'lighthouse lamp');
      });
      expect(found).toEqual(['mem-bulk00000007']);
      await preload;
      expect(changing.stats).toEqual({ opened: 1, loaded: 1, followed: 1, rebuilt: 0 });
    });
    // loadNow inside a request (engram serve's recall: the count of unreadable files) finishes it too
    await preloading(async (loading, preload) => {
      await loading.serve(async () => {
        expect(await untilWaiting(loading)).toBe(true);
        await loading.loadNow();
      });
      await preload;
      expect([loading.stats, loading.unreadable()]).toEqual([{ opened: 1, loaded: 1, followed: 0, rebuilt: 0 }, 0]);
    });
  }, 10_000); // a request and the preload waiting for each other never end: failed at 10 s

  it('the preload writes a stale catalog off the event loop, the same file as a plain load writes, and lists sub-folders', async () => {
    mkdirSync(path.join(vault, 'episodic', 'work'));
    writeFileSync(path.join(vault, 'episodic', 'work', 'mem-sub000000001.md'), `---\nid: mem-sub000000001\ncategory: episodic\ncreated_at: "2026-11-05T10:00:00Z"\n---\nFiled by hand: the harbour crane.\n`);
    const catalog = path.join(vault, '.engram', 'cache', 'catalog.json');
    mkdirSync(path.dirname(catalog), { recursive: true });
    writeFileSync(catalog, '{"format":0,"rows":[]}'); // stale: every file parsed, the cache written again
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, () => undefined, false, 10);
    try {
      await warm.engine();
      await warm.preloadNow();
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 0, rebuilt: 0 });
      const sliced = readFileSync(catalog, 'utf8');
      const { vault: opened } = openVault({ vault, now: NOW, cwd: dir, env: {} });
      writeFileSync(catalog, '{"format":0,"rows":[]}');
      const plain = await loadCatalog(opened);
      expect(sliced).toBe(readFileSync(catalog, 'utf8'));
      expect(plain.docs.map((d) => d.path)).toContain('episodic/work/mem-sub000000001.md');
      expect(plain.docs).toHaveLength(4);
      expect(await ids(warm, 'harbour crane')).toEqual(['mem-sub000000001']);
      expect(readdirSync(path.dirname(catalog)).sort()).toEqual(['catalog.json', 'recall.snapshot']); // no temporary file left
    } finally {
      warm.close();
    }
  });
});
