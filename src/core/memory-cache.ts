import type { Memory } from './memory';
import type { FileStore, FileVersion } from './ports';
import type { EngramSettings } from './settings';
import type { Vault } from './vault';

/**
 * Consolidation's parse of the vault, kept in `.engram/cache/memories.jsonl`: a row per memory
 * file, trusted while the file has the size and mtime of its row (as the recall catalog, the
 * write index and the id index trust theirs). A night reads and parses only the files changed
 * since the last run; the rest of the plan's input (every field, the body, the id, the version
 * a move checks) comes from the rows. Reading and parsing all 10,000 files was about half of a
 * nightly consolidation.
 *
 * A row is made only from a file read whole as one quiet version (FileStore.readVersioned),
 * without a byte-order mark, whose memory a JSON round trip gives back exactly (the fields in
 * parseMemory's order; no -0, no infinity, no undefined, plain objects): what comes out of a
 * row is what parseMemory made of the file. A file whose size or mtime differs from its row is
 * read again; rows of files gone are dropped. One JSON line a row, written back as it was read
 * when its file did not change, and each memory a fresh object from its own line.
 *
 * A file of its own, not more fields in the other caches: those are read by every `recall`,
 * `remember` and `touch`, and a row here carries the whole memory, body included. Machine
 * data: deleting it costs one read of every memory file (what every run paid before).
 */
export const MEMORY_CACHE_PATH = '.engram/cache/memories.jsonl';

/**
 * The version of parseMemory's output the rows hold: a change to what parseMemory returns for a
 * text must change this number, or rows made by the old code would stand for the new one
 * (test/core/memory-cache.test.ts pins the parse of a sample to fail first).
 */
export const MEMORY_PARSE_VERSION = 1;
const FORMAT = 1;

/** A Memory's fields in parseMemory's order; `path` is the row's. */
const FIELDS = [
  'id', 'path', 'category', 'created_at', 'last_accessed_at', 'agent_role', 'confidence', 'tags', 'half_life_days',
  'access_count', 'is_error', 'tier', 'co_access', 'related_paths', 'amplitude', 'activation', 'activation_at',
  'content_hash', 'source', 'session', 'body', 'links', 'extra',
] as const satisfies ReadonlyArray<keyof Memory>;
/** [path, size, mtimeMs, version tag, frontmatter id (the id index's), then the memory's fields but `path`, in FIELDS order] */
const HEAD = 5;

/**
 * Rows changed (files read again, moved, gone) before the file is written again, at least, and
 * as a share of the rows (1/SAVE_SHARE): rewriting it costs about what reading a thousand
 * memory files does (ext4 writes a file replaced by rename at once), so a night that changed
 * a few hundred files leaves them to be read again by the next ones.
 */
export const SAVE_AFTER = 64;
const SAVE_SHARE = 8;

function header(settings: EngramSettings): string {
  // parseMemory reads the default half-lives; decodeNote the size limit
  return JSON.stringify({ format: FORMAT, parse: MEMORY_PARSE_VERSION, halfLifeDays: settings.halfLifeDays, maxFileBytes: settings.maxFileBytes });
}

/** A memory from its row: the memory, the version of the file it was parsed from, and its frontmatter id. */
export interface CachedMemory {
  memory: Memory;
  version: FileVersion;
  id: string | null;
}

/** A row kept (MemoryCache.keep) and not yet written: what it is made of. */
class Unwritten {
  constructor(
    readonly memory: Memory,
    readonly version: FileVersion,
    readonly id: string | null,
  ) {}
}

/** A row's values after its path: the version, the id, then the memory's fields but `path`, in FIELDS order. */
function rowOf(memory: Memory, version: FileVersion, id: string | null): unknown[] {
  const row: unknown[] = [version.size, version.mtimeMs, version.tag, id];
  for (const field of FIELDS) if (field !== 'path') row.push(memory[field]);
  return row;
}

/**
 * The memory of a row (HEAD values, then FIELDS but `path`), made as one object literal with
 * FIELDS' keys in their order: made a field at a time, each of the 10,000 memories of a night
 * was an object and a separate array of properties, grown as it filled, for every
 * young-generation collection to copy. The rows' round trip test pins the order.
 */
