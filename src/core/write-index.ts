import { MemoryParseError } from './errors';
import { splitFrontmatter } from './frontmatter';
import { ARCHIVE_FOLDER, bodyText, memoryText, type Memory } from './memory';
import { compareMemoryPaths, frontmatterId, preferredPath, scanMemoryFiles } from './memory-files';
import type { Polarity } from './polarity';
import type { NewMemory } from './memory-file';
import type { FileStat } from './ports';
import { AnalysedText, type ResonanceIndex } from './resonance';
import type { Category, Confidence, EngramSettings } from './settings';
import { supersededBy, type ChangeSignals } from './supersession';
import { parseTimestamp } from './time';
import type { Vault } from './vault';

/**
 * The write index: what `remember` and `import` need of every memory to decide what a new text
 * does (SPEC §6 resonance, ADR 0004 supersession), kept in `.engram/cache/write-index.json` as
 * the recall catalog keeps what recall needs: a row per memory file, trusted while the file has
 * the size and mtime of its row. A remember into a vault of 10,000 memories read and parsed
 * every file and worked out the polarity of every text (60 % of its time); now it lists the
 * folders, reads the rows, and parses only the files written since (by another agent, a cron,
 * Obsidian, a person). A row the files contradict is never used: a file whose size or mtime
 * changed is read again, a new file is read, a row whose file is gone is dropped, a damaged or
 * older-format cache is rebuilt from the markdown. Machine data: deleting it costs one parse of
 * every memory file (what every remember paid before).
 *
 * A row holds the memory's id, category, confidence, creation time, whether it is superseded,
 * its import keys, and the analysis of its text (memoryText): the terms, the negated and
 * affirmed terms (polarity.ts) and the change signals (supersession.ts). Not the text itself.
 * A file that cannot be read as a memory keeps a row with the id and the text it holds (a new
 * memory takes neither, remember.ts); second copies of an id and entries that are not regular
 * files are read every time, as before.
 */

export const WRITE_INDEX_PATH = '.engram/cache/write-index.json';
const FORMAT = 1;

/**
 * What a row derives from a memory's text (analyze, polarity, changeSignals): a change to any
 * of them must change this number, or rows made by the old code would decide for the new one
 * (test/core/write-index.test.ts pins the analysis of a sample of texts to fail first).
 */
export const WRITE_ANALYSIS_VERSION = 1;

type MemoryRow = [
  path: string, size: number, mtimeMs: number, id: string, category: Category, confidence: Confidence, createdMs: number,
  superseded: 0 | 1, terms: string, negated: string, affirmed: string | null, cue: 0 | 1, rejected: string, values: string,
  dates: string, importKeys: string[],
];
/** A file that could be read but not parsed as a memory: the id its frontmatter names and its body as an agent reads it. */
type ProblemRow = [path: string, size: number, mtimeMs: number, id: string | null, text: string | null];
type Row = MemoryRow | ProblemRow;

interface CacheFile {
  format: number;
  fingerprint: string;
  rows: Row[];
}

/** A live memory as writing sees it. */
export interface WriteMemory {
  id: string;
  path: string;
  category: Category;
  confidence: Confidence;
  createdMs: number;
  superseded: boolean;
  archived: boolean;
  importKeys: string[];
  analysis: AnalysedText;
}

/** A file in the memory folders that is not a memory writing can use: its id and text, when they can be read. */
export interface WriteProblem {
  path: string;
  id: string | null;
  text: string | null;
}

function fingerprint(settings: EngramSettings): string {
  return JSON.stringify({ maxFileBytes: settings.maxFileBytes, analysis: WRITE_ANALYSIS_VERSION });
}

/** Rows changed before the index is written again (save). */
export const SAVE_AFTER = 16;

const words = (s: string): string[] => (s === '' ? [] : s.split(' '));

/** What a row is made of: a parsed memory, or a new one as rendered (WriteIndex.created). */
type RowSource = Pick<Memory, 'path' | 'id' | 'category' | 'confidence' | 'created_at' | 'body'> & { extra: Record<string, unknown> };

