import type { RecallDoc } from './catalog';
import { tableFromDocs, type DocTable } from './doc-table';

/**
 * What a long-lived recall engine (the MCP server's, the plugin's) needs to follow changed
 * memories without indexing every document again: which changes leave the word indexes alone,
 * and writing a changed memory's fields into its row of the document table.
 */

/** Whether a changed document indexes exactly as the one it replaces (words, dates, episode). */
export function indexesAlike(before: RecallDoc, after: RecallDoc): boolean {
  return before.id === after.id && before.path === after.path && before.session === after.session && sameWords(before, after);
}

/**
 * A 53-bit hash of what a document puts in the word and episode indexes (terms, facets,
 * session), kept per document in the recall snapshot: a changed file whose signature is the
 * one stored indexes alike (indexesAlike), so the snapshot's indexes stay as they are.
 * FNV-1a twice, with two offset bases and primes (a false match: about 1 in 2^53).
 */
export function indexSignature(doc: RecallDoc): number {
  return signatureOf(doc.terms.join(' '), (doc.facets ?? []).join(' '), doc.session);
}

/**
 * indexSignature from a document's terms and facets joined by spaces (as a catalog row holds
 * them: a first load hashes those and joins nothing again) and its session.
 */
export function signatureOf(terms: string, facets: string, session: string | null): number {
  // the hash of `${terms}\n${facets}\n${session ?? '\u0000'}`, its three parts read one after
  // the other: the joined text was a copy of each row's terms made flat at its first charCodeAt
  // (~4 MB for the 10,000 rows of a first recall at 10k)
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let part = 0; part < 3; part++) {
    const text = part === 0 ? terms : part === 1 ? facets : session === null ? '\u0000' : session;
    if (part > 0) {
      a = Math.imul(a ^ 0x0a, 0x01000193); // the newline between two parts
      b = Math.imul(b ^ 0x0a, 0x5bd1e995);
    }
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
  }
  return (a >>> 0) * 2 ** 21 + ((b >>> 0) >>> 11);
}

/** Whether a changed document has the same index terms (words, dates, entities). */
export function sameWords(before: RecallDoc, after: RecallDoc): boolean {
  return sameList(before.terms, after.terms) && sameList(before.facets ?? [], after.facets ?? []);
}

/** Whether a document links to the same memories (related, decays_from) with the same co-access counts, and is superseded by the same one. */
export function sameLinks(before: RecallDoc, after: RecallDoc): boolean {
  const key = (d: RecallDoc) => JSON.stringify([d.links.map((l) => `${l.kind}|${l.target}`), Object.entries(d.co_access), d.superseded_by ?? null]);
  return key(before) === key(after);
}

/** The columns that index links and co-access by row: rebuilt with the table, never patched. */
const SPARSE = new Set(['n', 'ids', 'paths', 'linkOffsets', 'linkTargets', 'linkKinds', 'coOffsets', 'coTargets', 'coCounts', 'successor']);

/**
 * Write a document's fields into row `at` of a table, column by column (every column the table
 * has, so a column added to the table later is patched too), from a one-row table of it.
 */
export function patchRow(table: DocTable, at: number, doc: RecallDoc): void {
  const row = tableFromDocs([doc]) as unknown as Record<string, unknown>;
  const target = table as unknown as Record<string, unknown>;
  for (const [key, column] of Object.entries(row)) {
    if (SPARSE.has(key)) continue;
    const into = target[key];
    if (Array.isArray(into) || ArrayBuffer.isView(into)) (into as unknown as Record<number, unknown>)[at] = (column as Record<number, unknown>)[0];
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
