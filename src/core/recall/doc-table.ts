import type { LinkKind } from '../links';
import type { Category, Confidence, Tier } from '../settings';
import { ShardedMap } from '../sharded-map';
import type { RecallDoc } from './catalog';

/**
 * The recall engine's documents in columns: numbers in typed arrays, links and co-access in
 * compressed sparse rows with targets resolved to document numbers. A snapshot stores these
 * arrays as they are, so opening a large vault creates no object per memory; a `RecallDoc`
 * is materialised only for the results.
 */
export interface DocTable {
  n: number;
  ids: string[];
  paths: string[];
  category: Category[];
  confidence: Confidence[];
  tier: Array<Tier | null>;
  role: Array<string | null>;
  source: Array<string | null>;
  session: Array<string | null>;
  archived: Uint8Array;
  isError: Uint8Array;
  createdMs: Float64Array;
  accessMs: Float64Array;
  activationMs: Float64Array;
  halfLifeDays: Float64Array;
  activation: Float64Array;
  amplitude: Float64Array;
  accessCount: Int32Array;
  /** related (0) and decays_from (1) links: targets of document i are linkTargets[linkOffsets[i] .. linkOffsets[i+1]). */
  linkOffsets: Int32Array;
  linkTargets: Int32Array;
  linkKinds: Uint8Array;
  coOffsets: Int32Array;
  coTargets: Int32Array;
  coCounts: Float64Array;
  /** The document that supersedes document i (its `superseded_by`, when that memory is in the table), or -1. */
  successor: Int32Array;
  /** Texts when known (documents parsed in this process); null entries are read on demand. */
  texts: Array<string | null>;
}

export const LINK_KIND_CODES: Record<'related' | 'decays_from' | 'contradicts', number> = { related: 0, decays_from: 1, contradicts: 2 };
const LINK_KIND_OF: LinkKind[] = ['related', 'decays_from', 'contradicts'];

/**
 * The table of these documents, in their order (row i is docs[i]), with room for `rows` rows
 * in its row columns (a live index adds rows later: see tableRows).
 */
export function tableFromDocs(docs: readonly RecallDoc[], rows = docs.length): DocTable {
  const steps = tableRows(docs, rows, false);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** tableFromDocs in slices: `tick` after each document, twice (ids, then rows), and after each column of strings made. */
export async function tableFromDocsInSlices(docs: readonly RecallDoc[], tick: () => Promise<void>, rows = docs.length): Promise<DocTable> {
  const steps = tableRows(docs, rows, true);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await tick();
  }
}

/** Each id's row, as tableRows fills it. */
interface IdRows {
  get(key: string): number | undefined;
  set(key: string, row: number): unknown;
}

const JS_COLUMNS = ['ids', 'paths', 'category', 'confidence', 'tier', 'role', 'source', 'session', 'texts'] as const satisfies ReadonlyArray<keyof DocTable>;

/**
 * The one builder of a table: row by row into columns of the final size, yielding after each
 * document of its two passes (ids, then rows) and after each column of strings allocated, so a
 * caller may pause there. With `rows` past n, the row columns are made with that much room
 * (typed columns longer than n, lists with a longer backing store, as reserveRows leaves them):
 * a live index's first additions then write into it, where growing a column of 100k rows at an
 * addition costs its allocation, its copy and the page faults of fresh memory (~5 ms a column,
 * 97-220 ms for all of them). Untouched room in a fresh typed array costs no page.
 *
 * `sliced` false (tableFromDocs, which runs it through at once): no step after each document,
 * and the ids in a Map, whose rehash in one step only a caller in slices has to avoid (a
 * generator's suspension and resumption for each of 2 x 10,000 documents, and the sharded map's
 * hash of each id in JavaScript, were ~20 ms of a first recall's profile at 10k).
 */
