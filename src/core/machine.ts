import { WriteConflictError } from './errors';
import { contentHash } from './ids';
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
 *
 * A copy of the folder, `.engram/` included (cp -r, a backup restored on a second machine, a
 * sync tool), would carry the stamp along and count as the same machine. So the file also
 * keeps, beside each stamp, a hash of the place it was drawn for (Ports.place: host name and
 * real path for the CLI, a token in the app's local storage for the plugin), and a process at a
 * place the file does not name draws its own stamp (issue 22).
 */
export const COUNTED_BY = 'counted_by';

const MACHINE_ID_FILE = `${LAYOUT.machine}/machine-id`;
const known = new WeakMap<Vault, string>();

/** What `.engram/machine-id` keeps of the place it was drawn for: a hash, so no host name or path is written. */
export function placeStamp(place: string): string {
  return `place-${contentHash(`engram place\n${place}`)}`;
}

/** The stamps a machine-id file holds, one a line: each with the place it was drawn for (null: a file from before places were kept). */
function parseMachineFile(text: string): Array<{ id: string; place: string | null }> {
  const lines: Array<{ id: string; place: string | null }> = [];
  for (const line of text.split('\n')) {
    const m = /^(m-[0-9a-f]{12})(?:[ \t]+(place-[0-9a-f]{16}))?[ \t]*$/.exec(line.trim());
    if (m) lines.push({ id: m[1]!, place: m[2] ?? null });
  }
  return lines;
}

/** How many places one machine-id file remembers (the CLI and the plugin are two; a vault moved often, more). */
const PLACES_KEPT = 8;

/**
 * This clone's stamp: the one drawn for this place. `.engram/` copied with the folder to another
 * machine or path (or synced by a file-sync tool) arrives with stamps drawn for other places,
 * so a new one is drawn and added: two copies never count under one name. Each place keeps its
 * line, so the CLI and the plugin of one machine (two places) never take turns redrawing, and
 * replays at one place stay byte-exact.
 */
export async function machineId(vault: Vault): Promise<string> {
  const cached = known.get(vault);
  if (cached) return cached;
  const { files } = vault.ports;
  const place = vault.ports.place === undefined ? null : placeStamp(vault.ports.place);
  const readFile = async () => {
    const bytes = await files.read(MACHINE_ID_FILE);
    return bytes ? new TextDecoder().decode(bytes) : null;
  };
  let id: string | null = null;
  for (let attempt = 0; attempt < 5 && !id; attempt++) {
    const text = await readFile();
    const stamps = text === null ? [] : parseMachineFile(text);
    const mine = place === null ? stamps[0] : stamps.find((s) => s.place === place);
    if (mine) {
      id = mine.id;
      break;
    }
    const drawn = `m-${Array.from({ length: 12 }, () => Math.floor(vault.ports.random() * 16).toString(16)).join('')}`;
    const kept = stamps.filter((s) => s.place !== null).slice(-(PLACES_KEPT - 1));
    const lines = [...kept.map((s) => `${s.id} ${s.place}`), place ? `${drawn} ${place}` : drawn];
    try {
      await files.write(MACHINE_ID_FILE, `${lines.join('\n')}\n`, { expect: text });
      id = drawn;
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      // another process wrote first: read again
    }
  }
  if (!id) throw new WriteConflictError(MACHINE_ID_FILE);
  known.set(vault, id);
  return id;
}

/**
 * Uses counted on each device, one property per device: `uses_m-<12 hex>: N`, the number of
 * times this device (its machine stamp, above) added 1 to `access_count` (issue 21). A device
 * only ever raises its own line, so two copies of one memory that diverged (a sync tool's
 * conflict file: Obsidian Sync, Syncthing, Dropbox) say which uses each side added since their
 * common state: the merge adds them (merge/fields.ts) instead of keeping the larger count. One
 * line per device, never a nested mapping: two devices adding their own line at the same place
 * produce two distinct keys, never a duplicated key that would make the frontmatter unreadable.
 */
export const USES_PREFIX = 'uses_';
const USES_KEY = /^uses_m-[0-9a-f]{12}$/;

export function usesKey(machine: string): string {
  return `${USES_PREFIX}${machine}`;
}

export function isUsesKey(key: string): boolean {
  return USES_KEY.test(key);
}

/** The per-device use counts in a memory's frontmatter fields (malformed values are skipped). */
export function deviceUses(fields: Record<string, unknown>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of Object.entries(fields)) {
    if (isUsesKey(key) && typeof value === 'number' && Number.isInteger(value) && value >= 0) out.set(key, value);
  }
  return out;
}
