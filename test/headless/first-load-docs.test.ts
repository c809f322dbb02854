import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { openVault } from '../../headless/runtime';
import { isMemoryId } from '../../src/core/ids';
import { LINK_KINDS, parseLinks, type LinkKind, type MemoryLink } from '../../src/core/links';
import { bodyText, parseMemory } from '../../src/core/memory';
import { seededRandom } from '../../src/core/random';
import { catalogDoc, CATALOG_PATH, loadCatalog, ownString, toRecallDoc, type RecallDoc } from '../../src/core/recall/catalog';
import { indexSignature } from '../../src/core/recall/engine-update';
import { hydrate, openRecall } from '../../src/core/recall/results';
import { partsFromDocs, RecallEngine } from '../../src/core/recall/recall';
import { resolveSettings } from '../../src/core/settings';
import { initVault } from '../helpers/cli';

/**
 * Issue 23, a first recall at 10k: openRecall's load keeps each parsed document as its catalog
 * row keeps it (catalogDoc: no text, tags, related paths or recall count, strings that hold
 * nothing of the file's text) instead of toRecallDoc's whole document. What it indexes, the
 * caches it writes and the results it gives are toRecallDoc's.
 */
const settings = resolveSettings(undefined);
const NOW = Date.parse('2026-11-29T12:00:00Z');
const random = seededRandom('issue-23-first-load-docs');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

/** toRecallDoc as the catalog's row keeps it: the reference catalogDoc must equal. */
function rowOf(doc: RecallDoc): RecallDoc {
  const rest: Partial<RecallDoc> = { ...doc, text: null };
  delete rest.tags;
  delete rest.related_paths;
  delete rest.recall_count;
  return rest as RecallDoc;
}

const FIELDS = [
  'category: episodic',
  'created_at: "2025-12-01T00:00:00Z"',
  'last_accessed_at: "2025-12-02T10:00:00.250Z"',
  'confidence: observed',
  'tags: ["auth", "a, b", "quote \\" and \\u00e9"]',
  'half_life_days: 7',
  'access_count: 3',
  'is_error: false',
  'tier: warm',
  'co_access: {"mem-aaaaaaaaaaaa": 2, "mem-bbbbbbbbbbbb": 0.5}',
  'related_paths: ["src/a.ts"]',
  'amplitude: 1.25',
  'activation: 0.3',
  'activation_at: "2025-12-01T00:00:00Z"',
  'content_hash: "0ebde0133fc9755a"',
  'source: a-long-source-name-from-the-import',
  'session: a-session-with-a-long-name-0001',
  'agent_role: reviewer-of-the-long-names',
  'aliases: ["Observation 0: auth term2y"]',
  'link_ids: ["related mem-7c55dc0c88cd", "supersedes mem-111111111111", "bogus mem-222222222222"]',
  'remembered_again: 1',
  'superseded_by: mem-333333333333',
  'decays_from: "[[mem-444444444444]]"',
];
const BODY = 'Observation 0: Alice met Bob in Paris on 3 March 2025; auth term2y retry. [[mem-555555555555|contradicts]] [[Other note|related]]\n\n[[mem-666666666666]]\n';
const note = (fields: readonly string[], body: string) => ['---', 'id: mem-4d7c6388c5c0', ...fields, '---', body].join('\n');

function expectSame(text: string, archived: boolean): RecallDoc {
  const memory = parseMemory('episodic/note.md', text, settings);
  const lean = catalogDoc(memory, archived);
  const expected = rowOf(toRecallDoc(parseMemory('episodic/note.md', text, settings), archived));
  expect(lean).toEqual(expected);
  expect(JSON.stringify(lean)).toBe(JSON.stringify(expected)); // key order too
  expect(Object.keys(lean)).not.toContain('tags');
  return lean;
}

