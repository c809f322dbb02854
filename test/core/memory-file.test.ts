import { renderFieldValue, type FieldValue } from '../../src/core/frontmatter';
import { contentHash } from '../../src/core/ids';
import { formatLink, LINK_IDS_FIELD, linkIdsValue, type MemoryLink } from '../../src/core/links';
import { renderMemoryFile, type NewMemory } from '../../src/core/memory-file';
import { DEFAULT_SETTINGS, type EngramSettings } from '../../src/core/settings';
import { newMemoryTier } from '../../src/core/tiers';
import { parseTimestamp } from '../../src/core/time';
import { memoryTitle } from '../../src/core/title';

/**
 * renderMemoryFile writes the file as one text, the keys in its template. The reference is the
 * renderer it replaced, a line per field (below, verbatim): both must give the same bytes for
 * every memory, crafted and random ones (unicode, quotes, YAML words, empty lists, every
 * optional field, further fields, required fields missing).
 */

function fieldLine(key: string, value: FieldValue | null): string {
  return value === null ? '' : `${key}: ${renderFieldValue(value)}\n`;
}

function referenceRender(id: string, memory: NewMemory, settings: EngramSettings, now: number, title = memoryTitle(memory.text)): string {
  const body = memory.links.length > 0 ? `${memory.text.trim()}\n\n${memory.links.map(formatLink).join(' ')}\n` : `${memory.text.trim()}\n`;
  const halfLife = settings.halfLifeDays[memory.category];
  let text = '---\n';
  const field = fieldLine;
  text += field('id', id);
  text += field('category', memory.category);
  text += field('created_at', memory.created_at);
  text += field('last_accessed_at', memory.created_at);
  text += field('agent_role', memory.agent_role);
  text += field('confidence', memory.confidence);
  text += field('tags', memory.tags);
  text += field('half_life_days', halfLife);
  text += field('access_count', 0);
  text += field('is_error', memory.is_error);
  text += field('tier', newMemoryTier({ half_life_days: halfLife, access_count: 0, is_error: memory.is_error }, parseTimestamp(memory.created_at)!, now, settings));
  text += field('co_access', {});
  text += field('related_paths', memory.related_paths);
  text += field('amplitude', 1);
  text += field('activation', 0);
  text += field('activation_at', memory.created_at);
  text += field('content_hash', contentHash(body));
  text += field('source', memory.source);
  text += field('session', memory.session);
  text += field('aliases', title ? [title] : null);
  text += field(LINK_IDS_FIELD, memory.links.length > 0 ? linkIdsValue(memory.links) : null);
  for (const [key, value] of Object.entries(memory.extra ?? {})) text += field(key, value);
  return `${text}---\n${body}`;
}

const NOW = Date.UTC(2026, 10, 29, 12);

function memory(over: Partial<NewMemory> = {}): NewMemory {
  return {
    text: 'Deploys go through the staging cluster first.',
    category: 'semantic',
    created_at: '2026-11-01T09:30:00Z',
    confidence: 'observed',
    tags: [],
    is_error: false,
    related_paths: [],
    agent_role: null,
    source: null,
    session: null,
    links: [],
    ...over,
  };
}

function same(id: string, m: NewMemory, settings: EngramSettings = DEFAULT_SETTINGS, now = NOW, title?: string): string {
  const want = title === undefined ? referenceRender(id, m, settings, now) : referenceRender(id, m, settings, now, title);
  const got = title === undefined ? renderMemoryFile(id, m, settings, now) : renderMemoryFile(id, m, settings, now, title);
  expect(got).toBe(want);
  return got;
}

