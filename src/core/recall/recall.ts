import { analyze } from '../analyzer';
import { effectiveHalfLife, strengthAfter } from '../decay';
import type { EngramSettings, Tier } from '../settings';
import { RADIUS_TIERS, tierForDays, type Radius } from '../tiers';
import { MS_PER_DAY, parseTimestamp } from '../time';
import { Bm25Index } from './bm25';
import type { RecallDoc } from './catalog';
import { buildMemoryGraph, type EdgeKind, type MemoryGraph } from './memory-graph';
import { activationBonus, decayFactor } from './ranking';
import { spreadActivation } from './spreading-activation';

/**
 * Recall (SPEC §7): lexical (and vector) seeds, episode context, spreading activation over
 * the association graph, then ranking by strength, confidence and ACT-R activation.
 * The engine is built once from the catalog and answers many queries.
 */

export interface RecallOptions {
  limit: number;
  radius: Radius;
  /** Vector seeds (cosine by id) from an embedder, fused with the lexical ones. */
  vectorSeeds?: Map<string, number>;
}

export interface RecallExplanation {
  lexical: number;
  lexical_rank: number | null;
  vector: number | null;
  episode: { session: string; boost: number } | null;
  spread: { amount: number; from: string; kinds: EdgeKind[]; path: string[] } | null;
  role_boost: number;
  relevance: number;
  strength: number;
  decay_factor: number;
  confidence_weight: number;
  activation: number;
  activation_bonus: number;
}

export interface RecallHit {
  doc: RecallDoc;
  score: number;
  strength: number;
  tier: Tier;
  explain: RecallExplanation;
}

interface DocState {
  doc: RecallDoc;
  accessMs: number;
  activationMs: number;
  halfLife: number;
}

const EMPTY_EXPLAIN: RecallExplanation = {
  lexical: 0,
  lexical_rank: null,
  vector: null,
  episode: null,
  spread: null,
  role_boost: 1,
  relevance: 0,
  strength: 0,
  decay_factor: 0,
  confidence_weight: 0,
  activation: 0,
  activation_bonus: 0,
};

/** Reciprocal rank fusion constant (Cormack et al. 2009). */
const RRF_K = 60;

export class RecallEngine {
  readonly graph: MemoryGraph;
  private readonly states = new Map<string, DocState>();
  private readonly lexical: Bm25Index;
  private readonly episodes: Bm25Index;
  private readonly episodeOf = new Map<string, string>();
  private readonly roles = new Map<string, RegExp>();

