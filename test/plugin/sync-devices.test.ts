/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { placeStamp } from '../../src/core/machine';
import { field, NOW, startPlugin, type Harness } from './harness';

/*
 * Two devices open the same memory before Obsidian Sync has carried either open to the other
 * (issue 21). With Sync set to "Create conflict file" (obsidian-help, "Troubleshoot Obsidian
 * Sync" > Conflict resolution), the device that downloads the other's version keeps the remote
 * text in the note and its own in `NAME (Conflicted copy DEVICE YYYYMMDDHHMM).md`. Each device
 * counts its own uses on its own line (`uses_m-…`), so "Consolidate now" adds both opens
 * instead of keeping the larger count.
 */
const ID = 'mem-ed7c49c755c3';
const NOTE = 'episodic/mem-ed7c49c755c3.md';
const LAPTOP = 'm-aaaaaaaaaaaa';
const PHONE = 'm-bbbbbbbbbbbb';

let h: Harness | null = null;
afterEach(() => h?.close());

/**
 * A device: the example vault as both had it at the last sync (the memory cold), with one
 * `.engram/machine-id` naming both devices' stamps, as a sync tool that carries dot-folders
 * (iCloud, Syncthing) leaves it, and an older stamp drawn before places were kept. The plugin
 * picks the stamp drawn for its place, a token in the app's storage for this device
 * (`loadLocalStorage('engram-place')`, never synced; machine.ts, service.ts devicePlace).
 */
async function device(token: string, now: number): Promise<Harness> {
  const prepare = (dir: string) => {
    const stamps = [`m-cccccccccccc`, `${LAPTOP} ${placeStamp(`obsidian\n${'a'.repeat(24)}`)}`, `${PHONE} ${placeStamp(`obsidian\n${'b'.repeat(24)}`)}`];
    fs.writeFileSync(path.join(dir, 'memory', '.engram', 'machine-id'), `${stamps.join('\n')}\n`);
    const note = path.join(dir, 'memory', NOTE);
    fs.writeFileSync(note, fs.readFileSync(note, 'utf8').replace('tier: warm', 'tier: cold'));
  };
  const started = await startPlugin({ now, prepare, before: (_dir, app) => app.saveLocalStorage('engram-place', token.repeat(24)) });
  await started.until(() => started.plugin.index.loaded === true);
  return started;
}

it('counts an open on each of two devices twice after an Obsidian Sync conflict file is merged', async () => {
  // the phone opens the memory; its change has not reached the laptop yet
  h = await device('b', NOW);
  await h.open(NOTE);
  await h.advance(3000);
  const phone = h.read(NOTE);
  expect([field(phone, 'access_count'), field(phone, 'tier'), field(phone, `uses_${PHONE}`), field(phone, 'counted_by')]).toEqual(['1', 'warm', '1', PHONE]);
  h.close();
  // the laptop opens it too, from the same synced state, ten minutes later
  h = await device('a', NOW + 10 * 60_000);
  await h.open(NOTE);
  await h.advance(3000);
  expect([field(h.read(NOTE), 'access_count'), field(h.read(NOTE), `uses_${LAPTOP}`)]).toEqual(['1', '1']);
  // Sync reaches the laptop: the note takes the phone's text, the laptop's goes to the conflict file
  const copy = await h.app.vault.syncConflict(`memory/${NOTE}`, phone, 'laptop', new Date(NOW + 11 * 60_000));
  expect(copy.path).toBe('memory/episodic/mem-ed7c49c755c3 (Conflicted copy laptop 202611291211).md');
  expect(h.read(NOTE)).toBe(phone);
  await h.advance(1000);
  expect(h.app.commands.executeCommandById('engram-memory:consolidate')).toBe(true);
  await h.until(() => !fs.existsSync(path.join(h!.dir, 'memory', copy.path.slice('memory/'.length))), 20_000);
  await h.advance(2000);
  const merged = h.read(NOTE);
  // both opens count: 0 + 1 + 1, each device's line kept, and the tier promoted once per open (cold, warm, active)
  expect(field(merged, 'access_count')).toBe('2');
  expect(field(merged, `uses_${PHONE}`)).toBe('1');
  expect(field(merged, `uses_${LAPTOP}`)).toBe('1');
  expect(field(merged, 'tier')).toBe('active');
  expect(field(merged, 'last_accessed_at')).toBe('"2026-11-29T12:10:00Z"');
  expect(h.plugin.index.get(ID).access_count).toBe(2);
  expect(merged).not.toContain('m-cccccccccccc'); // a stamp drawn for no place is not this device's
  expect([...h.plugin.index.copies.keys()]).toEqual([]);
});
