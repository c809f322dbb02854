import { readFrontmatter, setFrontmatterFields, splitFrontmatter } from '../../src/core/frontmatter';
import * as fs from 'node:fs';
import * as path from 'node:path';

const NOTE = `---
id: mem-abc123def456
category: episodic            # episodic | semantic | decision
created_at: "2026-04-28T10:23:00Z"
last_accessed_at: '2026-04-30T09:10:00Z'
agent_role: code-reviewer
tags: ["typescript", "testing"]
access_count: 3
co_access: {"mem-xyz789pqr012": 2}
reviewer_notes: keep this   # a field Engram does not know
activation: 1.0
---
Found a flaky test in the auth suite: timeout too short for the CI environment.
[[mem-xyz789pqr012|related]]
trailing spaces   
`;

describe('splitFrontmatter', () => {
  it('splits at the fences and keeps the body byte for byte', () => {
    const split = splitFrontmatter(NOTE)!;
    expect(split.head).toBe('---\n');
    expect(split.fence).toBe('---\n');
    expect(split.yaml.startsWith('id: mem-abc123def456\n')).toBe(true);
    expect(split.body).toBe('Found a flaky test in the auth suite: timeout too short for the CI environment.\n[[mem-xyz789pqr012|related]]\ntrailing spaces   \n');
    expect(split.head + split.yaml + split.fence + split.body).toBe(NOTE);
  });

  it('does not take a --- inside a value for the closing fence, and needs one', () => {
    expect(splitFrontmatter('---\na: 1\n')).toBeNull();
    expect(splitFrontmatter('no frontmatter\n---\n')).toBeNull();
    expect(splitFrontmatter('---\na: "x---"\n---\nbody')!.body).toBe('body');
    expect(splitFrontmatter('---\n---\nbody')).toEqual({ head: '---\n', yaml: '', fence: '---\n', body: 'body' });
  });

  it('handles CRLF and a byte-order mark', () => {
    const split = splitFrontmatter('\uFEFF---\r\na: 1\r\n---\r\nbody\r\n')!;
    expect(split.head).toBe('\uFEFF---\r\n');
    expect(split.yaml).toBe('a: 1\r\n');
    expect(split.body).toBe('body\r\n');
  });
});