function* tableRows(docs: readonly RecallDoc[], rows: number, sliced: boolean): Generator<void, DocTable> {
  const n = docs.length;
  const room = Math.max(n, rows);
  // sliced: no step rehashes all ids (sharded-map.ts)
  const indexOf: IdRows = sliced ? new ShardedMap<number>() : new Map<string, number>();
  for (let i = 0; i < n; i++) {
    indexOf.set(docs[i]!.id, i);
    if (sliced) yield;
  }
  const f64 = () => new Float64Array(room);
  const t: DocTable = {
    n, ids: [], paths: [], category: [], confidence: [], tier: [], role: [], source: [], session: [],
    archived: new Uint8Array(room), isError: new Uint8Array(room), createdMs: f64(), accessMs: f64(), activationMs: f64(), halfLifeDays: f64(),
    activation: f64(), amplitude: f64(), accessCount: new Int32Array(room), linkOffsets: new Int32Array(room + 1), linkTargets: new Int32Array(0),
    linkKinds: new Uint8Array(0), coOffsets: new Int32Array(room + 1), coTargets: new Int32Array(0), coCounts: new Float64Array(0),
    successor: new Int32Array(room), texts: [],
  };
  // the JS columns one a step: `new Array(100_000)` costs 5-9 ms of CPU (its 800 KB written with
  // holes), nine at once ~50-80 ms, where the typed columns above together take under 1 ms
  for (const key of JS_COLUMNS) {
    (t as unknown as Record<string, unknown[]>)[key] = new Array<unknown>(room);
    yield;
  }
  const links = new PairColumn(new Int32Array(n), new Uint8Array(n));
  const co = new PairColumn(new Int32Array(n), new Float64Array(n));
  for (let i = 0; i < n; i++) {
    const d = docs[i]!;
    t.ids[i] = d.id;
    t.paths[i] = d.path;
    t.category[i] = d.category;
    t.confidence[i] = d.confidence;
    t.tier[i] = d.tier;
    t.role[i] = d.agent_role;
    t.source[i] = d.source;
    t.session[i] = d.session;
    t.archived[i] = d.archived ? 1 : 0;
    t.isError[i] = d.is_error ? 1 : 0;
    t.createdMs[i] = d.createdMs;
    t.accessMs[i] = d.accessMs;
    t.activationMs[i] = d.activationMs;
    t.halfLifeDays[i] = d.half_life_days;
    t.activation[i] = d.activation;
    t.amplitude[i] = d.amplitude;
    t.accessCount[i] = d.access_count;
    t.texts[i] = d.text;
    t.linkOffsets[i] = links.length;
    eachLink(d, i, indexOf, links.push);
    t.coOffsets[i] = co.length;
    eachCoAccess(d, i, indexOf, co.push);
    t.successor[i] = successorRow(d, i, indexOf);
    if (sliced) yield;
  }
  t.linkOffsets[n] = links.length;
  t.coOffsets[n] = co.length;
  // the lists cut to n rows: V8 keeps a store cut by less than half (reserveList)
  if (room > n) for (const key of JS_COLUMNS) (t as unknown as Record<string, unknown[]>)[key]!.length = n;
  t.linkTargets = links.firsts();
  t.linkKinds = links.seconds();
  t.coTargets = co.firsts();
  t.coCounts = co.seconds();
  return t;
}

/**
 * Pairs appended into two typed arrays that double when full, for the sparse columns of a
 * build: JS arrays of numbers turned into typed arrays at the end (`Int32Array.from`) cost
 * ~50 ms per million entries in the build's last step, one block of a preload in slices.
 */
class PairColumn<B extends Uint8Array | Float64Array> {
  length = 0;

  constructor(
    private first: Int32Array,
    private second: B,
  ) {}

  readonly push = (a: number, b: number): void => {
    if (this.length === this.first.length) {
      const size = 2 * this.length + 16;
      this.first = roomFor(this.first, size, size);
      this.second = roomFor(this.second, size, size);
    }
    this.first[this.length] = a;
    this.second[this.length++] = b;
  };

  /** The first of each pair, in a typed array of exactly their number. */
  firsts(): Int32Array {
    return this.first.slice(0, this.length);
  }

  seconds(): B {
    return this.second.slice(0, this.length) as B;
  }
}

/** A document's related and decays_from links as [target row, kind code]: targets outside the table, and itself, left out. */
export function resolvedLinks(doc: RecallDoc, i: number, indexOf: { get(key: string): number | undefined }): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  eachLink(doc, i, indexOf, (target, kind) => out.push([target, kind]));
  return out;
}

/** resolvedLinks given one pair at a time (no array per document). */
function eachLink(doc: RecallDoc, i: number, indexOf: { get(key: string): number | undefined }, pair: (target: number, kind: number) => void): void {
  for (const link of doc.links) {
    if (link.kind !== 'related' && link.kind !== 'decays_from' && link.kind !== 'contradicts') continue;
    const target = indexOf.get(link.target);
    if (target !== undefined && target !== i) pair(target, LINK_KIND_CODES[link.kind]);
  }
}

