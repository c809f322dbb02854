import { MemoryParseError } from '../errors';
import { compareMemoryPaths } from '../memory-files';
import type { RecallDoc } from './catalog';
import { LINK_KIND_CODES, tableFromDocs, type DocTable } from './doc-table';
import { indexSignature } from './engine-update';
import { CATEGORY_CODES, CONFIDENCE_CODES, PackedStrings, TIER_CODES, type ListedFile, type RawSnapshot, type SnapshotHeader, type StringColumn, type TypedArray } from './snapshot';

/** A spliced snapshot: its header (less the sections) and its arrays in the file's order (snapshot.ts piecesOf, openSnapshot). */
export interface Spliced {
  fields: Omit<SnapshotHeader, 'sections'>;
  arrays: Record<string, TypedArray>;
  /** The string columns' texts, decoded (what openSnapshot would decode from their sections again). */
  texts: Partial<Record<StringColumn, string>>;
}

/**
 * A recall snapshot brought up to date with a few changed memory files, at the level of its
 * arrays, without the catalog: what an agent's `remember` (a file added), a `touch` or an edit in
 * Obsidian (a file changed), a `forget` (a file gone) leave for the next cold recall. Before, a
 * file added or removed sent that recall to the catalog (read and parsed whole, 5 MB at 10k) and
 * to building every index again from 10,000 documents: ~1.0 s of CPU more than a cold recall.
 *
 * The files the listing shows added or changed (another size or mtime) are parsed, as a rebuild
 * parses them; every other document keeps its row, moved to where the new listing puts it
 * (documents are in listing order, as a rebuild orders them). The word index's postings are
 * copied with their rows renumbered, those of removed rows left out and those of the parsed
 * files merged in at their place; a term no document holds any more goes, a new one takes its
 * place in the sorted terms. Links, co-access and successors keep their targets, renumbered;
 * one whose target is gone resolves again by id (the same memory moved) or becomes unresolved.
 * The result is the snapshot a rebuild from the same files writes, byte for byte (tests compare
 * the two), so the engine opens from it as a cold recall opens any snapshot.
 *
 * Declined (null: the caller patches or rebuilds) when the snapshot does not say enough or the
 * change is not one a splice follows: no list of unresolved names (an older file), ids not
 * known distinct, a column kept as JSON, more files to parse than `maxParsed`, a parsed id held
 * by a kept document or named, unresolved, by one (its links would change), a change to an
 * episode (a session gained, lost or indexed differently: the episode index is not spliced), a
 * term frequency past 16 bits, a lone surrogate in a string column.
 */
