import { UsageError } from './errors';

export const CATEGORIES = ['episodic', 'semantic', 'decision'] as const;
export type Category = (typeof CATEGORIES)[number];

export const CONFIDENCES = ['verified', 'observed', 'inferred', 'stale'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

export const TIERS = ['core', 'active', 'warm', 'cold', 'archive'] as const;
export type Tier = (typeof TIERS)[number];

/**
 * Every tunable of the memory model, shared by the plugin (settings tab) and the runner
 * (`.engram/config.json`). Defaults are SPEC's.
 */
export interface EngramSettings {
  /** SPEC §3: base half-life per category, in days. */
  halfLifeDays: Record<Category, number>;
  /** SPEC §3: days added to the half-life per access (spaced repetition). */
  retrievalBoostDays: number;
  /** SPEC §3: errors last longer (amygdala). */
  errorMultiplier: number;
  /** SPEC §3: weight of each confidence level in ranking. */
  confidenceWeights: Record<Confidence, number>;
  /** SPEC §4: upper bound (inclusive, in whole days since last access) of each tier. */
  tierDays: { active: number; warm: number; cold: number };
  /** SPEC §5: ACT-R activation. */
  activation: {
    halfLifeDays: number;
    returnedBoost: number;
    citedBoost: number;
    readBoost: number;
    /** Hops a boost spreads along links, halving each hop. */
    spreadHops: number;
    /** Spread shares below this are not written (they would only churn files). */
    minSpreadBoost: number;
    validationThreshold: number;
  };
  /** SPEC §6: resonance on write. */
  resonance: {
    /** Cosine at or above which a new text reinforces an existing memory (embeddings). */
    vectorThreshold: number;
    /** The lexical equivalent: cosine of stemmed term vectors. */
    lexicalThreshold: number;
    /** Lexical cosine (with negations removed) at which two memories are on the same subject. */
    conflictThreshold: number;
    eventAmplitude: number;
  };
  /** Files larger than this are reported, never parsed. */
  maxFileBytes: number;
  /** SPEC §9/§11. */
  tokenBudget: number;
  stateTargetBytes: number;
  alwaysLoadedTargetBytes: number;
  dailyCompressBytes: number;
  /** Files besides STATE.md and recent daily files that an agent loads every turn. */
  alwaysLoaded: string[];
  /** Memories opened within this many minutes of each other are co-accessed (Hebb). */
  coAccessWindowMinutes: number;
  /** SPEC §7: recall. */
  recall: RecallSettings;
  /** SPEC §12: embeddings. */
  embedder: EmbedderSettings;
  /** SPEC §10: evidence-backed validation (opt-in). */
  validation: ValidationSettings;
  /** The OpenAI-compatible chat endpoint validation (and abstractive summaries) ask. */
  chat: ChatSettings;
  /** Procedural utility: what each automatic loop's proposals are worth (advisory). */
  procedural: ProceduralSettings;
  /** SPEC §8: consolidation. */
  consolidation: {
    /** Episodes with vector cosine at or above this cluster together. */
    clusterThreshold: number;
    /** Without vectors: cosine of stemmed term sets (near-duplicates merge at 0.9 on write). */
    lexicalClusterThreshold: number;
    /** Repeated episodes: a cluster needs this many members to become a semantic memory. */
    minClusterSize: number;
    /** A semantic memory confirmed this many times goes from inferred to observed. */
    confirmations: number;
    /** Ask the chat endpoint to state each new pattern (new memories); restatements of existing ones go to review. */
    abstractive: boolean;
  };
}

export interface ValidationSettings {
  /** Off by default: validation asks a language model, which costs money or time. */
  enabled: boolean;
  /** When first turned on, validation only reports what it would do. */
  dryRun: boolean;
  /** Hard ceiling on validation runs (model calls) per UTC day. */
  dailyCap: number;
  /** Apply a clearer wording of a valid memory as a new version (else it is queued for review). */
  autoApplyRewording: boolean;
  /** Below this confidence a verdict is weak: the memory is flagged, its text never changes. */
  minConfidence: number;
  /** A rewording is applied automatically only at or above this confidence. */
  autoApplyConfidence: number;
  /** Volatile memories are due sooner: threshold × (1 − volatilityWeight × volatility). */
  volatilityWeight: number;
  /** Weight of the newest consolidation in the volatility average (EWMA). */
  volatilitySmoothing: number;
  /** Evidence bounds: commits per path, bytes per file, related memories. */
  maxCommits: number;
  maxFileBytes: number;
  maxRelated: number;
}

export interface ChatSettings {
  /** Base URL of an OpenAI-compatible server ('' = none), e.g. http://127.0.0.1:11434/v1 for Ollama. */
  url: string;
  model: string;
  /** The environment variable holding the API key ('' = no key); the key is never stored. */
  apiKeyEnv: string;
  timeoutMs: number;
  /** How structured output is asked for: json_schema (OpenAI, llama.cpp, Ollama), json_object, or none. */
  responseFormat: 'json_schema' | 'json_object' | 'none';
}

export interface ProceduralSettings {
  /** α of the delta rule U ← U + α(R − U). */
  learningRate: number;
  /** Decisions needed before a recommendation is made. */
  minDecisions: number;
  /** The one opt-in runtime effect: an automatic run of a loop whose utility fell below the floor is skipped. */
  utilityFloorEnabled: boolean;
  utilityFloor: number;
}

export const EMBEDDER_KINDS = ['none', 'transformers', 'http'] as const;

export interface EmbedderSettings {
  /** none: lexical only; transformers: transformers.js (WASM or Node); http: an embedding server. */
  kind: (typeof EMBEDDER_KINDS)[number];
  /** A model id: "Xenova/all-MiniLM-L6-v2" for transformers, "nomic-embed-text" for Ollama. */
  model: string;
  /** transformers: download model files on first use (off until the user agrees). */
  allowRemoteModels: boolean;
  /** transformers: a folder holding <model>/ with its files, for offline machines ('' = .engram/models). */
  localModelPath: string;
  quantized: boolean;
  /** http: the server, and which API it speaks. */
  url: string;
  api: 'ollama' | 'openai';
  timeoutMs: number;
  batchSize: number;
}

export interface RecallSettings {
  /** Seeds from which activation spreads (SPEC: k = 12). */
  seeds: number;
  /** Spreading: gamma per hop and depth (SPEC: 0.6, 2). */
  gamma: number;
  depth: number;
  /** BM25+ parameters of the lexical index. */
  k1: number;
  b: number;
  delta: number;
  /** Episode context: the best `episodes` episodes lift their matching members by up to `episodeWeight`. */
  episodes: number;
  episodeWeight: number;
  /** A query naming exactly one agent role multiplies that role's memories by this. */
  roleBoost: number;
  /**
   * Dates in a question are matched against the days memories are about (recall/time-terms.ts):
   * the query weight of its time terms beside its words' 1. 0: dates are matched as words.
   */
  dateWeight: number;
  /** A "when" or "how long" question favours memories that name a date or a duration: the query weight of that term (0: off). */
  whenWeight: number;
  /** A question naming an entity favours memories that name it as one (recall/entities.ts): the query weight of its entity terms (0: off). */
  entityWeight: number;
  /**
   * Decay in ranking: score × (floor + (1 − floor) × strength), per radius; plain recall (no
   * radius) ranks like `default` over every tier.
   */
  decayFloor: { default: number; deep: number; all: number };
  /** Spreading lifts a memory at most to the relevance of the strongest seed it received from. */
  capAssociation: boolean;
  /** ACT-R bonus: min(cap, scale × ln(1 + activation)). */
  activationScale: number;
  activationCap: number;
  /** Results of one use linked by co-access (the top ones). */
  coAccessTop: number;
}

export const DEFAULT_SETTINGS: EngramSettings = {
  halfLifeDays: { episodic: 7, semantic: 30, decision: 90 },
  retrievalBoostDays: 2,
  errorMultiplier: 2,
  confidenceWeights: { verified: 1.0, observed: 0.7, inferred: 0.4, stale: 0.1 },
  tierDays: { active: 7, warm: 21, cold: 60 },
  activation: {
    halfLifeDays: 30,
    returnedBoost: 1.0,
    citedBoost: 1.5,
    readBoost: 0.25,
    spreadHops: 2,
    minSpreadBoost: 0.01,
    validationThreshold: 8,
  },
  resonance: { vectorThreshold: 0.95, lexicalThreshold: 0.9, conflictThreshold: 0.6, eventAmplitude: 1.0 },
  maxFileBytes: 256 * 1024,
  tokenBudget: 2000,
  stateTargetBytes: 4 * 1024,
  alwaysLoadedTargetBytes: 25 * 1024,
  dailyCompressBytes: 20 * 1024,
  alwaysLoaded: [],
  coAccessWindowMinutes: 30,
  recall: {
    seeds: 12,
    gamma: 0.6,
    depth: 2,
    k1: 0.9,
    b: 0.4,
    delta: 0.5,
    episodes: 5,
    episodeWeight: 0.3,
    roleBoost: 1.5,
    dateWeight: 1,
    whenWeight: 1,
    entityWeight: 0.5,
    decayFloor: { default: 0.5, deep: 0.6, all: 0.8 },
    capAssociation: true,
    activationScale: 0.1,
    activationCap: 0.2,
    coAccessTop: 5,
  },
  validation: {
    enabled: false,
    dryRun: true,
    dailyCap: 20,
    autoApplyRewording: false,
    minConfidence: 0.6,
    autoApplyConfidence: 0.9,
    volatilityWeight: 0.5,
    volatilitySmoothing: 0.3,
    maxCommits: 10,
    maxFileBytes: 4000,
    maxRelated: 8,
  },
  chat: { url: '', model: '', apiKeyEnv: '', timeoutMs: 60_000, responseFormat: 'json_schema' },
  procedural: { learningRate: 0.2, minDecisions: 5, utilityFloorEnabled: false, utilityFloor: -0.5 },
  consolidation: { clusterThreshold: 0.82, lexicalClusterThreshold: 0.6, minClusterSize: 3, confirmations: 3, abstractive: false },
  embedder: {
    kind: 'none',
    model: 'Xenova/all-MiniLM-L6-v2',
    allowRemoteModels: false,
    localModelPath: '',
    quantized: true,
    url: 'http://127.0.0.1:11434',
    api: 'ollama',
    timeoutMs: 30_000,
    batchSize: 32,
  },
};

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Merge user settings over the defaults, checking every value: the same shape as the
 * defaults, numbers positive where they must be. Unknown keys are rejected by name, so a
 * typo does not silently fall back to a default.
 */
export function resolveSettings(input: Json, source = 'settings'): EngramSettings {
  if (input === undefined || input === null) return structuredClone(DEFAULT_SETTINGS);
  if (!isRecord(input)) throw new UsageError(`${source}: expected an object`);
  return checkChoices(mergeInto(structuredClone(DEFAULT_SETTINGS) as unknown as Record<string, Json>, input, source) as unknown as EngramSettings, source);
}

function mergeInto(base: Record<string, Json>, input: Record<string, Json>, where: string): Record<string, Json> {
  for (const [key, value] of Object.entries(input)) {
    const path = `${where}.${key}`;
    if (!(key in base)) throw new UsageError(`${path}: unknown setting`);
    const current = base[key];
    if (Array.isArray(current)) {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
        throw new UsageError(`${path}: expected a list of strings`);
      }
      base[key] = value;
    } else if (isRecord(current)) {
      if (!isRecord(value)) throw new UsageError(`${path}: expected an object`);
      mergeInto(current, value, path);
    } else if (typeof current === 'number') {
      // Half-lives divide: they must be positive; every other number may be zero.
      const positive = /halfLifeDays/.test(path);
      const signed = /\.utilityFloor$/.test(path); // a utility runs from -1 to 1
      if (typeof value !== 'number' || !Number.isFinite(value) || (value < 0 && !signed) || (positive && value === 0)) {
        throw new UsageError(`${path}: expected a ${positive ? 'positive' : 'non-negative'} number, got ${JSON.stringify(value)}`);
      }
      base[key] = value;
    } else if (typeof current === 'string' || typeof current === 'boolean') {
      if (typeof value !== typeof current) throw new UsageError(`${path}: expected a ${typeof current}, got ${JSON.stringify(value)}`);
      base[key] = value;
    } else {
      base[key] = value;
    }
  }
  return base;
}

/** Checks that need more than a type: the closed sets of names. */
function checkChoices(settings: EngramSettings, where: string): EngramSettings {
  if (!EMBEDDER_KINDS.includes(settings.embedder.kind)) {
    throw new UsageError(`${where}.embedder.kind: expected one of ${EMBEDDER_KINDS.join(', ')}, got ${JSON.stringify(settings.embedder.kind)}`);
  }
  if (settings.embedder.api !== 'ollama' && settings.embedder.api !== 'openai') {
    throw new UsageError(`${where}.embedder.api: expected ollama or openai, got ${JSON.stringify(settings.embedder.api)}`);
  }
  if (!['json_schema', 'json_object', 'none'].includes(settings.chat.responseFormat)) {
    throw new UsageError(`${where}.chat.responseFormat: expected json_schema, json_object or none, got ${JSON.stringify(settings.chat.responseFormat)}`);
  }
  for (const key of ['minConfidence', 'autoApplyConfidence', 'volatilityWeight', 'volatilitySmoothing'] as const) {
    if (settings.validation[key] > 1) throw new UsageError(`${where}.validation.${key}: expected a number from 0 to 1, got ${settings.validation[key]}`);
  }
  return settings;
}
