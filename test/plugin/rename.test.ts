/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { field, startPlugin, type Harness } from './harness';

/*
 * A memory's identity is its frontmatter id; its file name and folder are the person's. Renamed
 * and moved in Obsidian (the app updates links), outside it (a file manager: a delete and a
 * create, no link updates), or doubled by a Sync conflict file, it stays one memory in the
 * plugin's index, counts touches when opened and is never moved back.
 */
const ID = 'mem-ed7c49c755c3';
const OLD = 'episodic/mem-ed7c49c755c3.md';
const NEW = 'episodic/ops/Staging DB reset.md';
const LINKING = ['episodic/mem-612f731d5e32.md', 'episodic/mem-f89bf528af4e.md'];

let h: Harness;
afterEach(() => h.close());

async function loaded(): Promise<number> {
  await h.until(() => h.plugin.index.loaded === true);
  return h.plugin.index.size as number;
}

it('keeps a memory renamed and moved into a sub-folder in Obsidian: same index entry, links resolve, opening it is a touch, nothing moves it back', async () => {
  h = await startPlugin();
  const size = await loaded();
  await h.app.vault.createFolder('memory/episodic/ops');
  await h.app.fileManager.renameFile(h.file(OLD), `memory/${NEW}`);
  await h.advance(1000);
  expect(h.plugin.index.size).toBe(size);
  expect(h.plugin.index.get(ID).path).toBe(NEW);
  // the app rewrote the links to it; Obsidian resolves them to the renamed note
  for (const note of LINKING) {
    const text = h.read(note);
    expect(text).toContain('[[Staging DB reset|related]]');
    expect(text).not.toContain(`[[${ID}`);
    expect(h.app.metadataCache.getFirstLinkpathDest('Staging DB reset', `memory/${note}`)?.path).toBe(`memory/${NEW}`);
  }
  // opening it counts
  expect(field(h.read(NEW), 'access_count')).toBe('0');
  await h.open(NEW);
  await h.advance(3000);
  expect(field(h.read(NEW), 'access_count')).toBe('1');
  expect(field(h.read(NEW), 'id')).toBe(ID);
  // a day later (tier upkeep, batches) it is still where the person put it
  await h.advance(30 * 60_000);
  expect(fs.existsSync(path.join(h.dir, 'memory', NEW))).toBe(true);
  expect(fs.existsSync(path.join(h.dir, 'memory', OLD))).toBe(false);
  expect(fs.readdirSync(path.join(h.dir, 'memory', 'episodic', 'ops'))).toEqual(['Staging DB reset.md']);
});

it('keeps a memory renamed outside Obsidian (seen as a delete and a create) and counts its opens', async () => {
  h = await startPlugin();
  const size = await loaded();
  const moved = await h.app.vault.renameOutside(`memory/${OLD}`, `memory/${NEW}`);
  await h.advance(1000);
  expect(h.plugin.index.size).toBe(size);
  expect(h.plugin.index.get(ID).path).toBe(NEW);
  expect(moved.path).toBe(`memory/${NEW}`);
  await h.open(NEW);
  await h.advance(3000);
  expect(field(h.read(NEW), 'access_count')).toBe('1');
});

it('treats an Obsidian Sync conflict file as a copy of the same memory, not a second memory', async () => {
  h = await startPlugin();
  const size = await loaded();
  const text = h.read(OLD).replace('access_count: 0', 'access_count: 2');
  const copy = await h.app.vault.syncConflictCopy(`memory/${OLD}`, text, 'phone', new Date('2026-11-29T12:00:00Z'));
  await h.advance(1000);
  expect(copy.path).toBe('memory/episodic/mem-ed7c49c755c3 (Conflicted copy phone 202611291200).md');
  expect(h.plugin.index.size).toBe(size);
  expect(h.plugin.index.get(ID).path).toBe(OLD);
  expect([...h.plugin.index.copies.entries()]).toEqual([['episodic/mem-ed7c49c755c3 (Conflicted copy phone 202611291200).md', ID]]);
  // the memory's own file deleted: the copy is the memory now
  await h.app.vault.delete(h.file(OLD));
  await h.advance(1000);
  expect(h.plugin.index.size).toBe(size);
  expect(h.plugin.index.get(ID).path).toBe('episodic/mem-ed7c49c755c3 (Conflicted copy phone 202611291200).md');
  expect(h.plugin.index.get(ID).access_count).toBe(2);
});

it('"Consolidate now" merges an Obsidian Sync conflict file into the memory by id and moves the copy out of sight', async () => {
  h = await startPlugin();
  await loaded();
  const copyPath = 'episodic/mem-ed7c49c755c3 (Conflicted copy phone 202611291200).md';
  await h.app.vault.syncConflictCopy(`memory/${OLD}`, h.read(OLD).replace('access_count: 0', 'access_count: 2'), 'phone', new Date('2026-11-29T12:00:00Z'));
  await h.advance(1000);
  expect(h.app.commands.executeCommandById('engram-memory:consolidate')).toBe(true);
  await h.until(() => !fs.existsSync(path.join(h.dir, 'memory', copyPath)), 20_000);
  await h.advance(2000);
  expect(field(h.read(OLD), 'access_count')).toBe('2'); // counters merge by the larger
  const moved = fs.readdirSync(path.join(h.dir, 'memory', '.engram', 'sync-copies'), { recursive: true }).map(String);
  expect(moved.some((name) => name.includes('Conflicted copy phone'))).toBe(true);
  expect(h.plugin.index.knows(copyPath)).toBe(false); // consolidation may add memories of its own (clusters): the copy is not one
  expect(h.plugin.index.get(ID).path).toBe(OLD);
  expect([...h.plugin.index.copies.keys()]).toEqual([]);
});