/** The row of a parsed memory. `analysis`, when it analysed exactly the memory's text, is used instead of analysing it again. */
function memoryRow(memory: RowSource, stat: FileStat, analysis?: AnalysedText, known?: string): MemoryRow {
  const text = known ?? memoryText(memory);
  const a = analysis && analysis.text === text ? analysis : new AnalysedText(text);
  const { terms, negated, affirmed } = a.polarity;
  const signals = a.signals;
  // every term affirmed (a text without a negation: polarity shares its terms set as the affirmed side)
  let plain = affirmed === terms && negated.size === 0;
  if (!plain && affirmed.size + negated.size <= terms.size) {
    plain = true;
    let count = 0;
    for (const t of terms) {
      if (negated.has(t)) continue;
      if (!affirmed.has(t)) {
        plain = false;
        break;
      }
      count++;
    }
    plain &&= count === affirmed.size;
  }
  const keys = memory.extra.import_keys;
  return [
    memory.path, stat.size, stat.mtimeMs, memory.id, memory.category, memory.confidence, parseTimestamp(memory.created_at) ?? 0,
    supersededBy(memory) === null ? 0 : 1, joined(terms, ' '), joined(negated, ' '), plain ? null : joined(affirmed, ' '),
    signals.cue ? 1 : 0, joined(signals.rejected, ' '), joined(signals.values, ' '), joined(signals.dates, '|'),
    Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [],
  ];
}

/**
 * `[...set].join(separator)`, without an array for an empty set or a set of one (most of a new
 * memory's negated terms, rejections, values and dates: four a row). Exported for tests.
 */
export function joined(set: ReadonlySet<string>, separator: string): string {
  if (set.size === 0) return '';
  if (set.size === 1) for (const element of set) return element;
  return [...set].join(separator);
}

function writeMemory(row: MemoryRow): WriteMemory {
  const terms = words(row[8]);
  const negated = words(row[9]);
  const polarity = (): Polarity => {
    const negatedSet = new Set(negated);
    const affirmed = row[10] === null ? terms.filter((t) => !negatedSet.has(t)) : words(row[10]);
    return { terms: new Set(terms), negated: negatedSet, affirmed: new Set(affirmed) };
  };
  const signals = (): ChangeSignals => ({ cue: row[11] === 1, rejected: new Set(words(row[12])), values: new Set(words(row[13])), dates: new Set(row[14] === '' ? [] : row[14].split('|')) });
  return {
    id: row[3],
    path: row[0],
    category: row[4],
    confidence: row[5],
    createdMs: row[6],
    superseded: row[7] === 1,
    archived: row[0].startsWith(`${ARCHIVE_FOLDER}/`),
    importKeys: row[15],
    analysis: new AnalysedText(null, { terms, negated, polarity, signals }),
  };
}

/** A pattern matching the words of a space-separated term string that are in `focus`; null for an empty focus (nothing matches). */
function focusPattern(focus: ReadonlySet<string>): RegExp | null {
  if (focus.size === 0) return null;
  const escaped = [...focus].map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`(?<=^| )(?:${escaped.join('|')})(?= |$)`, 'g');
}

/** The number of words of a non-empty space-separated term string. */
function countWords(s: string): number {
  let n = 1;
  for (let i = s.indexOf(' '); i !== -1; i = s.indexOf(' ', i + 1)) n++;
  return n;
}

/** What the loader of a note that cannot be a memory reads: its frontmatter id and its body's text. */
function problemOf(path: string, text: string | null): WriteProblem {
  const body = text === null ? undefined : splitFrontmatter(text)?.body;
  return { path, id: text === null ? null : frontmatterId(text), text: body === undefined ? null : bodyText(body) };
}

/** The link kinds bodyText takes out of a body (memory.ts). */
const TYPED_KINDS = new Set(['related', 'decays_from', 'supersedes', 'contradicts']);

/**
 * memoryText of the body renderMemoryFile writes for `memory` (its text, then its links' line),
 * without the body, when it is the text itself: a text already folded (no white space but
 * single spaces, none at its ends, renderMemoryFile's trim changes nothing), holding no `[`, and
 * links that bodyText takes out whole (typed, a name without `]`). null: work it out from the
 * body. An import's rows split each file it rendered and ran bodyText's replaces over its body.
 * Exported for tests.
 */
export function renderedBodyText(memory: Pick<NewMemory, 'text' | 'links'>): string | null {
  for (const link of memory.links) if (!TYPED_KINDS.has(link.kind) || (link.name ?? link.target).includes(']')) return null;
  const text = memory.text;
  const n = text.length;
  if (n === 0) return null;
  let space = true; // before the first character: a space there is one at an end
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20) {
      if (space) return null;
      space = true;
      continue;
    }
    space = false;
    // [, other white space (\s: ASCII's and Unicode's), and what is not known not to be white space
    if (c === 0x5b || (c >= 0x09 && c <= 0x0d) || (c >= 0x80 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff))) return null;
  }
  return space ? null : text;
}

export class WriteIndex {
  private constructor(
    private readonly rows: Map<string, Row>,
    /** Rows that differ from the saved file: files read again or written, rows dropped. */
    private pending: number,
    /** The rows of every live memory, one file per id (preferredPath), in listing order. */
    private readonly live: MemoryRow[],
    /** Files in the memory folders that are not live memories (unreadable, second copies of an id, not regular files). */
    readonly problems: WriteProblem[],
    /** The memories' and the problems' files (what a new memory's file name must differ from). */
    readonly paths: string[],
  ) {}

