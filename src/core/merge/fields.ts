import { CATEGORIES, CONFIDENCES, type Category, type EngramSettings, type Tier } from '../settings';
import { tierAt, type TierInputs } from '../tiers';
import { MS_PER_DAY, parseTimestamp } from '../time';
import { roundActivation } from '../activation';
import { deviceUses, isUsesKey } from '../machine';

/**
 * Field-wise merge of a memory's frontmatter by meaning (issue 14): what two machines did to
 * the same memory since a common version is combined, so that no use is lost and none is
 * counted twice.
 *
 * Three-way (a base is known, as in a git merge): a field changed on one side only takes that
 * side's value. A field changed on both sides follows its rule:
 * - counters (access_count, amplitude, remembered_again): both sides' increments over the base are added;
 * - co_access: the same, partner by partner; a partner removed on one side and untouched on
 *   the other stays removed;
 * - times (last_accessed_at, strengthened_at, any `*_at` timestamp): the later; created_at: the
 *   earlier;
 * - activation (ACT-R, SPEC §5): both sides and the base decayed to the later activation_at,
 *   then the base plus both sides' boosts;
 * - half_life_days, reinforcement_count, cluster_size (absolute values set by consolidation): the
 *   larger;
 * - tags, related_paths: as sets: an element added on either side is in, one removed on either
 *   side is out;
 * - tier: the base tier moved by the larger demotion (both decay passes saw the same days) and by
 *   every promotion (each touch promotes one tier; two machines' touches are two promotions);
 *   `core` set or cleared by hand wins;
 * - confidence: a person's change wins over an automatic one (to `stale` by git invalidation or
 *   a lost conflict, `inferred` to `observed` by consolidation);
 * - decays_from (written by consolidation): either, chosen the same way on every machine;
 * - category and every field Engram does not know: a person's. Two different values are a
 *   clash: one is kept (chosen the same way on every machine) and both are listed in the
 *   `merge_clash` property, which Obsidian shows with the note's properties.
 *
 * No base (two copies of one memory left by a sync tool): each device's own use count
 * (`uses_m-…`, machine.ts) by the larger, as a grow-only counter; access_count is one side's
 * plus the uses the other side's devices added that this side lacks (so a touch on each of two
 * devices counts twice, issue 21), and the tier is promoted once more for each use both sides
 * added; without those counts (copies written before them), counters by the larger. Half-lives
 * by the larger, co_access per partner by the larger, sets by union, times by the later
 * (created_at the earlier), activation the larger once both are decayed to the later time, tier
 * the more present; other fields that differ are clashes.
 */
export type Fields = Record<string, unknown>;

export interface FieldMerge {
  /** The merged fields: ours' keys in ours' order, then keys only theirs has. */
  fields: Fields;
  /** One line per clash, also added to `merge_clash` in `fields`. */
  clashes: string[];
  /** content_hash changed on both sides: the caller sets it from the merged body. */
  rehash: boolean;
}

export const CLASH_FIELD = 'merge_clash';

type Rule = 'counter' | 'max' | 'later' | 'earlier' | 'set' | 'co_access' | 'tier' | 'confidence' | 'hash' | 'automatic' | 'person';

const RULES: Record<string, Rule> = {
  access_count: 'counter',
  amplitude: 'counter',
  remembered_again: 'counter',
  half_life_days: 'max',
  reinforcement_count: 'max',
  cluster_size: 'max',
  last_accessed_at: 'later',
  created_at: 'earlier',
  tags: 'set',
  related_paths: 'set',
  [CLASH_FIELD]: 'set',
  co_access: 'co_access',
  tier: 'tier',
  confidence: 'confidence',
  content_hash: 'hash',
  decays_from: 'automatic',
  // the machine that counted the last use (machine.ts): either, the same on every machine
  counted_by: 'automatic',
};

/**
 * Fields whose equal changes on both sides are both counted (a touch on each machine): the same
 * tier written on both sides is two promotions (or one demotion, by mergeTier's rule), not one.
 */
const COUNTED = new Set(['access_count', 'amplitude', 'remembered_again', 'co_access', 'tier']);

