import { MemoryParseError } from './errors';
import { writePieces } from './memory-cache';
import { splitFrontmatter } from './frontmatter';
import { ARCHIVE_FOLDER, bodyText, memoryText, type Memory } from './memory';
import { compareMemoryPaths, frontmatterId, preferredPath, scanMemoryFiles } from './memory-files';
import type { Polarity } from './polarity';
import type { NewMemory } from './memory-file';
import type { FileStat } from './ports';
import { AnalysedText, type ResonanceIndex } from './resonance';
import { CATEGORIES, CONFIDENCES, type Category, type Confidence, type EngramSettings } from './settings';
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
const FORMAT = 2;

/**
 * What a row derives from a memory's text (analyze, polarity, changeSignals): a change to any
 * of them must change this number, or rows made by the old code would decide for the new one
 * (test/core/write-index.test.ts pins the analysis of a sample of texts to fail first).
 */
export const WRITE_ANALYSIS_VERSION = 5;

type MemoryRow = [
  path: string, size: number, mtimeMs: number, id: string, category: Category, confidence: Confidence, createdMs: number,
  superseded: 0 | 1, terms: string, negated: string, affirmed: string | null, cue: 0 | 1, rejected: string, values: string,
  dates: string, importKeys: string[],
];
/** A file that could be read but not parsed as a memory: the id its frontmatter names and its body as an agent reads it. */
type ProblemRow = [path: string, size: number, mtimeMs: number, id: string | null, text: string | null];
type Row = MemoryRow | ProblemRow;

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