/** A document's co-access counts as [target row, count], resolved as links are. */
export function resolvedCoAccess(doc: RecallDoc, i: number, indexOf: { get(key: string): number | undefined }): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  eachCoAccess(doc, i, indexOf, (target, count) => out.push([target, count]));
  return out;
}

/** resolvedCoAccess one pair at a time (in Object.entries' order, its keys' order). */
function eachCoAccess(doc: RecallDoc, i: number, indexOf: { get(key: string): number | undefined }, pair: (target: number, count: number) => void): void {
  const co = doc.co_access;
  for (const other of Object.keys(co)) {
    const target = indexOf.get(other);
    if (target !== undefined && target !== i) pair(target, co[other]!);
  }
}

/**
 * The table with the links and co-access of some rows replaced by those of changed documents
 * (same rows, same ids: a touch, a mark, a reinforcement), every other row's kept as it is:
 * the sparse columns come out exactly as tableFromDocs would build them from all documents.
 * Returns the table itself when no row's links or co-access changed.
 */
export function withSparseRows(table: DocTable, rows: ReadonlyMap<number, RecallDoc>): DocTable {
  const indexOf = new Map(table.ids.map((id, i) => [id, i]));
  const fresh = new Map([...rows].map(([i, doc]) => [i, { links: resolvedLinks(doc, i, indexOf), co: resolvedCoAccess(doc, i, indexOf) }]));
  const sameRow = (offsets: Int32Array, i: number, pairs: Array<[number, number]>, second: ArrayLike<number>, targets: Int32Array) =>
    offsets[i + 1]! - offsets[i]! === pairs.length && pairs.every(([t, x], k) => targets[offsets[i]! + k] === t && second[offsets[i]! + k] === x);
  const unchanged = [...fresh].every(([i, f]) => sameRow(table.linkOffsets, i, f.links, table.linkKinds, table.linkTargets) && sameRow(table.coOffsets, i, f.co, table.coCounts, table.coTargets));
  // superseded_by resolves to a row like a link does: a changed row's successor is resolved again
  const successorOf = (doc: RecallDoc, i: number) => successorRow(doc, i, indexOf);
  if ([...rows].some(([i, doc]) => table.successor[i] !== successorOf(doc, i))) {
    const successor = Int32Array.from(table.successor);
    for (const [i, doc] of rows) successor[i] = successorOf(doc, i);
    table = { ...table, successor };
  }
  if (unchanged) return table;
  const splice = (offsets: Int32Array, targets: Int32Array, second: ArrayLike<number>, pick: (f: { links: Array<[number, number]>; co: Array<[number, number]> }) => Array<[number, number]>) => {
    const pairs: Array<[number, number]> = [];
    const nextOffsets = new Int32Array(table.n + 1);
    for (let i = 0; i < table.n; i++) {
      nextOffsets[i] = pairs.length;
      const f = fresh.get(i);
      if (f) pairs.push(...pick(f));
      else for (let k = offsets[i]!; k < offsets[i + 1]!; k++) pairs.push([targets[k]!, second[k]!]);
    }
    nextOffsets[table.n] = pairs.length;
    return { offsets: nextOffsets, pairs };
  };
  const links = splice(table.linkOffsets, table.linkTargets, table.linkKinds, (f) => f.links);
  const co = splice(table.coOffsets, table.coTargets, table.coCounts, (f) => f.co);
  return {
    ...table,
    linkOffsets: links.offsets,
    linkTargets: Int32Array.from(links.pairs, (l) => l[0]),
    linkKinds: Uint8Array.from(links.pairs, (l) => l[1]),
    coOffsets: co.offsets,
    coTargets: Int32Array.from(co.pairs, (c) => c[0]),
    coCounts: Float64Array.from(co.pairs, (c) => c[1]),
  };
}

/** A row's links, co-access and successor resolved to rows (what tableFromDocs puts in the sparse columns). */
export interface SparseRow {
  links: Array<[number, number]>;
  co: Array<[number, number]>;
  successor: number;
}

export function sparseRow(doc: RecallDoc, i: number, indexOf: { get(key: string): number | undefined }): SparseRow {
  return { links: resolvedLinks(doc, i, indexOf), co: resolvedCoAccess(doc, i, indexOf), successor: successorRow(doc, i, indexOf) };
}

