import { execFile } from 'node:child_process';
import { closeSync, ftruncateSync, futimesSync, openSync, readdirSync, readFileSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { NodeFileStore } from '../../headless/fs-files';
import { NodeLocks } from '../../headless/locks';
import { resolveSettings } from '../../src/core/settings';
import { useMemories } from '../../src/core/touch';
import { Vault } from '../../src/core/vault';
import { at } from '../helpers/memory-ports';
import { engram, initVault } from '../helpers/cli';
import { placeStamp } from '../../src/core/machine';
import { placeOf } from '../../headless/runtime';
import { mergeAllDuplicates } from '../../src/core/merge/sync-copies';

/**
 * A person's editor saves in place (truncate, then one or more writes) and takes none of our
 * locks. Reproductions of torn-save-truncates-body.sh, inplace-save-fails-touch.sh,
 * cas-window-loses-human-edit.sh and bom-breaks-consolidation.sh.
 */
const run = promisify(execFile);
const WORKER = path.join(__dirname, '..', 'helpers', 'writer-worker.js');

/** This clone's name, stamped on every counting write (src/core/machine.ts). */
const MACHINE = 'm-00000000000a';
const NOTE = (id: string, body: string) => `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-11-01T10:00:00Z"\n---\n${body}\n`;

async function worker(...args: string[]): Promise<{ ok: number; failed: number; errors: Record<string, number>; overwritten?: number }> {
  const { stdout } = await run(process.execPath, [WORKER, ...args]);
  return JSON.parse(stdout);
}

function fieldOf(text: string, field: string): string | undefined {
  return new RegExp(`^${field}: (.*)$`, 'm').exec(text)?.[1];
}

describe('a person saving a note while Engram writes it', () => {
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => {
    ({ vault, cleanup } = await initVault());
    writeFileSync(path.join(vault, '.engram', 'machine-id'), `${MACHINE} ${placeStamp(placeOf(vault))}\n`);
  });
  afterEach(() => cleanup());

  it('a save written in two pieces is never cut by a touch (torn-save-truncates-body.sh)', async () => {
    const file = path.join(vault, 'episodic', 'mem-tornsave0001.md');
    writeFileSync(file, NOTE('mem-tornsave0001', 'The full original body of this memory must never be cut.'));
    const [person, agent] = await Promise.all([worker('chunked', file, '40', 'EDIT', '4'), worker('touch', vault, 'mem-tornsave0001', '60')]);
    const text = readFileSync(file, 'utf8');
    const { overwritten, ...saves } = person;
    expect(saves).toEqual({ ok: 40, failed: 0, errors: {} });
    expect(agent).toEqual({ ok: 60, failed: 0, errors: {} });
    expect(text).toContain('---\nThe full original body of this memory must never be cut.\n');
    // every save is in the note, or (a save that went into the file a touch replaced, the person
    // having saved again since: see the conflict-copy test below) in Engram's conflict copy beside it
    const copies = readdirSync(path.dirname(file)).filter((n) => n.startsWith('mem-tornsave0001 (conflicted copy by Engram'));
    const edits = [text, ...copies.map((n) => readFileSync(path.join(path.dirname(file), n), 'utf8'))].flatMap((t) => t.match(/^EDIT-\d+$/gm) ?? []);
    expect([...new Set(edits)].sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)))).toEqual(Array.from({ length: 40 }, (_, i) => `EDIT-${i + 1}`));
    // every touch is in the note but those a save's stale copy overwrote (see writer-worker.js)
    expect(fieldOf(text, 'access_count')).toBe(String(60 - overwritten!));
    expect(readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 90_000);

  it('a touch during an in-place save waits for it instead of failing on the empty file (inplace-save-fails-touch.sh)', async () => {
    const file = path.join(vault, 'episodic', 'mem-inplace00001.md');
    writeFileSync(file, NOTE('mem-inplace00001', 'Body.'));
    const [person, agent] = await Promise.all([worker('human', file, '100', 'SAVE'), worker('touch', vault, 'mem-inplace00001', '100')]);
    const text = readFileSync(file, 'utf8');
    const { overwritten, ...saves } = person;
    expect(saves).toEqual({ ok: 100, failed: 0, errors: {} });
    expect(agent).toEqual({ ok: 100, failed: 0, errors: {} });
    expect(fieldOf(text, 'access_count')).toBe(String(100 - overwritten!));
    expect(text.match(/^SAVE-\d+$/gm)).toHaveLength(100);
  }, 90_000);

  /**
   * A truncate makes the file's new size (0) visible before its new times: a reader can see an
   * empty note that still carries the marks of the version before the save (here: written by
   * Engram 2 s ago, mtime != ctime; or a note last written an hour ago). The tests set that
   * state (truncate, then back-date the times), and `whileWaiting` completes the save where a
   * reader waits; a reader that believes the empty note fails on it, or loses the save.
   */
  const TOUCHED = (id: string, body: string) =>
    `---\nid: ${id}\ncategory: episodic\ncreated_at: "2026-11-01T10:00:00Z"\nactivation: 0.25\nactivation_at: "2026-11-05T00:00:00Z"\n` +
    `tier: active\naccess_count: 1\nlast_accessed_at: "2026-11-05T00:00:00Z"\nuses_${MACHINE}: 1\ncounted_by: ${MACHINE}\n---\n${body}\n`;
  const touchOnce = (files: NodeFileStore, id: string) =>
    useMemories(new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at('2026-11-05T00:00:00Z') }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined)), [id], {
      use: 'read',
      touch: true,
      coAccess: false,
    });
  /** A person's editor that has truncated `file` (the times still showing `shown` ms ago) and writes `text` when `write()` is called. */
  const savingInPlace = (file: string, text: string, shown: number) => {
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 0);
    const then = new Date(Date.now() - shown);
    futimesSync(fd, then, then);
    let open = true;
    return {
      write: () => {
        if (!open) return;
        writeSync(fd, text, 0);
        closeSync(fd);
        open = false;
      },
      get done() {
        return !open;
      },
    };
  };

  it('an empty note still showing the times of the version before the save is waited for, not read as the note', async () => {
    const file = path.join(vault, 'episodic', 'mem-stalestamp01.md');
    writeFileSync(file, NOTE('mem-stalestamp01', 'Body.'));
    const save = savingInPlace(file, NOTE('mem-stalestamp01', 'Body.\nSAVED while the touch read the note.'), 2_000);
    let waits = 0;
    const files = new NodeFileStore(vault, {
      whileWaiting: () => {
        waits++;
        save.write();
      },
    });
    const [result] = await touchOnce(files, 'mem-stalestamp01');
    expect(waits).toBeGreaterThan(0);
    expect(result!.access_count).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(TOUCHED('mem-stalestamp01', 'Body.\nSAVED while the touch read the note.'));
  });

  it('a save into the replaced file that shows it empty with hour-old times is still put back', async () => {
    const file = path.join(vault, 'episodic', 'mem-staleinode01.md');
    writeFileSync(file, NOTE('mem-staleinode01', 'Original body.'));
    const saved = NOTE('mem-staleinode01', 'Original body.\nSAVED into the file Engram was replacing.');
    let save: ReturnType<typeof savingInPlace> | null = null;
    const files = new NodeFileStore(vault, {
      // the person's editor opens the note and truncates it between our compare and our rename
      beforeRename: (full) => {
        if (full === file && !save) save = savingInPlace(file, saved, 3_600_000);
      },
      whileWaiting: () => save?.write(),
    });
    const [result] = await touchOnce(files, 'mem-staleinode01');
    const late = !save!.done;
    save!.write(); // a reader that did not wait: the save lands now, in the file it replaced
    expect(late).toBe(false);
    expect(result!.access_count).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(TOUCHED('mem-staleinode01', 'Original body.\nSAVED into the file Engram was replacing.'));
    expect(readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a save landing between the compare and the rename is kept, and the touch applied on top of it (cas-window-loses-human-edit.sh)', async () => {
    const file = path.join(vault, 'episodic', 'mem-caswindow001.md');
    writeFileSync(file, NOTE('mem-caswindow001', 'Original body.'));
    const saved = NOTE('mem-caswindow001', 'Original body.\nIMPORTANT human edit saved while engram was between its compare and its rename.');
    let saves = 0;
    const files = new NodeFileStore(vault, {
      beforeRename: (full) => {
        if (full !== file || saves++ > 0) return;
        const fd = openSync(full, 'w'); // the person's editor: truncate and write, in place
        writeSync(fd, saved);
        closeSync(fd);
      },
    });
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at('2026-11-05T00:00:00Z') }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const [result] = await useMemories(v, ['mem-caswindow001'], { use: 'read', touch: true, coAccess: false });
    const text = readFileSync(file, 'utf8');
    expect(saves).toBe(2);
    expect(result!.access_count).toBe(1);
    expect(text).toBe(
      '---\nid: mem-caswindow001\ncategory: episodic\ncreated_at: "2026-11-01T10:00:00Z"\nactivation: 0.25\nactivation_at: "2026-11-05T00:00:00Z"\n' +
        `tier: active\naccess_count: 1\nlast_accessed_at: "2026-11-05T00:00:00Z"\nuses_${MACHINE}: 1\ncounted_by: ${MACHINE}\n---\n` +
        'Original body.\nIMPORTANT human edit saved while engram was between its compare and its rename.\n',
    );
    expect(readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  /**
   * The interleaving behind torn-save-truncates-body.sh's "99 of 100" under load: the person
   * paused (more than 0.5 s: the note was quiet), the touch read the note stable, the person's
   * next save opened and truncated it before the touch's rename, finished in the replaced file,
   * and the person saved again on top of the touch's version (which lacked that save) before
   * the replaced file fell quiet. Putting the first save back would cut the second; it was
   * dropped, EDIT-2 lost. Driven by the hooks: `beforeRename` opens the save, `whileWaiting`
   * (the put-back waiting for the replaced file) completes it and makes the second save. Both
   * saves are back-dated so nothing waits for quiet.
   */
  it('a save into the replaced file is kept as a conflict copy when the person saved again on top of the touch meanwhile, and consolidation merges it', async () => {
    const id = 'mem-savedtwice01';
    const file = path.join(vault, 'episodic', `${id}.md`);
    writeFileSync(file, NOTE(id, 'Original body.\nEDIT-1'));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(file, old, old);
    /** A save in place: truncate and write `text` through `fd`, the times back-dated as if it had been quiet since. */
    const saveInto = (fd: number, text: string) => {
      ftruncateSync(fd, 0);
      writeSync(fd, text, 0);
      futimesSync(fd, old, old);
      closeSync(fd);
    };
    let first: number | null = null;
    let saves = 0;
    const files = new NodeFileStore(vault, {
      // the first save opens the note (the touch has compared it) and truncates it
      beforeRename: (full) => {
        if (full !== file || first !== null) return;
        first = openSync(file, 'r+');
        ftruncateSync(first, 0);
      },
      whileWaiting: () => {
        if (first === null || saves > 0) return;
        saves++;
        // the first save ends, in the file the touch replaced
        saveInto(first, NOTE(id, 'Original body.\nEDIT-1\nEDIT-2'));
        // the second: read from the path (the touch's version, without EDIT-2), appended, saved in place
        saveInto(openSync(file, 'r+'), readFileSync(file, 'utf8').replace(/\n?$/, '\nEDIT-3\n'));
      },
    });
    const v = new Vault({ files, locks: new NodeLocks(vault), clock: { now: () => at('2026-11-05T00:00:00Z') }, random: Math.random, tokens: { count: () => 0 } }, resolveSettings(undefined));
    const [result] = await useMemories(v, [id], { use: 'read', touch: true, coAccess: false });
    expect(saves).toBe(1);
    // the first save, whole, beside the note
    const copy = path.join(vault, 'episodic', `${id} (conflicted copy by Engram).md`);
    expect(readdirSync(path.dirname(file)).sort()).toEqual([`${id} (conflicted copy by Engram).md`, `${id}.md`]);
    expect(readFileSync(copy, 'utf8')).toBe(NOTE(id, 'Original body.\nEDIT-1\nEDIT-2'));
    // the touch counted once: its version stayed under the second save, so it is not applied again
    expect(result!.access_count).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(TOUCHED(id, 'Original body.\nEDIT-1\nEDIT-3'));

    const [merged] = await mergeAllDuplicates(v);
    expect(merged!.moved).toEqual([{ from: `episodic/${id} (conflicted copy by Engram).md`, to: `.engram/sync-copies/episodic/${id} (conflicted copy by Engram).md`, kind: 'a save Engram replaced' }]);
    expect(merged!.body_conflicts).toBe(1);
    // both saves in the note, the conflict named by both files, for the person to resolve
    expect(readFileSync(file, 'utf8')).toBe(
      TOUCHED(id, `Original body.\nEDIT-1\n<<<<<<< episodic/${id}.md\nEDIT-3\n=======\nEDIT-2\n>>>>>>> episodic/${id} (conflicted copy by Engram).md`),
    );
  });

  it('a note saved with a byte-order mark is touched and consolidated, and keeps its mark (bom-breaks-consolidation.sh)', async () => {
    const bom = path.join(vault, 'episodic', 'mem-bom000000001.md');
    writeFileSync(bom, `\uFEFF---\nid: mem-bom000000001\ncategory: episodic\ncreated_at: "2026-11-01T10:00:00Z"\ntier: active\n---\nSaved by Notepad with a BOM.\n`);
    for (let i = 1; i <= 3; i++) writeFileSync(path.join(vault, 'episodic', `mem-ok000000000${i}.md`), `---\nid: mem-ok000000000${i}\ncategory: episodic\ncreated_at: "2026-11-01T10:00:00Z"\ntier: active\n---\nOrdinary memory ${i}\n`);
    expect((await engram(vault, ['--now', '2026-11-02T00:00:00Z', 'touch', 'mem-bom000000001'])).code).toBe(0);
    const night = await engram(vault, ['--json', '--now', '2026-11-21T00:00:00Z', 'consolidate']);
    expect(night.code).toBe(0);
    const text = readFileSync(bom, 'utf8');
    expect(text.startsWith('\uFEFF---\nid: mem-bom000000001\n')).toBe(true);
    expect(fieldOf(text, 'access_count')).toBe('1');
    expect(fieldOf(text, 'tier')).toBe('warm');
    for (let i = 1; i <= 3; i++) expect(fieldOf(readFileSync(path.join(vault, 'episodic', `mem-ok000000000${i}.md`), 'utf8'), 'tier')).toBe('warm');
    expect(readdirSync(path.join(vault, '.engram'))).not.toContain('consolidation-plan.json');
  });
});
