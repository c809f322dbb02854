import { remember } from '../../src/core/remember';
import { examineVault } from '../../src/core/doctor';
import { contentHash } from '../../src/core/ids';
import { readFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { changeBody, deleteHistory, editText, memoryHistory, removeLinks, replaceText, revertTo, splitLinkBlock } from '../../src/core/versions';
import { at, memoryVault } from '../helpers/memory-ports';

const T0 = '2026-11-01T10:00:00Z';

async function setup() {
  const { vault, files, clock } = memoryVault(T0);
  const { id, path } = await remember(vault, { text: 'Retries use exponential backoff from 200 ms.' });
  const { id: other } = await remember(vault, { text: 'Deploys happen on Tuesdays after the standup.' });
  files.files.set(path, `${files.files.get(path)!.replace(/\n$/, '')}\n\n[[${other}|related]] [[${other}|supersedes]]\n`);
  return { vault, files, clock, id, path, other };
}

describe('versions', () => {
  it('a memory never changed through Engram has one version: its current body', async () => {
    const { vault, id } = await setup();
    const history = await memoryHistory(vault, id);
    expect(history).toHaveLength(1);
    // the link line was added by hand after creation: content_hash no longer matches
    expect(history[0]).toMatchObject({ n: 1, reason: 'changed outside Engram', recorded: false });
  });

  it('edit records the old and the new body, keeps the link line, and sets content_hash', async () => {
    const { vault, files, clock, id, path, other } = await setup();
    const original = (await memoryHistory(vault, id))[0]!.body;
    clock.ms = at('2026-11-02T09:00:00Z');
    const result = await editText(vault, id, 'Retries use exponential backoff from 500 ms, capped at 30 s.', { reason: 'edit', by: 'cli' });
    expect(result).toEqual({ id, path, version: 2, changed: true });
    const text = files.files.get(path)!;
    expect(text.endsWith(`---\nRetries use exponential backoff from 500 ms, capped at 30 s.\n\n[[${other}|related]] [[${other}|supersedes]]\n`)).toBe(true);
    expect(text).toContain('content_hash: "');
    const history = await memoryHistory(vault, id);
    expect(history.map((v) => [v.n, v.reason, v.by, v.recorded, v.at])).toEqual([
      [1, 'changed outside Engram', null, true, '1970-01-01T00:00:00Z'],
      [2, 'edit', 'cli', true, '2026-11-02T09:00:00Z'],
    ]);
    expect(history[0]!.body).toBe(original);
    // the same text again changes nothing
    expect(await editText(vault, id, 'Retries use exponential backoff from 500 ms, capped at 30 s.')).toEqual({ id, path, version: 2, changed: false });
  });

  it("changeBody's fields are written with the body and its content_hash, in the same write", async () => {
    const { vault, files, id, path } = await setup();
    let writes = 0;
    const write = files.write.bind(files);
    files.write = async (...args: Parameters<typeof files.write>) => {
      if (args[0] === path) writes++;
      return write(...args);
    };
    const body = 'Retries use exponential backoff from 800 ms.\n';
    const result = await changeBody(vault, id, () => body, { reason: 'review', by: 'review' }, () => ({ validation: 'applied by review', flagged: false }));
    expect(result).toEqual({ id, path, version: 2, changed: true });
    expect(writes).toBe(1);
    const fields = readFrontmatter(splitFrontmatter(files.files.get(path)!)!.yaml) as Record<string, unknown>;
    expect([fields.content_hash, fields.validation, fields.flagged]).toEqual([contentHash(body), 'applied by review', false]);
    // without fields: content_hash alone follows the body
    const next = 'Retries use exponential backoff from 900 ms.\n';
    await changeBody(vault, id, () => next, { reason: 'edit', by: 'cli' });
    const after = readFrontmatter(splitFrontmatter(files.files.get(path)!)!.yaml) as Record<string, unknown>;
    expect([after.content_hash, after.validation, after.flagged]).toEqual([contentHash(next), 'applied by review', false]);
  });

  it('revert restores the exact bytes of a version as a new version; the history only grows', async () => {
    const { vault, files, id, path } = await setup();
    const v1 = files.files.get(path)!.split('---\n')[2]!;
    await editText(vault, id, 'Second text.');
    await editText(vault, id, 'Third text.');
    const reverted = await revertTo(vault, id, 1);
    expect(reverted).toEqual({ id, path, version: 4, changed: true, reverted_to: 1, dropped_links: [] });
    expect(files.files.get(path)!.split('---\n')[2]).toBe(v1);
    const history = await memoryHistory(vault, id);
    expect(history.map((v) => v.reason)).toEqual(['changed outside Engram', 'edit', 'edit', 'revert to 1']);
    expect(history[3]!.body).toBe(v1);
    await expect(revertTo(vault, id, 9)).rejects.toThrow(`revert: ${id} has versions 1 to 4, not 9`);
  });

  it('records a body changed outside Engram before changing it again: no text is lost', async () => {
    const { vault, files, id, path } = await setup();
    await editText(vault, id, 'Edited by the runner.');
    files.files.set(path, files.files.get(path)!.replace('Edited by the runner.', 'Edited in Obsidian by a person.'));
    const before = await memoryHistory(vault, id);
    expect(before.map((v) => [v.n, v.reason, v.recorded])).toEqual([[1, 'changed outside Engram', true], [2, 'edit', true], [3, 'changed outside Engram', false]]);
    await editText(vault, id, 'Edited by the runner again.');
    const after = await memoryHistory(vault, id);
    expect(after.map((v) => [v.n, v.recorded])).toEqual([[1, true], [2, true], [3, true], [4, true]]);
    expect(after[2]!.body.startsWith('Edited in Obsidian by a person.\n')).toBe(true);
  });

  it('a memory written by remember and untouched since starts with a "created" version', async () => {
    const { vault } = memoryVault(T0);
    const { id } = await remember(vault, { text: 'A fresh memory.' });
    expect((await memoryHistory(vault, id)).map((v) => [v.n, v.reason, v.at, v.recorded])).toEqual([[1, 'created', T0, false]]);
  });

  it('refuses a body over the file size limit, writing nothing', async () => {
    const { vault, files, id, path } = await setup();
    const before = files.files.get(path);
    await expect(editText(vault, id, 'x'.repeat(300_000))).rejects.toThrow("text: 300000 bytes, over the 253952-byte limit for a memory's text (a memory file holds at most 262144 bytes)");
    // changeBody checks the whole file
    await expect(changeBody(vault, id, () => 'x'.repeat(262_000), { reason: 'edit' })).rejects.toThrow("the memory would be 262404 bytes, over the 262144-byte limit of a memory file (maxFileBytes): nothing written");
    expect(files.files.get(path)).toBe(before);
    expect([...files.files.keys()].filter((p) => p.startsWith('.engram/versions/'))).toEqual([]);
  });

  it('retries from a fresh read when another writer changed the file between read and write', async () => {
    const { vault, files, id, path } = await setup();
    const write = files.write.bind(files);
    let interfered = false;
    files.write = async (p, data, options) => {
      if (p === path && !interfered) {
        interfered = true;
        files.files.set(path, files.files.get(path)!.replace('access_count: 0', 'access_count: 7'));
      }
      return write(p, data, options);
    };
    await changeBody(vault, id, (m) => replaceText(m.body, 'Changed.'), { reason: 'edit' });
    expect(files.files.get(path)).toContain('access_count: 7\n');
    expect(files.files.get(path)).toContain('---\nChanged.\n');
  });

  it('a damaged version record keeps its place, is named with its path, and is never reused (issue 22, finding 13)', async () => {
    const { vault, files, clock, id } = await setup();
    clock.ms = at('2026-11-02T09:00:00Z');
    await editText(vault, id, 'Second text.');
    clock.ms = at('2026-11-03T09:00:00Z');
    await editText(vault, id, 'Third text.');
    const names = [...files.files.keys()].filter((p) => p.startsWith(`.engram/versions/${id}/`)).sort();
    expect(names).toHaveLength(3);
    const second = names[1]!;
    files.files.set(second, '{"format":1,"id":"' + id + '","seq":2,"bo');
    const history = await memoryHistory(vault, id);
    expect(history.map((v) => [v.n, v.reason, v.body.slice(0, 12), v.damaged ?? null])).toEqual([
      [1, 'changed outside Engram', 'Retries use ', null],
      [2, 'damaged record', '', `${second}: it is not valid JSON (cut short, or edited by hand)`],
      [3, 'edit', 'Third text.\n', null],
    ]);
    await expect(revertTo(vault, id, 2)).rejects.toThrow(`${second}: version 2 of ${id} cannot be read: it is not valid JSON (cut short, or edited by hand)`);
    expect((await revertTo(vault, id, 1)).version).toBe(4);
    // nothing was rewritten or removed, and sequence numbers run on
    expect(files.files.get(second)).toBe('{"format":1,"id":"' + id + '","seq":2,"bo');
    expect([...files.files.keys()].filter((p) => p.startsWith(`.engram/versions/${id}/`)).sort().map((p) => p.split('/').pop()!.slice(0, 6))).toEqual(['000001', '000002', '000003', '000004']);
    const findings = await examineVault(vault, { fix: false });
    expect(findings.filter((f) => f.check === 'damaged-version')).toEqual([
      {
        check: 'damaged-version',
        path: second,
        problem: `a version of ${id} cannot be read: it is not valid JSON (cut short, or edited by hand); engram history ${id} shows it in its place (restore the file from a backup or another clone)`,
      },
    ]);
  });

  it('when the last record is damaged, the next change records the current text first under a new number: nothing is lost', async () => {
    const { vault, files, id, path } = await setup();
    await editText(vault, id, 'Second text.');
    const names = [...files.files.keys()].filter((p) => p.startsWith(`.engram/versions/${id}/`)).sort();
    const last = names[1]!;
    files.files.set(last, JSON.stringify({ format: 1, id, seq: 2, at: 'x', hash: 'y', reason: 'edit', by: null, body: 42 }));
    await editText(vault, id, 'Third text.');
    const history = await memoryHistory(vault, id);
    expect(history.map((v) => [v.n, v.reason, v.body.split('\n')[0], v.damaged ?? null])).toEqual([
      [1, 'changed outside Engram', 'Retries use exponential backoff from 200 ms.', null],
      [2, 'damaged record', '', `${last}: body is not a string`],
      [3, 'changed outside Engram', 'Second text.', null],
      [4, 'edit', 'Third text.', null],
    ]);
    expect(files.files.get(path)!.endsWith('---\nThird text.\n\n' + files.files.get(path)!.split('Third text.\n\n')[1])).toBe(true);
  });

  it('deleteHistory removes every recorded version', async () => {
    const { vault, files, id } = await setup();
    await editText(vault, id, 'Two.');
    expect(await deleteHistory(vault, id)).toBe(2);
    expect([...files.files.keys()].filter((p) => p.startsWith(`.engram/versions/${id}/`))).toEqual([]);
  });

  it('splits the link block and removes links to given ids', () => {
    expect(splitLinkBlock('Text line.\n\n[[mem-aaaaaaaaaaaa|related]] [[mem-bbbbbbbbbbbb|supersedes]]\n')).toEqual({
      text: 'Text line.',
      links: '[[mem-aaaaaaaaaaaa|related]] [[mem-bbbbbbbbbbbb|supersedes]]',
    });
    expect(splitLinkBlock('Only text with [[mem-aaaaaaaaaaaa|a label]].\n')).toEqual({ text: 'Only text with [[mem-aaaaaaaaaaaa|a label]].', links: '' });
    const ids = new Set(['mem-aaaaaaaaaaaa']);
    expect(removeLinks('See [[mem-aaaaaaaaaaaa|the retry decision]] and [[mem-aaaaaaaaaaaa]].\n\n[[mem-aaaaaaaaaaaa|related]] [[mem-bbbbbbbbbbbb|related]]\n', ids)).toBe(
      'See the retry decision and.\n\n[[mem-bbbbbbbbbbbb|related]]\n',
    );
    expect(removeLinks('Text.\n\n[[mem-aaaaaaaaaaaa|related]]\n', ids)).toBe('Text.\n');
  });
});
