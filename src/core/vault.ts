import { MemoryParseError, NotFoundError, WriteConflictError } from './errors';
import { setFrontmatterFields, splitFrontmatter, type FieldValue } from './frontmatter';
import { assertMemoryId, isMemoryId, safeRelativePath } from './ids';
import { CATEGORY_FOLDERS, decodeNote, parseMemory, type Memory } from './memory';
import { compareMemoryPaths, foldersUnder, frontmatterId, IdIndex, listMemoryPaths, MEMORY_ROOTS, preferredPath, scanMemoryFiles } from './memory-files';
import type { MemoryCache } from './memory-cache';
import type { FileStat, FileStore, FileVersion, Ports } from './ports';
import type { EngramSettings } from './settings';

/** Folders and files of a memory folder (SPEC §1). */
export const LAYOUT = {
  folders: ['episodic', 'semantic', 'decisions', 'daily', 'conflicts', 'archive', '.engram', '.engram/locks'],
  state: 'STATE.md',
  daily: 'daily',
  conflicts: 'conflicts',
  machine: '.engram',
  config: '.engram/config.json',
  version: '.engram/version',
  meta: '.engram/meta.json',
  runs: '.engram/runs.jsonl',
  /** Forgotten memories (engram forget), by their folder: out of recall, back with forget --undo. */
  forgotten: '.engram/forgotten',
  /** The versions of memories' texts (engram history), a folder for each memory edited. */
  versions: '.engram/versions',
  gitignore: '.engram/.gitignore',
} as const;

/**
 * `.engram/.gitignore`, written by init: a vault kept in a project repository commits its notes,
 * its format and settings, the versions of its texts and its forgotten memories, never the
 * machine data that each clone rebuilds (caches, locks, vectors, models, run logs).
 */
export const MACHINE_GITIGNORE = `# Engram machine data: caches, locks, vectors, models and run logs are per clone and rebuilt
# from the notes. Committed: the vault's format and settings, the versions of memories' texts
# (engram history) and forgotten memories (engram forget --undo).
/*
!/.gitignore
!/version
!/meta.json
!/config.json
!/versions/
!/forgotten/
`;

export const FORMAT_VERSION = 1;

/** The folders holding memory files (at any depth), searched in this order. */
export const MEMORY_FOLDERS = MEMORY_ROOTS;

/**
 * The folders where a writer killed mid-write may leave its temp file (`.NAME.PID.N.tmp`, the
 * file port's): the memory folders, daily/, conflicts/, the machine folders (.engram, its locks,
 * its caches: a recall killed while it wrote catalog.json leaves megabytes there) and the vault's
 * own ('.', beside STATE.md). A consolidation sweeps them; doctor reports and fixes the same.
 */
export const TEMP_FOLDERS: readonly string[] = [...new Set([...MEMORY_FOLDERS, ...LAYOUT.folders, '.engram/cache', '.'])];

/**
 * Where such temp files are at any depth: the memory folders (a person files notes in
 * sub-folders, archive/ keeps them), daily/ and conflicts/ (sub-folders a person makes),
 * review/ (proposals rewritten in place), the versions of texts (`.engram/versions/<id>/`,
 * committed to git with the vault, so a temp file left there is committed by the next `git add`),
 * forgotten memories (`.engram/forgotten/<folder>/`), and the copies a merge keeps
 * (`.engram/merged`, `.engram/sync-copies`: review.ts', same-text.ts' and sync-copies.ts' folders,
 * named here as they name them, which test/core/temp-folders.test.ts checks).
 */
export const TEMP_TREES: readonly string[] = [...MEMORY_FOLDERS, LAYOUT.daily, LAYOUT.conflicts, 'review', LAYOUT.versions, LAYOUT.forgotten, '.engram/merged', '.engram/sync-copies'];

/**
 * Every folder a sweep of temp files looks in: TEMP_FOLDERS, then each folder under TEMP_TREES
 * (hidden ones skipped, as the memory folders' walk skips them). `listed`: the folders a load
 * walked already (LoadedVault.hidden), whose sub-folders are not listed again.
 */
