import { machineId, placeStamp } from '../../src/core/machine';
import { Vault } from '../../src/core/vault';
import { memoryVault } from '../helpers/memory-ports';

const T0 = '2026-11-01T10:00:00Z';
const FILE = '.engram/machine-id';

/** The same files opened again as another process would, from `place` (undefined: a shell that knows none). */
function reopen(vault: Vault, place: string | undefined): Vault {
  return new Vault({ ...vault.ports, place }, vault.settings);
}

describe('machine stamp (counted_by)', () => {
  it('is drawn once per place and kept there: the same process, or another at the same place, gets the same stamp', async () => {
    const { vault, files } = memoryVault(T0);
    const here = reopen(vault, 'laptop\n/home/ana/vault');
    const id = await machineId(here);
    expect(id).toMatch(/^m-[0-9a-f]{12}$/);
    expect(files.files.get(FILE)).toBe(`${id} ${placeStamp('laptop\n/home/ana/vault')}\n`);
    expect(await machineId(reopen(vault, 'laptop\n/home/ana/vault'))).toBe(id);
    expect(placeStamp('laptop\n/home/ana/vault')).toMatch(/^place-[0-9a-f]{16}$/);
    expect(files.files.get(FILE)).not.toContain('home');
  });

  it('a copy of .engram/ at another place (another machine, another path) draws its own stamp, and each place keeps its line (issue 22)', async () => {
    const { vault, files } = memoryVault(T0);
    const laptop = await machineId(reopen(vault, 'laptop\n/home/ana/vault'));
    const copied = await machineId(reopen(vault, 'desk\n/home/ana/vault'));
    const moved = await machineId(reopen(vault, 'laptop\n/home/ana/vault-copy'));
    expect(new Set([laptop, copied, moved]).size).toBe(3);
    expect(files.files.get(FILE)).toBe(
      `${laptop} ${placeStamp('laptop\n/home/ana/vault')}\n${copied} ${placeStamp('desk\n/home/ana/vault')}\n${moved} ${placeStamp('laptop\n/home/ana/vault-copy')}\n`,
    );
    // back at the first place: its own stamp again, nothing redrawn (the CLI and the plugin never take turns)
    expect(await machineId(reopen(vault, 'laptop\n/home/ana/vault'))).toBe(laptop);
    expect(files.files.get(FILE)!.split('\n')).toHaveLength(4);
  });

  it('a file from before places were kept is replaced at a known place; a shell that knows no place keeps the first stamp', async () => {
    const { vault, files } = memoryVault(T0);
    files.files.set(FILE, 'm-00000000000a\n');
    expect(await machineId(reopen(vault, undefined))).toBe('m-00000000000a');
    const drawn = await machineId(reopen(vault, 'laptop\n/v'));
    expect(drawn).not.toBe('m-00000000000a');
    expect(files.files.get(FILE)).toBe(`${drawn} ${placeStamp('laptop\n/v')}\n`);
  });

  it('remembers at most eight places, the latest', async () => {
    const { vault, files } = memoryVault(T0);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await machineId(reopen(vault, `host-${i}\n/v`)));
    const lines = files.files.get(FILE)!.trim().split('\n');
    expect(lines.map((l) => l.split(' ')[0])).toEqual(ids.slice(2));
  });
});
