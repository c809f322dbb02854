import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { MultiGraph } from 'graphology';
import { parse as parseGraphML } from 'graphology-graphml';
import { engram, initVault } from '../helpers/cli';

const NOW = '2026-11-29T12:00:00Z';

/** A memory note as a person (or an earlier Engram) wrote it. */
function note(dir: string, folder: string, id: string, fields: string[], body: string): void {
  mkdirSync(path.join(dir, folder), { recursive: true });
  writeFileSync(path.join(dir, folder, `${id}.md`), `---\nid: ${id}\n${fields.join('\n')}\n---\n${body}`);
}

const A = 'mem-aaaaaaaaaaaa';
const B = 'mem-bbbbbbbbbbbb';
const C = 'mem-cccccccccccc';
const D = 'mem-dddddddddddd';
const S = 'mem-ssssssssssss';
const X = 'mem-xxxxxxxxxxxx';

describe('engram export (SPEC §13)', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(async () => {
    ({ dir, vault, cleanup } = await initVault());
    const base = (category: string, created: string) => [`category: ${category}`, `created_at: "${created}"`, `last_accessed_at: "${created}"`];
    // A: text with every character CSV and XML must escape; related to B, co-accessed with C (3) and a deleted memory
    note(vault, 'episodic', A, [...base('episodic', '2026-11-20T10:00:00Z'), 'agent_role: code-reviewer', 'tags: ["ci", "flaky"]', `co_access: {"${C}": 3, "mem-gone00000000": 1}`, 'activation: 2.5', 'decays_from: "[[mem-ssssssssssss]]"'],
      `Said "don't", used a, comma & <angle> brackets.\n\n[[${B}|related]] [[mem-missing00000|related]]\n`);
    note(vault, 'episodic', B, [...base('episodic', '2026-11-21T10:00:00Z'), 'decays_from: "[[mem-ssssssssssss]]"', `co_access: {"${A}": 1}`], 'Second episode.\n');
    note(vault, 'episodic', C, [...base('episodic', '2026-11-22T10:00:00Z'), `co_access: {"${A}": 2}`], 'Third episode.\n');
    note(vault, 'decisions', D, [...base('decision', '2026-11-23T10:00:00Z'), 'confidence: verified'], `Use cents for money.\n\n[[${X}|supersedes]]\n`);
    note(vault, 'semantic', S, [...base('semantic', '2026-11-24T10:00:00Z'), 'confidence: inferred'], 'A pattern.\n');
    note(vault, 'archive', X, [...base('decision', '2026-01-01T10:00:00Z'), 'tier: archive'], 'Use floats for money.\n');
    writeFileSync(path.join(vault, 'conflicts', 'conflict-000000000001.md'), `---\nid: conflict-000000000001\nstatus: open\nsides: ["${D}", "${X}"]\n---\n# Conflict\n`);
  });
  afterEach(() => cleanup());

  // the edges the vault holds, worked out by hand: A's link to a missing memory and its co-access
  // with a deleted memory are left out; co-access A-C is one edge weighing the larger count
  const EDGES = [
    [A, B, 'related', 1],
    [A, S, 'decays_from', 1],
    [B, S, 'decays_from', 1],
    [D, X, 'supersedes', 1],
    [A, B, 'co_access', 1],
    [A, C, 'co_access', 3],
    [D, X, 'contradicts', 1],
  ];

  it('writes GraphML that an independent reader (graphology-graphml) loads with every memory, edge and property', async () => {
    const out = path.join(dir, 'memory.graphml');
    const run = await engram(vault, ['--json', '--now', NOW, 'export', '--out', out]);
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ format: 'graphml', nodes: 6, edges: 7, dangling: 2, files: [out] });
    const graph = parseGraphML(MultiGraph, readFileSync(out, 'utf8'));
    expect(graph.order).toBe(6);
    expect(graph.size).toBe(7);
    expect(graph.nodes().sort()).toEqual([A, B, C, D, S, X]);
    const edges = graph.mapEdges((_e, attrs, source, target) => [source, target, attrs.kind, attrs.weight]);
    expect(edges.sort()).toEqual([...EDGES].sort());
    expect(graph.getNodeAttributes(A)).toMatchObject({
      text: `Said "don't", used a, comma & <angle> brackets.`,
      category: 'episodic',
      agent_role: 'code-reviewer',
      tags: 'ci;flaky',
      activation: 2.5,
      access_count: 0,
      archived: false,
      tier: 'warm',
      is_error: false,
    });
    expect(graph.getNodeAttributes(X)).toMatchObject({ archived: true, tier: 'archive', path: `archive/${X}.md` });
    // without --out, the document goes to standard output
    const stdout = await engram(vault, ['--now', NOW, 'export', '--format', 'graphml']);
    expect(stdout.stdout).toBe(readFileSync(out, 'utf8'));
  });

  it("writes a Kuzu script that loads from a folder named it's a \"dir\" (the path is a quoted, escaped string, never Cypher)", async () => {
    const out = path.join(dir, `it's a "dir"`);
    expect((await engram(vault, ['--now', NOW, 'export', '--format', 'csv', '--out', out])).code).toBe(0);
    const script = readFileSync(path.join(out, 'load-kuzu.cypher'), 'utf8');
    expect(script).toContain(`COPY Memory FROM '${out.replace(/'/g, "\\'").replace(/"/g, '\\"')}/memories.csv' (HEADER=true);`);
    const kuzu = require('kuzu');
    const db = new kuzu.Database(':memory:');
    const connection = new kuzu.Connection(db);
    try {
      for (const statement of script.split(';\n').filter((s) => s.trim())) await connection.query(statement);
      expect(await (await connection.query('MATCH (m:Memory) RETURN count(*) AS n')).getAll()).toEqual([{ n: 6 }]);
    } finally {
      await connection.close();
      await db.close();
    }
  });

  it('writes CSV files that Kuzu loads with the generated script, and Cypher finds the expected neighbours', async () => {
    const out = path.join(dir, 'csv');
    const run = await engram(vault, ['--json', '--now', NOW, 'export', '--format', 'csv', '--out', out]);
    expect(run.code).toBe(0);
    expect(run.json().files.map((f: string) => path.basename(f))).toEqual(['memories.csv', 'links.csv', 'load-kuzu.cypher', 'load-neo4j.cypher']);
    expect(readFileSync(path.join(out, 'links.csv'), 'utf8').split('\n')[0]).toBe('from,to,kind,weight,status');

    const kuzu = require('kuzu');
    const db = new kuzu.Database(':memory:');
    const connection = new kuzu.Connection(db);
    try {
      // the script exactly as written, one statement at a time
      for (const statement of readFileSync(path.join(out, 'load-kuzu.cypher'), 'utf8').split(';\n').filter((s) => s.trim())) await connection.query(statement);
      const rows = async (cypher: string) => (await connection.query(cypher)).getAll();
      expect(await rows('MATCH (m:Memory) RETURN count(*) AS n')).toEqual([{ n: 6 }]);
      expect(await rows('MATCH ()-[l:Link]->() RETURN count(*) AS n')).toEqual([{ n: 7 }]);
      const neighbours = await rows(`MATCH (a:Memory {id: '${A}'})-[l:Link]-(b:Memory) RETURN b.id AS id, l.kind AS kind, l.weight AS weight ORDER BY id, kind`);
      expect(neighbours).toEqual([
        { id: B, kind: 'co_access', weight: 1 },
        { id: B, kind: 'related', weight: 1 },
        { id: C, kind: 'co_access', weight: 3 },
        { id: S, kind: 'decays_from', weight: 1 },
      ]);
      expect(await rows(`MATCH (m:Memory {id: '${A}'}) RETURN m.text AS text, m.activation AS activation, m.archived AS archived`)).toEqual([
        { text: `Said "don't", used a, comma & <angle> brackets.`, activation: 2.5, archived: false },
      ]);
      expect(await rows(`MATCH (d:Memory)-[l:Link {kind: 'contradicts'}]->(x:Memory) RETURN d.id AS d, x.id AS x, l.status AS status, x.archived AS archived`)).toEqual([{ d: D, x: X, status: 'open', archived: true }]);
    } finally {
      await connection.close();
      await db.close();
    }
  });

  it('refuses a bad format, csv without a folder, and a folder given as the GraphML file', async () => {
    expect((await engram(vault, ['export', '--format', 'csv'])).stderr.split('\n')[0]).toBe('engram: export --format csv: give --out FOLDER (two CSV files and two load scripts are written there)');
    const folder = await engram(vault, ['export', '--out', dir]);
    expect([folder.code, folder.stderr.split('\n')[0]]).toEqual([2, `engram: --out: ${dir} is a folder; give a file name such as memory.graphml`]);
  });
});