export async function spliceSnapshot(raw: RawSnapshot, listing: readonly ListedFile[], parse: (path: string) => Promise<RecallDoc | MemoryParseError>, maxParsed: number): Promise<Spliced | null> {
  const head = raw.header;
  const unresolved0 = head.unresolved;
  if (!unresolved0 || head.uniqueIds !== true || Object.keys(head.json).length > 0 || !head.sections.signature) return null;
  const listing0 = raw.strings('listing');
  const ids0 = raw.strings('ids');
  const role0 = raw.strings('role');
  const source0 = raw.strings('source');
  const session0 = raw.strings('session');
  const terms0 = raw.strings('lexicalTerms');
  const episodeTerms0 = head.sameTerms ? terms0 : raw.strings('episodeTerms');
  if (!listing0 || !ids0 || !role0 || !source0 || !session0 || !terms0 || !episodeTerms0) return null;
  const { view } = raw;
  const size0 = view('listSize') as Float64Array;
  const mtime0 = view('listMtime') as Float64Array;
  const docFile0 = view('docFile') as Int32Array;
  const episodeOf0 = view('episodeOf') as Int32Array;
  const signature0 = view('signature') as Float64Array;
  const n0 = docFile0.length;

  // each listed file's row, from rows in listing order (as every snapshot's are)
  const rowOfFile = new Int32Array(listing0.length).fill(-1);
  for (let r = 0; r < n0; r++) {
    const f = docFile0[r]!;
    if (f < 0 || f >= listing0.length || (r > 0 && f <= docFile0[r - 1]!)) return null;
    rowOfFile[f] = r;
  }
  for (const [row] of unresolved0) if (!(row >= 0 && row < n0)) return null;

  // the listings side by side (both in the scan's order): kept, changed, added, removed
  const KEPT_NO_DOC = -1;
  const PARSE = -2;
  const sourceOf = new Int32Array(listing.length); // an old row kept, KEPT_NO_DOC or PARSE
  const changedRow = new Int32Array(listing.length).fill(-1); // a changed file's old row
  const toParse: number[] = [];
  // each listed path's entry in the old listing column (packFrom), or -1 - k for newPaths[k]
  const listingSource = new Int32Array(listing.length);
  const newPaths: string[] = [];
  // the listed paths as one text (a path compared as it is, a string joined from the folder and
  // the name, was flattened by each comparison: ~40 ms at 10k), each old entry against its slice
  const paths = new Array<string>(listing.length);
  for (let j = 0; j < listing.length; j++) paths[j] = listing[j]![0];
  const joined = paths.join('');
  const text0 = listing0.text;
  let end = 0;
  const same = (i: number, start: number): boolean => {
    const from = listing0.start(i);
    const to = listing0.ends[i]!;
    return to - from === end - start && text0.startsWith(joined.slice(start, end), from);
  };
  let i0 = 0;
  for (let j = 0; j < listing.length; j++) {
    const [path, size, mtimeMs] = listing[j]!;
    if (size < 0) return null; // listed without stats: a rebuild reads them
    const start = end;
    end += path.length;
    while (i0 < listing0.length && !same(i0, start) && compareMemoryPaths(listing0.at(i0)!, path) < 0) i0++;
    if (i0 < listing0.length && same(i0, start)) {
      listingSource[j] = i0;
      const r = rowOfFile[i0]!;
      if (size === size0[i0] && mtimeMs === mtime0[i0]) sourceOf[j] = r < 0 ? KEPT_NO_DOC : r;
      else {
        changedRow[j] = r;
        sourceOf[j] = PARSE;
        toParse.push(j);
      }
      i0++;
    } else {
      listingSource[j] = -1 - newPaths.length;
      newPaths.push(path);
      sourceOf[j] = PARSE;
      toParse.push(j);
    }
    if (toParse.length > maxParsed) return null;
  }

  const parsed = new Map<number, RecallDoc>();
  for (const j of toParse) {
    const doc = await parse(listing[j]![0]);
    if (!(doc instanceof MemoryParseError)) parsed.set(j, doc);
  }

  // the new rows: kept documents (remap: old row -> new, -1 gone) and parsed ones, in listing order
  const remap = new Int32Array(n0).fill(-1);
  const docFile = new Int32Array(listing.length);
  const added: RecallDoc[] = [];
  const addedRow: number[] = [];
  const addedFrom: number[] = []; // the changed file's old row, or -1
  let n = 0;
  for (let j = 0; j < listing.length; j++) {
    const s = sourceOf[j]!;
    if (s >= 0) remap[s] = n;
    else if (s === PARSE && parsed.has(j)) {
      added.push(parsed.get(j)!);
      addedRow.push(n);
      addedFrom.push(changedRow[j]!);
    } else continue;
    docFile[n++] = j;
  }

  // episodes are not spliced: a changed member keeps its session and its words, or nothing of one changes
  const followed = new Uint8Array(n0);
  for (let k = 0; k < added.length; k++) {
    const doc = added[k]!;
    const from = addedFrom[k]!;
    if (from < 0) {
      if (doc.session !== null) return null;
      continue;
    }
    if (episodeOf0[from]! < 0 && doc.session === null) continue;
    if (doc.session !== session0.at(from) || indexSignature(doc) !== signature0[from]) return null;
    followed[from] = 1;
  }
  for (let r = 0; r < n0; r++) if (remap[r]! < 0 && episodeOf0[r]! >= 0 && followed[r] === 0) return null;

  // ids: each parsed one distinct, held by no kept document, named by no kept document that found none
  const addedIds = new Map<string, number>();
  for (let k = 0; k < added.length; k++) {
    const id = added[k]!.id;
    if (addedIds.has(id) || SURROGATE.test(id)) return null;
    const old = ids0.find(id);
    if (old >= 0 && remap[old]! >= 0) return null;
    addedIds.set(id, addedRow[k]!);
  }
  for (const [row, id] of unresolved0) if (remap[row]! >= 0 && addedIds.has(id)) return null;
  /** The new row of the document that holds `id`, or -1. */
  const rowOfId = (id: string): number => {
    const row = addedIds.get(id);
    if (row !== undefined) return row;
    const old = ids0.find(id);
    return old >= 0 ? remap[old]! : -1;
  };

  // runs of kept rows (old rows [from, from + length) are new rows [at, at + length))
  const runs: Array<[from: number, at: number, length: number]> = [];
  for (let r = 0; r < n0; r++) {
    const at = remap[r]!;
    if (at < 0) continue;
    const last = runs[runs.length - 1];
    if (last && last[0] + last[2] === r && last[1] + last[2] === at) last[2]++;
    else runs.push([r, at, 1]);
  }
  const ones: DocTable[] = added.map((doc) => tableFromDocs([doc]));
  /** A per-row column: kept rows' values copied in runs, each parsed document's given. */
  const rows = <T extends TypedArray>(old: T, value: (k: number) => number): T => {
    const out = new (old.constructor as new (length: number) => T)(n);
    for (const [from, at, length] of runs) out.set(old.subarray(from, from + length), at);
    for (let k = 0; k < added.length; k++) out[addedRow[k]!] = value(k);
    return out;
  };
  const arrays: Record<string, TypedArray> = {};
  const listSize = new Float64Array(listing.length);
  const listMtime = new Float64Array(listing.length);
  for (let j = 0; j < listing.length; j++) {
    listSize[j] = listing[j]![1];
    listMtime[j] = listing[j]![2];
  }
  arrays.listSize = listSize;
  arrays.listMtime = listMtime;
  arrays.docFile = docFile.slice(0, n);
  arrays.category = rows(view('category') as Uint8Array, (k) => CATEGORY_CODES.indexOf(ones[k]!.category[0]!));
  arrays.confidence = rows(view('confidence') as Uint8Array, (k) => CONFIDENCE_CODES.indexOf(ones[k]!.confidence[0]!));
  arrays.tier = rows(view('tier') as Uint8Array, (k) => TIER_CODES.indexOf(ones[k]!.tier[0]!));
  for (const name of ['archived', 'isError', 'createdMs', 'accessMs', 'activationMs', 'halfLifeDays', 'activation', 'amplitude', 'accessCount'] as const) {
    arrays[name] = rows(view(name), (k) => ones[k]![name][0]!);
  }

  // links and co-access: kept rows' targets renumbered (a gone one found again by id, or unresolved), parsed rows' resolved
  const unresolved: Array<[number, string]> = [];
  for (const [row, id] of unresolved0) if (remap[row]! >= 0) unresolved.push([remap[row]!, id]);
  const sparse = (offsetsName: string, targetsName: string, secondName: string, pairs: (doc: RecallDoc, name: (id: string, second: number) => void) => void) => {
    const offsets0 = view(offsetsName) as Int32Array;
    const targets0 = view(targetsName) as Int32Array;
    const second0 = view(secondName) as Uint8Array | Float64Array;
    let room = targets0.length;
    const named: Array<Array<[string, number]>> = added.map((doc) => {
      const list: Array<[string, number]> = [];
      pairs(doc, (id, second) => list.push([id, second]));
      room += list.length;
      return list;
    });
    const offsets = new Int32Array(n + 1);
    const targets = new Int32Array(room);
    const second = new (second0.constructor as new (length: number) => Uint8Array | Float64Array)(room);
    let at = 0;
    let k = 0;
    for (let row = 0, r = 0; row < n; row++) {
      offsets[row] = at;
      if (k < added.length && addedRow[k] === row) {
        for (const [id, value] of named[k]!) {
          const target = rowOfId(id);
          if (target < 0) unresolved.push([row, id]);
          else if (target !== row) {
            targets[at] = target;
            second[at++] = value;
          }
        }
        k++;
        continue;
      }
      while (remap[r]! !== row) r++;
      for (let e = offsets0[r]!; e < offsets0[r + 1]!; e++) {
        let target = remap[targets0[e]!]!;
        if (target < 0) {
          const id = ids0.at(targets0[e]!)!;
          target = addedIds.get(id) ?? -1;
          if (target < 0) {
            unresolved.push([row, id]);
            continue;
          }
        }
        targets[at] = target;
        second[at++] = second0[e]!;
      }
    }
    offsets[n] = at;
    arrays[offsetsName] = offsets;
    arrays[targetsName] = targets.slice(0, at);
    arrays[secondName] = second.slice(0, at);
  };
  sparse('linkOffsets', 'linkTargets', 'linkKinds', (doc, name) => {
    for (const link of doc.links) if (link.kind === 'related' || link.kind === 'decays_from' || link.kind === 'contradicts') name(link.target, LINK_KIND_CODES[link.kind]);
  });
  sparse('coOffsets', 'coTargets', 'coCounts', (doc, name) => {
    for (const other of Object.keys(doc.co_access)) name(other, doc.co_access[other]!);
  });
  const successor0 = view('successor') as Int32Array;
  arrays.successor = rows(successor0, (k) => {
    const id = added[k]!.superseded_by;
    if (!id) return -1;
    const target = rowOfId(id);
    if (target < 0) unresolved.push([addedRow[k]!, id]);
    return target === addedRow[k] ? -1 : target;
  });
  // a kept row's successor that is gone: the same id elsewhere, or unresolved
  for (const [from, at, length] of runs) {
    for (let i = 0; i < length; i++) {
      const s = successor0[from + i]!;
      if (s < 0 || remap[s]! >= 0) {
        if (s >= 0) (arrays.successor)[at + i] = remap[s]!;
        continue;
      }
      const id = ids0.at(s)!;
      const target = addedIds.get(id) ?? -1;
      if (target < 0) unresolved.push([at + i, id]);
      (arrays.successor)[at + i] = target;
    }
  }

  // the word index: postings renumbered, removed rows' left out, parsed documents' merged in; a
  // changed document with the words it had (a touch) keeps its postings, under its new row
  const lexicalRemap = remap.slice();
  const lexicalAdded: RecallDoc[] = [];
  const lexicalRow: number[] = [];
  for (let k = 0; k < added.length; k++) {
    const from = addedFrom[k]!;
    if (from >= 0 && indexSignature(added[k]!) === signature0[from]) lexicalRemap[from] = addedRow[k]!;
    else {
      lexicalAdded.push(added[k]!);
      lexicalRow.push(addedRow[k]!);
    }
  }
  const lexicalArrays = spliceLexical(terms0, view('lexOffsets') as Int32Array, view('lexDocs') as Int32Array, view('lexTfs') as Uint16Array, lexicalRemap, lexicalAdded, lexicalRow);
  if (!lexicalArrays) return null;
  arrays.lexOffsets = lexicalArrays.offsets;
  arrays.lexDocs = lexicalArrays.docs;
  arrays.lexTfs = lexicalArrays.tfs;
  arrays.lexLengths = rows(view('lexLengths') as Int32Array, (k) => added[k]!.terms.length);
  for (const name of ['epOffsets', 'epDocs', 'epTfs', 'epLengths'] as const) arrays[name] = view(name);
  arrays.episodeOf = rows(episodeOf0, (k) => (addedFrom[k]! >= 0 && added[k]!.session !== null ? episodeOf0[addedFrom[k]!]! : -1));
  arrays.signature = rows(signature0, (k) => indexSignature(added[k]!));

  // the string columns
  const texts: Partial<Record<StringColumn, string>> = {};
  const listingPacked = packFrom(listing0, listingSource, newPaths);
  if (!listingPacked) return null;
  arrays.listingText = listingPacked.text;
  arrays.listingEnds = listingPacked.ends;
  texts.listing = listingPacked.joined;
  const columnSource = new Int32Array(n);
  for (const [from, at, length] of runs) for (let i = 0; i < length; i++) columnSource[at + i] = from + i;
  for (let k = 0; k < added.length; k++) columnSource[addedRow[k]!] = -1 - k;
  const columns = [
    ['ids', ids0, (doc: RecallDoc) => doc.id],
    ['role', role0, (doc: RecallDoc) => doc.agent_role],
    ['source', source0, (doc: RecallDoc) => doc.source],
    ['session', session0, (doc: RecallDoc) => doc.session],
  ] as const;
  for (const [name, old, value] of columns) {
    const packed = packFrom(old, columnSource, added.map(value));
    if (!packed) return null;
    arrays[`${name}Text`] = packed.text;
    arrays[`${name}Ends`] = packed.ends;
    texts[name] = packed.joined;
  }
  let sameTerms = head.sameTerms;
  if (lexicalArrays.terms) {
    const packed = packFrom(terms0, lexicalArrays.terms.source, lexicalArrays.terms.values);
    if (!packed) return null;
    arrays.lexicalTermsText = packed.text;
    arrays.lexicalTermsEnds = packed.ends;
    texts.lexicalTerms = packed.joined;
    sameTerms = packed.joined === episodeTerms0.text && sameEnds(packed.ends, episodeTerms0.ends);
  } else {
    arrays.lexicalTermsText = view('lexicalTermsText');
    arrays.lexicalTermsEnds = view('lexicalTermsEnds');
    texts.lexicalTerms = terms0.text;
  }
  if (!sameTerms) texts.episodeTerms = episodeTerms0.text;
  if (sameTerms) {
    arrays.episodeTermsText = new Uint8Array(0);
    arrays.episodeTermsEnds = new Int32Array(0);
  } else {
    arrays.episodeTermsText = view(head.sameTerms ? 'lexicalTermsText' : 'episodeTermsText');
    arrays.episodeTermsEnds = view(head.sameTerms ? 'lexicalTermsEnds' : 'episodeTermsEnds');
  }

  // in the file's order (snapshotPieces'), every section accounted for, each of its type
  const ordered: Record<string, TypedArray> = {};
  const names = Object.keys(head.sections);
  if (names.length !== Object.keys(arrays).length) return null;
  for (const name of names) {
    const array = arrays[name];
    if (!array || array.constructor !== view(name).constructor) return null;
    ordered[name] = array;
  }
  unresolved.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const distinct = unresolved.filter((u, i) => i === 0 || u[0] !== unresolved[i - 1]![0] || u[1] !== unresolved[i - 1]![1]);
  return { fields: { fingerprint: head.fingerprint, episodeNames: head.episodeNames, json: {}, sameTerms, uniqueIds: true, unresolved: distinct }, arrays: ordered, texts };
}

