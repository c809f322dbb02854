/**
 * Engram as a Node library: the same operations as the CLI, for agents and scripts that
 * embed the runner (and for the benchmarks and the multi-process tests).
 */
export { runCli } from './cli';
export { openVault, type Runtime, type RuntimeOptions } from './runtime';
export { useMemories } from '../src/core/touch';
export { remember } from '../src/core/remember';
export { importLines, parseImport } from '../src/core/import';
export { vaultStats } from '../src/core/stats';
export { describeMemory } from '../src/core/show';
export { RecallEngine, prominent } from '../src/core/recall/recall';
export { loadCatalog, toRecallDoc } from '../src/core/recall/catalog';
export { hydrate, openRecall, toResult } from '../src/core/recall/results';
export { resolveSettings } from '../src/core/settings';
export { parseMemory, memoryText } from '../src/core/memory';
export { analyze } from '../src/core/analyzer';
export { TransformersEmbedder } from '../src/embedding/transformers-embedder';
export { HttpEmbedder } from '../src/embedding/http-embedder';
export { loadVectors, updateVectors } from '../src/core/embeddings/store';
export { searchVectors, naiveSearch } from '../src/core/embeddings/vector-search';
export { lexicalPairs, lexicalClusters, exhaustivePairs, setCosine, vectorPairs, clustersOf, vectorClusters } from '../src/core/consolidation/cluster';
export { consolidate } from '../src/core/consolidation/consolidate';
export { NodeLocks } from './locks';
export { NodeFileStore } from './fs-files';
export { cliReference } from './cli-reference';
export { mcpReference } from './mcp/reference';