/** Fields merged from the per-device use counts when two copies have no base. */
const BY_DEVICE = new Set(['access_count', 'tier']);

function ruleFor(key: string, values: unknown[]): Rule {
  const rule = RULES[key];
  if (rule) return rule;
  // a device's own use count: only that device raises it (a grow-only counter)
  if (isUsesKey(key)) return 'max';
  // a time Engram or a person stamps (strengthened_at, resolved_at, validated_at...): the later
  if (key.endsWith('_at') && values.every((v) => v === undefined || (typeof v === 'string' && parseTimestamp(v) !== null))) return 'later';
  return 'person';
}

export interface MergeContext {
  settings: EngramSettings;
  /** The folder the merged file lives in (a category clash keeps the category of its folder). */
  folder?: string;
}

/** Three-way merge of parsed frontmatter mappings; `base` null merges two copies without one. */
export function mergeFields(base: Fields | null, ours: Fields, theirs: Fields, context: MergeContext): FieldMerge {
  const keys = [...Object.keys(ours), ...Object.keys(theirs).filter((k) => !(k in ours))];
  if (base) for (const k of Object.keys(base)) if (!keys.includes(k)) keys.push(k);
  const out: Fields = {};
  const clashes: string[] = [];
  let rehash = false;
  const devices = base ? null : usesBeyond(ours, theirs);
  for (const key of keys) {
    if (key === CLASH_FIELD || key === 'activation' || key === 'activation_at') continue;
    const b = base ? base[key] : undefined;
    const o = ours[key];
    const t = theirs[key];
    let value: unknown;
    // counters changed the same way on both sides are two increments, not one
    // (and without a base, equal counts from two devices' uses are both sides' uses)
    if (same(o, t) && !(base && COUNTED.has(key) && !same(o, b)) && !(devices && BY_DEVICE.has(key))) value = o;
    else if (base && same(o, b)) value = t;
    else if (base && same(t, b)) value = o;
    else if (ruleFor(key, [b, o, t]) === 'hash') {
      value = o;
      rehash = true;
    } else {
      const decided = decide(ruleFor(key, [b, o, t]), key, b, o, t, base !== null, { ...context, base, ours, theirs, devices });
      value = decided.value;
      if (decided.clash) clashes.push(decided.clash);
    }
    if (value !== undefined) out[key] = value;
  }
  // activation and activation_at move together
  if (['activation', 'activation_at'].some((k) => k in ours || k in theirs)) Object.assign(out, mergeActivation(base, ours, theirs, context.settings));
  const previous = mergeSets(base ? base[CLASH_FIELD] : undefined, ours[CLASH_FIELD], theirs[CLASH_FIELD], base !== null);
  const listed = Array.isArray(previous) ? (previous as unknown[]).map(String) : [];
  for (const clash of clashes) if (!listed.includes(clash)) listed.push(clash);
  if (listed.length > 0) out[CLASH_FIELD] = listed;
  return { fields: reorder(out, keys), clashes, rehash };
}

function reorder(fields: Fields, keys: string[]): Fields {
  const ordered: Fields = {};
  for (const key of keys) if (key in fields) ordered[key] = fields[key];
  for (const key of Object.keys(fields)) if (!(key in ordered)) ordered[key] = fields[key];
  return ordered;
}

interface Decision {
  value: unknown;
  clash?: string;
}

interface Versions extends MergeContext {
  base: Fields | null;
  ours: Fields;
  theirs: Fields;
  /** No base: the uses each side's devices added that the other lacks (null without use counts). */
  devices: DeviceUses | null;
}

interface DeviceUses {
  /** Uses ours holds beyond theirs. */
  ours: number;
  /** Uses theirs holds beyond ours. */
  theirs: number;
}

/**
 * Two copies that diverged from a common state: device by device, the uses one copy counted that
 * the other did not (a device raises only its own count, so the smaller of two is the common
 * state's). Null when neither copy has per-device counts.
 */