const SURROGATE = /[\uD800-\uDFFF]/;

function sameEnds(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A string column made of an old one's entries and new values: entry i is old entry `source[i]`
 * when that is >= 0, else `values[-1 - source[i]]`. Runs of consecutive old entries are copied
 * as one slice of the old text. Null when the text holds a surrogate (packStrings would keep the
 * column as JSON, or two entries now side by side would read back as another character).
 */
function packFrom(old: PackedStrings, source: Int32Array, values: ReadonlyArray<string | null>): { text: Uint8Array; ends: Int32Array; joined: string } | null {
  const parts: string[] = [];
  const ends = new Int32Array(source.length);
  let at = 0;
  for (let i = 0; i < source.length; ) {
    const s = source[i]!;
    if (s < 0) {
      const value = values[-1 - s];
      if (value === null || value === undefined) ends[i] = ~at;
      else {
        parts.push(value);
        at += value.length;
        ends[i] = at;
      }
      i++;
      continue;
    }
    let j = i + 1;
    while (j < source.length && source[j] === source[j - 1]! + 1) j++;
    const from = old.start(s);
    const last = old.ends[source[j - 1]!]!;
    const to = last < 0 ? ~last : last;
    const shift = at - from;
    for (let k = i; k < j; k++) {
      const end = old.ends[source[k]!]!;
      ends[k] = end < 0 ? ~(~end + shift) : end + shift;
    }
    parts.push(old.text.slice(from, to));
    at += to - from;
    i = j;
  }
  const joined = parts.join('');
  if (SURROGATE.test(joined)) return null;
  return { text: new TextEncoder().encode(joined), ends, joined };
}

/**
 * The word index's arrays with removed rows' postings left out, the others renumbered (`remap`)
 * and the added documents' postings merged in (each at its new row, in row order). `terms`:
 * when the terms changed, each one's source for packFrom (an old term's index, or -1 - k for
 * values[k]); null when they are the old ones. Null: a term frequency past 16 bits.
 */
function spliceLexical(
  terms0: PackedStrings,
  offsets0: Int32Array,
  docs0: Int32Array,
  tfs0: Uint16Array,
  remap: Int32Array,
  added: readonly RecallDoc[],
  addedRow: readonly number[],
): { offsets: Int32Array; docs: Int32Array; tfs: Uint16Array; terms: { source: Int32Array; values: string[] } | null } | null {
  // each added document's terms counted (words, then facets, as the index adds them)
  const postings = new Map<string, number[]>(); // term -> row, tf, row, tf, ... (rows ascending)
  let entries = 0;
  for (let k = 0; k < added.length; k++) {
    const counts = new Map<string, number>();
    const doc = added[k]!;
    for (const term of doc.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const term of doc.facets ?? []) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) {
      if (tf > 65535) return null;
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push(addedRow[k]!, tf);
      entries++;
    }
  }
  const count = terms0.length;
  let identity = added.length === 0;
  let kept = true; // no row's postings go
  for (let r = 0; r < remap.length; r++) {
    if (remap[r] !== r) identity = false;
    if (remap[r]! < 0) kept = false;
  }
  if (identity) return { offsets: offsets0, docs: docs0, tfs: tfs0, terms: null };
  const termAt = (i: number) => terms0.at(i)!;
  // where each term goes: an old term's postings gain some, or a new term before old term `at`
  const into = new Map<number, number[]>();
  const fresh: Array<[at: number, term: string, list: number[]]> = [];
  for (const [term, list] of postings) {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (termAt(mid) < term) lo = mid + 1;
      else hi = mid;
    }
    if (lo < count && terms0.equals(lo, term)) into.set(lo, list);
    else fresh.push([lo, term, list]);
  }
  fresh.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  if (kept) return mergeKept(offsets0, docs0, tfs0, remap, into, fresh, entries);
  const offsets: number[] = [];
  const docs = new Int32Array(docs0.length + entries);
  const tfs = new Uint16Array(docs0.length + entries);
  const source: number[] = [];
  const values: string[] = [];
  let changed = fresh.length > 0;
  let at = 0;
  let f = 0;
  for (let t = 0; t <= count; t++) {
    for (; f < fresh.length && fresh[f]![0] === t; f++) {
      const list = fresh[f]![2];
      offsets.push(at);
      source.push(-1 - values.length);
      values.push(fresh[f]![1]);
      for (let e = 0; e < list.length; e += 2) {
        docs[at] = list[e]!;
        tfs[at++] = list[e + 1]!;
      }
    }
    if (t === count) break;
    const start = at;
    const extra = into.get(t);
    let e = 0;
    for (let p = offsets0[t]!; p < offsets0[t + 1]!; p++) {
      const row = remap[docs0[p]!]!;
      if (row < 0) continue;
      if (extra) {
        for (; e < extra.length && extra[e]! < row; e += 2) {
          docs[at] = extra[e]!;
          tfs[at++] = extra[e + 1]!;
        }
      }
      docs[at] = row;
      tfs[at++] = tfs0[p]!;
    }
    if (extra) {
      for (; e < extra.length; e += 2) {
        docs[at] = extra[e]!;
        tfs[at++] = extra[e + 1]!;
      }
    }
    if (at === start) {
      changed = true; // no document holds it now
      continue;
    }
    offsets.push(start);
    source.push(t);
  }
  offsets.push(at);
  return { offsets: Int32Array.from(offsets), docs: docs.slice(0, at), tfs: tfs.slice(0, at), terms: changed ? { source: Int32Array.from(source), values } : null };
}

