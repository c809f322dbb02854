import type { Vault } from '../vault';

/**
 * The groups of the last run (`.engram/cache/clusters.json`), so that a nightly run compares
 * only the new and changed episodes with the rest. A cache: when it is missing, damaged, or
 * was made with another model (or words instead of vectors) or another threshold, everything
 * is compared again.
 *
 * The file is `{"model":M,"threshold":T,"labels":{KEY:LABEL,...}}`, a label for each episode
 * by `id:content hash`. At 100k episodes it is 4 MB: JSON.parse made an object of 100,000
 * properties, then Object.entries an array each, then the Map (together ~0.5 s of a nightly
 * run). It is read by hand here when it is as encodeClusterMemo writes it: the same Map as
 * JSON.parse makes; any other text (escapes, white space, another order of fields, a key that
 * is an array index) is read by JSON.parse. (Written by hand, it took as long as JSON.stringify.)
 */
export const CLUSTER_MEMO_PATH = '.engram/cache/clusters.json';

export interface MemoBasis {
  model: string;
  threshold: number;
}

/** The memo's text: the labels as an object, in the Map's order (the keys hold a ':', so none is an array index an object puts first). */
export function encodeClusterMemo(basis: MemoBasis, labels: Map<string, string>): string {
  return JSON.stringify({ model: basis.model, threshold: basis.threshold, labels: Object.fromEntries(labels) });
}

/** A key an object puts before the others (an array index: digits only, or near enough): such a memo is left to JSON.parse. */
const DIGITS = /^[0-9]+$/;

/** What JSON.parse reads from the memo, or null when it is not one made with `basis`. */
export function decodeClusterMemo(text: string, basis: MemoBasis): Map<string, string> | null {
  const written = decodeWritten(text);
  if (written !== undefined) return written.model === basis.model && written.threshold === basis.threshold ? written.labels : null;
  try {
    const memo = JSON.parse(text) as { model?: unknown; threshold?: unknown; labels?: unknown };
    if (memo.model !== basis.model || memo.threshold !== basis.threshold || typeof memo.labels !== 'object' || memo.labels === null) return null;
    return new Map(Object.entries(memo.labels as Record<string, string>));
  } catch {
    return null;
  }
}

/** A backslash (an escape) or a control character (JSON.parse refuses those below U+0020 in a string): without them, every '"' starts or ends a string. */
const ESCAPED = /[\\\p{Cc}]/u;

/**
 * The memo as encodeClusterMemo writes it, read with indexOf and slice: `{"model":` a string,
 * `,"threshold":` a number, `,"labels":{`, "key":"label" pairs joined by commas, `}}`, and
 * nothing else. undefined when the text is not so (then JSON.parse reads it).
 */
function decodeWritten(text: string): { model: unknown; threshold: unknown; labels: Map<string, string> } | undefined {
  const open = text.indexOf(',"labels":{');
  if (!text.startsWith('{"model":"') || open < 0 || !text.endsWith('}}') || ESCAPED.test(text)) return undefined;
  let head: { model?: unknown; threshold?: unknown };
  try {
    head = JSON.parse(`${text.slice(0, open)}}`) as typeof head;
  } catch {
    return undefined;
  }
  // the head is exactly a string model and a number threshold (then ',"labels":{' begins the labels)
  if (typeof head.model !== 'string' || typeof head.threshold !== 'number' || text.slice(0, open) !== JSON.stringify({ model: head.model, threshold: head.threshold }).slice(0, -1)) return undefined;
  const labels = new Map<string, string>();
  const end = text.length - 2;
  let i = open + 11;
  while (i < end) {
    if (text.charCodeAt(i) !== 34) return undefined;
    const keyEnd = text.indexOf('"', i + 1);
    if (keyEnd < 0 || text.charCodeAt(keyEnd + 1) !== 58 || text.charCodeAt(keyEnd + 2) !== 34) return undefined;
    const labelEnd = text.indexOf('"', keyEnd + 3);
    if (labelEnd < 0 || labelEnd >= end) return undefined;
    const key = text.slice(i + 1, keyEnd);
    if (key.charCodeAt(0) <= 57 && DIGITS.test(key)) return undefined;
    labels.set(key, text.slice(keyEnd + 3, labelEnd));
    i = labelEnd + 1;
    if (i < end) {
      if (text.charCodeAt(i) !== 44) return undefined;
      i++;
      if (i === end) return undefined;
    }
  }
  return i === end ? { model: head.model, threshold: head.threshold, labels } : undefined;
}

export async function loadClusterMemo(vault: Vault, basis: MemoBasis): Promise<Map<string, string> | null> {
  const text = await vault.readText(CLUSTER_MEMO_PATH).catch(() => null);
  return text ? decodeClusterMemo(text, basis) : null;
}

export async function saveClusterMemo(vault: Vault, basis: MemoBasis, labels: Map<string, string>): Promise<void> {
  await vault.ports.files.mkdir('.engram/cache');
  await vault.ports.files.write(CLUSTER_MEMO_PATH, encodeClusterMemo(basis, labels));
}