function usesBeyond(ours: Fields, theirs: Fields): DeviceUses | null {
  const o = deviceUses(ours);
  const t = deviceUses(theirs);
  if (o.size === 0 && t.size === 0) return null;
  let oursBeyond = 0;
  let theirsBeyond = 0;
  for (const key of new Set([...o.keys(), ...t.keys()])) {
    const [x, y] = [o.get(key) ?? 0, t.get(key) ?? 0];
    oursBeyond += Math.max(0, x - y);
    theirsBeyond += Math.max(0, y - x);
  }
  return { ours: oursBeyond, theirs: theirsBeyond };
}

function decide(rule: Rule, key: string, b: unknown, o: unknown, t: unknown, threeWay: boolean, context: Versions): Decision {
  // a field removed on one side and changed on the other keeps the change (nothing is lost)
  if (o === undefined || t === undefined) {
    const kept = o === undefined ? t : o;
    if (rule === 'person' && threeWay) return { value: kept, clash: `${key}: removed on one side, ${show(kept)} on the other (kept ${show(kept)})` };
    return { value: kept };
  }
  switch (rule) {
    case 'counter':
      if (key === 'access_count' && context.devices && typeof o === 'number' && typeof t === 'number') {
        // each side plus what the other side's devices added: the larger, should one side's
        // count have been set by hand
        return { value: Math.max(o + context.devices.theirs, t + context.devices.ours) };
      }
      return { value: counter(b, o, t, threeWay) ?? pick(o, t) };
    case 'max':
      return { value: typeof o === 'number' && typeof t === 'number' ? Math.max(o, t) : pick(o, t) };
    case 'later':
      return { value: byTime(o, t, 'later') };
    case 'earlier':
      return { value: byTime(o, t, 'earlier') };
    case 'set':
      return { value: mergeSets(b, o, t, threeWay) };
    case 'co_access':
      return { value: mergeCoAccess(b, o, t, threeWay) };
    case 'tier':
      return { value: mergeTier(context.base, context.ours, context.theirs, context.settings, context.devices) };
    case 'confidence':
      return mergeConfidence(b, o, t, threeWay);
    case 'automatic':
      return { value: pick(o, t) };
    default: {
      const value = key === 'category' && context.folder ? categoryForFolder(o, t, context.folder) : pick(o, t);
      return { value, clash: clashLine(key, o, t, value) };
    }
  }
}

/** Base plus both sides' increments (three-way), or the larger (no base). */
function counter(b: unknown, o: unknown, t: unknown, threeWay: boolean): number | null {
  if (typeof o !== 'number' || typeof t !== 'number') return null;
  if (!threeWay) return Math.max(o, t);
  const base = typeof b === 'number' ? b : 0;
  const sum = base + (o - base) + (t - base);
  return Number.isInteger(o) && Number.isInteger(t) && Number.isInteger(base) ? Math.max(0, sum) : Math.max(0, Math.round(sum * 10_000) / 10_000);
}

function byTime(o: unknown, t: unknown, which: 'later' | 'earlier'): unknown {
  const a = typeof o === 'string' ? parseTimestamp(o) : null;
  const b = typeof t === 'string' ? parseTimestamp(t) : null;
  if (a === null || b === null) return a === null && b !== null ? t : o;
  if (a === b) return pick(o, t);
  return (which === 'later' ? a > b : a < b) ? o : t;
}

/**
 * Sets honouring removals (three-way: the base's survivors in the base's order, then every
 * addition in a fixed order, so both sides of a merge agree) or their union (no base: ours'
 * order, then theirs' other elements).
 */
function mergeSets(b: unknown, o: unknown, t: unknown, threeWay: boolean): unknown {
  if (o === undefined && t === undefined) return undefined;
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
  const key = (v: unknown) => JSON.stringify(v);
  const [bs, os, ts] = [list(b), list(o), list(t)];
  const inO = new Set(os.map(key));
  const inT = new Set(ts.map(key));
  const inB = new Set(bs.map(key));
  const kept = threeWay ? bs.filter((v) => inO.has(key(v)) && inT.has(key(v))) : os;
  const added = threeWay ? [...os, ...ts].filter((v) => !inB.has(key(v))) : ts.filter((v) => !inO.has(key(v)));
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const v of [...kept, ...added.sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0))]) {
    if (seen.has(key(v))) continue;
    seen.add(key(v));
    out.push(v);
  }
  return out;
}