/**
 * spliceLexical when no row's postings go (documents added, or changed with their words kept):
 * the postings renumbered a block of terms at a time between the terms that gain postings or
 * are new, their tfs copied as they are.
 */
function mergeKept(
  offsets0: Int32Array,
  docs0: Int32Array,
  tfs0: Uint16Array,
  remap: Int32Array,
  into: ReadonlyMap<number, number[]>,
  fresh: ReadonlyArray<[at: number, term: string, list: number[]]>,
  entries: number,
): { offsets: Int32Array; docs: Int32Array; tfs: Uint16Array; terms: { source: Int32Array; values: string[] } | null } {
  const count = offsets0.length - 1;
  const docs = new Int32Array(docs0.length + entries);
  const tfs = new Uint16Array(docs0.length + entries);
  const offsets = new Int32Array(count + fresh.length + 1);
  const source = fresh.length > 0 ? new Int32Array(count + fresh.length) : null;
  const values: string[] = [];
  // the terms where something is inserted, in order: an old term that gains postings, or a new term before old term `at`
  const stops = [...into.keys()].sort((a, b) => a - b);
  let at = 0; // entries written
  let o = 0; // terms written
  let t = 0; // the next old term to copy
  let s = 0;
  let f = 0;
  const copyUntil = (end: number) => {
    // old terms [t, end) as they are, renumbered: one block
    const from = offsets0[t]!;
    const to = offsets0[end]!;
    const shift = at - from;
    tfs.set(tfs0.subarray(from, to), at);
    for (let p = from; p < to; p++) docs[p + shift] = remap[docs0[p]!]!;
    for (let k = t; k < end; k++) {
      if (source) source[o] = k;
      offsets[o++] = offsets0[k]! + shift;
    }
    at += to - from;
    t = end;
  };
  const put = (list: readonly number[]) => {
    for (let e = 0; e < list.length; e += 2) {
      docs[at] = list[e]!;
      tfs[at++] = list[e + 1]!;
    }
  };
  while (s < stops.length || f < fresh.length) {
    const freshFirst = f < fresh.length && (s >= stops.length || fresh[f]![0] <= stops[s]!);
    if (freshFirst) {
      const [before, term, list] = fresh[f++]!;
      copyUntil(before);
      if (source) source[o] = -1 - values.length;
      values.push(term);
      offsets[o++] = at;
      put(list);
      continue;
    }
    const k = stops[s++]!;
    copyUntil(k);
    // old term k with postings merged in at their rows (both ascending)
    const list = into.get(k)!;
    if (source) source[o] = k;
    offsets[o++] = at;
    let e = 0;
    for (let p = offsets0[k]!; p < offsets0[k + 1]!; p++) {
      const row = remap[docs0[p]!]!;
      for (; e < list.length && list[e]! < row; e += 2) {
        docs[at] = list[e]!;
        tfs[at++] = list[e + 1]!;
      }
      docs[at] = row;
      tfs[at++] = tfs0[p]!;
    }
    put(list.slice(e));
    t = k + 1;
  }
  copyUntil(count);
  offsets[o] = at;
  return { offsets, docs, tfs, terms: source ? { source, values } : null };
}

