/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TFile } from '../fakes/obsidian';
import { field, startPlugin, type Harness } from './harness';

/*
 * Opening an archived memory in Obsidian is a touch (SPEC §4): one tier up, and its file comes
 * back out of archive/ (through the file manager's rename, which keeps links resolving), so
 * recall and the next consolidation treat it as a memory in use again.
 */
const ID = 'mem-045ec1a2d6c2';
let h: Harness;

afterEach(() => h.close());

it('opening an archived note brings it back to its folder, one tier up', async () => {
  h = await startPlugin({
    // consolidation archived it while Obsidian was closed
    before: async (_dir, app) => {
      const note = app.vault.getAbstractFileByPath(`memory/episodic/${ID}.md`) as TFile;
      await app.vault.process(note, (text) => text.replace(/tier: \w+/, 'tier: archive'));
      await app.vault.createFolder('memory/archive');
      await app.fileManager.renameFile(note, `memory/archive/${ID}.md`);
    },
  });
  await h.open(`archive/${ID}.md`);
  await h.advance(2000);
  expect(fs.existsSync(path.join(h.dir, 'memory', 'archive', `${ID}.md`))).toBe(false);
  const text = h.read(`episodic/${ID}.md`);
  expect([field(text, 'tier'), field(text, 'access_count'), field(text, 'last_accessed_at')]).toEqual(['cold', '1', '"2026-11-29T12:00:00Z"']);
  expect(h.app.vault.getAbstractFileByPath(`memory/episodic/${ID}.md`)).not.toBeNull();
});