  constructor(
    docs: RecallDoc[],
    private readonly settings: EngramSettings,
  ) {
    const r = settings.recall;
    this.lexical = new Bm25Index({ k1: r.k1, b: r.b, delta: r.delta });
    this.episodes = new Bm25Index({ k1: 1.2, b: 0.75, delta: r.delta });
    const episodeTerms = new Map<string, string[]>();
    for (const doc of docs) {
      const accessMs = parseTimestamp(doc.last_accessed_at)!;
      this.states.set(doc.id, {
        doc,
        accessMs,
        activationMs: doc.activation_at ? parseTimestamp(doc.activation_at)! : accessMs,
        halfLife: effectiveHalfLife(doc.half_life_days, doc.access_count, doc.is_error, settings),
      });
      this.lexical.add(doc.id, doc.terms);
      if (doc.session !== null) {
        this.episodeOf.set(doc.id, doc.session);
        const terms = episodeTerms.get(doc.session);
        if (terms) terms.push(...doc.terms);
        else episodeTerms.set(doc.session, [...doc.terms]);
      }
      const role = doc.agent_role?.trim().toLowerCase();
      if (role && !this.roles.has(role)) {
        const words = role.split(/[\s_-]+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
        this.roles.set(role, new RegExp(`(^|[^\\p{L}\\p{N}])${words.join('[\\s_-]+')}($|[^\\p{L}\\p{N}])`, 'iu'));
      }
    }
    for (const [session, terms] of episodeTerms) this.episodes.add(session, terms);
    this.graph = buildMemoryGraph(docs);
  }

  get size(): number {
    return this.states.size;
  }

  doc(id: string): RecallDoc | undefined {
    return this.states.get(id)?.doc;
  }

  tier(state: DocState, now: number): Tier {
    if (state.doc.archived) return 'archive';
    return state.doc.tier ?? tierForDays((now - state.accessMs) / MS_PER_DAY, this.settings);
  }

  strength(state: DocState, now: number): number {
    if (state.doc.tier === 'core') return 1;
    return strengthAfter((now - state.accessMs) / MS_PER_DAY, state.halfLife);
  }

  /** Every memory in the radius ranked with a relevance computed from the memory alone. */
  rankAll(radius: Radius, now: number, relevanceOf: (doc: RecallDoc) => number): RecallHit[] {
    const allowed = new Set<Tier>(RADIUS_TIERS[radius]);
    const hits: RecallHit[] = [];
    for (const state of this.states.values()) {
      const tier = this.tier(state, now);
      if (!allowed.has(tier)) continue;
      hits.push(this.hit(state, relevanceOf(state.doc), radius, now, tier, EMPTY_EXPLAIN));
    }
    return selectTop(hits, hits.length);
  }

  private hit(state: DocState, relevance: number, radius: Radius, now: number, tier: Tier, parts: Partial<RecallExplanation>): RecallHit {
    const doc = state.doc;
    const strength = this.strength(state, now);
    const decay = decayFactor(strength, radius, this.settings);
    const weight = this.settings.confidenceWeights[doc.confidence];
    const activation = doc.activation * Math.pow(0.5, Math.max(0, now - state.activationMs) / MS_PER_DAY / this.settings.activation.halfLifeDays);
    const bonus = activationBonus(activation, this.settings);
    return {
      doc,
      score: relevance * decay * weight * (1 + bonus),
      strength,
      tier,
      explain: {
        ...EMPTY_EXPLAIN,
        ...parts,
        relevance,
        strength,
        decay_factor: decay,
        confidence_weight: weight,
        activation,
        activation_bonus: bonus,
      },
    };
  }

  recall(query: string, options: RecallOptions, now: number): RecallHit[] {
    const r = this.settings.recall;
    const allowed = new Set<Tier>(RADIUS_TIERS[options.radius]);
    const inRadius = (id: string): boolean => {
      const state = this.states.get(id);
      return state !== undefined && allowed.has(this.tier(state, now));
    };
    const terms = new Map<string, number>();
    for (const term of analyze(query).terms) terms.set(term, (terms.get(term) ?? 0) + 1);

    // 1. Seeds: lexical relevance normalised to the best match, fused with vectors (RRF).
    const lexical = this.lexical.scores(terms, inRadius);
    const lexicalRank = rankOf(lexical);
    const relevance = normalise(lexical);
    const vectors = options.vectorSeeds ? new Map([...options.vectorSeeds].filter(([id]) => inRadius(id))) : null;
    if (vectors && vectors.size > 0) {
      const vectorRank = rankOf(vectors);
      const fused = new Map<string, number>();
      for (const id of new Set([...lexicalRank.keys(), ...vectorRank.keys()])) {
        const a = lexicalRank.get(id);
        const b = vectorRank.get(id);
        fused.set(id, (a ? 1 / (RRF_K + a) : 0) + (b ? 1 / (RRF_K + b) : 0));
      }
      relevance.clear();
      for (const [id, v] of normalise(fused)) relevance.set(id, v);
    }

    // 2. Episode context: members of the episodes that match the query best are lifted.
    const episodeBoost = new Map<string, { session: string; boost: number }>();
    if (r.episodeWeight > 0 && this.episodes.size > 0) {
      const ranked = topEntries(this.episodes.scores(terms), r.episodes);
      const best = ranked[0]?.[1] ?? 0;
      const lift = new Map(ranked.map(([session, score]) => [session, (r.episodeWeight * score) / best]));
      for (const [id, value] of relevance) {
        const session = this.episodeOf.get(id);
        const boost = session === undefined ? undefined : lift.get(session);
        if (boost === undefined) continue;
        relevance.set(id, value + boost);
        episodeBoost.set(id, { session: session!, boost });
      }
    }

    // 3. Spreading activation from the strongest seeds.
    const seeds = new Map(topEntries(relevance, r.seeds));
    const spread = spreadActivation(this.graph, seeds, r.gamma, r.depth);
    for (const [id, amount] of spread.received) {
      if (inRadius(id)) relevance.set(id, (relevance.get(id) ?? 0) + amount);
    }

    // 4. A query that names one agent role lifts that role's memories.
    const lowered = query.toLowerCase();
    const named = [...this.roles].filter(([, pattern]) => pattern.test(lowered)).map(([role]) => role);
    const boostedRole = named.length === 1 ? named[0]! : null;

    // 5. Ranking.
    const hits: RecallHit[] = [];
    for (const [id, rel] of relevance) {
      const state = this.states.get(id)!;
      const roleBoost = boostedRole !== null && state.doc.agent_role?.trim().toLowerCase() === boostedRole ? r.roleBoost : 1;
      const via = spread.via.get(id);
      hits.push(
        this.hit(state, rel * roleBoost, options.radius, now, this.tier(state, now), {
          lexical: lexical.get(id) ?? 0,
          lexical_rank: lexicalRank.get(id) ?? null,
          vector: options.vectorSeeds?.get(id) ?? null,
          episode: episodeBoost.get(id) ?? null,
          spread: via ? { amount: spread.received.get(id)!, from: via.from, kinds: via.kinds, path: via.path } : null,
          role_boost: roleBoost,
        }),
      );
    }
    return selectTop(hits, options.limit);
  }
}

/**
 * Without a query: what the agent knows best right now (the reboot protocol of the seeds):
 * memories in the radius ranked by the same formula with relevance 1 + ln(amplitude), so
 * reinforced memories come first among equally strong ones.
 */
export function prominent(engine: RecallEngine, limit: number, radius: Radius, now: number): RecallHit[] {
  return engine.rankAll(radius, now, (doc) => 1 + Math.log(Math.max(1, doc.amplitude))).slice(0, limit);
}

function normalise(scores: Map<string, number>): Map<string, number> {
  let max = 0;
  for (const v of scores.values()) if (v > max) max = v;
  const out = new Map<string, number>();
  if (max <= 0) return out;
  for (const [id, v] of scores) out.set(id, v / max);
  return out;
}

/** 1-based rank of each entry by descending score (ties by id). */
function rankOf(scores: Map<string, number>): Map<string, number> {
  const sorted = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(sorted.map(([id], i) => [id, i + 1]));
}

function topEntries(scores: Map<string, number>, k: number): Array<[string, number]> {
  return [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k);
}

function selectTop(hits: RecallHit[], limit: number): RecallHit[] {
  return hits.sort((a, b) => b.score - a.score || (a.doc.id < b.doc.id ? -1 : 1)).slice(0, Math.max(0, limit));
}
