// The memory graph export (src/core/graph-export.ts) in process: which nodes and edges a vault
// gives (dangling ones counted, not written), and the exact GraphML, CSV and Cypher texts.
// test/headless/export.test.ts loads the files with independent readers (graphology, Kuzu).
import { cypherString, edgesCsv, exportGraph, kuzuScript, neo4jScript, nodesCsv, toGraphML, type ExportNode, type MemoryGraphExport } from '../../src/core/graph-export';
import { memoryNote, memoryVault } from '../helpers/memory-ports';

const NOW = '2026-06-01T00:00:00Z';
const A = 'mem-aaaaaaaaaaaa';
const B = 'mem-bbbbbbbbbbbb';
const C = 'mem-cccccccccccc';
const GONE = 'mem-000000000000';

describe('exportGraph', () => {
  it('nodes in id order with their properties now; links, co-access once per pair, conflicts; dangling counted', async () => {
    const { vault, files } = memoryVault(NOW);
    const put = (path: string, fields: Record<string, string | number | boolean>, body: string, yaml = '') => {
      const note = memoryNote({ created_at: '2026-05-25T00:00:00Z', last_accessed_at: '2026-05-25T00:00:00Z', ...fields }, body);
      files.files.set(path, yaml ? note.replace('\n---\n', `\n${yaml}\n---\n`) : note);
    };
    put(`episodic/${B}.md`, { id: B, category: 'episodic', agent_role: 'coder', source: 'chat-1', is_error: true, access_count: 2, amplitude: 1.5, activation: 0.25 }, `Second, "quoted", text.\n`, `co_access:\n  ${A}: 5\ntags:\n  - ci\n  - deploy`);
    put(`episodic/${A}.md`, { id: A, category: 'episodic', confidence: 'verified' }, `First [[${B}|related]] [[${B}|related]] [[${GONE}|supersedes]] [[${C}|contradicts]] [[${A}|related]] text.\n`, `co_access:\n  ${B}: 3\n  ${GONE}: 1\n  ${A}: 7`);
    put(`archive/decisions/${C}.md`, { id: C, category: 'decision', created_at: '2025-01-01T00:00:00Z', last_accessed_at: '2025-01-01T00:00:00Z' }, `Third. [[${A}|decays_from]]\n`);
    files.files.set('conflicts/one.md', `---\nsides:\n  - ${C}\n  - ${A}\nstatus: resolved\n---\nbody\n`);
    files.files.set('conflicts/two.md', `---\nsides:\n  - ${A}\n  - ${GONE}\n---\nbody\n`);
    files.files.set('conflicts/three.md', `---\nsides:\n  - ${A}\n  - ${B}\n---\n`);
    files.files.set('conflicts/notes.txt', `---\nsides:\n  - ${B}\n  - ${C}\n---\n`);
    files.files.set('conflicts/broken.md', 'no frontmatter');
    const graph = await exportGraph(vault);
    expect(graph.nodes.map((n) => [n.id, n.path, n.tier, n.archived, n.strength])).toEqual([
      // the strength now (decay.ts) to four decimals: one half-life for A; B's is longer (accesses, amplitude)
      [A, `episodic/${A}.md`, 'active', false, 0.5],
      [B, `episodic/${B}.md`, 'active', false, 0.7637],
      // the tier written (none) demoted to what the days imply, whatever the folder
      [C, `archive/decisions/${C}.md`, 'cold', true, 0.0188],
    ]);
    expect(graph.nodes[1]).toEqual({
      id: B,
      path: `episodic/${B}.md`,
      category: 'episodic',
      confidence: 'observed',
      tier: 'active',
      archived: false,
      strength: 0.7637,
      activation: 0.25,
      amplitude: 1.5,
      access_count: 2,
      half_life_days: 7,
      is_error: true,
      created_at: '2026-05-25T00:00:00Z',
      last_accessed_at: '2026-05-25T00:00:00Z',
      agent_role: 'coder',
      source: 'chat-1',
      tags: 'ci;deploy',
      text: 'Second, "quoted", text.',
    });
    expect([graph.nodes[0]!.agent_role, graph.nodes[0]!.source, graph.nodes[0]!.tags]).toEqual(['', '', '']);
    expect(graph.edges).toEqual([
      { from: A, to: B, kind: 'related', weight: 1, status: '' },
      { from: C, to: A, kind: 'decays_from', weight: 1, status: '' },
      { from: A, to: B, kind: 'co_access', weight: 5, status: '' },
      // conflict notes in file name order (one.md, three.md), a note without status open
      { from: C, to: A, kind: 'contradicts', weight: 1, status: 'resolved' },
      { from: A, to: B, kind: 'contradicts', weight: 1, status: 'open' },
    ]);
    // the supersedes link and the co-access entry to a memory not in the vault, and the conflict with it
    expect(graph.dangling).toBe(3);
  });

  it('an empty vault: nothing', async () => {
    expect(await exportGraph(memoryVault(NOW).vault)).toEqual({ nodes: [], edges: [], dangling: 0 });
  });
});