/** The row of the memory that supersedes document i, or -1 (none, not in the table, or itself). */
function successorRow(doc: RecallDoc, i: number, indexOf: { get(key: string): number | undefined }): number {
  const s = doc.superseded_by ? indexOf.get(doc.superseded_by) : undefined;
  return s === undefined || s === i ? -1 : s;
}

/**
 * Append a document as row n (its sparse row empty: set it with setSparseRows). Typed columns
 * grow by half when full (so they may be longer than n: rows from n on mean nothing), which
 * keeps an append O(1) amortised; allocating a typed array costs far more than its size says.
 */
export function appendRow(table: DocTable, doc: RecallDoc): number {
  const row = tableFromDocs([doc]) as unknown as Record<string, unknown>;
  const target = table as unknown as Record<string, unknown>;
  const at = table.n;
  for (const [key, column] of Object.entries(row)) {
    if (key === 'n' || key.endsWith('Offsets') || key === 'linkTargets' || key === 'linkKinds' || key === 'coTargets' || key === 'coCounts') continue;
    const into = target[key];
    if (Array.isArray(into)) into.push((column as unknown[])[0]);
    else if (ArrayBuffer.isView(into)) {
      const typed = roomFor(into as unknown as Float64Array, at + 1);
      typed[at] = key === 'successor' ? -1 : (column as Float64Array)[0]!;
      target[key] = typed;
    }
  }
  for (const key of ['linkOffsets', 'coOffsets'] as const) {
    const offsets = roomFor(table[key], at + 2);
    offsets[at + 1] = offsets[at]!;
    table[key] = offsets;
  }
  table.n = at + 1;
  return at;
}

/**
 * Room for `rows` rows in every row column, made ahead of the additions that will use it, one
 * column per step (a caller pauses between steps: live-index.ts `reserve`). An addition then
 * writes into room already there: no request copies a column of the whole table, nor sets off
 * the collection such a large allocation brings (measured at 100k: 128 ms for the first
 * addition, mostly a major GC finished inside it). Typed columns become longer than n (rows
 * from n on mean nothing, as after appendRow's growth); lists keep their length n and only
 * their backing store grows (`reserveList`).
 */
export function* reserveRows(table: DocTable, rows: number): Generator<void> {
  const target = table as unknown as Record<string, unknown>;
  for (const key of Object.keys(table) as Array<keyof DocTable>) {
    if (key === 'n' || key === 'linkTargets' || key === 'linkKinds' || key === 'coTargets' || key === 'coCounts') continue;
    const column = target[key];
    const size = key.endsWith('Offsets') ? rows + 1 : rows;
    if (Array.isArray(column)) reserveList(column, size);
    else if (ArrayBuffer.isView(column)) target[key] = roomFor(column as unknown as Float64Array, size, size);
    yield;
  }
}

/** Rows of room left in the row columns (the least of them; room ahead of n, see reserveRows). */
export function roomLeft(table: DocTable): number {
  let left = Infinity;
  for (const [key, column] of Object.entries(table)) {
    if (key === 'linkTargets' || key === 'linkKinds' || key === 'coTargets' || key === 'coCounts' || !ArrayBuffer.isView(column)) continue;
    left = Math.min(left, (column as Float64Array).length - table.n - (key.endsWith('Offsets') ? 1 : 0));
  }
  return left;
}

/** A copy of `items` in a list whose backing store holds `size` entries (reserveList). */
export function listWithRoom<T>(items: readonly T[], size: number): T[] {
  if (size <= items.length) return [...items];
  const list = new Array<T>(size);
  for (let i = 0; i < items.length; i++) list[i] = items[i]!;
  list.length = items.length;
  return list;
}

/**
 * Grow a list's backing store to hold `size` entries, its length unchanged: filled, then cut
 * back. V8 keeps the store when a list is cut by less than half (it trims only below that),
 * so later pushes up to `size` copy nothing; an engine that trims anyway only loses the head start.
 */
export function reserveList(list: unknown[], size: number): void {
  const length = list.length;
  if (size <= length || size >= 2 * length) return;
  for (let i = length; i < size; i++) list.push(undefined);
  list.length = length;
}

