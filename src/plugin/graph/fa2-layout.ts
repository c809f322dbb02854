import forceAtlas2 from 'graphology-layout-forceatlas2';
import FA2LayoutSupervisor from 'graphology-layout-forceatlas2/worker';
import type { LayoutFactory } from './graph-renderer';

/**
 * ForceAtlas2 in a Web Worker (the package's supervisor: it needs `Worker`, `Blob` and
 * `URL.createObjectURL`, which Obsidian and any browser have), Barnes-Hut above 500 nodes,
 * co-access counts as edge weights.
 */
export const forceAtlas2Layout: LayoutFactory = (graph) => {
  const settings = { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 500 };
  const supervisor = new FA2LayoutSupervisor(graph, { settings, getEdgeWeight: 'weight' });
  supervisor.start();
  return supervisor;
};