function memoryOf(path: string, r: unknown[]): Memory {
  return {
    id: r[5], path, category: r[6], created_at: r[7], last_accessed_at: r[8], agent_role: r[9], confidence: r[10], tags: r[11],
    half_life_days: r[12], access_count: r[13], is_error: r[14], tier: r[15], co_access: r[16], related_paths: r[17], amplitude: r[18],
    activation: r[19], activation_at: r[20], content_hash: r[21], source: r[22], session: r[23], body: r[24], links: r[25], extra: r[26],
  } as Memory;
}

/** A row's line begins with its path as a JSON string: what a load reads of each line before a file asks for it. */
const LINE_PATH = /^\["(?:[^"\\]|\\.)*",/;

export class MemoryCache {
  /**
   * The rows of the last load, by path: the files listed, each from its row or read again.
   * Each row is kept as its line after the path (`,` and the rest of the array), or for a file
   * read, as what its row is made of (made into that line when the file is written): a move
   * re-keys it, and the path is put back in front when the file is written.
   */
  private next = new Map<string, string | Unwritten>();
  /** Rows that differ from the file: read again, moved, dropped. */
  private changed = 0;
  /** How many files the last load took from their rows. */
  hits = 0;

  /** Each row's line by its path, parsed only when its file is listed (a row at a time: the rows are not all held parsed at once). */
  private constructor(private readonly lines: Map<string, string>) {}

  static async load(vault: Vault): Promise<MemoryCache> {
    const lines = new Map<string, string>();
    // a store that tells no versions (the plugin's) makes no rows and takes none
    if (!vault.ports.files.readVersioned) return new MemoryCache(lines);
    try {
      const bytes = await vault.ports.files.read(MEMORY_CACHE_PATH);
      const text = bytes ? new TextDecoder().decode(bytes) : '';
      const head = header(vault.settings);
      if (text.startsWith(`${head}\n`)) {
        for (let start = head.length + 1; start < text.length; ) {
          let end = text.indexOf('\n', start);
          if (end < 0) end = text.length;
          const line = text.slice(start, end);
          start = end + 1;
          const path = LINE_PATH.exec(line)?.[0];
          if (!path) continue; // a damaged line: its file is read
          try {
            lines.set(JSON.parse(path.slice(1, -1)) as string, line);
          } catch {
            // likewise
          }
        }
      }
    } catch {
      // a damaged cache: every file is read
    }
    return new MemoryCache(lines);
  }

  /** No rows to trust: the loader lists without stat'ing every file. */
  get empty(): boolean {
    return this.lines.size === 0;
  }

  /** A new listing begins (Vault.loadAll): rows are kept for the files it lists. */
  begin(): void {
    this.next = new Map();
    this.changed = 0;
    this.hits = 0;
  }

  /** The memory of the file at `path`, when its row has the size and mtime listed now. */
  get(path: string, size: number, mtimeMs: number): CachedMemory | null {
    const line = this.lines.get(path);
    if (line === undefined) return null;
    let row: unknown[];
    try {
      row = JSON.parse(line) as unknown[];
    } catch {
      return null;
    }
    if (!Array.isArray(row) || row.length !== HEAD + FIELDS.length - 1 || row[0] !== path || row[1] !== size || row[2] !== mtimeMs || typeof row[3] !== 'string') return null;
    const memory = memoryOf(path, row);
    // the line after its path (as JSON.stringify writes it, in the lines this class writes)
    const quoted = JSON.stringify(path);
    this.next.set(path, line.startsWith(`[${quoted},`) ? line.slice(quoted.length + 2) : JSON.stringify(row.slice(1)).slice(1));
    this.hits++;
    return { memory, version: { size, mtimeMs, tag: row[3] }, id: row[4] as string | null };
  }

  /** A file read whole as one version, parsed as `memory`: its row, when the memory survives JSON exactly. */
  keep(memory: Memory, version: FileVersion, id: string | null): void {
    this.changed++;
    const keys = Object.keys(memory);
    if (keys.length !== FIELDS.length || keys.some((k, i) => k !== FIELDS[i])) return void this.next.delete(memory.path);
    const row = rowOf(memory, version, id);
    if (!jsonExact(row, 0)) return void this.next.delete(memory.path);
    // its text is made by save: made here, it lived through the whole load, and the young
    // generation's collector copied each of them (8.8 MB at 10k) twice in a first
    // consolidation; the memory and its version live through the load anyway
    this.next.set(memory.path, new Unwritten(memory, version, id));
  }