const node = (o: Partial<ExportNode>): ExportNode => ({
  id: A,
  path: `episodic/${A}.md`,
  category: 'episodic',
  confidence: 'observed',
  tier: 'warm',
  archived: false,
  strength: 0.5,
  activation: 0,
  amplitude: 1,
  access_count: 3,
  half_life_days: 7,
  is_error: false,
  created_at: '2026-05-01T00:00:00Z',
  last_accessed_at: '2026-05-02T00:00:00Z',
  agent_role: '',
  source: '',
  tags: 'a;b',
  text: 'Plain text.',
  ...o,
});

const GRAPH: MemoryGraphExport = {
  nodes: [node({}), node({ id: B, path: `episodic/${B}.md`, text: 'Use <b> & "q" \'s\u0001\u0009\u000a\u000d\ufffe\uffff end, comma', agent_role: 'r"o', archived: true, is_error: true })],
  edges: [
    { from: A, to: B, kind: 'co_access', weight: 2.5, status: '' },
    { from: B, to: A, kind: 'contradicts', weight: 1, status: 'open <x>' },
  ],
  dangling: 0,
};

describe('the export formats', () => {
  it('GraphML: keys with types, one node and edge each with data, XML escaped, forbidden characters dropped', () => {
    const data = (n: ExportNode) =>
      [
        `      <data key="n_path">${n.path}</data>`,
        `      <data key="n_category">episodic</data>`,
        `      <data key="n_confidence">observed</data>`,
        `      <data key="n_tier">warm</data>`,
        `      <data key="n_archived">${n.archived}</data>`,
        `      <data key="n_strength">0.5</data>`,
        `      <data key="n_activation">0</data>`,
        `      <data key="n_amplitude">1</data>`,
        `      <data key="n_access_count">3</data>`,
        `      <data key="n_half_life_days">7</data>`,
        `      <data key="n_is_error">${n.is_error}</data>`,
        `      <data key="n_created_at">2026-05-01T00:00:00Z</data>`,
        `      <data key="n_last_accessed_at">2026-05-02T00:00:00Z</data>`,
      ].join('\n');
    expect(toGraphML(GRAPH)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
        '  <key id="n_path" for="node" attr.name="path" attr.type="string"/>',
        '  <key id="n_category" for="node" attr.name="category" attr.type="string"/>',
        '  <key id="n_confidence" for="node" attr.name="confidence" attr.type="string"/>',
        '  <key id="n_tier" for="node" attr.name="tier" attr.type="string"/>',
        '  <key id="n_archived" for="node" attr.name="archived" attr.type="boolean"/>',
        '  <key id="n_strength" for="node" attr.name="strength" attr.type="double"/>',
        '  <key id="n_activation" for="node" attr.name="activation" attr.type="double"/>',
        '  <key id="n_amplitude" for="node" attr.name="amplitude" attr.type="double"/>',
        '  <key id="n_access_count" for="node" attr.name="access_count" attr.type="int"/>',
        '  <key id="n_half_life_days" for="node" attr.name="half_life_days" attr.type="double"/>',
        '  <key id="n_is_error" for="node" attr.name="is_error" attr.type="boolean"/>',
        '  <key id="n_created_at" for="node" attr.name="created_at" attr.type="string"/>',
        '  <key id="n_last_accessed_at" for="node" attr.name="last_accessed_at" attr.type="string"/>',
        '  <key id="n_agent_role" for="node" attr.name="agent_role" attr.type="string"/>',
        '  <key id="n_source" for="node" attr.name="source" attr.type="string"/>',
        '  <key id="n_tags" for="node" attr.name="tags" attr.type="string"/>',
        '  <key id="n_text" for="node" attr.name="text" attr.type="string"/>',
        '  <key id="e_kind" for="edge" attr.name="kind" attr.type="string"/>',
        '  <key id="e_weight" for="edge" attr.name="weight" attr.type="double"/>',
        '  <key id="e_status" for="edge" attr.name="status" attr.type="string"/>',
        '  <graph id="engram" edgedefault="directed">',
        `    <node id="${A}">`,
        data(GRAPH.nodes[0]!),
        '      <data key="n_agent_role"></data>',
        '      <data key="n_source"></data>',
        '      <data key="n_tags">a;b</data>',
        '      <data key="n_text">Plain text.</data>',
        '    </node>',
        `    <node id="${B}">`,
        data(GRAPH.nodes[1]!),
        '      <data key="n_agent_role">r&quot;o</data>',
        '      <data key="n_source"></data>',
        '      <data key="n_tags">a;b</data>',
        '      <data key="n_text">Use &lt;b&gt; &amp; &quot;q&quot; &apos;s\t\n\r end, comma</data>',
        '    </node>',
        `    <edge id="e0" source="${A}" target="${B}">`,
        '      <data key="e_kind">co_access</data>',
        '      <data key="e_weight">2.5</data>',
        '    </edge>',
        `    <edge id="e1" source="${B}" target="${A}">`,
        '      <data key="e_kind">contradicts</data>',
        '      <data key="e_weight">1</data>',
        '      <data key="e_status">open &lt;x&gt;</data>',
        '    </edge>',
        '  </graph>',
        '</graphml>',
        '',
      ].join('\n'),
    );
  });

  it('CSV: a header, every string quoted (quotes doubled), control characters as spaces, numbers and booleans bare', () => {
    expect(nodesCsv(GRAPH)).toBe(
      [
        'id,path,category,confidence,tier,archived,strength,activation,amplitude,access_count,half_life_days,is_error,created_at,last_accessed_at,agent_role,source,tags,text',
        `"${A}","episodic/${A}.md","episodic","observed","warm",false,0.5,0,1,3,7,false,"2026-05-01T00:00:00Z","2026-05-02T00:00:00Z","","","a;b","Plain text."`,
        `"${B}","episodic/${B}.md","episodic","observed","warm",true,0.5,0,1,3,7,true,"2026-05-01T00:00:00Z","2026-05-02T00:00:00Z","r""o","","a;b","Use <b> & ""q"" 's       end, comma"`,
        '',
      ].join('\n'),
    );
    expect(edgesCsv(GRAPH)).toBe(['from,to,kind,weight,status', `"${A}","${B}","co_access",2.5,""`, `"${B}","${A}","contradicts",1,"open <x>"`, ''].join('\n'));
    expect(nodesCsv({ nodes: [], edges: [], dangling: 0 })).toBe('id,path,category,confidence,tier,archived,strength,activation,amplitude,access_count,half_life_days,is_error,created_at,last_accessed_at,agent_role,source,tags,text\n');
  });

  it('cypherString escapes backslashes, quotes and line breaks', () => {
    expect(cypherString(`it's a "dir"\\x\ny\rz`)).toBe(`'it\\'s a \\"dir\\"\\\\x\\ny\\rz'`);
  });

  it('the Kuzu script: two tables with the columns\' types, two COPY statements from the folder', () => {
    expect(kuzuScript()).toBe(
      [
        'CREATE NODE TABLE Memory(id STRING, path STRING, category STRING, confidence STRING, tier STRING, archived BOOLEAN, strength DOUBLE, activation DOUBLE, amplitude DOUBLE, access_count INT64, half_life_days DOUBLE, is_error BOOLEAN, created_at STRING, last_accessed_at STRING, agent_role STRING, source STRING, tags STRING, text STRING, PRIMARY KEY(id));',
        'CREATE REL TABLE Link(FROM Memory TO Memory, kind STRING, weight DOUBLE, status STRING);',
        "COPY Memory FROM './memories.csv' (HEADER=true);",
        "COPY Link FROM './links.csv' (HEADER=true);",
        '',
      ].join('\n'),
    );
    expect(kuzuScript("/tmp/it's")).toContain("COPY Link FROM '/tmp/it\\'s/links.csv' (HEADER=true);");
  });

  it('the Neo4j script: a constraint, the nodes with converted properties, one statement per edge kind', () => {
    const edge = (kind: string) =>
      `LOAD CSV WITH HEADERS FROM 'file:///links.csv' AS row WITH row WHERE row.kind = '${kind}' MATCH (a:Memory {id: row.from}), (b:Memory {id: row.to}) MERGE (a)-[r:${kind.toUpperCase()}]->(b) SET r.weight = toFloat(row.weight), r.status = row.status;`;
    expect(neo4jScript()).toBe(
      [
        'CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE;',
        "LOAD CSV WITH HEADERS FROM 'file:///memories.csv' AS row MERGE (m:Memory {id: row.id}) SET m.path = row.path, m.category = row.category, m.confidence = row.confidence, m.tier = row.tier, m.archived = row.archived = 'true', m.strength = toFloat(row.strength), m.activation = toFloat(row.activation), m.amplitude = toFloat(row.amplitude), m.access_count = toInteger(row.access_count), m.half_life_days = toFloat(row.half_life_days), m.is_error = row.is_error = 'true', m.created_at = row.created_at, m.last_accessed_at = row.last_accessed_at, m.agent_role = row.agent_role, m.source = row.source, m.tags = [t IN split(row.tags, ';') WHERE t <> ''], m.text = row.text;",
        edge('related'),
        edge('supersedes'),
        edge('decays_from'),
        edge('co_access'),
        edge('contradicts'),
        '',
      ].join('\n'),
    );
  });
});
