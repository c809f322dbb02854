import { cpSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { placeStamp } from '../../src/core/machine';
import { placeOf } from '../../headless/runtime';
import { engram, initVault } from '../helpers/cli';

const T0 = '2026-11-20T10:00:00Z';
const stampOf = (file: string) => /\ncounted_by: (m-[0-9a-f]{12})\n/.exec(readFileSync(file, 'utf8'))?.[1];

describe('the machine stamp of a copied vault (issue 22)', () => {
  let dir: string;
  let vault: string;
  let cleanup: () => void;
  beforeEach(async () => ({ dir, vault, cleanup } = await initVault()));
  afterEach(() => cleanup());

  it('a vault copied with its .engram/ counts under its own stamp, and the original keeps its own', async () => {
    const { id, path: rel } = (await engram(vault, ['--json', '--now', T0, 'remember', 'The release train leaves on Tuesdays.'])).json();
    expect((await engram(vault, ['--now', '2026-11-21T10:00:00Z', 'touch', id])).code).toBe(0);
    const original = stampOf(path.join(vault, rel));
    expect(original).toMatch(/^m-[0-9a-f]{12}$/);
    const copy = path.join(dir, 'copy');
    cpSync(vault, copy, { recursive: true });
    expect((await engram(copy, ['--now', '2026-11-21T10:00:00Z', 'touch', id])).code).toBe(0);
    const copied = stampOf(path.join(copy, rel));
    expect(copied).toMatch(/^m-[0-9a-f]{12}$/);
    expect(copied).not.toBe(original);
    // the copy's file names both places; the original still counts under its first stamp
    expect(readFileSync(path.join(copy, '.engram', 'machine-id'), 'utf8')).toBe(`${original} ${placeStamp(placeOf(vault))}\n${copied} ${placeStamp(placeOf(copy))}\n`);
    expect((await engram(vault, ['--now', '2026-11-22T10:00:00Z', 'touch', id])).code).toBe(0);
    expect(stampOf(path.join(vault, rel))).toBe(original);
  });
});
