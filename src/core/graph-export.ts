import { readConflictNote } from './consolidation/conflicts';
import { memoryStrength } from './decay';
import { ARCHIVE_FOLDER, memoryText, type Memory } from './memory';
import { currentTier } from './tiers';
import { LAYOUT, type Vault } from './vault';

/**
 * The memory graph for analytics tools (SPEC §13): memories with their properties, and the
 * edges between them: `related`, `supersedes` and `decays_from` links, Hebbian `co_access`
 * (weighted by count), and `contradicts` from conflict notes. Written as GraphML and as a
 * node CSV plus an edge CSV that Kuzu (`COPY ... FROM`) and Neo4j (`LOAD CSV WITH HEADERS`)
 * load as they are. The vault stays the authority: an export is a snapshot, never read back.
 *
 * Edges whose other end is not a memory of the vault (a link to a deleted memory) are left
 * out, so every edge joins two exported nodes; the count is reported.
 */
export const EDGE_KINDS = ['related', 'supersedes', 'decays_from', 'co_access', 'contradicts'] as const;
export type ExportEdgeKind = (typeof EDGE_KINDS)[number];

export interface ExportNode {
  id: string;
  path: string;
  category: string;
  confidence: string;
  /** The tier now (the written tier demoted to what the days imply). */
  tier: string;
  archived: boolean;
  strength: number;
  activation: number;
  amplitude: number;
  access_count: number;
  half_life_days: number;
  is_error: boolean;
  created_at: string;
  last_accessed_at: string;
  agent_role: string;
  source: string;
  /** Tags joined by `;` (a plain string every loader reads). */
  tags: string;
  text: string;
}

export interface ExportEdge {
  from: string;
  to: string;
  kind: ExportEdgeKind;
  /** 1 for a link; the co-access count for co_access. */
  weight: number;
  /** For contradicts: the conflict note's status (open or resolved); '' otherwise. */
  status: string;
}

export interface MemoryGraphExport {
  nodes: ExportNode[];
  edges: ExportEdge[];
  /** Links and co-access entries naming a memory that is not in the vault. */
  dangling: number;
}

/** The node properties in column order, with their types (GraphML attr.type, Kuzu and Neo4j). */
export const NODE_COLUMNS: Array<{ name: keyof ExportNode; type: 'string' | 'double' | 'int' | 'boolean' }> = [
  { name: 'id', type: 'string' },
  { name: 'path', type: 'string' },
  { name: 'category', type: 'string' },
  { name: 'confidence', type: 'string' },
  { name: 'tier', type: 'string' },
  { name: 'archived', type: 'boolean' },
  { name: 'strength', type: 'double' },
  { name: 'activation', type: 'double' },
  { name: 'amplitude', type: 'double' },
  { name: 'access_count', type: 'int' },
  { name: 'half_life_days', type: 'double' },
  { name: 'is_error', type: 'boolean' },
  { name: 'created_at', type: 'string' },
  { name: 'last_accessed_at', type: 'string' },
  { name: 'agent_role', type: 'string' },
  { name: 'source', type: 'string' },
  { name: 'tags', type: 'string' },
  { name: 'text', type: 'string' },
];