/**
 * The names each document gives that no document holds (snapshot.ts Header.unresolved): ids its
 * related, decays_from and contradicts links, its co-access and its `superseded_by` name, as
 * [row, id], by row then id, each once. What tableFromDocs leaves out of the sparse columns
 * because it found no row for them (a name of the document's own id resolves, to itself).
 */
export function unresolvedNames(docs: readonly RecallDoc[]): Array<[number, string]> {
  let ids: Set<string> | null = null;
  const out: Array<[number, string]> = [];
  for (let row = 0; row < docs.length; row++) {
    const doc = docs[row]!;
    const coAccess = hasKey(doc.co_access);
    if (doc.links.length === 0 && !doc.superseded_by && !coAccess) continue;
    ids ??= new Set(docs.map((d) => d.id));
    // made at the first name missing: most documents name only ids that are there (a set, the
    // keys of an empty co-access and a sorted copy for each of 10,000 was ~20 ms of a first recall)
    let missing: Set<string> | null = null;
    for (let k = 0; k < doc.links.length; k++) {
      const link = doc.links[k]!;
      if ((link.kind === 'related' || link.kind === 'decays_from' || link.kind === 'contradicts') && !ids.has(link.target)) (missing ??= new Set<string>()).add(link.target);
    }
    if (coAccess) for (const other of Object.keys(doc.co_access)) if (!ids.has(other)) (missing ??= new Set<string>()).add(other);
    if (doc.superseded_by && !ids.has(doc.superseded_by)) (missing ??= new Set<string>()).add(doc.superseded_by);
    if (missing !== null) for (const id of [...missing].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) out.push([row, id]);
  }
  return out;
}

function hasKey(record: Record<string, number>): boolean {
  for (const key in record) if (Object.prototype.hasOwnProperty.call(record, key)) return true;
  return false;
}