describe('setFrontmatterFields', () => {
  it('rewrites only the changed values, in their own quoting style', () => {
    const out = setFrontmatterFields(NOTE, {
      access_count: 4,
      last_accessed_at: '2026-05-01T08:00:00Z',
      created_at: '2026-04-28T10:23:00Z',
      activation: 2.25,
    });
    expect(out).toBe(
      NOTE.replace('access_count: 3', 'access_count: 4')
        .replace("last_accessed_at: '2026-04-30T09:10:00Z'", "last_accessed_at: '2026-05-01T08:00:00Z'")
        .replace('activation: 1.0', 'activation: 2.25'),
    );
  });

  it('keeps flow collections flow and their keys quoted', () => {
    const out = setFrontmatterFields(NOTE, { co_access: { 'mem-xyz789pqr012': 3, 'mem-000000000001': 1 }, tags: ['typescript'] });
    expect(out).toBe(
      NOTE.replace('co_access: {"mem-xyz789pqr012": 2}', 'co_access: {"mem-xyz789pqr012": 3, "mem-000000000001": 1}').replace(
        'tags: ["typescript", "testing"]',
        'tags: ["typescript"]',
      ),
    );
  });

  it('appends fields the note does not have, in SPEC style, before the closing fence', () => {
    const out = setFrontmatterFields(NOTE, { tier: 'warm', activation_at: '2026-05-01T08:00:00Z', related_paths: ['src/a.ts'] });
    expect(out).toBe(NOTE.replace('activation: 1.0\n---', 'activation: 1.0\ntier: warm\nactivation_at: "2026-05-01T08:00:00Z"\nrelated_paths: ["src/a.ts"]\n---'));
  });

  it('returns the text unchanged when every value is already as asked', () => {
    expect(setFrontmatterFields(NOTE, { access_count: 3, agent_role: 'code-reviewer' })).toBe(NOTE);
  });

  it('keeps CRLF line endings', () => {
    const crlf = NOTE.replace(/\n/g, '\r\n');
    const out = setFrontmatterFields(crlf, { access_count: 9, tier: 'cold' });
    expect(out).toBe(crlf.replace('access_count: 3', 'access_count: 9').replace('activation: 1.0\r\n---', 'activation: 1.0\r\ntier: cold\r\n---'));
  });

  it('falls back to the YAML document for block collections, keeping other lines', () => {
    const note = '---\nid: mem-abc123def456\ntags:\n  - a\n  - b\n# a comment line\nx: 1\n---\nbody\n';
    expect(setFrontmatterFields(note, { tags: ['a', 'c'] })).toBe('---\nid: mem-abc123def456\ntags:\n  - a\n  - c\n# a comment line\nx: 1\n---\nbody\n');
  });

  it('quotes a string that would otherwise read as another type', () => {
    const note = '---\nagent_role: reviewer\n---\n';
    expect(setFrontmatterFields(note, { agent_role: 'true' })).toBe('---\nagent_role: "true"\n---\n');
    expect(setFrontmatterFields(note, { agent_role: 'a: b' })).toBe('---\nagent_role: "a: b"\n---\n');
  });

  it('edits a frontmatter holding keys named __proto__, constructor or toString: only the named fields change (issue 22, finding 15)', () => {
    const text = '---\n__proto__: hello\nconstructor: world\ntoString: [a, b]\nid: mem-abc123def456\naccess_count: 3\n---\nBody.\n';
    const out = setFrontmatterFields(text, { access_count: 4, counted_by: 'm-000000000001' });
    expect(out).toBe('---\n__proto__: hello\nconstructor: world\ntoString: [a, b]\nid: mem-abc123def456\naccess_count: 4\ncounted_by: m-000000000001\n---\nBody.\n');
    // the document path (a block collection forces it) takes them as ordinary keys too
    const block = '---\nconstructor: world\n__proto__: hello\nco_access:\n  mem-aaaaaaaaaaaa: 1\naccess_count: 3\n---\nBody.\n';
    expect(setFrontmatterFields(block, { co_access: { 'mem-aaaaaaaaaaaa': 2 }, access_count: 4, counted_by: 'm-000000000001' })).toBe(
      '---\nconstructor: world\n__proto__: hello\nco_access:\n  mem-aaaaaaaaaaaa: 2\naccess_count: 4\ncounted_by: m-000000000001\n---\nBody.\n',
    );
  });

  it('edits a top-level mapping indented as a whole, appending new fields at its indentation (issue 22, finding 15)', () => {
    const text = '---\n  id: mem-abc123def456\n  access_count: 3  # uses\n  tags: [x]\n---\nBody.\n';
    expect(setFrontmatterFields(text, { access_count: 4, counted_by: 'm-000000000001' })).toBe('---\n  id: mem-abc123def456\n  access_count: 4  # uses\n  tags: [x]\n  counted_by: m-000000000001\n---\nBody.\n');
  });

  it('refuses, naming the fields, a frontmatter written as one flow mapping (new fields cannot be appended to it)', () => {
    expect(() => setFrontmatterFields('---\n{id: mem-abc123def456, access_count: 3}\n---\nBody.\n', { access_count: 4, counted_by: 'm-000000000001' })).toThrow(
      'cannot set access_count, counted_by without changing other fields of this frontmatter; edit it by hand',
    );
  });

  it('refuses notes without valid frontmatter', () => {
    expect(() => setFrontmatterFields('just text', { a: 1 })).toThrow('no frontmatter');
    expect(() => setFrontmatterFields('---\na: [1\n---\n', { a: 1 })).toThrow(/^invalid YAML/);
    expect(() => setFrontmatterFields('---\n- a\n---\n', { a: 1 })).toThrow('frontmatter is not a mapping');
  });
});

describe('scalar writes on every example memory', () => {
  it('change only the written lines (or append the new field), keep every other byte, and read back as written', () => {
    const root = path.join(__dirname, '..', '..', 'examples', 'vault');
    const files = ['episodic', 'semantic', 'decisions'].flatMap((d) => fs.readdirSync(path.join(root, d)).map((f) => path.join(root, d, f)));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const fields = { tier: 'cold', access_count: 7, last_accessed_at: '2026-12-01T00:00:00Z', decays_from: '[[mem-000000000000]]' };
      const out = setFrontmatterFields(text, fields);
      const before = splitFrontmatter(text)!;
      const after = splitFrontmatter(out)!;
      expect(after.body).toBe(before.body);
      const old = readFrontmatter(before.yaml) as Record<string, unknown>;
      expect(readFrontmatter(after.yaml)).toEqual({ ...old, ...fields });
      const oldLines = before.yaml.split('\n');
      const newLines = after.yaml.split('\n');
      const changed = newLines.filter((line, i) => line !== oldLines[i] && line !== '');
      expect(changed.length).toBeGreaterThanOrEqual(3);
      for (const line of changed) expect(line).toMatch(/^(tier|access_count|last_accessed_at|decays_from): /);
    }
  });
});
