import type { LinkKind } from '../links';
import type { Category, Confidence, Tier } from '../settings';
import type { RecallDoc } from './catalog';

/**
 * The recall engine's documents in columns: numbers in typed arrays, links and co-access in
 * compressed sparse rows with targets resolved to document numbers. A snapshot stores these
 * arrays as they are, so opening a large vault creates no object per memory; a `RecallDoc`
 * is materialised only for the results.
 */
export interface DocTable {
  n: number;
  ids: string[];
  paths: string[];
  category: Category[];
  confidence: Confidence[];
  tier: Array<Tier | null>;
  role: Array<string | null>;
  source: Array<string | null>;
  session: Array<string | null>;
  archived: Uint8Array;
  isError: Uint8Array;
  createdMs: Float64Array;
  accessMs: Float64Array;
  activationMs: Float64Array;
  halfLifeDays: Float64Array;
  activation: Float64Array;
  amplitude: Float64Array;
  accessCount: Int32Array;
  /** related (0) and decays_from (1) links: targets of document i are linkTargets[linkOffsets[i] .. linkOffsets[i+1]). */
  linkOffsets: Int32Array;
  linkTargets: Int32Array;
  linkKinds: Uint8Array;
  coOffsets: Int32Array;
  coTargets: Int32Array;
  coCounts: Float64Array;
  /** Texts when known (documents parsed in this process); null entries are read on demand. */
  texts: Array<string | null>;
}

export const LINK_KIND_CODES: Record<'related' | 'decays_from', number> = { related: 0, decays_from: 1 };
const LINK_KIND_OF: LinkKind[] = ['related', 'decays_from'];

export function tableFromDocs(docs: readonly RecallDoc[]): DocTable {
  const n = docs.length;
  const indexOf = new Map(docs.map((d, i) => [d.id, i]));
  const links: Array<[number, number]> = [];
  const co: Array<[number, number]> = [];
  const linkOffsets = new Int32Array(n + 1);
  const coOffsets = new Int32Array(n + 1);
  docs.forEach((doc, i) => {
    linkOffsets[i] = links.length;
    for (const link of doc.links) {
      if (link.kind !== 'related' && link.kind !== 'decays_from') continue;
      const target = indexOf.get(link.target);
      if (target !== undefined && target !== i) links.push([target, LINK_KIND_CODES[link.kind]]);
    }
    coOffsets[i] = co.length;
    for (const [other, count] of Object.entries(doc.co_access)) {
      const target = indexOf.get(other);
      if (target !== undefined && target !== i) co.push([target, count]);
    }
  });
  linkOffsets[n] = links.length;
  coOffsets[n] = co.length;
  const column = (f: (d: RecallDoc) => number) => Float64Array.from(docs, f);
  return {
    n,
    ids: docs.map((d) => d.id),
    paths: docs.map((d) => d.path),
    category: docs.map((d) => d.category),
    confidence: docs.map((d) => d.confidence),
    tier: docs.map((d) => d.tier),
    role: docs.map((d) => d.agent_role),
    source: docs.map((d) => d.source),
    session: docs.map((d) => d.session),
    archived: Uint8Array.from(docs, (d) => (d.archived ? 1 : 0)),
    isError: Uint8Array.from(docs, (d) => (d.is_error ? 1 : 0)),
    createdMs: column((d) => d.createdMs),
    accessMs: column((d) => d.accessMs),
    activationMs: column((d) => d.activationMs),
    halfLifeDays: column((d) => d.half_life_days),
    activation: column((d) => d.activation),
    amplitude: column((d) => d.amplitude),
    accessCount: Int32Array.from(docs, (d) => d.access_count),
    linkOffsets,
    linkTargets: Int32Array.from(links, (l) => l[0]),
    linkKinds: Uint8Array.from(links, (l) => l[1]),
    coOffsets,
    coTargets: Int32Array.from(co, (c) => c[0]),
    coCounts: Float64Array.from(co, (c) => c[1]),
    texts: docs.map((d) => d.text),
  };
}

/** Document i as a RecallDoc (for results). Its terms are not kept. */
export function docAt(table: DocTable, i: number): RecallDoc {
  const links = [];
  for (let k = table.linkOffsets[i]!; k < table.linkOffsets[i + 1]!; k++) {
    links.push({ target: table.ids[table.linkTargets[k]!]!, kind: LINK_KIND_OF[table.linkKinds[k]!]! });
  }
  const coAccess: Record<string, number> = {};
  for (let k = table.coOffsets[i]!; k < table.coOffsets[i + 1]!; k++) coAccess[table.ids[table.coTargets[k]!]!] = table.coCounts[k]!;
  return {
    id: table.ids[i]!,
    path: table.paths[i]!,
    category: table.category[i]!,
    confidence: table.confidence[i]!,
    tier: table.tier[i]!,
    archived: table.archived[i] === 1,
    createdMs: table.createdMs[i]!,
    accessMs: table.accessMs[i]!,
    activationMs: table.activationMs[i]!,
    access_count: table.accessCount[i]!,
    is_error: table.isError[i] === 1,
    half_life_days: table.halfLifeDays[i]!,
    activation: table.activation[i]!,
    amplitude: table.amplitude[i]!,
    agent_role: table.role[i]!,
    source: table.source[i]!,
    session: table.session[i]!,
    terms: [],
    links,
    co_access: coAccess,
    text: table.texts[i]!,
  };
}
