import { analyze } from '../analyzer';
import { MemoryParseError } from '../errors';
import { ARCHIVE_FOLDER, bodyText, decodeNote, parseMemory, type MemoryState } from '../memory';
import type { EngramSettings } from '../settings';
import { MEMORY_FOLDERS, type Vault } from '../vault';

/**
 * The memory catalog: every memory's state, text and analysed terms, kept in
 * `.engram/cache/catalog.json` and refreshed incrementally. Opening it lists the memory
 * folders and stats each file; only files whose size or mtime changed are read and parsed
 * again, so a cold `engram recall` in a large vault does not re-parse every file. The cache
 * is machine data: deleting it only costs one full parse.
 */

export interface RecallDoc extends MemoryState {
  /** The body as an agent reads it. */
  text: string;
  /** Analysed terms of the text and tags (the lexical index's document). */
  terms: string[];
  /** In `archive/`: searchable only in the `all` radius. */
  archived: boolean;
}

interface CachedFile {
  path: string;
  size: number;
  mtimeMs: number;
  doc?: RecallDoc;
  error?: string;
}

interface CacheFile {
  format: number;
  fingerprint: string;
  files: CachedFile[];
}

export const CATALOG_PATH = '.engram/cache/catalog.json';
const FORMAT = 1;

export interface Catalog {
  docs: RecallDoc[];
  problems: MemoryParseError[];
  /** Files parsed in this load (the rest came from the cache). */
  parsed: number;
}

export function toRecallDoc(memory: MemoryState & { body: string }, archived: boolean): RecallDoc {
  const { body, ...state } = memory as MemoryState & { body: string; extra?: unknown };
  delete (state as { extra?: unknown }).extra;
  const text = bodyText(body);
  return { ...state, text, terms: analyze(`${text} ${memory.tags.join(' ')}`).terms, archived };
}

/** What makes cached parses stale besides the files themselves. */
function fingerprint(settings: EngramSettings): string {
  return JSON.stringify({ maxFileBytes: settings.maxFileBytes, halfLifeDays: settings.halfLifeDays });
}

export async function loadCatalog(vault: Vault, options: { useCache?: boolean } = {}): Promise<Catalog> {
  const { files } = vault.ports;
  const useCache = options.useCache ?? true;
  const print = fingerprint(vault.settings);
  const cached = new Map<string, CachedFile>();
  if (useCache) {
    for (const entry of (await readCache(vault, print))?.files ?? []) cached.set(entry.path, entry);
  }
  const current: CachedFile[] = [];
  let parsed = 0;
  for (const folder of MEMORY_FOLDERS) {
    for (const name of (await files.list(folder)).sort()) {
      if (!name.endsWith('.md')) continue;
      const path = `${folder}/${name}`;
      const stat = await files.stat(path);
      if (!stat) continue;
      const hit = cached.get(path);
      if (hit && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) {
        current.push(hit);
        continue;
      }
      parsed++;
      current.push(await parseFile(vault, path, stat));
    }
  }
  const changed = parsed > 0 || current.length !== cached.size;
  if (useCache && changed) await writeCache(vault, { format: FORMAT, fingerprint: print, files: current });
  return {
    docs: current.flatMap((f) => (f.doc ? [f.doc] : [])),
    problems: current.flatMap((f) => (f.error !== undefined ? [new MemoryParseError(f.path, f.error)] : [])),
    parsed,
  };
}

async function parseFile(vault: Vault, path: string, stat: { size: number; mtimeMs: number }): Promise<CachedFile> {
  const entry: CachedFile = { path, size: stat.size, mtimeMs: stat.mtimeMs };
  try {
    const bytes = await vault.ports.files.read(path);
    if (!bytes) return entry;
    const memory = parseMemory(path, decodeNote(path, bytes, vault.settings.maxFileBytes), vault.settings);
    entry.doc = toRecallDoc(memory, path.startsWith(`${ARCHIVE_FOLDER}/`));
  } catch (error) {
    entry.error = error instanceof MemoryParseError ? error.reason : error instanceof Error ? error.message : String(error);
  }
  return entry;
}

async function readCache(vault: Vault, print: string): Promise<CacheFile | null> {
  try {
    const bytes = await vault.ports.files.read(CATALOG_PATH);
    if (!bytes) return null;
    const cache = JSON.parse(new TextDecoder().decode(bytes)) as CacheFile;
    return cache.format === FORMAT && cache.fingerprint === print && Array.isArray(cache.files) ? cache : null;
  } catch {
    return null; // a damaged cache is rebuilt from the markdown
  }
}

async function writeCache(vault: Vault, cache: CacheFile): Promise<void> {
  try {
    await vault.ports.files.mkdir('.engram/cache');
    await vault.ports.files.write(CATALOG_PATH, JSON.stringify(cache));
  } catch {
    // The cache is an optimisation: a read-only vault still answers.
  }
}