export async function tempFolders(files: FileStore, listed?: ReadonlyMap<string, unknown>): Promise<string[]> {
  return [...new Set([...TEMP_FOLDERS, ...(await foldersUnder(files, TEMP_TREES, listed))])];
}

export interface VaultOptions {
  /**
   * Where the caller believes a memory is (the plugin's index of the vault); checked against
   * the file's frontmatter before it is believed, the id index searched otherwise.
   */
  locator?: (id: string) => string | null;
  /** Shared between the views of one vault (Vault.at). */
  index?: IdIndex;
}

export interface LoadedVault {
  memories: Memory[];
  /** Files in memory folders that could not be read as memories: reported, never rewritten. */
  problems: MemoryParseError[];
  /** Ids held by two files (a copy, a move cut short): `kept` is the one `locate` finds. */
  duplicates: Array<{ id: string; kept: string; other: string }>;
  /** With `keep`: every path listed under the memory folders (memories and problems alike), in listing order. */
  paths?: string[];
  /**
   * With `keep`: each memory's text exactly as read (null: taken from its row in the memory
   * cache, not read), and the version of the file it came from (null: unknown), by path.
   */
  read?: Map<string, ReadNote>;
  /** With `keep`, when every file listed was read whole: every id with the files holding it, as idPaths() would say. */
  ids?: Map<string, string[]>;
  /**
   * With `keep` and a store's `scan`: each memory folder's names that start with '.', from the
   * listing the load read (scanMemoryFiles' `hidden`), for FileStore.sweepTemp.
   */
  hidden?: Map<string, string[]>;
}

/** A memory file's text as loadAll read it, and the version of the file (FileStore.readVersioned) it was read from. */
export interface ReadNote {
  text: string | null;
  version: FileVersion | null;
}

/** A note createFile wrote: the memory read back from its text (in a memory folder), and the file's size and mtime when the store tells them. */
export interface CreatedFile {
  memory: Memory | null;
  stat: FileStat | null;
}

/**
 * A memory file a metadata write made, as a read of it would give it back (the memory
 * parseMemory makes of the text written, the file's version and frontmatter id): what the
 * memory cache keeps, so that the next consolidation need not read the file it wrote. Only
 * from a store that tells versions.
 */
export interface WrittenMemory {
  memory: Memory;
  version: FileVersion;
  id: string | null;
}

function writtenMemory(path: string, text: string, written: FileStat | FileVersion | void, memory: Memory | null, settings: EngramSettings): WrittenMemory | null {
  if (!written || !('tag' in written) || text.charCodeAt(0) === 0xfeff) return null;
  try {
    return { memory: memory ?? parseMemory(path, text, settings), version: written, id: frontmatterId(text) };
  } catch {
    return null; // read again by the next run, which reports it
  }
}

/** A change to a memory's frontmatter, computed from its current state; null: nothing to write. */
export type MemoryChange = (memory: Memory) => Record<string, FieldValue> | null;

const MAX_WRITE_ATTEMPTS = 20;
const READ_CONCURRENCY = 64;

/**
 * The vault as the core sees it: memory files reached through the file port, metadata
 * updates serialised per memory by the lock port and guarded by compare-and-swap.
 */
export class Vault {
  private readonly index: IdIndex;

  constructor(
    readonly ports: Ports,
    readonly settings: EngramSettings,
    private readonly options: VaultOptions = {},
  ) {
    this.index = options.index ?? new IdIndex(ports.files);
  }

  now(): number {
    return this.ports.clock.now();
  }

  /** The same vault seen at another moment (a touch recorded for the time it happened). */
  at(time: number): Vault {
    return new Vault({ ...this.ports, clock: { now: () => time } }, this.settings, { ...this.options, index: this.index });
  }