  private decoded: WriteMemory[] | null = null;

  /** Every live memory, one file per id (preferredPath), in listing order: decoded from the rows when first asked for. */
  get memories(): WriteMemory[] {
    return (this.decoded ??= this.live.map(writeMemory));
  }

  /**
   * Index every live memory in `index` (built with `focus`, resonance.ts) under only the focus
   * terms its row holds, and take its id: what a single text's write looks up, found by
   * scanning the rows' term strings. Nothing is decoded for a memory that holds none of them,
   * and the others' analyses only if they are compared.
   */
  indexFocused(index: ResonanceIndex, focus: ReadonlySet<string>, taken: Set<string>): void {
    const pattern = focusPattern(focus);
    for (const row of this.live) {
      taken.add(row[3]);
      const terms = pattern && row[8] !== '' ? row[8].match(pattern) : null;
      const negated = pattern && row[9] !== '' ? row[9].match(pattern) : null;
      index.addFocused(row[3], () => writeMemory(row).analysis, terms ? countWords(row[8]) : 0, terms ?? [], negated ?? [], row[4], {
        archived: row[0].startsWith(`${ARCHIVE_FOLDER}/`),
        confidence: row[5],
        createdMs: row[6],
        superseded: row[7] === 1,
      });
    }
  }

  /** How many files were parsed while loading (the others came from their rows). */
  parsed = 0;

  /**
   * The index of the vault as it is now: the rows whose files have their size and mtime, the
   * other files read and parsed again.
   */
  static async load(vault: Vault): Promise<WriteIndex> {
    const print = fingerprint(vault.settings);
    const cached = await readCache(vault, print);
    const files = vault.ports.files;
    // one walk of the folders (FileStore.scan): the regular files with their stats, and the other
    // entries listMemoryPaths gives, in its order (compareMemoryPaths)
    const scan = await scanMemoryFiles(files);
    const stats = new Map(scan.files.map(([path, size, mtimeMs]) => [path, { size, mtimeMs }]));
    const listing = scan.others.length === 0 ? scan.files.map(([path]) => path) : [...scan.files.map(([path]) => path), ...scan.others].sort(compareMemoryPaths);
    const rows = new Map<string, Row>();
    const problems: WriteProblem[] = [];
    const readable: MemoryRow[] = [];
    const listed: string[] = [];
    let parsed = 0;
    let reused = 0;
    // in listMemoryPaths' order, as Vault.loadAll reads them
    for (const path of listing) {
      const stat = stats.get(path);
      let row = stat ? cached.get(path) : undefined;
      if (!row || row[1] !== stat!.size || row[2] !== stat!.mtimeMs) {
        parsed++;
        // an entry listStats leaves out (a FIFO, a folder named like a note, a link to nothing
        // regular) is read as the loader reads it, every time: it gets no row
        const fresh = await freshRow(vault, path, stat ?? { size: -1, mtimeMs: -1 });
        if (fresh === 'gone') continue;
        listed.push(path);
        if (fresh === 'unreadable') {
          problems.push(problemOf(path, await vault.readText(path).catch(() => null)));
          continue;
        }
        row = fresh;
      } else {
        reused++;
        listed.push(path);
      }
      if (stat) rows.set(path, row);
      if (row.length === 5) problems.push({ path, id: row[3], text: row[4] });
      else readable.push(row);
    }
    // one id, one memory (Vault.loadAll): another file with the id is a problem, read as the loader reads it
    const first = new Map<string, string>();
    const shared = new Map<string, string[]>();
    for (const row of readable) {
      const other = first.get(row[3]);
      if (other === undefined) first.set(row[3], row[0]);
      else shared.set(row[3], [...(shared.get(row[3]) ?? [other]), row[0]]);
    }
    const live: MemoryRow[] = [];
    for (const row of readable) {
      const holders = shared.get(row[3]);
      if (!holders || preferredPath(holders) === row[0]) live.push(row);
      else problems.push(problemOf(row[0], await vault.readText(row[0]).catch(() => null)));
    }
    const index = new WriteIndex(rows, parsed + (cached.size - reused), live, problems, listed);
    index.parsed = parsed;
    return index;
  }