describe('renderMemoryFile', () => {
  it('writes SPEC §2 fields in order, nulls left out', () => {
    const text = same('mem-0123456789ab', memory());
    expect(text).toBe(
      [
        '---',
        'id: mem-0123456789ab',
        'category: semantic',
        'created_at: "2026-11-01T09:30:00Z"',
        'last_accessed_at: "2026-11-01T09:30:00Z"',
        'confidence: observed',
        'tags: []',
        'half_life_days: 30',
        'access_count: 0',
        'is_error: false',
        'tier: active',
        'co_access: {}',
        'related_paths: []',
        'amplitude: 1',
        'activation: 0',
        'activation_at: "2026-11-01T09:30:00Z"',
        `content_hash: ${contentHash('Deploys go through the staging cluster first.\n')}`,
        'aliases: ["Deploys go through the staging cluster first"]',
        '---',
        'Deploys go through the staging cluster first.',
        '',
      ].join('\n'),
    );
  });

  it('writes every optional field, lists and links as the reference does', () => {
    const links: MemoryLink[] = [
      { target: 'mem-aaaaaaaaaaaa', kind: 'related', name: 'Other note' },
      { target: 'mem-bbbbbbbbbbbb', kind: 'supersedes' },
      { target: 'mem-cccccccccccc', kind: 'contradicts', name: 'Quote " and ] here' },
    ];
    const text = same(
      'mem-0123456789ab',
      memory({
        agent_role: 'reviewer',
        source: 'bench-7',
        session: 's 12',
        tags: ['a', 'b c', 'ünï', 'quote"d', 'true', ''],
        related_paths: ['src/a.ts', 'docs/b c.md'],
        is_error: true,
        confidence: 'verified',
        category: 'decision',
        links,
        extra: { reinforcement_count: 3, cluster_size: 2, label: 'yes', list: ['x'], map: { a: 1 }, gone: null, flag: true },
      }),
    );
    expect(text).toContain('link_ids: ["related mem-aaaaaaaaaaaa", "supersedes mem-bbbbbbbbbbbb", "contradicts mem-cccccccccccc"]\n');
    expect(text).toContain('reinforcement_count: 3\ncluster_size: 2\nlabel: "yes"\nlist: ["x"]\nmap: {"a": 1}\nflag: true\n---\n');
    expect(text).toContain('agent_role: reviewer\n');
    expect(text).toContain('source: bench-7\nsession: s 12\n');
  });

  it('quotes what YAML would misread, in every field', () => {
    for (const word of ['true', 'False', 'null', 'yes', 'No', 'on', 'OFF', '~', '2026-01-01T00:00', '12', '-1', 'a: b', '# x', 'x ', 'x.', ' x', "it's", 'é', '', 'line\nbreak', '[x]', '{a}', '*ref', '&a', '!tag', '%', '@', '`', '|', '>', "'", '"']) {
      same(word, memory({ agent_role: word, source: word, session: word, confidence: word as NewMemory['confidence'], tags: [word], related_paths: [word] }), DEFAULT_SETTINGS, NOW, word);
    }
  });

  it('renders created_at in each form the reference takes', () => {
    for (const created of ['2026-11-01T09:30:00Z', '2026-11-01T09:30:00.123Z', '2026-11-01', '2026-11-01 09:30', '2026-11-01T09:30:00+02:00', '1999-01-01T00:00:00Z', 'not a date']) {
      same('mem-0123456789ab', memory({ created_at: created }));
    }
  });

  it('leaves out aliases for an empty title, and takes the title given', () => {
    expect(same('mem-0123456789ab', memory(), DEFAULT_SETTINGS, NOW, '')).not.toContain('aliases');
    expect(same('mem-0123456789ab', memory(), DEFAULT_SETTINGS, NOW, 'Given "title"')).toContain('aliases: ["Given \\"title\\""]\n');
  });

  it('takes the tier and half-life from the settings and `now`', () => {
    const settings: EngramSettings = { ...DEFAULT_SETTINGS, halfLifeDays: { episodic: 1.5, semantic: Number.NaN, decision: 400 } };
    for (const category of ['episodic', 'semantic', 'decision'] as const) {
      for (const now of [NOW, Date.UTC(2027, 0, 1), Date.UTC(2030, 0, 1), Date.UTC(2026, 10, 1, 9, 30)]) same('mem-0123456789ab', memory({ category, is_error: now === NOW }), settings, now);
    }
  });

  it('renders a memory whose required fields are missing line by line, as the reference', () => {
    const broken = [
      memory({ tags: null as unknown as string[] }),
      memory({ related_paths: null as unknown as string[] }),
      memory({ confidence: null as unknown as NewMemory['confidence'] }),
      memory({ is_error: null as unknown as boolean }),
      memory({ agent_role: undefined as unknown as null, source: undefined as unknown as null }),
      memory({ tags: undefined as unknown as string[] }),
      memory({ tags: [1, null, true] as unknown as string[], related_paths: ['a', 2] as unknown as string[] }),
      memory({ category: 'unknown' as NewMemory['category'] }),
      memory({ extra: null as unknown as Record<string, FieldValue> }),
      memory({ extra: {} }),
    ];
    for (const m of broken) same('mem-0123456789ab', m);
    same(null as unknown as string, memory());
    same('mem-0123456789ab', { ...memory(), category: null as unknown as NewMemory['category'] });
    // no created_at: neither can work out a tier
    const noDate = { ...memory(), created_at: null as unknown as string };
    expect(() => referenceRender('mem-0123456789ab', noDate, DEFAULT_SETTINGS, NOW)).toThrow(TypeError);
    expect(() => renderMemoryFile('mem-0123456789ab', noDate, DEFAULT_SETTINGS, NOW)).toThrow(TypeError);
  });

  it('writes the optional fields and links of a memory rendered line by line, as the reference', () => {
    // a required field missing sends the memory to the line-by-line form: its optional lines too
    // (agent_role, source, session, link_ids) must be there, under their own keys
    const links: MemoryLink[] = [{ target: 'mem-aaaaaaaaaaaa', kind: 'related', name: 'Other' }];
    const text = same('mem-0123456789ab', memory({ tags: null as unknown as string[], agent_role: 'reviewer', source: 'bench-7', session: 's 12', links }));
    expect(text).toContain('\nagent_role: reviewer\nconfidence: observed\nhalf_life_days: 30\n');
    expect(text).toContain('\nsource: bench-7\nsession: s 12\naliases: ["Deploys go through the staging cluster first"]\nlink_ids: ["related mem-aaaaaaaaaaaa"]\n---\n');
    expect(text.endsWith('Deploys go through the staging cluster first.\n\n[[Other|related]]\n')).toBe(true);
  });

  it('leaves out half_life_days for a category whose half-life is null in the settings, as the reference', () => {
    const settings = { ...DEFAULT_SETTINGS, halfLifeDays: { ...DEFAULT_SETTINGS.halfLifeDays, semantic: null as unknown as number } };
    const text = same('mem-0123456789ab', memory(), settings);
    expect(text).not.toContain('half_life_days');
    expect(text).toContain('\ntags: []\naccess_count: 0\n');
  });

  it('writes lists holding anything, not only strings, as renderFieldValue does', () => {
    // renderFieldValue writes each item of a list as JSON.stringify does (renderScalar with double
    // quotes: null, booleans, finite numbers as String, non-finite as null, anything else JSON),
    // an item JSON writes nothing for (undefined, a function, a hole) as nothing
    // (StrykerJS's one survivor in memory-file.ts, equivalent by construction: pushList's
    // `!Array.isArray(list)` forced true sends every list to renderFieldValue whole, which is the
    // text pushList's pieces make for every list, as this test and the reference renderer check)
    const odd = [1, null, true, Number.NaN, -Infinity, -0, 1e21, ['b', ['c']], { a: 1, 'b c': 'd' }, undefined, new Date(Date.UTC(2026, 0, 2)), 'x'];
    const sparse: unknown[] = ['a'];
    sparse[2] = 'c';
    for (const list of [odd, sparse, [undefined], [{}], [[]], [['x', 'y']]]) {
      const text = same('mem-0123456789ab', memory({ tags: list as string[], related_paths: list as string[] }));
      expect(text).toContain(`\ntags: ${renderFieldValue(list as FieldValue)}\nhalf_life_days: 30\n`);
    }
    expect(same('mem-0123456789ab', memory({ tags: odd as string[] }))).toContain('\ntags: [1, null, true, null, null, 0, 1e+21, ["b",["c"]], {"a":1,"b c":"d"}, , "2026-01-02T00:00:00.000Z", "x"]\n');
    expect(same('mem-0123456789ab', memory({ tags: sparse as string[] }))).toContain('\ntags: ["a", , "c"]\n');
  });

  it('gives the reference bytes for 3,000 random memories', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ['deploy', 'the', 'Über', '日本語', '🚀', '"', "'", ':', '#', '-', '[', ']', '{', '}', ' ', '  ', '\n', '\t', 'true', 'null', 'yes', '~', '2026-01-01T', '\\', '|', '>', '*', '&', '!', '%', '@', '`', ',', '.', '\u00a0', '\u2028', '\ud800', 'x'];
    const word = (max: number): string => {
      let s = '';
      for (let i = rand(max); i > 0; i--) s += pieces[rand(pieces.length)];
      return s;
    };
    const list = (): string[] => Array.from({ length: rand(4) }, () => word(4));
    const nullable = (): string | null => (rand(3) === 0 ? null : word(4));
    const kinds = ['related', 'supersedes', 'contradicts', 'decays_from'] as const;
    const categories = ['episodic', 'semantic', 'decision'] as const;
    const confidences = ['verified', 'observed', 'inferred'] as const;
    const createds = ['2026-11-01T09:30:00Z', '2025-12-01T00:51:50.400Z', '2026-11-29T12:00:00Z', '2020-02-29', '2026-03-01T10:00:00+05:30'];
    for (let i = 0; i < 3000; i++) {
      const links: MemoryLink[] = Array.from({ length: rand(3) }, () => {
        const link: MemoryLink = { target: `mem-${String(rand(1e6)).padStart(12, '0')}`, kind: kinds[rand(kinds.length)]! };
        return rand(2) === 0 ? { ...link, name: word(3) } : link;
      });
      const extra = rand(4) === 0 ? { reinforcement_count: rand(9), note: word(3), xs: list(), m: { [word(2) || 'k']: rand(5) }, n: null } : undefined;
      const m = memory({
        text: word(12) || 'x',
        category: categories[rand(3)]!,
        created_at: createds[rand(createds.length)]!,
        confidence: confidences[rand(3)]!,
        tags: list(),
        is_error: rand(5) === 0,
        related_paths: list(),
        agent_role: nullable(),
        source: nullable(),
        session: nullable(),
        links,
        ...(extra ? { extra } : {}),
      });
      same(rand(3) === 0 ? word(3) : `mem-${String(i).padStart(12, '0')}`, m, DEFAULT_SETTINGS, NOW + rand(1e11) - 5e10, rand(4) === 0 ? word(3) : undefined);
    }
  });
});