describe('catalogDoc: a document as its catalog row keeps it', () => {
  it('is toRecallDoc without text, tags, related paths and recall count, on a note with every field', () => {
    const doc = expectSame(note(FIELDS, BODY), false);
    expect(doc.text).toBeNull();
    expect(doc.links).toEqual([
      { target: 'mem-7c55dc0c88cd', kind: 'related' },
      { target: 'mem-111111111111', kind: 'supersedes' },
      { target: 'mem-555555555555', kind: 'contradicts' },
      { target: 'mem-666666666666', kind: 'related' },
      { target: 'mem-444444444444', kind: 'decays_from' },
    ]);
    expect([doc.id, doc.source, doc.session, doc.agent_role, doc.superseded_by]).toEqual(['mem-4d7c6388c5c0', 'a-long-source-name-from-the-import', 'a-session-with-a-long-name-0001', 'reviewer-of-the-long-names', 'mem-333333333333']);
    expect(doc.text_hash).toBe(toRecallDoc(parseMemory('episodic/note.md', note(FIELDS, BODY), settings), false).text_hash);
    expect(expectSame(note(FIELDS, BODY), true).archived).toBe(true);
  });

  it('is toRecallDoc without those fields on random notes (fields left out, nulls, links, bodies)', () => {
    const bodies = [BODY, '', 'plain words only', 'Tuesday the 4th: [[mem-777777777777|decays_from]] and "The Title Here"', ' \u00e9t\u00e9 \t ', '[[mem-555555555555]] [[mem-555555555555]]'];
    for (let round = 0; round < 300; round++) {
      // the three times one string, two of them, or three (read once each where they are one)
      const times = ['"2025-12-01T00:00:00Z"', '"2025-12-02T10:00:00.250Z"', '"2025-12-03T00:00:00Z"'];
      const fields = FIELDS.filter(() => random() < 0.7)
        .map((line) => (/^(last_accessed_at|activation_at):/.test(line) ? `${line.slice(0, line.indexOf(':'))}: ${pick(times)}` : line))
        .map((line) => (random() < 0.1 && !/^(category|created_at)/.test(line) ? `${line.slice(0, line.indexOf(':'))}: null` : line));
      if (!fields.some((l) => l.startsWith('category:'))) fields.unshift('category: semantic');
      if (!fields.some((l) => l.startsWith('created_at:'))) fields.unshift('created_at: "2024-02-29T23:59:59Z"');
      const body = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(bodies)).join(pick(['\n', ' ', '\n\n']));
      expectSame(note(fields, body), random() < 0.5);
    }
  });

  it('shares among documents what none of them changes: an empty co-access, the terms of a day that names no date', () => {
    const doc = (name: string, field: string, body: string) =>
      catalogDoc(parseMemory(`episodic/${name}.md`, note(['category: episodic', 'created_at: "2025-12-01T10:00:00Z"', field], body), settings), false);
    const day = ['day:2025-12-01', 'month:2025-12', 'year:2025'];
    const a = doc('a', 'co_access: {}', 'plain words only');
    const b = doc('b', 'tier: warm', 'other plain words');
    const c = doc('c', 'co_access: {"mem-aaaaaaaaaaaa": 2}', 'we met Alice on 3 March 2025');
    const d = doc('d', 'co_access: null', 'we met Alice there');
    expect([a.co_access, b.co_access, c.co_access, d.co_access]).toEqual([{}, {}, { 'mem-aaaaaaaaaaaa': 2 }, {}]);
    expect(a.co_access).toBe(b.co_access);
    expect(d.co_access).toBe(a.co_access);
    expect([a.facets, b.facets, c.facets, d.facets]).toEqual([day, day, [...day, 'day:2025-03-03', 'month:2025-03', 'time:said', 'entity:alic'], [...day, 'entity:alic']]);
    expect(a.facets).toBe(b.facets);
    expect(c.facets).not.toBe(a.facets);
    expect(d.facets).not.toBe(a.facets);
    expect(doc('e', 'tier: warm', 'plain words').facets).toEqual(day);
  });

  it('gives each link the kind as LINK_KINDS spells it and a target of its own', () => {
    const doc = catalogDoc(parseMemory('episodic/a.md', note(FIELDS, BODY), settings), false);
    expect(doc.links.map((l) => LINK_KINDS.indexOf(l.kind))).toEqual([0, 2, 3, 0, 1]);
    expect(doc.links.map((l) => l.kind)).toEqual(['related', 'supersedes', 'contradicts', 'related', 'decays_from']);
  });

  it('ownString gives the same string, of any length and characters', () => {
    const atoms = ['a', 'Z', ' ', '\u00e9', '\u{1F600}', '-', '0', '\n'];
    for (let round = 0; round < 500; round++) {
      const s = Array.from({ length: Math.floor(random() * 40) }, () => pick(atoms)).join('');
      const cut = `xx${s}yy`.slice(2, 2 + s.length);
      expect(ownString(cut)).toBe(s);
    }
    expect([ownString(''), ownString('mem-4d7c6388c5c0'), ownString('twelve chars')]).toEqual(['', 'mem-4d7c6388c5c0', 'twelve chars']);
  });
});