/** Hebb across machines: co_access[partner] = base + both sides' increments (no base: the larger). */
function mergeCoAccess(b: unknown, o: unknown, t: unknown, threeWay: boolean): unknown {
  const map = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const [bm, om, tm] = [map(b), map(o), map(t)];
  // the base's partners in the base's order, then new partners in a fixed order (both sides agree)
  const order = threeWay ? Object.keys(bm) : Object.keys(om);
  const extra = [...Object.keys(om), ...Object.keys(tm)].filter((k, i, all) => !order.includes(k) && all.indexOf(k) === i).sort();
  const out: Record<string, unknown> = {};
  for (const partner of [...order, ...extra]) {
    const [bv, ov, tv] = [bm[partner], om[partner], tm[partner]];
    let value: unknown;
    if (same(ov, tv) && !(threeWay && !same(ov, bv))) value = ov;
    else if (threeWay && same(ov, bv)) value = tv;
    else if (threeWay && same(tv, bv)) value = ov;
    else if (ov === undefined || tv === undefined) value = ov ?? tv;
    else value = counter(threeWay ? (bv ?? 0) : undefined, ov, tv, threeWay) ?? pick(ov, tv);
    if (value !== undefined) out[partner] = value;
  }
  return out;
}

const LADDER: Tier[] = ['active', 'warm', 'cold', 'archive'];

/**
 * Tiers (SPEC §4) across two machines. A written tier lags behind the one a memory's strength
 * implies (the decay pass writes it), so each version's tier is first taken as it stands at the
 * latest access any version records (tiers.ts `tierAt`); then the base's is moved down by the
 * larger of the two sides' demotions and up by every promotion of either side (each touch
 * promotes one tier; two machines' touches are two promotions). `core` set or cleared on one
 * side wins (it is set by hand only). No base: the more present tier, promoted by the uses both
 * copies added (per-device counts) beyond the larger side's.
 */
function mergeTier(base: Fields | null, ours: Fields, theirs: Fields, settings: EngramSettings, devices: DeviceUses | null = null): unknown {
  const [b, o, t] = [base?.tier, ours.tier, theirs.tier];
  if (o === 'core' || t === 'core') {
    if (base && b === 'core') return o === 'core' ? t : o; // a side cleared core by hand
    return 'core';
  }
  const at = (v: unknown) => LADDER.indexOf(v as Tier);
  if (at(o) < 0 || at(t) < 0) return pick(o, t);
  // no base: the more present, promoted once more for each use the less present side added
  // (each side's uses promoted it from the common tier; the more present shows only its own)
  if (!base || at(b) < 0) return LADDER[Math.max(0, Math.min(at(o), at(t)) - (devices ? Math.min(devices.ours, devices.theirs) : 0))];
  const latest = Math.max(...[base, ours, theirs].map((f) => accessOf(f) ?? 0));
  const effective = (f: Fields) => {
    const access = accessOf(f);
    return access === null ? at(f.tier) : at(tierAt(tierInputs(f, settings), access, latest, settings));
  };
  const [eb, eo, et] = [effective(base), effective(ours), effective(theirs)];
  const demotion = Math.max(0, eo - eb, et - eb);
  const promotions = Math.max(0, eb - eo) + Math.max(0, eb - et);
  return LADDER[Math.min(LADDER.length - 1, Math.max(0, eb + demotion - promotions))];
}

function accessOf(f: Fields): number | null {
  const stamp = typeof f.last_accessed_at === 'string' ? f.last_accessed_at : typeof f.created_at === 'string' ? f.created_at : null;
  return stamp ? parseTimestamp(stamp) : null;
}

function tierInputs(f: Fields, settings: EngramSettings): TierInputs {
  const category = (CATEGORIES as readonly unknown[]).includes(f.category) ? (f.category as Category) : 'episodic';
  return {
    tier: (LADDER as unknown[]).includes(f.tier) ? (f.tier as Tier) : null,
    half_life_days: typeof f.half_life_days === 'number' && f.half_life_days > 0 ? f.half_life_days : settings.halfLifeDays[category],
    access_count: typeof f.access_count === 'number' && f.access_count >= 0 ? f.access_count : 0,
    is_error: f.is_error === true,
  };
}

