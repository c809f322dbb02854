import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml';
import { readFlatFrontmatter, splitFrontmatter } from '../../src/core/frontmatter';
import { seededRandom } from '../../src/core/random';

/**
 * readFlatFrontmatter reads the frontmatter Engram writes without a YAML parser. Whatever it
 * reads must be exactly what js-yaml (core schema) reads; anything else it leaves to js-yaml.
 */
const yamlOf = (text: string): unknown => {
  try {
    return loadYaml(text, { schema: CORE_SCHEMA });
  } catch (error) {
    return error instanceof Error ? `error: ${error.name}` : 'error';
  }
};

/** 'flat' when the flat reader read it (and agrees with js-yaml), 'yaml' when it left it to js-yaml. */
function reader(yaml: string): 'flat' | 'yaml' {
  const flat = readFlatFrontmatter(yaml);
  if (flat === undefined) return 'yaml';
  expect(flat).toEqual(yamlOf(yaml));
  // and each number the same to the sign of a zero
  const yamlData = yamlOf(yaml) as Record<string, unknown>;
  for (const [key, value] of Object.entries(flat)) if (typeof value === 'number') expect([key, Object.is(value, yamlData[key])]).toEqual([key, true]);
  return 'flat';
}

describe('readFlatFrontmatter', () => {
  it('reads each value shape Engram writes exactly as js-yaml does', () => {
    const cases: Array<[string, 'flat' | 'yaml']> = [
      ['id: mem-00032efea89c\n', 'flat'],
      ['created_at: "2026-02-11T19:00:28.800Z"\n', 'flat'],
      ['tags: ["hmac", "a, b", "quote \\" and \\\\ and \\u00e9 and \\/"]\n', 'flat'],
      ['tags: []\nco_access: {}\n', 'flat'],
      ['co_access: {"mem-aaaaaaaaaaaa": 2, "mem-bbbbbbbbbbbb": 0.125}\n', 'flat'],
      ['half_life_days: 7\namplitude: 1\nactivation: 0.30000000000000004\nb: 0.125\nx: -3\ny: -0.0\nz: 0\n', 'flat'],
      ['is_error: false\nsuperseded_by: null\nok: true\n', 'flat'],
      ['agent_role: code reviewer\nsource: a - b/c.d_e\n', 'flat'],
      ['aliases: ["Observation 2022: term7j term2z3"]\n', 'flat'],
      ['no_newline_at_end: 1', 'flat'],
      ['café: "non-ASCII key"\n', 'yaml'],
      ['text: "naïve café"\n', 'flat'],
      // js-yaml reads these otherwise, or refuses them: left to it
      ['x: -0\n', 'yaml'],
      ['co_access: {"a": -0}\n', 'yaml'],
      ['x: True\n', 'yaml'],
      ['x: NULL\n', 'yaml'],
      ['NULL: 1\n', 'yaml'],
      ['x: 1e5\n', 'yaml'],
      ['x: 0x1F\n', 'yaml'],
      ['x: 0123\n', 'yaml'],
      ['x: 1234567890123456\n', 'yaml'],
      ['x: .inf\n', 'yaml'],
      ['x: 1_000\n', 'yaml'],
      ['x: +5\n', 'yaml'],
      ['content_hash: 5d4c725f9e37d38b\n', 'yaml'],
      ['created_at: 2026-02-11T19:00:28Z\n', 'yaml'],
      ['x: a # comment\n', 'yaml'],
      ['x: "a" # comment\n', 'yaml'],
      ['x: a \n', 'yaml'],
      ['x:  a\n', 'yaml'],
      ['x: \'single\'\n', 'yaml'],
      ['x: "tab\there"\n', 'yaml'],
      ['x: a\n\ny: b\n', 'yaml'],
      ['x: a\nx: b\n', 'yaml'],
      ['co_access: {"a": 1, "a": 2}\n', 'yaml'],
      ['__proto__: 1\n', 'yaml'],
      ['x: "__proto__"\n', 'yaml'],
      ['x: [a, b]\n', 'yaml'],
      ['x: ["a","b"]\n', 'yaml'],
      ['x:\n  - a\n', 'yaml'],
      ['x: |\n  text\n', 'yaml'],
      ['x: &a b\ny: *a\n', 'yaml'],
      ['x: !!str 1\n', 'yaml'],
      ['x: a\r\n', 'yaml'],
      ['x: "emoji 😀"\n', 'yaml'],
      ['x: a\u2028b\n', 'yaml'],
      ['# comment\nx: a\n', 'yaml'],
      ['\n', 'yaml'],
      ['', 'yaml'],
      ['- a\n', 'yaml'],
      ['x: y: z\n', 'yaml'],
      ['x: [\n', 'yaml'],
      ['x: "unterminated\n', 'yaml'],
    ];
    expect(cases.map(([yaml]) => reader(yaml))).toEqual(cases.map(([, expected]) => expected));
  });

  it('agrees with js-yaml on every fixture note, and reads every note Engram wrote there', () => {
    const notes: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (name.endsWith('.md')) notes.push(full);
      }
    };
    walk(path.join(__dirname, '../../examples/vault'));
    walk(path.join(__dirname, '../fixtures'));
    const split = notes.map((note) => splitFrontmatter(readFileSync(note, 'utf8'))).filter((s) => s !== null);
    const readers = split.map((s) => reader(s.yaml));
    expect([readers.length, readers.filter((r) => r === 'flat').length]).toEqual([92, 84]);
  });

  it('agrees with js-yaml on 3,000 random field lines', () => {
    const random = seededRandom("issue-23");
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
    const atoms = ['a', 'Z', '_', '0', '7', '-', '.', '/', ' ', '"', '\\', ':', '#', ',', '[', ']', '{', '}', 'e', 'E', 'x', 'u', 'n', 'null', 'true', 'False', '1.5', '-0', '00', 'é', '\t', "'", '~'];
    let flat = 0;
    for (let i = 0; i < 3000; i++) {
      const value = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(atoms)).join('');
      const key = pick(['id', 'tags', 'x_y', 'Null', 'a-b', '_k']);
      if (reader(`${key}: ${value}\nnext: 1\n`) === 'flat') flat++;
    }
    // the generator reaches both readers
    expect(flat).toBe(396);
  });
});
