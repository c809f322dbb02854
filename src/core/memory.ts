import { MemoryParseError } from './errors';
import { eachFlatField, FRONTMATTER_VALUES, FrontmatterLimitError, readFrontmatter, splitFrontmatter } from './frontmatter';
import { isMemoryId } from './ids';
import { LINK_IDS_FIELD, parseLinkIds, parseLinks, withLinks, type MemoryLink } from './links';
import { CATEGORIES, CONFIDENCES, TIERS, type Category, type Confidence, type EngramSettings, type Tier } from './settings';
import { parseTimestamp } from './time';

/** A memory file (SPEC §2), read and checked. */
export interface Memory {
  id: string;
  /** Vault-relative path of the file. */
  path: string;
  category: Category;
  created_at: string;
  last_accessed_at: string;
  agent_role: string | null;
  confidence: Confidence;
  tags: string[];
  half_life_days: number;
  access_count: number;
  is_error: boolean;
  /** The tier written in the file; null when the file has none (then days decide). */
  tier: Tier | null;
  co_access: Record<string, number>;
  related_paths: string[];
  amplitude: number;
  activation: number;
  activation_at: string | null;
  content_hash: string | null;
  source: string | null;
  /** The episode (import `session`) the memory belongs to. */
  session: string | null;
  /** The markdown after the frontmatter, byte for byte. */
  body: string;
  links: MemoryLink[];
  /** Fields Engram does not know: kept, never rewritten. */
  extra: Record<string, unknown>;
}

/** A memory's state without its body: what formulas and indexes need. */
export type MemoryState = Omit<Memory, 'body' | 'extra'>;

/** The folder of each category (SPEC §1). */
export const CATEGORY_FOLDERS: Record<Category, string> = {
  episodic: 'episodic',
  semantic: 'semantic',
  decision: 'decisions',
};
export const ARCHIVE_FOLDER = 'archive';

const KNOWN_FIELDS = new Set([
  'id', 'category', 'created_at', 'last_accessed_at', 'agent_role', 'confidence', 'tags', 'half_life_days',
  'access_count', 'is_error', 'tier', 'co_access', 'related_paths', 'amplitude', 'activation', 'activation_at',
  'content_hash', 'source', 'session',
]);

/** Keeps a byte-order mark (the frontmatter fence allows one): the text is the file, byte for byte. */
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Bytes to text, or the reason they are not a note: size, emptiness, binary, encoding. The
 * text keeps a leading byte-order mark, so that a rewrite compares with (and keeps) the file
 * exactly as it is.
 */