export const EDGE_COLUMNS: Array<{ name: keyof ExportEdge; type: 'string' | 'double' }> = [
  { name: 'from', type: 'string' },
  { name: 'to', type: 'string' },
  { name: 'kind', type: 'string' },
  { name: 'weight', type: 'double' },
  { name: 'status', type: 'string' },
];

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/** The graph of every memory (archive included), in id order; edges in a stable order. */
export async function exportGraph(vault: Vault): Promise<MemoryGraphExport> {
  const { memories } = await vault.loadAll();
  const now = vault.now();
  const sorted = [...memories].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const present = new Set(sorted.map((m) => m.id));
  const nodes = sorted.map((m) => toNode(m, now, vault));
  const edges: ExportEdge[] = [];
  let dangling = 0;
  const seen = new Set<string>();
  const add = (edge: ExportEdge) => {
    const key = `${edge.from}|${edge.to}|${edge.kind}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push(edge);
  };
  for (const m of sorted) {
    for (const link of m.links) {
      if (link.kind === 'contradicts' || link.target === m.id) continue;
      if (!present.has(link.target)) {
        dangling++;
        continue;
      }
      add({ from: m.id, to: link.target, kind: link.kind, weight: 1, status: '' });
    }
  }
  // co-access is symmetric: one edge per pair, from the smaller id, weighing the larger count
  const coAccess = new Map<string, number>();
  for (const m of sorted) {
    for (const [other, count] of Object.entries(m.co_access)) {
      if (other === m.id) continue;
      if (!present.has(other)) {
        dangling++;
        continue;
      }
      const key = m.id < other ? `${m.id}|${other}` : `${other}|${m.id}`;
      coAccess.set(key, Math.max(coAccess.get(key) ?? 0, count));
    }
  }
  for (const [key, count] of [...coAccess].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [from, to] = key.split('|') as [string, string];
    add({ from, to, kind: 'co_access', weight: count, status: '' });
  }
  for (const conflict of await conflictEdges(vault)) {
    if (!present.has(conflict.from) || !present.has(conflict.to)) {
      dangling++;
      continue;
    }
    add(conflict);
  }
  return { nodes, edges, dangling };
}

function toNode(m: Memory, now: number, vault: Vault): ExportNode {
  return {
    id: m.id,
    path: m.path,
    category: m.category,
    confidence: m.confidence,
    tier: currentTier(m, now, vault.settings),
    archived: m.path.startsWith(`${ARCHIVE_FOLDER}/`),
    strength: round(memoryStrength(m, now, vault.settings), 4),
    activation: m.activation,
    amplitude: m.amplitude,
    access_count: m.access_count,
    half_life_days: m.half_life_days,
    is_error: m.is_error,
    created_at: m.created_at,
    last_accessed_at: m.last_accessed_at,
    agent_role: m.agent_role ?? '',
    source: m.source ?? '',
    tags: m.tags.join(';'),
    text: memoryText(m),
  };
}

/** One `contradicts` edge per conflict note, between its two sides. */
async function conflictEdges(vault: Vault): Promise<ExportEdge[]> {
  const out: ExportEdge[] = [];
  for (const name of (await vault.ports.files.list(LAYOUT.conflicts)).sort()) {
    if (!name.endsWith('.md')) continue;
    const path = `${LAYOUT.conflicts}/${name}`;
    const text = await vault.readText(path);
    const note = text ? readConflictNote(path, text) : null;
    if (!note) continue;
    const [a, b] = note.sides as [string, string];
    out.push({ from: a, to: b, kind: 'contradicts', weight: 1, status: note.status });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// GraphML (http://graphml.graphdrawing.org/specification.html)

/** Control characters (other than tab, line feed and carriage return) replaced by `by`. */
function withoutControls(text: string, by: string, keepWhiteSpace: boolean): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const control = code < 0x20 && !(keepWhiteSpace && (code === 0x09 || code === 0x0a || code === 0x0d));
    out += control || code === 0xfffe || code === 0xffff ? by : ch;
  }
  return out;
}

/** Characters XML 1.0 forbids are dropped; the five special ones are escaped. */
function xml(text: string): string {
  return withoutControls(text, '', true)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function toGraphML(graph: MemoryGraphExport): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
  ];
  for (const c of NODE_COLUMNS) if (c.name !== 'id') lines.push(`  <key id="n_${c.name}" for="node" attr.name="${c.name}" attr.type="${c.type}"/>`);
  for (const c of EDGE_COLUMNS) if (c.name !== 'from' && c.name !== 'to') lines.push(`  <key id="e_${c.name}" for="edge" attr.name="${c.name}" attr.type="${c.type}"/>`);
  lines.push('  <graph id="engram" edgedefault="directed">');
  for (const node of graph.nodes) {
    lines.push(`    <node id="${xml(node.id)}">`);
    for (const c of NODE_COLUMNS) {
      if (c.name === 'id') continue;
      lines.push(`      <data key="n_${c.name}">${xml(String(node[c.name]))}</data>`);
    }
    lines.push('    </node>');
  }
  graph.edges.forEach((edge, i) => {
    lines.push(`    <edge id="e${i}" source="${xml(edge.from)}" target="${xml(edge.to)}">`);
    lines.push(`      <data key="e_kind">${edge.kind}</data>`, `      <data key="e_weight">${edge.weight}</data>`);
    if (edge.status) lines.push(`      <data key="e_status">${xml(edge.status)}</data>`);
    lines.push('    </edge>');
  });
  lines.push('  </graph>', '</graphml>');
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------
// CSV (RFC 4180): a header line, then one row a node or edge. Every string field is quoted,
// so commas and quotes in memory text survive; text never holds a line break (memoryText
// folds white space). Kuzu's COPY reads columns by position, Neo4j's LOAD CSV by header name.

function csvField(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  return `"${withoutControls(value, ' ', false).replace(/"/g, '""')}"`;
}

