import { WriteConflictError } from './errors';
import { LAYOUT, type Vault } from './vault';

/**
 * This clone's name among the machines sharing a vault through git: `m-` and 12 hex digits,
 * drawn once and kept in `.engram/machine-id` (machine data: never committed, so every clone
 * draws its own).
 *
 * Every write that counts a use (a touch, a citation, a reinforcement, a co-access link, a
 * spread boost) writes it as `counted_by`. Two clones that count the same use from the same
 * state at the same instant (a replay, a pinned clock) would otherwise write byte-identical
 * files, which git merges without calling the merge driver: one of the two uses was lost. With
 * the stamp the files differ, git calls the driver, and the driver adds both increments.
 */
export const COUNTED_BY = 'counted_by';

const MACHINE_ID_FILE = `${LAYOUT.machine}/machine-id`;
const known = new WeakMap<Vault, string>();

export async function machineId(vault: Vault): Promise<string> {
  const cached = known.get(vault);
  if (cached) return cached;
  const { files } = vault.ports;
  const read = async () => {
    const bytes = await files.read(MACHINE_ID_FILE);
    const text = bytes ? new TextDecoder().decode(bytes).trim() : '';
    return /^m-[0-9a-f]{12}$/.test(text) ? text : null;
  };
  let id = await read();
  if (!id) {
    const drawn = `m-${Array.from({ length: 12 }, () => Math.floor(vault.ports.random() * 16).toString(16)).join('')}`;
    try {
      await files.write(MACHINE_ID_FILE, `${drawn}\n`, { expect: null });
      id = drawn;
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      id = (await read()) ?? drawn; // another process drew first: its id
    }
  }
  known.set(vault, id);
  return id;
}