/** A typed array of at least `size` elements: itself, or a copy half as long again (or `to` long). */
export function roomFor<T extends Float64Array | Int32Array | Uint8Array>(array: T, size: number, to = Math.ceil(array.length * 1.5)): T {
  if (array.length >= size) return array;
  const grown = new (array.constructor as new (length: number) => T)(Math.max(size, to));
  grown.set(array);
  return grown;
}

/**
 * Replace the links, co-access and successor of some rows in place (the columns spliced, not
 * rebuilt): what tableFromDocs would give for the changed documents, every other row as it was.
 * The offsets change in place, and only from the first row whose pairs move (an added row,
 * the last: none); the pairs are copied in blocks. Measured at 100k rows, one link added: fresh
 * offsets and a copy row by row cost 7 ms an update.
 */
export function setSparseRows(table: DocTable, rows: ReadonlyMap<number, SparseRow>): void {
  for (const [i, row] of rows) table.successor[i] = row.successor;
  const changed = [...rows.keys()].sort((a, b) => a - b);
  const links = spliceRows(table.n, table.linkOffsets, table.linkTargets, table.linkKinds, changed, rows, (r) => r.links);
  table.linkTargets = links.targets;
  table.linkKinds = links.second;
  const co = spliceRows(table.n, table.coOffsets, table.coTargets, table.coCounts, changed, rows, (r) => r.co);
  table.coTargets = co.targets;
  table.coCounts = co.second;
}

function spliceRows<B extends Uint8Array | Float64Array>(n: number, offsets: Int32Array, targets: Int32Array, second: B, changed: readonly number[], rows: ReadonlyMap<number, SparseRow>, pick: (r: SparseRow) => Array<[number, number]>): { targets: Int32Array; second: B } {
  let total = offsets[n]!;
  for (const i of changed) total += pick(rows.get(i)!).length - (offsets[i + 1]! - offsets[i]!);
  const nextTargets = new Int32Array(total);
  const nextSecond = new (second.constructor as new (length: number) => B)(total);
  let from = 0; // the next row to copy as it is
  let at = 0; // where its pairs go
  const copy = (until: number) => {
    // rows [from, until) unchanged: their pairs in one block, their offsets shifted (read before written)
    const start = offsets[from]!;
    const end = offsets[until]!;
    nextTargets.set(targets.subarray(start, end), at);
    nextSecond.set(second.subarray(start, end), at);
    if (at !== start) for (let i = from; i < until; i++) offsets[i] = offsets[i]! - start + at;
    at += end - start;
  };
  for (const i of changed) {
    copy(i);
    const pairs = pick(rows.get(i)!);
    offsets[i] = at;
    for (const [t, x] of pairs) {
      nextTargets[at] = t;
      nextSecond[at++] = x;
    }
    from = i + 1;
  }
  copy(n);
  offsets[n] = at;
  return { targets: nextTargets, second: nextSecond };
}

/** Document i as a RecallDoc (for results). Its terms are not kept. */
export function docAt(table: DocTable, i: number): RecallDoc {
  const links = [];
  for (let k = table.linkOffsets[i]!; k < table.linkOffsets[i + 1]!; k++) {
    links.push({ target: table.ids[table.linkTargets[k]!]!, kind: LINK_KIND_OF[table.linkKinds[k]!]! });
  }
  const coAccess: Record<string, number> = {};
  for (let k = table.coOffsets[i]!; k < table.coOffsets[i + 1]!; k++) coAccess[table.ids[table.coTargets[k]!]!] = table.coCounts[k]!;
  return {
    id: table.ids[i]!,
    path: table.paths[i]!,
    category: table.category[i]!,
    confidence: table.confidence[i]!,
    tier: table.tier[i]!,
    archived: table.archived[i] === 1,
    createdMs: table.createdMs[i]!,
    accessMs: table.accessMs[i]!,
    activationMs: table.activationMs[i]!,
    access_count: table.accessCount[i]!,
    is_error: table.isError[i] === 1,
    half_life_days: table.halfLifeDays[i]!,
    activation: table.activation[i]!,
    amplitude: table.amplitude[i]!,
    agent_role: table.role[i]!,
    source: table.source[i]!,
    session: table.session[i]!,
    terms: [],
    links,
    co_access: coAccess,
    superseded_by: table.successor[i]! >= 0 ? table.ids[table.successor[i]!]! : null,
    text: table.texts[i]!,
  };
}