describe('a lean first load (openRecall) against a load with whole documents', () => {
  let env: Awaited<ReturnType<typeof initVault>>;
  beforeEach(async () => {
    env = await initVault('engram-first-load-docs-');
    mkdirSync(path.join(env.vault, 'episodic'), { recursive: true });
    const ids = Array.from({ length: 12 }, (_, i) => `mem-${String(i).padStart(12, '0')}`);
    ids.forEach((id, i) => {
      const fields = FIELDS.filter((_, k) => (k + i) % 4 !== 0 || k < 2).map((l) => l.replace('mem-333333333333', ids[(i + 1) % ids.length]!));
      writeFileSync(path.join(env.vault, 'episodic', `note ${i}.md`), note(fields, `Note ${i} about the webhook retry ${i % 3 === 0 ? 'and the ledger' : 'timeout'}. [[${ids[(i + 5) % ids.length]}]]\n`).replace('mem-4d7c6388c5c0', id));
    });
    writeFileSync(path.join(env.vault, 'episodic', 'broken.md'), 'no frontmatter\n');
    rmSync(path.join(env.vault, '.engram/cache'), { recursive: true, force: true });
  });
  afterEach(() => env.cleanup());

  it('writes the catalog and gives the documents a load of whole documents gives, less what rows do not keep', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const whole = await loadCatalog(vault);
    const wholeBytes = readFileSync(path.join(env.vault, CATALOG_PATH));
    rmSync(path.join(env.vault, '.engram/cache'), { recursive: true, force: true });
    const lean = await loadCatalog(vault, { lean: true });
    expect(readFileSync(path.join(env.vault, CATALOG_PATH))).toEqual(wholeBytes);
    expect(lean.docs).toEqual(whole.docs.map(rowOf));
    expect(lean.docs.map((d) => d.text)).toEqual(whole.docs.map(() => null));
    expect(whole.docs.every((d) => typeof d.text === 'string' && d.text.length > 0)).toBe(true);
    expect(lean.problems).toEqual(whole.problems);
    expect(Array.from(lean.signatures())).toEqual(Array.from(whole.signatures()));
    expect([lean.docs.length, lean.problems.length, lean.parsed]).toEqual([12, 1, 13]);
  });

  it('answers as an engine over whole documents does, with the texts, tags and related paths of the files', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const first = await openRecall(vault);
    const whole = await loadCatalog(vault, { useCache: false });
    const reference = new RecallEngine(partsFromDocs(whole.docs, settings), settings);
    const again = await openRecall(vault); // from the snapshot the first wrote
    const shown = async (engine: RecallEngine) =>
      (await hydrate(vault, engine.search('webhook ledger', { limit: 5 }, NOW).hits)).map((h) => [h.doc.id, h.score, h.doc.text, h.doc.tags, h.doc.related_paths, h.doc.recall_count]);
    const answer = await shown(first);
    expect(answer).toEqual(await shown(reference));
    expect(answer).toEqual(await shown(again));
    expect(answer.map((a) => a[0])).toEqual(['mem-000000000003', 'mem-000000000007', 'mem-000000000011', 'mem-000000000006', 'mem-000000000002']);
    expect(answer[0]!.slice(2)).toEqual(['Note 3 about the webhook retry and the ledger. [[mem-000000000008]]', ['auth', 'a, b', 'quote " and \u00e9'], ['src/a.ts'], 2]);
  });
});