export function nodesCsv(graph: MemoryGraphExport): string {
  const rows = [NODE_COLUMNS.map((c) => c.name).join(',')];
  for (const node of graph.nodes) rows.push(NODE_COLUMNS.map((c) => csvField(node[c.name])).join(','));
  return `${rows.join('\n')}\n`;
}

export function edgesCsv(graph: MemoryGraphExport): string {
  const rows = [EDGE_COLUMNS.map((c) => c.name).join(',')];
  for (const edge of graph.edges) rows.push(EDGE_COLUMNS.map((c) => csvField(edge[c.name])).join(','));
  return `${rows.join('\n')}\n`;
}

export const CSV_FILES = { nodes: 'memories.csv', edges: 'links.csv', kuzu: 'load-kuzu.cypher', neo4j: 'load-neo4j.cypher' } as const;

const KUZU_TYPES = { string: 'STRING', double: 'DOUBLE', int: 'INT64', boolean: 'BOOLEAN' } as const;

/**
 * A Cypher string literal: quoted, with backslashes, quotes and line breaks escaped, so that a
 * folder named `it's a "dir"` is a path and never ends the string (or adds a statement).
 */
export function cypherString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** Kuzu: create the two tables and copy the files in (run from the export folder, or edit the paths). */
export function kuzuScript(folder = '.'): string {
  const columns = NODE_COLUMNS.map((c) => `${c.name} ${KUZU_TYPES[c.type]}`).join(', ');
  const rel = EDGE_COLUMNS.filter((c) => c.name !== 'from' && c.name !== 'to').map((c) => `${c.name} ${KUZU_TYPES[c.type]}`).join(', ');
  return [
    `CREATE NODE TABLE Memory(${columns}, PRIMARY KEY(id));`,
    `CREATE REL TABLE Link(FROM Memory TO Memory, ${rel});`,
    `COPY Memory FROM ${cypherString(`${folder}/${CSV_FILES.nodes}`)} (HEADER=true);`,
    `COPY Link FROM ${cypherString(`${folder}/${CSV_FILES.edges}`)} (HEADER=true);`,
    '',
  ].join('\n');
}

/** Neo4j: LOAD CSV from the import folder (copy both files into it first). */
export function neo4jScript(): string {
  const convert = (c: (typeof NODE_COLUMNS)[number]) =>
    c.type === 'double' ? `toFloat(row.${c.name})` : c.type === 'int' ? `toInteger(row.${c.name})` : c.type === 'boolean' ? `row.${c.name} = 'true'` : c.name === 'tags' ? `[t IN split(row.tags, ';') WHERE t <> '']` : `row.${c.name}`;
  const props = NODE_COLUMNS.filter((c) => c.name !== 'id').map((c) => `m.${c.name} = ${convert(c)}`).join(', ');
  return [
    'CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE;',
    `LOAD CSV WITH HEADERS FROM 'file:///${CSV_FILES.nodes}' AS row MERGE (m:Memory {id: row.id}) SET ${props};`,
    ...EDGE_KINDS.map(
      (kind) =>
        `LOAD CSV WITH HEADERS FROM 'file:///${CSV_FILES.edges}' AS row WITH row WHERE row.kind = '${kind}' ` +
        `MATCH (a:Memory {id: row.from}), (b:Memory {id: row.to}) MERGE (a)-[r:${kind.toUpperCase()}]->(b) SET r.weight = toFloat(row.weight), r.status = row.status;`,
    ),
    '',
  ].join('\n');
}