  /**
   * The same vault with a hint of where memories are (a caller that read the memory folders,
   * such as the write index): `locate` tries the hinted file first, believed only when its
   * frontmatter holds the id, and searches the id index otherwise (VaultOptions.locator).
   */
  withLocator(locator: (id: string) => string | null): Vault {
    const outer = this.options.locator;
    return new Vault(this.ports, this.settings, { ...this.options, index: this.index, locator: outer ? (id) => locator(id) ?? outer(id) : locator });
  }

  /**
   * Create the layout (idempotent). With `obsidianConfigDir`, the memory folder is its own
   * vault: add Obsidian's config folder with tier colour groups. Returns the paths created.
   */
  async init(options: { obsidianConfigDir: string | null }): Promise<string[]> {
    const { files } = this.ports;
    const created: string[] = [];
    for (const folder of LAYOUT.folders) {
      if (!(await files.stat(folder))) created.push(`${folder}/`);
      await files.mkdir(folder);
    }
    const seed: Array<[string, string]> = [
      [LAYOUT.state, STATE_TEMPLATE],
      [LAYOUT.version, `${FORMAT_VERSION}\n`],
      [LAYOUT.meta, `${JSON.stringify({ format: FORMAT_VERSION, created_at: new Date(this.now()).toISOString() }, null, 2)}\n`],
      [LAYOUT.gitignore, MACHINE_GITIGNORE],
    ];
    if (options.obsidianConfigDir) {
      await files.mkdir(options.obsidianConfigDir);
      seed.push([`${options.obsidianConfigDir}/graph.json`, `${JSON.stringify(OBSIDIAN_GRAPH, null, 2)}\n`]);
    }
    for (const [path, text] of seed) {
      if (await files.stat(path)) continue;
      try {
        await files.write(path, text, { expect: null });
        created.push(path);
      } catch (error) {
        if (!(error instanceof WriteConflictError)) throw error;
      }
    }
    return created;
  }

  /**
   * The path of the file holding a memory, by the id in its frontmatter, wherever a person put
   * it under the memory folders and whatever they named it (ADR 0005). With several files
   * holding the id (copies not merged yet), the one `preferredPath` picks.
   */
  async locate(id: string): Promise<string | null> {
    assertMemoryId(id);
    const hint = this.options.locator?.(id);
    if (hint && (await this.holds(hint, id))) return hint;
    return this.index.find(id);
  }

  /** Whether the file at `path` holds the memory `id`. */
  private async holds(path: string, id: string): Promise<boolean> {
    const bytes = await this.ports.files.read(path).catch(() => null);
    return bytes !== null && frontmatterId(new TextDecoder().decode(bytes)) === id;
  }

  /**
   * Move a memory's file (fails when `to` exists) and tell the id index, so that it need not read
   * the file again to find the memory there (`known`: the file's size and mtime as the caller
   * checked them under the memory's lock just before). `saveIndex` writes what the index learned.
   */
  async moveMemoryFile(from: string, to: string, known?: FileStat): Promise<void> {
    await this.ports.files.move(from, to);
    await this.index.moved(from, to, known);
  }

  /**
   * moveMemoryFile with new content (FileStore.moveRewriting; consolidation archives a memory and
   * writes its tier in one step): `known` is the version the caller read `text` from. Null: not
   * done (a store without it, or the file changed since); otherwise the memory as written
   * (null when it cannot be kept as a memory-cache row). The id index's row follows as in
   * moveMemoryFile. `memory`: what parseMemory makes of `text` at `to`, when the caller knows it
   * (otherwise `text` is parsed).
   */
  async moveMemoryRewriting(from: string, to: string, known: FileVersion, text: string, memory: Memory | null = null): Promise<{ written: WrittenMemory | null } | null> {
    const files = this.ports.files;
    if (!files.moveRewriting) return null;
    const version = await files.moveRewriting(from, to, known.tag, text);
    if (version === null) return null;
    await this.index.moved(from, to, known);
    return { written: writtenMemory(to, text, version, memory, this.settings) };
  }

