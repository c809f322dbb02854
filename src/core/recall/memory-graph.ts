import { DirectedGraph } from 'graphology';
import { AssociationIndex, type EdgeKind } from './associations';
import type { RecallDoc } from './catalog';
import { tableFromDocs } from './doc-table';

/**
 * The association graph as a graphology graph, for analytics, export and the graph view:
 * the same fan-normalised edges recall spreads over (see associations.ts).
 */
export interface EdgeAttributes {
  weight: number;
  kinds: EdgeKind[];
}

export type MemoryGraph = DirectedGraph<{ category: string; tier: string | null }, EdgeAttributes>;

export function buildMemoryGraph(docs: RecallDoc[]): MemoryGraph {
  const table = tableFromDocs(docs);
  const associations = new AssociationIndex(table);
  const graph: MemoryGraph = new DirectedGraph();
  for (const doc of docs) graph.addNode(doc.id, { category: doc.category, tier: doc.tier });
  docs.forEach((doc, i) => {
    for (const edge of associations.edges(i)) graph.addDirectedEdge(doc.id, docs[edge.target]!.id, { weight: edge.weight, kinds: edge.kinds });
  });
  return graph;
}