/** parseLinks before its early return (a body without `mem-`): the pattern over every body. */
function referenceParseLinks(body: string): MemoryLink[] {
  const links: MemoryLink[] = [];
  const seen = new Set<string>();
  for (const m of body.matchAll(/\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g)) {
    const target = m[1]!.trim().replace(/\.md$/, '').split('/').pop()!;
    if (!isMemoryId(target)) continue;
    const label = (m[2] ?? '').trim();
    const kind: LinkKind = (LINK_KINDS as readonly string[]).includes(label) ? (label as LinkKind) : 'related';
    if (seen.has(`${target}|${kind}`)) continue;
    seen.add(`${target}|${kind}`);
    links.push({ target, kind });
  }
  return links;
}

describe('parseLinks', () => {
  it('finds what the pattern over the whole body finds, with or without mem- in the body', () => {
    const atoms = ['[[', ']]', '|', '#', 'mem-', 'MEM-', 'me', 'm-', 'aaaaaaaaaaaa', '0123456789ab', '.md', '/', ' ', '\n', 'related', 'decays_from', 'contradicts', 'Title', 'x', 'é'];
    let found = 0;
    for (let round = 0; round < 4000; round++) {
      const link = () => `[[${pick(['', ' ', 'notes/', '../'])}${pick(['mem-', 'MEM-', 'me', 'mem'])}${pick(['aaaaaaaaaaaa', '0123456789ab', 'aaaa'])}${pick(['', '.md', '#part'])}${pick(['', '|related', '|contradicts ', '|label', '|'])}]]`;
      const body = Array.from({ length: 1 + Math.floor(random() * 14) }, () => (random() < 0.3 ? link() : pick(atoms))).join('');
      const links = parseLinks(body);
      expect(links).toEqual(referenceParseLinks(body));
      found += links.length;
    }
    expect(found).toBeGreaterThan(20);
    expect(parseLinks('[[Other note|related]] [[MEM-aaaaaaaaaaaa]] [[notes/mem-aaaaaaaaaaaa.md|contradicts]]')).toEqual([{ target: 'mem-aaaaaaaaaaaa', kind: 'contradicts' }]);
    expect(parseLinks('[[Other note|related]] [[MEM-aaaaaaaaaaaa]]')).toEqual([]);
  });
});