export function decodeNote(path: string, bytes: Uint8Array, maxBytes: number): string {
  if (bytes.length > maxBytes) {
    throw new MemoryParseError(path, `file is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
  }
  if (bytes.includes(0)) throw new MemoryParseError(path, 'binary file (contains NUL bytes)');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new MemoryParseError(path, 'not valid UTF-8 text');
  }
  if (text.trim() === '') throw new MemoryParseError(path, 'empty file');
  return text;
}

/** Parse and validate a memory note. Throws MemoryParseError naming the path and the reason. */
export function parseMemory(path: string, text: string, settings: EngramSettings): Memory {
  return leanMemory(path, text, settings) ?? parseMemoryFully(path, text, settings);
}

/** A field's value as the lean reader keeps it: absent (undefined) and null are both "not given" to the checks. */
type Flat = unknown;

const isNumber = (v: Flat): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The memory of a note whose frontmatter has the flat shape Engram writes (readFlatFrontmatter's
 * lines), read in one pass over its fields without the frontmatter object, the value walk and
 * the field checker; undefined for anything else, and for anything the checks would refuse:
 * then parseMemoryFully reads it (and says why it is refused). Whenever it returns a memory,
 * it is the one parseMemoryFully returns (the tests compare them on crafted and random notes).
 * Parsing every memory is most of a first recall in a fresh clone, of a `remember` and of a
 * consolidation.
 */
export function leanMemory(path: string, text: string, settings: EngramSettings): Memory | undefined {
  const split = splitFrontmatter(text);
  if (!split) return undefined;
  let id: Flat, category: Flat, created: Flat, accessed: Flat, role: Flat, confidence: Flat, tags: Flat, halfLife: Flat, count: Flat;
  let isError: Flat, tier: Flat, coAccess: Flat, related: Flat, amplitude: Flat, activation: Flat, activationAt: Flat, hash: Flat;
  let source: Flat, session: Flat, linkIds: Flat, decaysFrom: Flat;
  const extra: Record<string, unknown> = {};
  // readFrontmatter's bound: the mapping, each value, and each element of a list or map
  let values = 1;
  const flat = eachFlatField(split.yaml, (key, value) => {
    values += 1 + (Array.isArray(value) ? value.length : value !== null && typeof value === 'object' ? Object.keys(value).length : 0);
    // a repeated key is YAML's error (a field seen already holds a value, never undefined): the full reader's case
    switch (key) {
      case 'id': if (id !== undefined) return false; id = value; break;
      case 'category': if (category !== undefined) return false; category = value; break;
      case 'created_at': if (created !== undefined) return false; created = value; break;
      case 'last_accessed_at': if (accessed !== undefined) return false; accessed = value; break;
      case 'agent_role': if (role !== undefined) return false; role = value; break;
      case 'confidence': if (confidence !== undefined) return false; confidence = value; break;
      case 'tags': if (tags !== undefined) return false; tags = value; break;
      case 'half_life_days': if (halfLife !== undefined) return false; halfLife = value; break;
      case 'access_count': if (count !== undefined) return false; count = value; break;
      case 'is_error': if (isError !== undefined) return false; isError = value; break;
      case 'tier': if (tier !== undefined) return false; tier = value; break;
      case 'co_access': if (coAccess !== undefined) return false; coAccess = value; break;
      case 'related_paths': if (related !== undefined) return false; related = value; break;
      case 'amplitude': if (amplitude !== undefined) return false; amplitude = value; break;
      case 'activation': if (activation !== undefined) return false; activation = value; break;
      case 'activation_at': if (activationAt !== undefined) return false; activationAt = value; break;
      case 'content_hash': if (hash !== undefined) return false; hash = value; break;
      case 'source': if (source !== undefined) return false; source = value; break;
      case 'session': if (session !== undefined) return false; session = value; break;
      default:
        if (Object.prototype.hasOwnProperty.call(extra, key)) return false;
        extra[key] = value;
        if (key === LINK_IDS_FIELD) linkIds = value;
        else if (key === 'decays_from') decaysFrom = value;
    }
    return true;
  });
  if (!flat || values > FRONTMATTER_VALUES) return undefined;
  // the field checks; a value they refuse leaves the note to parseMemoryFully
  if (typeof id !== 'string' || !isMemoryId(id)) return undefined;
  const chosenCategory = leanOneOf(category, CATEGORIES);
  if (chosenCategory === undefined || chosenCategory === null) return undefined;
  const createdAt = leanTimestamp(created);
  if (createdAt === undefined || createdAt === null) return undefined;
  // a memory's three times are one string until it is touched (most of a vault's): checked once
  const lastAccessed = accessed === created ? createdAt : leanTimestamp(accessed);
  const activatedAt = activationAt === created ? createdAt : leanTimestamp(activationAt);
  if (lastAccessed === undefined || activatedAt === undefined) return undefined;
  const chosenConfidence = leanOneOf(confidence, CONFIDENCES);
  const chosenTier = leanOneOf(tier, TIERS);
  if (chosenConfidence === undefined || chosenTier === undefined) return undefined;
  const tagList = leanStrings(tags);
  const paths = leanStrings(related);
  if (tagList === undefined || paths === undefined || paths.some((p) => p.includes('\0') || p.trim() === '')) return undefined;
  const halfLifeDays = leanNumber(halfLife, Number.MIN_VALUE, false);
  const accessCount = leanNumber(count, 0, true);
  const amp = leanNumber(amplitude, 0, false);
  const act = leanNumber(activation, 0, false);
  if (halfLifeDays === undefined || accessCount === undefined || amp === undefined || act === undefined) return undefined;
  if (isError !== undefined && isError !== null && typeof isError !== 'boolean') return undefined;
  const co = leanCoAccess(coAccess);
  const agentRole = leanString(role);
  const contentHash = leanString(hash);
  const fromSource = leanString(source);
  const inSession = leanString(session);
  if (co === undefined || agentRole === undefined || contentHash === undefined || fromSource === undefined || inSession === undefined) return undefined;
  return {
    id,
    path,
    category: chosenCategory as Category,
    created_at: createdAt,
    last_accessed_at: lastAccessed ?? createdAt,
    agent_role: agentRole,
    confidence: (chosenConfidence ?? 'observed') as Confidence,
    tags: tagList,
    half_life_days: halfLifeDays ?? settings.halfLifeDays[chosenCategory as Category],
    access_count: accessCount ?? 0,
    is_error: isError ?? false,
    tier: chosenTier as Tier | null,
    co_access: co,
    related_paths: paths,
    amplitude: amp ?? 1,
    activation: act ?? 0,
    activation_at: activatedAt,
    content_hash: contentHash,
    source: fromSource,
    session: inSession,
    body: split.body,
    links: withPropertyLinks(withLinks(parseLinkIds(linkIds), parseLinks(split.body)), decaysFrom),
    extra,
  };
}

/** FieldChecker's optionalTimestamp: null when not given, undefined when refused. */
function leanTimestamp(value: Flat): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' && parseTimestamp(value) !== null ? value : undefined;
}

/**
 * FieldChecker's optionalOneOf, giving the allowed string itself (equal to the value): a first
 * load keeps each memory's category, confidence and tier, which as the value read were a copy
 * each (10,000 of each at 10k, for every young-generation GC to copy).
 */
function leanOneOf(value: Flat, allowed: readonly string[]): string | null | undefined {
  if (value === undefined || value === null) return null;
  const at = typeof value === 'string' ? allowed.indexOf(value) : -1;
  return at < 0 ? undefined : allowed[at];
}

/** FieldChecker's stringList. */
function leanStrings(value: Flat): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const v of value) {
    if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    out.push(String(v));
  }
  return out;
}

/** FieldChecker's number: null when not given. */
function leanNumber(value: Flat, min: number, integer: boolean): number | null | undefined {
  if (value === undefined || value === null) return null;
  if (!isNumber(value) || (integer && !Number.isInteger(value)) || value < min) return undefined;
  return value;
}

/** FieldChecker's optionalString. */
function leanString(value: Flat): string | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' ? value : undefined;
}

/** FieldChecker's coAccess. */
function leanCoAccess(value: Flat): Record<string, number> | undefined {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, number> = {};
  for (const [key, count] of Object.entries(value as Record<string, unknown>)) {
    if (!isMemoryId(key) || typeof count !== 'number' || !Number.isFinite(count) || count < 0) return undefined;
    out[key] = count;
  }
  return out;
}

/** parseMemory through the frontmatter reader (js-yaml for what is not flat) and the field checker. Exported for tests. */
export function parseMemoryFully(path: string, text: string, settings: EngramSettings): Memory {
  const split = splitFrontmatter(text);
  if (!split) {
    const reason = /^\uFEFF?---/.test(text) ? 'frontmatter is not closed (no closing --- line)' : 'no frontmatter (a memory starts with a --- YAML block)';
    throw new MemoryParseError(path, reason);
  }
  let data: unknown;
  try {
    data = readFrontmatter(split.yaml);
  } catch (error) {
    throw new MemoryParseError(path, error instanceof FrontmatterLimitError ? error.message : yamlErrorReason(error, split.head));
  }
  if (data === null || data === undefined) throw new MemoryParseError(path, 'frontmatter is empty');
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new MemoryParseError(path, 'frontmatter is not a mapping of fields');
  }
  const fields = data as Record<string, unknown>;
  const check = new FieldChecker(path, fields);
  // the id is the memory's identity; the file's name and folder are the person's (ADR 0005)
  const id = check.id();
  const category = check.oneOf('category', CATEGORIES);
  const createdAt = check.timestamp('created_at');
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (!KNOWN_FIELDS.has(key)) extra[key] = value;
  return {
    id,
    path,
    category,
    created_at: createdAt,
    last_accessed_at: check.optionalTimestamp('last_accessed_at') ?? createdAt,
    agent_role: check.optionalString('agent_role'),
    confidence: check.optionalOneOf('confidence', CONFIDENCES) ?? 'observed',
    tags: check.stringList('tags'),
    half_life_days: check.number('half_life_days', { min: Number.MIN_VALUE }) ?? settings.halfLifeDays[category],
    access_count: check.number('access_count', { min: 0, integer: true }) ?? 0,
    is_error: check.boolean('is_error') ?? false,
    tier: check.optionalOneOf('tier', TIERS),
    co_access: check.coAccess(),
    related_paths: check.relatedPaths(),
    amplitude: check.number('amplitude', { min: 0 }) ?? 1,
    activation: check.number('activation', { min: 0 }) ?? 0,
    activation_at: check.optionalTimestamp('activation_at'),
    content_hash: check.optionalString('content_hash'),
    source: check.optionalString('source'),
    session: check.optionalString('session'),
    body: split.body,
    links: withPropertyLinks(withLinks(parseLinkIds(fields[LINK_IDS_FIELD]), parseLinks(split.body)), fields.decays_from),
    extra,
  };
}

/**
 * Consolidation links an episode to the pattern it became with a `decays_from` property
 * (`decays_from: "[[mem-…]]"`, a link Obsidian shows and follows) so the body is never edited.
 */
function withPropertyLinks(links: MemoryLink[], property: unknown): MemoryLink[] {
  if (typeof property !== 'string') return links;
  const target = /^\[\[(mem-[a-z0-9]{12})(?:\|[^\]]*)?\]\]$/.exec(property.trim())?.[1];
  if (!target || links.some((l) => l.target === target && l.kind === 'decays_from')) return links;
  return [...links, { target, kind: 'decays_from' }];
}

/** The body as an agent reads it: the text without Engram's link lines. */
export function memoryText(memory: Pick<Memory, 'body'>): string {
  return bodyText(memory.body);
}

/**
 * A body as an agent reads it: Engram's typed link markup removed, white space folded. What
 * `body.replace(/\[\[[^\]]*\]\]/g, (link) => (TYPED_LINK_END.test(link) ? '' : link)).replace(/\s+/g, ' ').trim()`
 * gives (bodyTextByPatterns, the tests' reference), read by hand: in a process's first pass over
 * 10,000 bodies (a first recall) the global patterns cost ~15 us a body, the scan ~4 us.
 */
export function bodyText(body: string): string {
  return foldSpaces(withoutTypedLinks(body)).trim();
}

const TYPED_LINK_ENDS = ['|related]]', '|decays_from]]', '|supersedes]]', '|contradicts]]'];

/**
 * The text without its typed links: each `[[`, then no `]`, then `]]` (the pattern's match,
 * tried from each `[[` left to right, resumed after a match) whose text ends with a typed link's
 * `|kind]]`.
 */
function withoutTypedLinks(body: string): string {
  let at = body.indexOf('[[');
  if (at < 0) return body;
  let out = '';
  let from = 0;
  while (at >= 0) {
    const close = body.indexOf(']', at + 2);
    if (close < 0) break; // no `]` left: no match from here on
    if (body.charCodeAt(close + 1) !== 0x5d /* ] */) {
      at = body.indexOf('[[', at + 1);
      continue;
    }
    const end = close + 2;
    for (const kind of TYPED_LINK_ENDS) {
      if (end - kind.length >= at && body.startsWith(kind, end - kind.length)) {
        out += body.slice(from, at);
        from = end;
        break;
      }
    }
    at = body.indexOf('[[', end);
  }
  return from === 0 ? body : out + body.slice(from);
}

/**
 * A run of white space that is not a lone space: two or more of what `\s` matches, or one that
 * is not a space. Replacing each with a space is `text.replace(/\s+/g, ' ')`, whose every lone
 * space is a match replaced by itself.
 */
const FOLDED_SPACE = /\s{2,}|[^\S ]/g;

/**
 * `text.replace(/\s+/g, ' ')`: each run of white space one space (a lone space stays as it is).
 * By FOLDED_SPACE, which matches only the runs that change (most bodies have one or two: the
 * blank line before their links): its compiled scan took 8-23 ms over 10,000 bench bodies in a
 * fresh process where a loop over the code units took 28-42 (30 ms of a first recall's profile at 10k).
 */
function foldSpaces(text: string): string {
  return text.replace(FOLDED_SPACE, ' ');
}

/** js-yaml's reason with the line number in the file (the YAML starts after the opening fence). */
function yamlErrorReason(error: unknown, head: string): string {
  const e = error as { reason?: string; mark?: { line: number; column: number }; message?: string };
  if (e.reason && e.mark) {
    const line = e.mark.line + 1 + head.split('\n').length - 1;
    return `invalid YAML at line ${line}, column ${e.mark.column + 1}: ${e.reason}`;
  }
  return `invalid YAML: ${String(e.message ?? error).split('\n')[0]}`;
}

class FieldChecker {
  constructor(
    private readonly path: string,
    private readonly fields: Record<string, unknown>,
  ) {}

  private fail(field: string, expected: string): never {
    const got = this.fields[field];
    throw new MemoryParseError(this.path, `field "${field}": expected ${expected}, got ${describe(got)}`);
  }

  private present(field: string): boolean {
    return this.fields[field] !== undefined && this.fields[field] !== null;
  }

  id(): string {
    if (!this.present('id')) throw new MemoryParseError(this.path, 'field "id" is missing');
    const value = this.fields.id;
    if (typeof value !== 'string' || !isMemoryId(value)) this.fail('id', 'mem- and 12 lowercase letters or digits');
    return value;
  }

  oneOf<T extends string>(field: string, allowed: readonly T[]): T {
    if (!this.present(field)) throw new MemoryParseError(this.path, `field "${field}" is missing`);
    return this.optionalOneOf(field, allowed)!;
  }

  optionalOneOf<T extends string>(field: string, allowed: readonly T[]): T | null {
    if (!this.present(field)) return null;
    const value = this.fields[field];
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) this.fail(field, `one of ${allowed.join(', ')}`);
    return value as T;
  }

  timestamp(field: string): string {
    if (!this.present(field)) throw new MemoryParseError(this.path, `field "${field}" is missing`);
    return this.optionalTimestamp(field)!;
  }

  optionalTimestamp(field: string): string | null {
    if (!this.present(field)) return null;
    const value = this.fields[field];
    if (typeof value !== 'string' || parseTimestamp(value) === null) this.fail(field, 'an ISO-8601 date-time such as "2026-04-28T10:23:00Z"');
    return value;
  }

  optionalString(field: string): string | null {
    if (!this.present(field)) return null;
    const value = this.fields[field];
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string') this.fail(field, 'a string');
    return value;
  }

  stringList(field: string): string[] {
    if (!this.present(field)) return [];
    const value = this.fields[field];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' || typeof v === 'number')) {
      this.fail(field, 'a list of strings');
    }
    return (value as unknown[]).map(String);
  }

  number(field: string, rule: { min: number; integer?: boolean }): number | null {
    if (!this.present(field)) return null;
    const value = this.fields[field];
    if (typeof value !== 'number' || !Number.isFinite(value)) this.fail(field, 'a number');
    if (rule.integer && !Number.isInteger(value)) this.fail(field, 'a whole number');
    if (value < rule.min) this.fail(field, rule.min > 0 && rule.min < 1e-300 ? 'a positive number' : `a number of at least ${rule.min}`);
    return value;
  }

  boolean(field: string): boolean | null {
    if (!this.present(field)) return null;
    const value = this.fields[field];
    if (typeof value !== 'boolean') this.fail(field, 'true or false');
    return value;
  }

  coAccess(): Record<string, number> {
    if (!this.present('co_access')) return {};
    const value = this.fields.co_access;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail('co_access', 'a mapping of memory id to count');
    const out: Record<string, number> = {};
    for (const [key, count] of Object.entries(value as Record<string, unknown>)) {
      if (!isMemoryId(key)) throw new MemoryParseError(this.path, `field "co_access": ${JSON.stringify(key)} is not a memory id`);
      if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) {
        throw new MemoryParseError(this.path, `field "co_access": count for ${key} must be a non-negative number, got ${describe(count)}`);
      }
      out[key] = count;
    }
    return out;
  }

  relatedPaths(): string[] {
    const paths = this.stringList('related_paths');
    for (const p of paths) {
      if (p.includes('\0') || p.trim() === '') throw new MemoryParseError(this.path, `field "related_paths": ${JSON.stringify(p)} is not a path`);
    }
    return paths;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