  /** The file, in pieces: the header's line, then each row's (`[`, its path as JSON, the row after the path), each ending in a newline. */
  private *pieces(settings: EngramSettings): Generator<string> {
    yield `${header(settings)}\n`;
    for (const [path, tail] of this.next) {
      yield `[${JSON.stringify(path)},`;
      // the row after its path (no `[`: put back with the path above)
      yield typeof tail === 'string' ? tail : JSON.stringify(rowOf(tail.memory, tail.version, tail.id)).slice(1);
      yield '\n';
    }
  }

  /** A file moved (linked, then unlinked: the same version) by this process after the load. */
  moved(from: string, to: string): void {
    const tail = this.next.get(from);
    if (tail === undefined) return;
    this.next.delete(from);
    this.next.set(to, tail);
    this.changed++;
  }

  /**
   * Write the rows of the last load (with the moves since): when there was no cache, or enough
   * rows changed (SAVE_AFTER, or an eighth of them in a larger vault).
   */
  async save(vault: Vault): Promise<void> {
    if (!vault.ports.files.readVersioned) return;
    let dropped = 0; // rows of files gone (a file read again is counted once, as changed)
    for (const path of this.lines.keys()) if (!this.next.has(path)) dropped++;
    const none = this.lines.size === 0; // no file yet (or a damaged one, another format)
    if (!none && this.changed + dropped < Math.max(SAVE_AFTER, this.next.size / SAVE_SHARE)) return;
    if (none && this.next.size === 0) return;
    try {
      await vault.ports.files.mkdir('.engram/cache');
      const { files } = vault.ports;
      await writePieces(files, MEMORY_CACHE_PATH, this.pieces(vault.settings));
    } catch {
      // machine data: the next run reads the files again
    }
  }
}

/**
 * A cache file written as `pieces` of its text: encoded as they come where the store takes chunks
 * (FileStore.writeChunks: Node), joined where it does not (the plugin's store). The memory cache,
 * the catalog and the write index each joined their file into one string first (5-9 MB at 10k),
 * then encoded it: two or more fresh copies of the file for the kernel to fault in.
 */
export async function writePieces(files: FileStore, path: string, pieces: Iterable<string>): Promise<void> {
  if (files.writeChunks) await files.writeChunks(path, encodePieces(pieces));
  else await files.write(path, [...pieces].join(''));
}

/**
 * `pieces` (well-formed text: JSON.stringify's, a decoder's; a lone surrogate would be U+FFFD
 * even where the next piece completes it) as UTF-8, in views of one buffer reused from piece to piece (each
 * view is consumed before the next is made: FileStore.writeChunks); a piece larger than the
 * buffer is a view of its own. The memory cache's save: the rows joined as one string (8.8 MB
 * at 10k) and that string encoded were two fresh copies of the file, each a few thousand new
 * pages for the kernel to fault in (~25 us a page on this machine), then work for the GC.
 */
export function* encodePieces(pieces: Iterable<string>, size = ENCODE_CHUNK): Generator<Uint8Array> {
  const encoder = new TextEncoder();
  const buffer = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    let { read, written } = encoder.encodeInto(piece, buffer.subarray(at));
    if (read < piece.length) {
      // what did not fit (cut at a whole character): the buffer goes, then the rest of the piece
      const rest = piece.slice(read);
      if (at + written > 0) yield buffer.subarray(0, at + written);
      at = 0;
      ({ read, written } = encoder.encodeInto(rest, buffer));
      if (read < rest.length) {
        yield encoder.encode(rest);
        continue;
      }
    }
    at += written;
  }
  if (at > 0) yield buffer.subarray(0, at);
}

const ENCODE_CHUNK = 1 << 16;

/** Whether JSON gives `value` back exactly: finite numbers other than -0, strings, booleans, null, dense arrays, plain objects. */
function jsonExact(value: unknown, depth: number): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !jsonExact(value[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || !jsonExact((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
