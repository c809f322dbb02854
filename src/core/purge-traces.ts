import { COPIES_FOLDER } from './merge/sync-copies';
import { REVIEW_FOLDER } from './review';
import { VERSIONS_FOLDER } from './versions';
import { frontmatterId, listMemoryPaths } from './memory-files';
import { LAYOUT, MEMORY_FOLDERS, type Vault } from './vault';

/**
 * What `forget --purge` cannot delete itself: other files that still hold a piece of the
 * purged text (a secret pasted again in a daily log, a semantic memory made from it, a review
 * note quoting it). They are someone's words, so they are listed with the piece found, never
 * rewritten. A piece is distinctive when it is unlikely to occur by chance: a long token
 * (a key, a token, a host name, a path: a run without spaces) or a whole sentence.
 */

/** Shortest sentence (or start of the text) that counts: shorter ones occur by chance. */
const MIN_SENTENCE = 12;
/** A run without spaces this long counts when it mixes in a digit or a symbol; plain words count from LONG_WORD. */
const MIN_TOKEN = 8;
const LONG_WORD = 16;
/** Quotes, brackets and punctuation around a token are not part of it. */
const EDGES = /^[\s"'`“”‘’«»()[\]{}<>,;:!?.*_~]+|[\s"'`“”‘’«»()[\]{}<>,;:!?.*_~]+$/g;

export interface Fragments {
  /** Long tokens, matched exactly (a secret's case matters). */
  tokens: string[];
  /** Sentences, whitespace-normalised, matched ignoring case. */
  sentences: string[];
  /** The first 40 characters (a summary that cut the text short), reported when no sentence matched. */
  starts: string[];
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The distinctive pieces of `texts` (the purged memory's body and its earlier versions). */
export function distinctiveFragments(texts: string[]): Fragments {
  const tokens = new Set<string>();
  const sentences = new Map<string, string>();
  const starts = new Map<string, string>();
  for (const text of texts) {
    for (const raw of text.split(/\s+/)) {
      if (raw.includes('[[') || /^\W*mem-[a-z0-9]{12}/.test(raw)) continue; // links and ids name memories, not secrets
      const token = raw.replace(EDGES, '');
      if (token.length >= LONG_WORD || (token.length >= MIN_TOKEN && /[^\p{L}]/u.test(token))) tokens.add(token);
    }
    for (const piece of text.replace(/([.!?])\s+/g, '$1\n').split('\n')) {
      const sentence = squash(piece).replace(/[.!?]+$/, '');
      if (sentence.length >= MIN_SENTENCE && !tokens.has(sentence) && !sentences.has(sentence.toLowerCase())) sentences.set(sentence.toLowerCase(), sentence);
    }
    const start = squash(text).slice(0, 40);
    if (start.length >= MIN_SENTENCE && !sentences.has(start.toLowerCase())) starts.set(start.toLowerCase(), start);
  }
  return { tokens: [...tokens], sentences: [...sentences.values()], starts: [...starts.values()] };
}

/** The fragments `text` contains: tokens, then sentences (or else the start of the text), in the purged text's order. */
export function fragmentsIn(text: string, fragments: Fragments): string[] {
  const present = fragments.tokens.filter((t) => text.includes(t));
  // a token found inside a longer one found (`Zq81x…` of a file name, in `ghp_Zq81x…`) says nothing more
  const found = present.filter((t) => !present.some((o) => o !== t && o.includes(t)));
  const flat = squash(text).toLowerCase();
  const sentences = fragments.sentences.filter((s) => flat.includes(s.toLowerCase()));
  const starts = sentences.length > 0 ? [] : fragments.starts.filter((s) => flat.includes(s.toLowerCase()));
  return [...found, ...sentences, ...starts];
}

/** A version record's body (JSON), or the raw text when it does not parse. */
function versionText(raw: string): string {
  try {
    const record = JSON.parse(raw) as { body?: unknown };
    return typeof record.body === 'string' ? record.body : raw;
  } catch {
    return raw;
  }
}

/** The bodies recorded for a memory's earlier versions (read before a purge deletes them). */
export async function recordedBodies(vault: Vault, id: string): Promise<string[]> {
  const folder = `${VERSIONS_FOLDER}/${id}`;
  const out: string[] = [];
  for (const name of (await vault.ports.files.list(folder)).filter((n) => n.endsWith('.json')).sort()) {
    const raw = await vault.readText(`${folder}/${name}`).catch(() => null);
    if (raw !== null) out.push(versionText(raw));
  }
  return out;
}

/** Where a purged text's pieces may still be: every note and log Engram keeps, read as plain text. */
async function candidateFiles(vault: Vault): Promise<string[]> {
  const { files } = vault.ports;
  const paths: string[] = [];
  const ids: string[] = [];
  const folder = async (dir: string, ext: string) => {
    for (const name of (await files.list(dir)).filter((n) => n.endsWith(ext)).sort()) paths.push(`${dir}/${name}`);
  };
  // memories (and forgotten ones) at any depth; their ids (from the frontmatter) name their versions
  for (const roots of [MEMORY_FOLDERS, MEMORY_FOLDERS.map((dir) => `${LAYOUT.forgotten}/${dir}`)]) {
    for (const path of await listMemoryPaths(files, roots)) {
      paths.push(path);
      const text = await vault.readText(path).catch(() => null);
      const id = text === null ? null : frontmatterId(text);
      if (id) ids.push(id);
    }
  }
  await folder(LAYOUT.daily, '.md');
  await folder(LAYOUT.conflicts, '.md');
  await folder(REVIEW_FOLDER, '.md');
  await folder(COPIES_FOLDER, '.md');
  if (await files.stat(LAYOUT.state)) paths.push(LAYOUT.state);
  for (const id of [...new Set(ids)].sort()) {
    for (const name of (await files.list(`${VERSIONS_FOLDER}/${id}`)).filter((n) => n.endsWith('.json')).sort()) paths.push(`${VERSIONS_FOLDER}/${id}/${name}`);
  }
  return paths;
}

export interface Trace {
  path: string;
  /** The pieces of the purged text the file holds. */
  fragments: string[];
}

/** Files that hold any distinctive piece of `texts`, with the pieces found. */
export async function filesContaining(vault: Vault, texts: string[]): Promise<Trace[]> {
  const fragments = distinctiveFragments(texts);
  if (fragments.tokens.length + fragments.sentences.length + fragments.starts.length === 0) return [];
  const traces: Trace[] = [];
  for (const path of await candidateFiles(vault)) {
    const raw = await vault.readText(path).catch(() => null);
    if (raw === null) continue;
    const found = fragmentsIn(path.endsWith('.json') ? versionText(raw) : raw, fragments);
    if (found.length > 0) traces.push({ path, fragments: found });
  }
  return traces;
}