  async saveIndex(): Promise<void> {
    await this.index.saveMoves();
  }

  /** Every id with the files holding it (fresh from the disk). */
  async idPaths(): Promise<Map<string, string[]>> {
    return this.index.all();
  }

  /** A memory by id or vault-relative path. Throws NotFoundError or MemoryParseError. */
  async resolve(ref: string): Promise<Memory> {
    const path = isMemoryId(ref) ? await this.locate(ref) : safeRelativePath(ref);
    if (!path) throw new NotFoundError(`no memory with id ${ref}${(await this.isForgotten(ref)) ? ` (it was forgotten: engram forget --undo ${ref} brings it back)` : ''}`);
    const loaded = await this.read(path);
    if (!loaded) throw new NotFoundError(`no memory at ${path}`);
    return loaded.memory;
  }

  /** Whether a memory with this id waits among the forgotten ones. */
  async isForgotten(id: string): Promise<boolean> {
    return (await this.forgottenPath(id)) !== null;
  }

  /** The file of a forgotten memory (`.engram/forgotten/<where it was>`), by its id. */
  async forgottenPath(id: string): Promise<string | null> {
    const roots = MEMORY_FOLDERS.map((folder) => `${LAYOUT.forgotten}/${folder}`);
    for (const path of await listMemoryPaths(this.ports.files, roots)) {
      const text = await this.readText(path).catch(() => null);
      if (text !== null && frontmatterId(text) === id) return path;
    }
    return null;
  }

  /**
   * Read and parse one memory file; null when it does not exist. `stable` waits out a save in
   * progress by another program (see FileStore.read): every read that leads to a rewrite is.
   */
  async read(path: string, options: { stable?: boolean } = {}): Promise<{ memory: Memory; text: string } | null> {
    const bytes = await this.ports.files.read(path, options);
    if (!bytes) return null;
    const text = decodeNote(path, bytes, this.settings.maxFileBytes);
    return { memory: parseMemory(path, text, this.settings), text };
  }