describe('the catalog a first load writes', () => {
  let env: Awaited<ReturnType<typeof initVault>>;
  beforeEach(async () => {
    env = await initVault('engram-first-load-rows-');
    mkdirSync(path.join(env.vault, 'episodic'), { recursive: true });
    // more files than a slice of rows (256), unreadable ones among them, across the slices' edges
    for (let i = 0; i < 530; i++) {
      const file = path.join(env.vault, 'episodic', `n${String(i).padStart(4, '0')}.md`);
      if (i % 97 === 0 || i === 255 || i === 256) writeFileSync(file, `not a memory ${i}\n`);
      else writeFileSync(file, note(FIELDS.filter((_, k) => (k + i) % 5 !== 0 || k < 2), `Note ${i}: the ${pick(['webhook', 'ledger', 'queue'])} on ${1 + (i % 28)} March 2025 with Alice ${i}.\n`).replace('mem-4d7c6388c5c0', `mem-${String(i).padStart(12, '0')}`));
    }
    rmSync(path.join(env.vault, '.engram/cache'), { recursive: true, force: true });
  });
  afterEach(() => env.cleanup());

  it('writes what JSON.stringify of the whole cache writes, and each document\'s signature', async () => {
    const { vault } = openVault({ vault: env.vault, cwd: env.dir, env: {} });
    const first = await loadCatalog(vault, { lean: true });
    const text = readFileSync(path.join(env.vault, CATALOG_PATH), 'utf8');
    const cache = JSON.parse(text) as { format: number; fingerprint: string; rows: unknown[][] };
    expect(JSON.stringify(cache)).toBe(text);
    expect([cache.rows.length, cache.rows.filter((r) => r.length === 4).length, first.docs.length, first.problems.length]).toEqual([530, 8, 522, 8]);
    expect(cache.rows.map((r) => r[0])).toEqual(Array.from({ length: 530 }, (_, i) => `episodic/n${String(i).padStart(4, '0')}.md`));
    // the reference: each document's signature from its whole document
    const whole = await loadCatalog(vault, { useCache: false });
    const expected = whole.docs.map(indexSignature);
    expect(Array.from(first.signatures())).toEqual(expected);
    expect(Array.from(whole.signatures())).toEqual(expected); // no cache written: from rows encoded on demand
    // from the cache (nothing parsed): the same rows, documents and signatures
    const again = await loadCatalog(vault);
    expect(again.parsed).toBe(0);
    expect(again.docs).toEqual(first.docs);
    expect(Array.from(again.signatures())).toEqual(expected);
    expect(readFileSync(path.join(env.vault, CATALOG_PATH), 'utf8')).toBe(text);
    // one file changed: that row again, the others from the cache, written in the same form
    writeFileSync(path.join(env.vault, 'episodic', 'n0001.md'), readFileSync(path.join(env.vault, 'episodic', 'n0001.md'), 'utf8').replace('Note 1:', 'Note one:'));
    const changed = await loadCatalog(vault, { lean: true });
    expect(changed.parsed).toBe(1);
    const after = readFileSync(path.join(env.vault, CATALOG_PATH), 'utf8');
    expect(JSON.stringify(JSON.parse(after))).toBe(after);
    expect(Array.from(changed.signatures())).toEqual((await loadCatalog(vault, { useCache: false })).docs.map(indexSignature));
  });
});

/** bodyText before the scan: the two global patterns and trim. */
const bodyTextByPatterns = (body: string): string =>
  (!body.includes('[[') ? body : body.replace(/\[\[[^\]]*\]\]/g, (link) => (/\|(related|decays_from|supersedes|contradicts)\]\]$/.test(link) ? '' : link))).replace(/\s+/g, ' ').trim();

describe('bodyText', () => {
  it('gives what the patterns give, on crafted bodies', () => {
    const crafted: Array<[string, string]> = [
      ['', ''],
      ['  one  two\n\nthree \t', 'one two three'],
      ['a [[Note|related]] b [[Other]] c [[x|contradicts ]] d', 'a b [[Other]] c [[x|contradicts ]] d'],
      ['[[[a|related]] [[b]c]]|related]] [[c|supersedes]]', '[[b]c]]|related]]'],
      ['keep [[a|decays_from]]', 'keep'],
      ['\u00a0x\u2028y\u3000\ufeffz\u200bw\u180e', 'x y z\u200bw\u180e'],
      ['[[unclosed|related] and ]]', '[[unclosed|related] and ]]'],
      ['|related]] [[', '|related]] [['],
      // a lone white space that is no space, and runs that begin with a space or end with one
      ['a\tb c\u00a0d  e \n f\n ', 'a b c d e f'],
    ];
    for (const [body, expected] of crafted) {
      expect(bodyTextByPatterns(body)).toBe(expected);
      expect(bodyText(body)).toBe(expected);
    }
  });

  it('gives what the patterns give, on random bodies of links, brackets and white space of every kind', () => {
    const atoms = ['[[', ']]', '[', ']', '|related', '|decays_from', '|supersedes', '|contradicts', '|label', '|', 'related', ' ', '  ', '\n', '\r\n', '\t', '\v', '\f',
      '\u00a0', '\u1680', '\u2000', '\u200a', '\u200b', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u180e', '\u0085', 'a', 'Word', '\u00e9', '\u{1F600}'];
    let changed = 0;
    for (let round = 0; round < 6000; round++) {
      const body = Array.from({ length: Math.floor(random() * 24) }, () => pick(atoms)).join('');
      const expected = bodyTextByPatterns(body);
      expect(bodyText(body)).toBe(expected);
      if (expected !== body) changed++;
    }
    expect(changed).toBeGreaterThan(4000);
  });
});