/** A pattern finding the focus terms in a column of wrapped term lines (" a b c "), each as its group 1; null for an empty focus. */
function columnPattern(focus: ReadonlySet<string>): RegExp | null {
  if (focus.size === 0) return null;
  const escaped = [...focus].map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(` (${escaped.join('|')})(?= )`, 'g');
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

/** A row of the saved index (Columns), by its number, or a row made in this process (a file read again, written, or an odd row). */
type Ref = number | Row;

export class WriteIndex {
  private constructor(
    /** The saved rows, read where they are asked for. */
    private readonly saved: Columns,
    /** The row of each file listed with a stat, in listing order (what save writes, with `extra`). */
    private readonly kept: Ref[],
    /** Rows that differ from the saved file: files read again or written, rows dropped. */
    private pending: number,
    /** The rows of every live memory, one file per id (preferredPath), in listing order. */
    private readonly live: Ref[],
    /** Files in the memory folders that are not live memories (unreadable, second copies of an id, not regular files). */
    readonly problems: WriteProblem[],
    /** The memories' and the problems' files (what a new memory's file name must differ from). */
    readonly paths: string[],
    /** The ids of the live memories, in `live`'s order. */
    private readonly ids: string[],
  ) {}

  /** Rows of files written by this process (wrote, created), by path: they replace a kept row of the same path when saved. */
  private readonly extra = new Map<string, MemoryRow>();

  private decoded: WriteMemory[] | null = null;

  /** A live memory's row as an array (a saved one decoded from its columns). */
  private row(ref: Ref): MemoryRow {
    return typeof ref === 'number' ? this.saved.row(ref) : (ref as MemoryRow);
  }

  /** Every live memory, one file per id (preferredPath), in listing order: decoded from the rows when first asked for. */
  get memories(): WriteMemory[] {
    return (this.decoded ??= this.live.map((ref) => writeMemory(this.row(ref))));
  }

  /**
   * Index every live memory in `index` (built with `focus`, resonance.ts) under only the focus
   * terms its row holds, and take its id: what a single text's write looks up. The saved rows'
   * terms are searched in their column for each focus term (one string search a term, not a
   * look at every row); nothing is decoded for a memory that holds none of them, and the
   * others' analyses only if they are compared.
   */
  indexFocused(index: ResonanceIndex, focus: ReadonlySet<string>, taken: Set<string>): void {
    const saved = this.saved;
    const pattern = focusPattern(focus);
    const column = columnPattern(focus);
    const terms = saved.focused(TERMS, column);
    const negated = saved.focused(NEGATED, column);
    for (let k = 0; k < this.live.length; k++) {
      const ref = this.live[k]!;
      const id = this.ids[k]!;
      taken.add(id);
      if (typeof ref === 'number') {
        const t = terms.get(ref);
        const n = negated.get(ref);
        if (t === undefined && n === undefined) {
          index.addFocused(id, unused, 0, NONE, NONE, saved.category(ref));
          continue;
        }
        index.addFocused(id, () => writeMemory(saved.row(ref)).analysis, t ? saved.termCount(ref) : 0, t ?? NONE, n ?? NONE, saved.category(ref), {
          archived: saved.path(ref).startsWith(`${ARCHIVE_FOLDER}/`),
          confidence: saved.confidence(ref),
          createdMs: saved.created(ref),
          superseded: saved.superseded(ref),
        });
        continue;
      }
      const row = ref as MemoryRow;
      const t = pattern && row[8] !== '' ? row[8].match(pattern) : null;
      const n = pattern && row[9] !== '' ? row[9].match(pattern) : null;
      index.addFocused(id, () => writeMemory(row).analysis, t ? countWords(row[8]) : 0, t ?? [], n ?? [], row[4], {
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
    const saved = await readCache(vault, print);
    const files = vault.ports.files;
    // one walk of the folders (FileStore.scan): the regular files with their stats, and the other
    // entries listMemoryPaths gives, in its order (compareMemoryPaths)
    const scan = await scanMemoryFiles(files);
    const byPath = saved.byPath();
    const kept: Ref[] = [];
    const problems: WriteProblem[] = [];
    const readable: Ref[] = [];
    const readableIds: string[] = [];
    const listed: string[] = [];
    let parsed = 0;
    let reused = 0;
    /** A row the file store's listing found: its saved row while the file is as saved, or null. */
    const trusted = (path: string, size: number, mtimeMs: number): Ref | null => {
      const found = byPath.get(path);
      return found !== undefined && saved.matches(found, size, mtimeMs) ? found : null;
    };
    /** A file whose row must be made: read, parsed and analysed again; false when it is gone or unreadable (a problem). */
    const fresh = async (path: string, stat: FileStat | null): Promise<Row | false> => {
      parsed++;
      // an entry listStats leaves out (a FIFO, a folder named like a note, a link to nothing
      // regular) is read as the loader reads it, every time: it gets no row
      const row = await freshRow(vault, path, stat ?? { size: -1, mtimeMs: -1 });
      if (row === 'gone') return false;
      listed.push(path);
      if (row === 'unreadable') problems.push(problemOf(path, await vault.readText(path).catch(() => null)));
      return row === 'unreadable' ? false : row;
    };
    const use = (path: string, ref: Ref, stated: boolean): void => {
      if (stated) kept.push(ref);
      if (typeof ref === 'number') {
        readable.push(ref);
        readableIds.push(saved.id(ref));
      } else if (ref.length === 5) problems.push({ path, id: ref[3], text: ref[4] });
      else {
        readable.push(ref);
        readableIds.push(ref[3]);
      }
    };
    // in listMemoryPaths' order, as Vault.loadAll reads them
    if (scan.others.length === 0) {
      for (const [path, size, mtimeMs] of scan.files) {
        let ref: Ref | false | null = trusted(path, size, mtimeMs);
        if (ref !== null) {
          reused++;
          listed.push(path);
        } else ref = await fresh(path, { size, mtimeMs });
        if (ref !== false) use(path, ref, true);
      }
    } else {
      const stats = new Map(scan.files.map(([path, size, mtimeMs]) => [path, { size, mtimeMs }]));
      for (const path of [...scan.files.map(([path]) => path), ...scan.others].sort(compareMemoryPaths)) {
        const stat = stats.get(path) ?? null;
        let ref: Ref | false | null = stat ? trusted(path, stat.size, stat.mtimeMs) : null;
        if (ref !== null) {
          reused++;
          listed.push(path);
        } else ref = await fresh(path, stat);
        if (ref !== false) use(path, ref, stat !== null);
      }
    }
    // one id, one memory (Vault.loadAll): another file with the id is a problem, read as the loader reads it
    const first = new Map<string, number>();
    let shared: Map<string, string[]> | null = null;
    // (a set of the ids first: most vaults have no second copy, and then nothing is looked up one by one)
    for (let k = new Set(readableIds).size === readableIds.length ? readable.length : 0; k < readable.length; k++) {
      const id = readableIds[k]!;
      const other = first.get(id);
      if (other === undefined) first.set(id, k);
      else (shared ??= new Map()).set(id, [...(shared.get(id) ?? [pathOf(saved, readable[other]!)]), pathOf(saved, readable[k]!)]);
    }
    let live = readable;
    let ids = readableIds;
    if (shared) {
      live = [];
      ids = [];
      for (let k = 0; k < readable.length; k++) {
        const path = pathOf(saved, readable[k]!);
        const holders = shared.get(readableIds[k]!);
        if (!holders || preferredPath(holders) === path) {
          live.push(readable[k]!);
          ids.push(readableIds[k]!);
        } else problems.push(problemOf(path, await vault.readText(path).catch(() => null)));
      }
    }
    const index = new WriteIndex(saved, kept, parsed + (saved.count - reused), live, problems, listed, ids);
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
    let paths: Map<string, number> | null = null;
    return (id) => {
      if (!paths) {
        paths = new Map(this.ids.map((one, k) => [one, k]));
        for (const problem of this.problems) if (problem.id) paths.delete(problem.id);
      }
      const k = paths.get(id);
      return k === undefined ? null : pathOf(this.saved, this.live[k]!);
    };
  }

  /**
   * A memory file written by this process (`stat`: the size and mtime of the version written,
   * as the file store told them): its row, from the memory as written, so that the next load
   * need not read it. `analysis`: the analysis of its text worked out while planning.
   */
  wrote(memory: Memory, stat: FileStat | null, analysis?: AnalysedText): void {
    if (!stat) return; // the store cannot tell: the next load reads the file
    this.extra.set(memory.path, memoryRow(memory, stat, analysis));
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
      this.extra.set(path, memoryRow(source, stat, analysis, known));
    } else {
      const split = memory.extra === undefined ? splitFrontmatter(text) : null;
      if (!split) throw new Error(`${path}: not a new memory's plain rendering`);
      this.extra.set(path, memoryRow({ ...source, body: split.body }, stat, analysis));
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
    // the rows' count (a written file is most often a new one)
    if (this.pending === 0 || this.pending < Math.max(SAVE_AFTER, (this.kept.length + this.extra.size) >> 8)) return;
    this.pending = 0;
    const rows: Ref[] = [];
    const extra = new Map(this.extra);
    for (const ref of this.kept) {
      const path = pathOf(this.saved, ref);
      const written = extra.get(path);
      if (written) extra.delete(path);
      rows.push(written ?? ref);
    }
    for (const row of extra.values()) rows.push(row);
    try {
      await vault.ports.files.mkdir('.engram/cache');
      await writePieces(vault.ports.files, WRITE_INDEX_PATH, cachePieces(fingerprint(vault.settings), rows, this.saved));
    } catch {
      // machine data: the next load reads the files again
    }
  }
}

const NONE: readonly string[] = [];
const unused = (): AnalysedText => {
  throw new Error('a memory holding no focus term is never compared');
};

/** The path of a row. */
function pathOf(saved: Columns, ref: Ref): string {
  return typeof ref === 'number' ? saved.path(ref) : (ref)[0];
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

/*
 * The file (FORMAT 2): a line of JSON ({format, fingerprint, rows, lengths, odd}), then the
 * columns of the rows one after the other, `lengths` giving each one's length. A column holds a
 * line a row, joined by "\n" (META: a fixed width a row, no line breaks); the constants below say
 * what each holds. A row that a line cannot hold (a field with a line break, an import key that
 * is empty or holds a tab, a category or confidence of another version, a creation time before
 * 1970, a file that could not be read as a memory) is one of the `odd` rows, as an array (format
 * 1's rows). A remember reads the file as one string and splits it into lines; the terms of a
 * memory that holds none of the text's words are never decoded. Format 1 (a JSON array a row)
 * cost a remember at 10,000 memories ~60-130 ms of JSON.parse.
 */
const PATHS = 0;
const SIZES = 1;
const MTIMES = 2;
const IDS = 3;
/**
 * META_WIDTH characters a row: the category's and the confidence's index, then superseded (1) +
 * cue (2) + affirmed is every other term (4), then the number of terms (4 base-36 digits) and the
 * creation time (9 base-36 digits).
 */
const META = 4;
const META_WIDTH = 16;
/** The terms (and negated terms) with a space before and after each (" a b c "), or an empty line: a term is found by searching " term ". */
const TERMS = 5;
const NEGATED = 6;
/** What a row's analysis holds besides (read only for the few memories compared), joined by tabs: affirmed, rejected, values, dates, then the import keys (each after a tab). */
const REST = 7;
const COLUMNS = 8;
const MAX_TERM_COUNT = 36 ** 4;
const MAX_CREATED = 36 ** 9;

const wrap = (terms: string): string => (terms === '' ? '' : ` ${terms} `);
const unwrap = (line: string): string => (line === '' ? '' : line.slice(1, -1));

/** The saved rows as read: the lines of the columns read for every row, the others' text and where each line starts. */
class Columns {
  constructor(
    /** The lines of PATHS, SIZES, MTIMES, IDS. */
    private readonly lines: string[][],
    /** The text of TERMS, NEGATED, REST, and where each of their lines starts (one more: the end of the last + 1). */
    private readonly texts: string[],
    private readonly starts: Int32Array[],
    private readonly meta: string,
    readonly size: number,
    private readonly odd: Row[],
  ) {}

  static readonly empty = new Columns([], [], [], '', 0, []);

  get oddRows(): readonly Row[] {
    return this.odd;
  }

  /** The rows saved: by number, and odd. */
  get count(): number {
    return this.size + this.odd.length;
  }

  line(c: number, i: number): string {
    if (c < META) return this.lines[c]![i]!;
    if (c === META) return this.meta.slice(META_WIDTH * i, META_WIDTH * (i + 1));
    const starts = this.starts[c]!;
    return this.texts[c]!.slice(starts[i], starts[i + 1]! - 1);
  }

  /** Row numbers by path; an odd row by its path, as itself. */
  byPath(): Map<string, Ref> {
    const map = new Map<string, Ref>();
    const paths = this.lines[PATHS];
    if (paths) for (let i = 0; i < this.size; i++) map.set(paths[i]!, i);
    for (const row of this.odd) map.set(row[0], row);
    return map;
  }

  /** Whether a row is the one of a file of that size and mtime. */
  matches(ref: Ref, size: number, mtimeMs: number): boolean {
    if (typeof ref !== 'number') return ref[1] === size && ref[2] === mtimeMs;
    return Number(this.lines[SIZES]![ref]) === size && Number(this.lines[MTIMES]![ref]) === mtimeMs;
  }

  path(i: number): string {
    return this.lines[PATHS]![i]!;
  }

  id(i: number): string {
    return this.lines[IDS]![i]!;
  }

  category(i: number): Category {
    return CATEGORIES[this.meta.charCodeAt(META_WIDTH * i) - 48]!;
  }

  confidence(i: number): Confidence {
    return CONFIDENCES[this.meta.charCodeAt(META_WIDTH * i + 1) - 48]!;
  }

  private flags(i: number): number {
    return this.meta.charCodeAt(META_WIDTH * i + 2) - 48;
  }

  superseded(i: number): boolean {
    return (this.flags(i) & 1) !== 0;
  }

  termCount(i: number): number {
    return parseInt(this.meta.slice(META_WIDTH * i + 3, META_WIDTH * i + 7), 36);
  }

  created(i: number): number {
    return parseInt(this.meta.slice(META_WIDTH * i + 7, META_WIDTH * i + 16), 36);
  }

  /**
   * The focus terms each row's terms (or negated terms) hold, by row number, in the order the
   * row holds them: one search of the column for all of them.
   */
  focused(c: number, pattern: RegExp | null): Map<number, string[]> {
    const out = new Map<number, string[]>();
    if (!pattern || this.size === 0) return out;
    const text = this.texts[c]!;
    const starts = this.starts[c]!;
    pattern.lastIndex = 0;
    let lo = 0; // matches come in order: the row of the next is at or after the last one's
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const at = m.index;
      let hi = this.size - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      const term = m[1]!;
      const hits = out.get(lo);
      if (hits) hits.push(term);
      else out.set(lo, [term]);
    }
    return out;
  }

  /** A saved row as an array (format 1's row). */
  row(i: number): MemoryRow {
    const flags = this.flags(i);
    const rest = this.line(REST, i).split('\t');
    return [
      this.path(i), Number(this.line(SIZES, i)), Number(this.line(MTIMES, i)), this.id(i), this.category(i), this.confidence(i), this.created(i),
      flags & 1 ? 1 : 0, unwrap(this.line(TERMS, i)), unwrap(this.line(NEGATED, i)), flags & 4 ? null : rest[0]!,
      flags & 2 ? 1 : 0, rest[1]!, rest[2]!, rest[3]!, rest.slice(4),
    ];
  }
}

/** Where each of `size` lines of `text` starts, and the end of the last + 1; null when it has another number of lines. */
function lineStarts(text: string, size: number): Int32Array | null {
  const starts = new Int32Array(size + 1);
  let at = 0;
  for (let i = 0; i < size; i++) {
    if (at > text.length) return null;
    starts[i] = at;
    const end = text.indexOf('\n', at);
    at = end < 0 ? text.length + 1 : end + 1;
  }
  starts[size] = at;
  return at === text.length + 1 || (size === 0 && text === '') ? starts : null;
}

/** A row's META characters, or null when it cannot have them (an odd row). */
function metaOf(row: MemoryRow): string | null {
  const category = CATEGORIES.indexOf(row[4]);
  const confidence = CONFIDENCES.indexOf(row[5]);
  const count = countWords(row[8] === '' ? '' : row[8]);
  const created = row[6];
  if (category < 0 || confidence < 0 || count >= MAX_TERM_COUNT || !Number.isInteger(created) || created < 0 || created >= MAX_CREATED) return null;
  return `${category}${confidence}${row[7] + 2 * row[11] + (row[10] === null ? 4 : 0)}${count.toString(36).padStart(4, '0')}${created.toString(36).padStart(9, '0')}`;
}

/** Whether a row's fields fit lines: none holds a line break (the analysis makes none), no import key is empty or holds a tab. */
function fitsLines(row: MemoryRow): boolean {
  for (const c of [0, 3, 8, 9] as const) if (row[c].includes('\n')) return false;
  for (const c of [10, 12, 13, 14] as const) {
    const field = row[c];
    if (field !== null && (field.includes('\n') || field.includes('\t'))) return false;
  }
  for (const key of row[15]) if (key === '' || key.includes('\t') || key.includes('\n')) return false;
  return true;
}

/** Lines of a column joined into one piece of the file: pieces of a few tens of KB (see cachePieces). */
export const PIECE_LINES = 256;

/**
 * The file of `rows` (saved rows by number, copied from `saved` as they are), as pieces to be
 * written one after the other: the header line, then each column's lines, PIECE_LINES a piece.
 * Each column was joined into one string, then the columns into the file (3.4 MB at 10,000
 * memories), and the file encoded: four fresh copies of the file, ~3,400 new pages for the
 * kernel to fault in, 70-90 ms of CPU at the end of an import (JSON.stringify of format 1 made
 * two: 10-20 ms). A piece is small enough to be made and dropped in the young generation.
 */
function* cachePieces(print: string, rows: Ref[], saved: Columns): Generator<string> {
  const columns: string[][] = Array.from({ length: COLUMNS }, () => []);
  const odd: Row[] = [];
  for (const ref of rows) {
    if (typeof ref === 'number') {
      for (let c = 0; c < COLUMNS; c++) columns[c]!.push(saved.line(c, ref));
      continue;
    }
    const meta = ref.length === 16 && fitsLines(ref) ? metaOf(ref) : null;
    if (meta === null) {
      odd.push(ref);
      continue;
    }
    const row = ref as MemoryRow;
    columns[PATHS]!.push(row[0]);
    columns[SIZES]!.push(String(row[1]));
    columns[MTIMES]!.push(String(row[2]));
    columns[IDS]!.push(row[3]);
    columns[META]!.push(meta);
    columns[TERMS]!.push(wrap(row[8]));
    columns[NEGATED]!.push(wrap(row[9]));
    columns[REST]!.push(row[15].length === 0 ? `${row[10] ?? ''}\t${row[12]}\t${row[13]}\t${row[14]}` : `${row[10] ?? ''}\t${row[12]}\t${row[13]}\t${row[14]}\t${row[15].join('\t')}`);
  }
  // each column's length as its lines joined (META: no separator), without joining them
  const lengths = columns.map((lines, c) => {
    let length = c === META || lines.length === 0 ? 0 : lines.length - 1;
    for (const line of lines) length += line.length;
    return length;
  });
  yield `${JSON.stringify({ format: FORMAT, fingerprint: print, rows: columns[0]!.length, lengths, odd })}\n`;
  for (const [c, lines] of columns.entries()) {
    const separator = c === META ? '' : '\n';
    for (let at = 0; at < lines.length; at += PIECE_LINES) {
      const end = Math.min(lines.length, at + PIECE_LINES);
      const piece = lines.slice(at, end).join(separator);
      yield end < lines.length ? piece + separator : piece;
    }
  }
}

async function readCache(vault: Vault, print: string): Promise<Columns> {
  try {
    const bytes = await vault.ports.files.read(WRITE_INDEX_PATH);
    return bytes ? (decodeCache(new TextDecoder().decode(bytes), print) ?? Columns.empty) : Columns.empty;
  } catch {
    // a damaged cache is rebuilt from the markdown
    return Columns.empty;
  }
}

/** The rows of a saved index (`print`: made for these settings, or null for any), or null for a file of another format or damaged. */
function decodeCache(text: string, print: string | null): Columns | null {
  const nl = text.indexOf('\n');
  if (nl < 0) return null;
  const header = JSON.parse(text.slice(0, nl)) as { format: unknown; fingerprint: unknown; rows: unknown; lengths: unknown; odd: unknown };
  if (header.format !== FORMAT || (print !== null && header.fingerprint !== print) || !Array.isArray(header.odd) || !Array.isArray(header.lengths) || header.lengths.length !== COLUMNS) return null;
  const size = header.rows;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) return null;
  const lines: string[][] = [];
  const texts: string[] = [];
  const starts: Int32Array[] = [];
  let meta = '';
  let at = nl + 1;
  for (const [c, length] of header.lengths.entries()) {
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || at + length > text.length) return null;
    const column = text.slice(at, at + length);
    at += length;
    if (c === META) {
      if (column.length !== META_WIDTH * size) return null;
      meta = column;
    } else if (c < META) {
      const split: string[] = size === 0 ? [] : column.split('\n');
      if (split.length !== size || (size === 0 && column !== '')) return null;
      lines[c] = split;
    } else {
      const found = lineStarts(column, size);
      if (!found) return null;
      texts[c] = column;
      starts[c] = found;
    }
  }
  if (at !== text.length) return null;
  const odd: Row[] = [];
  for (const row of header.odd) if (Array.isArray(row) && (row.length === 5 || row.length === 16) && typeof row[0] === 'string') odd.push(row as Row);
  return new Columns(lines, texts, starts, meta, size, odd);
}

/** The rows of a saved index file as arrays (those kept in columns, then the odd ones), or null when it cannot be read. For tests. */
export function savedRows(text: string): unknown[][] | null {
  const saved = decodeCache(text, null);
  return saved && [...Array.from({ length: saved.size }, (_, i) => saved.row(i)), ...saved.oddRows];
}