  /**
   * Every memory file, parsed; unreadable files are listed apart with their reasons. With
   * `keep` (consolidation, which reads the whole vault and then changes part of it), the texts
   * and file versions read are returned too, and the id index learns from them the ids of the
   * files it would otherwise read again. With `cache` too (and a store that tells versions), a
   * file whose size and mtime are its row's is taken from the row instead of being read
   * (memory-cache.ts), and the rows of the files read are made. `progress` is called after each
   * batch of files (a lock holder says it is alive: HeldLock.still).
   */
  async loadAll(options: { archive?: boolean; keep?: boolean; cache?: MemoryCache; progress?: () => void } = {}): Promise<LoadedVault> {
    const folders = options.archive === false ? Object.values(CATEGORY_FOLDERS) : MEMORY_FOLDERS;
    const cache = options.keep && this.ports.files.readVersioned ? (options.cache ?? null) : null;
    cache?.begin();
    // with rows to trust, one look at each folder lists the files with their sizes and mtimes
    // (in listMemoryPaths' order); without any, the plain listing (no stat of every file)
    let paths: string[];
    let stats: Map<string, FileStat> | null = null;
    let hidden: Map<string, string[]> | undefined;
    if (cache && !cache.empty) {
      const scan = await scanMemoryFiles(this.ports.files, folders, { hidden: true });
      hidden = scan.hidden;
      stats = new Map(scan.files.map(([path, size, mtimeMs]) => [path, { size, mtimeMs }]));
      paths = scan.others.length === 0 ? scan.files.map(([path]) => path) : [...scan.files.map(([path]) => path), ...scan.others].sort(compareMemoryPaths);
    } else if (options.keep && this.ports.files.scan) {
      // the same paths from one read of each folder (listMemoryPaths reads each twice: its
      // files, then its sub-folders; 10,000 entries each time in a first consolidation)
      const scan = await scanMemoryFiles(this.ports.files, folders, { stat: false, hidden: true });
      hidden = scan.hidden;
      paths = scan.others.length === 0 ? scan.files.map(([path]) => path) : [...scan.files.map(([path]) => path), ...scan.others].sort(compareMemoryPaths);
    } else paths = await listMemoryPaths(this.ports.files, folders);
    const read: Memory[] = [];
    const problems: MemoryParseError[] = [];
    const notes = options.keep ? new Map<string, ReadNote>() : null;
    // the id each file read whole holds, for the id index (consolidation looks ids up next)
    const idOf = new Map<string, string | null>();
    const fromRow = (p: string): { memory: Memory } | null => {
      const stat = stats?.get(p);
      const row = stat ? cache!.get(p, stat.size, stat.mtimeMs) : null;
      if (!row) return null;
      notes!.set(p, { text: null, version: row.version });
      idOf.set(p, row.id);
      return { memory: row.memory };
    };
    const load = notes ? async (p: string) => fromRow(p) ?? this.readKept(p, notes, idOf, cache) : (p: string) => this.read(p);
    for (let i = 0; i < paths.length; i += READ_CONCURRENCY) {
      const batch = paths.slice(i, i + READ_CONCURRENCY);
      const results = await Promise.all(batch.map((p) => load(p).catch((error: unknown) => error)));
      results.forEach((result, j) => {
        if (result instanceof MemoryParseError) problems.push(result);
        else if (result instanceof Error) {
          const path = batch[j]!;
          problems.push(new MemoryParseError(path, result.message.startsWith(`${path}: `) ? result.message.slice(path.length + 2) : result.message));
        }
        else if (result) read.push((result as { memory: Memory }).memory);
      });
      options.progress?.();
    }
    // one id, one memory: another file with the id (a copy, a move cut short) is not the one
    // `locate` finds; consolidation and doctor merge them
    const byId = new Map<string, string[]>();
    for (const memory of read) {
      const paths = byId.get(memory.id);
      if (paths) paths.push(memory.path);
      else byId.set(memory.id, [memory.path]);
    }
    const memories: Memory[] = [];
    const duplicates: LoadedVault['duplicates'] = [];
    for (const memory of read) {
      const paths = byId.get(memory.id)!;
      const kept = paths.length === 1 ? memory.path : preferredPath(paths);
      if (kept === memory.path) memories.push(memory);
      else {
        problems.push(new MemoryParseError(memory.path, `a second copy of ${memory.id} (the memory is ${kept})`));
        duplicates.push({ id: memory.id, kept, other: memory.path });
      }
    }
    if (!notes) return { memories, problems, duplicates };
    // every file listed was read whole: the index is what a refresh would make of this listing,
    // and the ids are at hand; otherwise it learns what was read and refreshes the rest itself
    let ids: Map<string, string[]> | undefined;
    if (idOf.size === paths.length) {
      // one look-up of each path's note (it was two, for each of 10,000 paths in a first consolidation)
      ids = await this.index.adopt(
        paths.map((p) => {
          const version = notes.get(p)!.version!;
          return [p, version.size, version.mtimeMs, idOf.get(p)!];
        }),
      );
    } else for (const [p, id] of idOf) this.index.learn(p, notes.get(p)!.version!.size, notes.get(p)!.version!.mtimeMs, id);
    return { memories, problems, duplicates, paths, read: notes, ...(ids ? { ids } : {}), ...(hidden ? { hidden } : {}) };
  }

  /**
   * read(), keeping the text and the version read in `notes`, and in `idOf` the id a refresh of
   * the id index would read from the file (when it was read whole, as one version).
   */
  private async readKept(path: string, notes: Map<string, ReadNote>, idOf: Map<string, string | null>, cache: MemoryCache | null = null): Promise<{ memory: Memory; text: string } | null> {
    const { files } = this.ports;
    if (!files.readVersioned) {
      const loaded = await this.read(path);
      if (loaded) notes.set(path, { text: loaded.text, version: null });
      return loaded;
    }
    const got = await files.readVersioned(path);
    if (!got) return null;
    const text = decodeNote(path, got.bytes, this.settings.maxFileBytes);
    notes.set(path, { text, version: got.version });
    // the index decodes without the byte-order mark: such a file is left to it
    if (!got.version || text.charCodeAt(0) === 0xfeff) return { memory: parseMemory(path, text, this.settings), text };
    const id = frontmatterId(text);
    idOf.set(path, id);
    const memory = parseMemory(path, text, this.settings);
    cache?.keep(memory, got.version, id);
    return { memory, text };
  }