  /**
   * Where the index saw each memory, for Vault.withLocator (each hint is checked against the
   * file's frontmatter before it is believed): the finds a remember makes (the memory it
   * reinforces, supersedes or contradicts) need not refresh the id index, which lists and
   * stats the folders again and reads every file written since its last refresh. An id some
   * unreadable file also holds gets no hint: the id index decides which file is the memory.
   */
  locator(): (id: string) => string | null {
    let paths: Map<string, string> | null = null;
    return (id) => {
      if (!paths) {
        paths = new Map(this.live.map((row) => [row[3], row[0]]));
        for (const problem of this.problems) if (problem.id) paths.delete(problem.id);
      }
      return paths.get(id) ?? null;
    };
  }

  /**
   * A memory file written by this process (`stat`: the size and mtime of the version written,
   * as the file store told them): its row, from the memory as written, so that the next load
   * need not read it. `analysis`: the analysis of its text worked out while planning.
   */
  wrote(memory: Memory, stat: FileStat | null, analysis?: AnalysedText): void {
    if (!stat) return; // the store cannot tell: the next load reads the file
    this.rows.set(memory.path, memoryRow(memory, stat, analysis));
    this.pending++;
  }

  /**
   * A new memory file this process rendered (renderMemoryFile of `memory` with `id`) and created
   * at `path`: its row made from what was rendered, without parsing the text back (an import of
   * 10,000 lines parsed every file it had just written: ~10 % of its time). The row is the one
   * `wrote` makes of the parsed file (test/core/write-index.test.ts compares both over odd
   * texts); a memory with further fields (`extra`) is parsed back, as by `wrote`.
   */
  created(path: string, id: string, memory: NewMemory, text: string, stat: FileStat | null, analysis?: AnalysedText): void {
    if (!stat) return;
    const source = { path, id, category: memory.category, confidence: memory.confidence, created_at: memory.created_at, body: '', extra: {} };
    // the body follows the closing fence: the text, then the links' line
    const fence = memory.extra === undefined ? text.indexOf('\n---\n') : -1;
    const known = fence > 0 && text.startsWith(memory.text, fence + 5) ? renderedBodyText(memory) : null;
    if (known !== null) {
      this.rows.set(path, memoryRow(source, stat, analysis, known));
    } else {
      const split = memory.extra === undefined ? splitFrontmatter(text) : null;
      if (!split) throw new Error(`${path}: not a new memory's plain rendering`);
      this.rows.set(path, memoryRow({ ...source, body: split.body }, stat, analysis));
    }
    this.pending++;
  }

  /**
   * Write the rows when enough of them changed to be worth it: rewriting the file costs about
   * what parsing a few hundred memory files does at 10,000 memories, so a remember leaves the
   * few files written since the last save to the next load (which reads them again, as it
   * would any file written by another process) until SAVE_AFTER of them (or 1/256 of the
   * rows, in a larger vault) have piled up. An optimisation: a read-only vault still remembers.
   */
  async save(vault: Vault): Promise<void> {
    if (this.pending === 0 || this.pending < Math.max(SAVE_AFTER, this.rows.size >> 8)) return;
    this.pending = 0;
    const cache: CacheFile = { format: FORMAT, fingerprint: fingerprint(vault.settings), rows: [...this.rows.values()] };
    try {
      await vault.ports.files.mkdir('.engram/cache');
      await vault.ports.files.write(WRITE_INDEX_PATH, JSON.stringify(cache));
    } catch {
      // machine data: the next load reads the files again
    }
  }
}

/**
 * A file's row from its bytes now: a memory's analysis, or (when it cannot be parsed) the id and
 * text it holds. 'unreadable' when it could not be read (refused, a read error): the loader
 * reports it and no row is kept; 'gone' when it disappeared (the loader skips it).
 */
async function freshRow(vault: Vault, path: string, stat: FileStat): Promise<Row | 'gone' | 'unreadable'> {
  try {
    const loaded = await vault.read(path);
    return loaded ? memoryRow(loaded.memory, stat) : 'gone';
  } catch (error) {
    if (!(error instanceof MemoryParseError)) return 'unreadable';
    const text = await vault.readText(path).catch(() => null);
    if (text === null) return 'unreadable';
    const problem = problemOf(path, text);
    return [path, stat.size, stat.mtimeMs, problem.id, problem.text];
  }
}

async function readCache(vault: Vault, print: string): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  try {
    const bytes = await vault.ports.files.read(WRITE_INDEX_PATH);
    if (!bytes) return rows;
    const cache = JSON.parse(new TextDecoder().decode(bytes)) as CacheFile;
    if (cache.format !== FORMAT || cache.fingerprint !== print || !Array.isArray(cache.rows)) return rows;
    for (const row of cache.rows) if (Array.isArray(row) && (row.length === 5 || row.length === 16) && typeof row[0] === 'string') rows.set(row[0], row);
  } catch {
    // a damaged cache is rebuilt from the markdown
  }
  return rows;
}