/** Changes Engram makes by itself; anything else is a person's (or an agent's explicit mark). */
function automaticConfidence(from: unknown, to: unknown): boolean {
  return to === 'stale' || (from === 'inferred' && to === 'observed');
}

function mergeConfidence(b: unknown, o: unknown, t: unknown, threeWay: boolean): Decision {
  const rank = (v: unknown) => (CONFIDENCES as readonly unknown[]).indexOf(v);
  const cautious = rank(o) >= 0 && rank(t) >= 0 ? (rank(o) > rank(t) ? o : t) : pick(o, t);
  if (threeWay) {
    const autoO = automaticConfidence(b, o);
    const autoT = automaticConfidence(b, t);
    if (autoO && !autoT) return { value: t };
    if (autoT && !autoO) return { value: o };
    if (autoO && autoT) return { value: cautious };
  }
  return { value: cautious, clash: clashLine('confidence', o, t, cautious) };
}

const FOLDER_CATEGORY: Record<string, string> = { episodic: 'episodic', semantic: 'semantic', decisions: 'decision' };

function categoryForFolder(o: unknown, t: unknown, folder: string): unknown {
  const expected = FOLDER_CATEGORY[folder];
  if (expected !== undefined && (o === expected || t === expected)) return expected;
  return pick(o, t);
}

/**
 * ACT-R activation of two sides (SPEC §5): each value decays from its activation_at with the
 * activation half-life; at the later of the two times, the merged value is the base's decayed
 * value plus each side's boost over it (no base: the larger decayed value).
 */
function mergeActivation(base: Fields | null, ours: Fields, theirs: Fields, settings: EngramSettings): Fields {
  const state = (f: Fields) => {
    const stamp = typeof f.activation_at === 'string' ? f.activation_at : typeof f.last_accessed_at === 'string' ? f.last_accessed_at : null;
    return { value: typeof f.activation === 'number' ? f.activation : 0, stamp, ms: stamp ? (parseTimestamp(stamp) ?? 0) : 0 };
  };
  const o = state(ours);
  const t = state(theirs);
  const sameAs = (x: Fields, y: Fields) => same(x.activation, y.activation) && same(x.activation_at, y.activation_at);
  // equal boosts on both sides are two boosts (two touches at the same instant), not one
  if (base ? sameAs(base, ours) && sameAs(base, theirs) : sameAs(ours, theirs)) return pickFields(ours);
  if (base && sameAs(base, ours)) return pickFields(theirs);
  if (base && sameAs(base, theirs)) return pickFields(ours);
  const later = t.ms > o.ms ? t : o;
  const at = (s: { value: number; ms: number }) => s.value * Math.pow(0.5, Math.max(0, later.ms - s.ms) / MS_PER_DAY / settings.activation.halfLifeDays);
  let value: number;
  if (base) {
    const b = state(base);
    value = at(o) + at(t) - at(b);
  } else {
    value = Math.max(at(o), at(t));
  }
  const out: Fields = { activation: roundActivation(Math.max(0, value)) };
  if ('activation_at' in ours || 'activation_at' in theirs) out.activation_at = later.stamp;
  return out;
}

function pickFields(f: Fields): Fields {
  const out: Fields = {};
  if ('activation' in f) out.activation = f.activation;
  if ('activation_at' in f) out.activation_at = f.activation_at;
  return out;
}

/** The same choice on every machine, whichever side is ours: the smaller in a fixed text order. */
function pick(o: unknown, t: unknown): unknown {
  return JSON.stringify(o) <= JSON.stringify(t) ? o : t;
}

/** Deep equality, insensitive to the order of a mapping's keys. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    return a.length === y.length && a.every((v, i) => same(v, y[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x);
  return kx.length === Object.keys(y).length && kx.every((k) => k in y && same(x[k], y[k]));
}

/** `field: a or b (kept a)`, the two values in a fixed order so that both sides write the same line. */
function clashLine(key: string, o: unknown, t: unknown, kept: unknown): string {
  const [x, y] = [show(o), show(t)].sort();
  return `${key}: ${x} or ${y} (kept ${show(kept)})`;
}

function show(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}