  /**
   * Change a memory's frontmatter: under the memory's lock, read, compute the change from
   * the current state, write only the changed fields, and retry from a fresh read if the
   * file changed in between (a writer that does not take our lock, such as Obsidian).
   * Returns the memory as written, or null when the change was empty.
   */
  async update(id: string, change: MemoryChange): Promise<Memory | null> {
    return this.ports.locks.withLock(id, () => this.updateLocked(id, change));
  }

  /**
   * update() for a caller that has read the memory already (consolidation plans from its loaded
   * vault): when the memory is still at `known`'s path and `change` changes it, the new text is
   * made from `known.text` and written only if the file still holds exactly that text (the
   * compare-and-swap a fresh read would also end with). Anything else (moved, changed since,
   * nothing to change, a text that cannot take the change) goes on as update() from a fresh
   * read, so the outcome is update()'s, without reading and parsing the file twice.
   */
  async updateKnown(known: { memory: Memory; text: string | null }, change: MemoryChange): Promise<WrittenMemory | null> {
    const { memory, text: before } = known;
    return this.ports.locks.withLock(memory.id, async () => {
      if (before !== null && (await this.locate(memory.id)) === memory.path) {
        const fields = change(memory);
        let text: string | null = null;
        try {
          if (fields && Object.keys(fields).length > 0) text = setFrontmatterFields(before, fields);
          if (text !== null) assertWritable(memory.path, text, this.settings.maxFileBytes, memory.body);
        } catch {
          text = null; // update() reports it, from the file as it is now
        }
        if (text !== null && text !== before) {
          try {
            const written = await this.ports.files.write(memory.path, text, { expect: before });
            return writtenMemory(memory.path, text, written, null, this.settings);
          } catch (error) {
            if (!(error instanceof WriteConflictError)) throw error;
          }
        }
      }
      let written: WrittenMemory | null = null;
      await this.updateLocked(memory.id, change, (w) => (written = w));
      return written;
    });
  }

  private async updateLocked(id: string, change: MemoryChange, wrote?: (written: WrittenMemory | null) => void): Promise<Memory | null> {
    {
      for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
        const path = await this.locate(id);
        if (!path) throw new NotFoundError(`no memory with id ${id}`);
        const loaded = await this.read(path, { stable: true });
        if (!loaded) continue;
        if (loaded.memory.id !== id) continue; // the file changed hands since it was found: find it again
        const fields = change(loaded.memory);
        if (!fields || Object.keys(fields).length === 0) return null;
        let text: string;
        try {
          text = setFrontmatterFields(loaded.text, fields);
        } catch (error) {
          throw new MemoryParseError(path, error instanceof Error ? error.message : String(error));
        }
        if (text === loaded.text) return loaded.memory;
        assertWritable(path, text, this.settings.maxFileBytes, loaded.memory.body);
        try {
          const written = await this.ports.files.write(path, text, { expect: loaded.text });
          const memory = parseMemory(path, text, this.settings);
          wrote?.(writtenMemory(path, text, written, memory, this.settings));
          return memory;
        } catch (error) {
          if (!(error instanceof WriteConflictError)) throw error;
        }
      }
      throw new WriteConflictError(id);
    }
  }

  /**
   * Write a new note; fails with WriteConflictError when the path exists. A note the reader
   * would refuse (over the size limit, NUL bytes; for a memory, fields it cannot parse) is
   * never written: Engram does not create what it cannot read back.
   */
  /** `parse: false`: the caller rendered the memory and knows it (an import's write index rows): the text is not parsed back. */
  /**
   * `learn`: the id index is told the memory's file (consolidation, which looks its new patterns
   * up after writing them: at 100k that look-up listed and stat'ed the whole vault once, 1.8 s).
   */
  async createFile(path: string, text: string, options: { parse?: boolean; learn?: boolean } = {}): Promise<CreatedFile> {
    assertWritable(path, text, this.settings.maxFileBytes, null);
    const memory = options.parse !== false && MEMORY_FOLDERS.some((folder) => path.startsWith(`${folder}/`)) ? parseMemory(path, text, this.settings) : null;
    const stat = await this.ports.files.write(path, text, { expect: null });
    if (options.learn && memory && stat) this.index.learn(path, stat.size, stat.mtimeMs, memory.id);
    return { memory, stat: stat ?? null };
  }

  async readText(path: string): Promise<string | null> {
    const bytes = await this.ports.files.read(path);
    return bytes ? new TextDecoder().decode(bytes) : null;
  }

  /** A note's text exactly as on disk (a byte-order mark kept), read stable: for compare-and-swap. */
  async readExact(path: string): Promise<string | null> {
    const bytes = await this.ports.files.read(path, { stable: true });
    return bytes ? exactDecoder.decode(bytes) : null;
  }
}

const exactDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * What Engram writes into a memory file must be readable by Engram: within the size limit,
 * no NUL byte, and a metadata write keeps the body byte for byte (`body`, when given). A
 * refusal names the file and the reason; nothing is written.
 */
export function assertWritable(path: string, text: string, maxBytes: number, body: string | null): void {
  if (body !== null && (!text.endsWith(body) || splitFrontmatter(text)?.body !== body)) {
    throw new MemoryParseError(path, 'refused: the update would change the body');
  }
  if (text.includes('\0')) throw new MemoryParseError(path, 'refused: the text would contain a NUL byte');
  const bytes = text.length * 3 <= maxBytes ? text.length : new TextEncoder().encode(text).length;
  if (bytes > maxBytes) throw new MemoryParseError(path, `refused: the file would be ${bytes} bytes, over the ${maxBytes}-byte limit`);
}

const STATE_TEMPLATE = `# STATE

Hot context, loaded at every session start. Keep it under 4 KB: current focus, blockers,
a few pending items. Everything else belongs in memories.

## Focus

## Blockers

## Pending
`;

/**
 * Colour groups for Obsidian's own graph view: one per tier (SPEC §13). The same colours as the
 * plugin's views (the fallbacks of styles.css' --engram-tier-* variables).
 */
export const TIER_COLOURS = {
  core: 0xa882ff,
  active: 0x44cf6e,
  warm: 0xe0ac00,
  cold: 0x027aff,
  archive: 0x8a8a8a,
} as const;

const OBSIDIAN_GRAPH = {
  colorGroups: Object.entries(TIER_COLOURS).map(([tier, rgb]) => ({ query: `[tier:${tier}]`, color: { a: 1, rgb } })),
};

/**
 * Obsidian's graph settings (`graph.json`) with a colour group per tier added where the user
 * has none for that query; everything else in the file is kept. Returns the queries added.
 */
export function withTierColourGroups(existing: unknown): { json: Record<string, unknown>; added: string[] } {
  const json: Record<string, unknown> = typeof existing === 'object' && existing !== null && !Array.isArray(existing) ? { ...(existing as Record<string, unknown>) } : {};
  const groups = Array.isArray(json.colorGroups) ? [...(json.colorGroups as unknown[])] : [];
  const queries = new Set(groups.map((g) => (typeof g === 'object' && g !== null ? (g as { query?: unknown }).query : undefined)));
  const added: string[] = [];
  for (const group of OBSIDIAN_GRAPH.colorGroups) {
    if (queries.has(group.query)) continue;
    groups.push(group);
    added.push(group.query);
  }
  json.colorGroups = groups;
  return { json, added };
}
