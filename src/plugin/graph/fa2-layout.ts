import FA2LayoutSupervisor from 'graphology-layout-forceatlas2/worker';
import type { LayoutFactory } from './graph-renderer';

/**
 * ForceAtlas2 in a Web Worker (the package's supervisor: it needs `Worker`, `Blob` and
 * `URL.createObjectURL`, which Obsidian and any browser have), Barnes-Hut above 500 nodes,
 * co-access counts as edge weights. The settings are the package's suggestions for a graph of
 * this size (its `inferSettings`: strong gravity, slowing down with the log of the order), set
 * here so that main.js does not carry the synchronous layout `inferSettings` comes with.
 */
export const forceAtlas2Layout: LayoutFactory = (graph) => {
  const settings = { strongGravityMode: true, gravity: 0.05, scalingRatio: 10, slowDown: 1 + Math.log(graph.order), barnesHutOptimize: graph.order > 500 };
  const supervisor = new FA2LayoutSupervisor(graph, { settings, getEdgeWeight: 'weight' });
  supervisor.start();
  return supervisor;
};
