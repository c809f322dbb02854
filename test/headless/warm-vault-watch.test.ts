import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { WarmVault } from '../../headless/mcp/warm-vault';
import { engram, initVault } from '../helpers/cli';
import { warmQueries } from '../helpers/warm';

/**
 * What WarmVault's watches leave out, as a fresh engine does: a dot-folder inside a memory folder
 * (a sync tool's or an editor's stash) holds no memories, so a file moved or edited there is not
 * followed; and a memory folder it cannot watch is said once, its changes found by listing.
 * (warm-vault.test: what the watches follow.)
 */

const NOW = '2026-11-10T10:00:00Z';

describe('WarmVault: what the watches leave out, and a folder they cannot watch', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => {
    ({ dir, vault, cleanup } = await initVault());
    for (const [i, text] of ['Retries use exponential backoff from 200 ms.', 'Deploys happen on Tuesdays.'].entries()) {
      await engram(vault, ['--now', `2026-11-0${i + 1}T10:00:00Z`, 'remember', text]);
    }
  });
  afterEach(() => cleanup());

  const { ids, fresh } = warmQueries(() => ({ vault, dir }), NOW);

  it('a memory moved into a dot-folder of a memory folder, then edited there, is gone from recall', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      const [backoff] = await ids(warm, 'exponential backoff');
      await engram(vault, ['--now', NOW, 'touch', backoff!]); // loads the documents
      await warm.engine();
      mkdirSync(path.join(vault, 'episodic', '.stash'));
      await warm.engine();
      const from = (await engram(vault, ['--json', 'show', backoff!])).json().path as string;
      const hidden = path.join(vault, 'episodic', '.stash', 'Retry policy.md');
      renameSync(path.join(vault, from), hidden);
      expect(await ids(warm, 'exponential backoff')).toEqual([]);
      writeFileSync(hidden, readFileSync(hidden, 'utf8').replace('Retries use exponential backoff from 200 ms.', 'Retries use a jittered schedule.'));
      expect(await ids(warm, 'jittered schedule')).toEqual([]);
      for (const query of ['exponential backoff', 'jittered schedule', 'deploys tuesdays']) {
        expect([query, await ids(warm, query)]).toEqual([query, await fresh(query)]);
      }
    } finally {
      warm.close();
    }
  });

  it('a memory folder that cannot be watched (here: gone) is said once, and its memories are found by listing', async () => {
    rmSync(path.join(vault, 'archive'), { recursive: true });
    const warnings: string[] = [];
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, (m) => warnings.push(m));
    try {
      await warm.engine();
      await warm.engine();
      expect(warnings).toEqual(['cannot watch archive/ (ENOENT): edits saved in place by other programs are seen only with the next create, rename or delete']);
      const added = (await engram(vault, ['--json', '--now', NOW, 'remember', 'The nightly build takes forty minutes.'])).json();
      expect(await ids(warm, 'nightly build forty')).toEqual([added.id]);
    } finally {
      warm.close();
    }
  });

  it('a delete no watch event reported is found by comparing the listing (the folder changed)', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} });
    try {
      const [deploys] = await ids(warm, 'deploys tuesdays');
      await engram(vault, ['--now', NOW, 'touch', deploys!]); // loads the documents
      await warm.engine();
      warm.close(); // no more events
      const rel = (await engram(vault, ['--json', 'show', deploys!])).json().path as string;
      rmSync(path.join(vault, rel));
      expect(await ids(warm, 'deploys tuesdays')).toEqual([]);
      expect(await fresh('deploys tuesdays')).toEqual([]);
    } finally {
      warm.close();
    }
  });

  it('preloads the documents once: a second preload while one runs, or after, does nothing', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, () => undefined, false, 1);
    try {
      await warm.engine();
      await Promise.all([warm.preloadNow(), warm.preloadNow()]);
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 0, rebuilt: 0 });
      await warm.preloadNow();
      expect(warm.stats).toEqual({ opened: 1, loaded: 1, followed: 0, rebuilt: 0 });
    } finally {
      warm.close();
    }
  });

  it('a preload of a vault reopened meanwhile (its settings changed) is dropped, and the next request opens the engine again', async () => {
    const warm = new WarmVault({ vault, now: NOW, cwd: dir, env: {} }, () => undefined, false, 1);
    try {
      await warm.engine();
      const preload = warm.preloadNow();
      writeFileSync(path.join(vault, '.engram', 'config.json'), '{}\n');
      warm.runtime(); // reopened: new settings
      await preload;
      expect(warm.stats).toEqual({ opened: 1, loaded: 0, followed: 0, rebuilt: 0 });
      expect(await ids(warm, 'deploys tuesdays')).toEqual(await fresh('deploys tuesdays'));
      expect(warm.stats).toEqual({ opened: 2, loaded: 0, followed: 0, rebuilt: 0 });
    } finally {
      warm.close();
    }
  });
});
