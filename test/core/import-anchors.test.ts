import { anchorsByCanonical, lineAnchors, parseImport, type ImportLine } from '../../src/core/import';
import { normaliseInput } from '../../src/core/remember';

/**
 * A line's anchor (what its id derives from besides its text): lineAnchors makes a line's
 * canonical form only when its text repeats or it has no created_at; anchorsByCanonical, the
 * reference, makes every line's. Both must give the same anchors, `#n` occurrences included.
 */
const NOW = Date.parse('2026-11-30T12:00:00Z');
const memoriesOf = (lines: ImportLine[]) => lines.map((line) => normaliseInput(line, NOW));

describe('import: line anchors', () => {
  it('crafted: created_at or a hash of the form, and the n-th repeat of a form', () => {
    const lines = parseImport(
      [
        '{"text":"A","created_at":"2026-01-01T00:00:00Z"}',
        '{"text":"A","created_at":"2026-01-01T00:00:00Z"}', // same form: #1
        '{"text":"A","created_at":"2026-01-01T00:00:00Z","tags":["x"]}', // same text and date, other form
        '{"text":"B"}',
        '{"text":"  B  "}', // trimmed: the same form
        '{"text":"B","session":1}',
        '{"text":"A","created_at":"2026-01-01T00:00:00Z"}', // #2
        '{"text":"B","session":"1"}', // a session is a string: the same form as line 6
        '{"text":"C","created_at":"2026-01-02T00:00:00.000Z"}',
      ].join('\n'),
      'f.jsonl',
    );
    const anchors = lineAnchors(lines, memoriesOf(lines));
    expect(anchors).toEqual(anchorsByCanonical(lines, memoriesOf(lines)));
    const hashB = anchors[3]!;
    expect(hashB).toMatch(/^import:[0-9a-f]{16}$/);
    expect(anchors).toEqual([
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00Z#1',
      '2026-01-01T00:00:00Z',
      hashB,
      `${hashB}#1`,
      anchors[5],
      '2026-01-01T00:00:00Z#2',
      `${anchors[5]}#1`,
      '2026-01-02T00:00:00Z',
    ]);
    expect(anchors[5]).toMatch(/^import:[0-9a-f]{16}$/);
    expect(anchors[5]).not.toBe(hashB);
  });

  it('random lines with repeated texts, dates and forms: the same anchors as the reference', () => {
    let seed = 11;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)]!;
    for (let round = 0; round < 40; round++) {
      const raw: string[] = [];
      for (let i = 0; i < 150; i++) {
        const record: Record<string, unknown> = { text: pick(['a', 'b', ' a', 'c d', 'é', `t${Math.floor(random() * 30)}`]) };
        if (random() < 0.5) record.created_at = pick(['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z', '2026-02-01T10:00:00Z']);
        if (random() < 0.3) record.tags = pick([['x'], ['y'], ['x', 'x']]);
        if (random() < 0.3) record.session = pick([1, '1', 's']);
        if (random() < 0.2) record.category = pick(['semantic', 'episodic']);
        raw.push(JSON.stringify(record));
      }
      const lines = parseImport(raw.join('\n'), 'r.jsonl');
      expect(lineAnchors(lines, memoriesOf(lines))).toEqual(anchorsByCanonical(lines, memoriesOf(lines)));
    }
  });

  it('a parsed line keeps its fields in order, session as a string (appended when missing), then its line number', () => {
    const lines = parseImport('{"session":3,"text":"x","tags":["a"]}\n\n{"text":"y","source":"s"}', 'f.jsonl');
    expect(lines.map((line) => Object.entries(line))).toEqual([
      [['session', '3'], ['text', 'x'], ['tags', ['a']], ['line', 1]],
      [['text', 'y'], ['source', 's'], ['session', undefined], ['line', 3]],
    ]);
    expect(() => parseImport('{"text":"x","b":1,"a":2,"line":3}', 'f.jsonl')).toThrow('f.jsonl:1: unknown fields "b", "a", "line"');
  });
});
