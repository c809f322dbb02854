import { noteName } from './links';
import { NotFoundError, UsageError, EngramError, WriteConflictError } from './errors';
import { readFrontmatter, renderFieldValue, setFrontmatterFields, splitFrontmatter, type FieldValue } from './frontmatter';
import { contentHash, sha256Hex } from './ids';
import { memoryText, type Memory } from './memory';
import { recordDecision, type Loop } from './procedural-utility';
import type { Confidence } from './settings';
import { formatTimestamp } from './time';
import type { EvidenceItem } from './validation/evidence';
import { changeBody, replaceText } from './versions';
import type { Vault } from './vault';

/**
 * The review queue (SPEC §10): what an automatic loop proposes and a person decides. Each
 * proposal is a note in `review/` that reads well in Obsidian: the memory (linked), the
 * verdict and why, the current text, the proposed text (which the person may edit before
 * applying), the change as a diff, and the evidence. `engram review list|show|apply|reject`
 * and the plugin's commands work through it.
 *
 * - correction / rewording / summary: applying writes the proposed text (as edited in the
 *   note) as a new version of the memory; rejecting keeps the text.
 * - flag (validation found the memory doubtful and had nothing to propose): applying accepts
 *   the doubt (the memory becomes stale); rejecting says the memory holds.
 *
 * Either way the memory's review flag is cleared, its confidence restored if the flag lowered
 * it, the note records who decided, when and why, and the loop that proposed it learns from
 * the decision (procedural utility: approve +1, approve after editing +0.4, reject −1).
 */
export const REVIEW_FOLDER = 'review';

export const PROPOSAL_KINDS = ['correction', 'rewording', 'flag', 'summary'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];
export type ProposalStatus = 'open' | 'applied' | 'rejected';

export interface Proposal {
  id: string;
  path: string;
  status: ProposalStatus;
  kind: ProposalKind;
  memory: string;
  loop: Loop;
  created_at: string;
  verdict: string | null;
  confidence: number | null;
  /** The validation run it came from. */
  run: string | null;
  /** Hash of the memory's text when proposed: applying refuses if the memory changed since. */
  current_hash: string;
  /** Hash of the proposed text as written, to tell an approval after editing. */
  proposed_hash: string | null;
  reason: string;
  decided_at: string | null;
  decision_reason: string | null;
}

export interface NewProposal {
  kind: ProposalKind;
  memory: Memory;
  loop: Loop;
  /** Stable seed of the proposal id (a run id). */
  seed: string;
  verdict?: string;
  confidence?: number;
  run?: string;
  reason: string;
  proposed_text: string | null;
  evidence?: EvidenceItem[];
}

export function proposalId(seed: string): string {
  return `review-${sha256Hex(seed).slice(0, 12)}`;
}

const PROPOSED_HEADING = '## Proposed text';
/** The info string of the fenced block that holds the proposed text. */
const PROPOSED_INFO = 'text';

/** Write a proposal note; returns its path. */
export async function createProposal(vault: Vault, input: NewProposal): Promise<Proposal> {
  const id = proposalId(input.seed);
  const path = `${REVIEW_FOLDER}/${id}.md`;
  const current = memoryText(input.memory);
  const fields: Array<[string, FieldValue]> = [
    ['id', id],
    ['status', 'open'],
    ['kind', input.kind],
    ['memory', input.memory.id],
    ['loop', input.loop],
    ['created_at', formatTimestamp(vault.now())],
    ['verdict', input.verdict ?? null],
    ['confidence', input.confidence ?? null],
    ['run', input.run ?? null],
    ['current_hash', contentHash(current)],
    ['proposed_hash', input.proposed_text === null ? null : contentHash(input.proposed_text)],
    ['reason', input.reason],
  ];
  const yaml = fields.map(([k, v]) => `${k}: ${renderFieldValue(v)}`).join('\n');
  // the memory by file name, what Obsidian resolves (ADR 0005); the frontmatter keeps its id
  const link = `[[${noteName(input.memory.path)}]]`;
  const title = input.kind === 'flag' ? `Review: is ${link} still true?` : `Review: ${input.kind} of ${link}`;
  const lines = [
    `# ${title}`,
    '',
    // what a model wrote is one line of prose here, never structure (a heading, a fence)
    input.verdict ? `Verdict: **${oneLine(input.verdict)}** (confidence ${input.confidence}). ${oneLine(input.reason)}` : oneLine(input.reason),
    '',
    '## Current text',
    '',
    quoteBlock(current),
    '',
  ];
  if (input.proposed_text !== null) {
    lines.push(PROPOSED_HEADING, '', ...fenced(input.proposed_text), '', '## Change', '', '```diff', ...lineDiff(current, input.proposed_text), '```', '');
  }
  if (input.evidence && input.evidence.length > 0) {
    lines.push('## Evidence', '');
    for (const e of input.evidence) lines.push(`- **${e.id}** (${e.kind.replace('_', ' ')}${e.kind === 'related_memory' ? `: [[${e.ref}]]` : `: ${e.ref}`}): ${e.text.replace(/\s+/g, ' ').slice(0, 400)}`);
    lines.push('');
  }
  lines.push(
    '## Decide',
    '',
    input.kind === 'flag'
      ? `Apply to accept the doubt (the memory becomes stale), or reject if it still holds: \`engram review apply ${id}\`, \`engram review reject ${id} --reason "..."\`, or the commands "Apply this review proposal" / "Reject this review proposal" with this note open.`
      : `Edit the proposed text above if you like, then apply it as a new version of the memory, or reject it: \`engram review apply ${id}\`, \`engram review reject ${id} --reason "..."\`, or the commands "Apply this review proposal" / "Reject this review proposal" with this note open.`,
    '',
  );
  await vault.ports.files.mkdir(REVIEW_FOLDER);
  try {
    await vault.createFile(path, `---\n${yaml}\n---\n${lines.join('\n')}`);
  } catch (error) {
    if (!(error instanceof WriteConflictError)) throw error; // the same run's proposal exists already
  }
  return (await readProposal(vault, id)).proposal;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The proposed text in a fenced block whose fence is longer than any run of backticks in it. */
function fenced(text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${PROPOSED_INFO}`, text, fence];
}

function quoteBlock(text: string): string {
  return text.split('\n').map((l) => `> ${l}`).join('\n');
}

/** A line diff (longest common subsequence) of two texts, as `- `, `+ ` and `  ` lines. */
export function lineDiff(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  return out;
}

function parseProposal(path: string, text: string): Proposal {
  const split = splitFrontmatter(text);
  if (!split) throw new EngramError(`${path}: not a review note (no frontmatter)`);
  let data: Record<string, unknown>;
  try {
    data = (readFrontmatter(split.yaml) ?? {}) as Record<string, unknown>;
  } catch (error) {
    throw new EngramError(`${path}: invalid frontmatter (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  const str = (k: string): string | null => {
    const value = data[k];
    return typeof value === 'string' ? value : null;
  };
  const kind = str('kind');
  const status = str('status');
  if (!kind || !(PROPOSAL_KINDS as readonly string[]).includes(kind)) throw new EngramError(`${path}: field "kind": expected one of ${PROPOSAL_KINDS.join(', ')}`);
  if (status !== 'open' && status !== 'applied' && status !== 'rejected') throw new EngramError(`${path}: field "status": expected open, applied or rejected`);
  if (!str('memory')) throw new EngramError(`${path}: field "memory" is missing`);
  return {
    id: str('id') ?? path.split('/').pop()!.replace(/\.md$/, ''),
    path,
    status,
    kind: kind as ProposalKind,
    memory: str('memory')!,
    loop: (str('loop') ?? 'validation') as Loop,
    created_at: str('created_at') ?? '',
    verdict: str('verdict'),
    confidence: typeof data.confidence === 'number' ? data.confidence : null,
    run: str('run'),
    current_hash: str('current_hash') ?? '',
    proposed_hash: str('proposed_hash'),
    reason: str('reason') ?? '',
    decided_at: str('decided_at'),
    decision_reason: str('decision_reason'),
  };
}

/**
 * The proposed text as the note holds it now (a person may have edited it), or null: the
 * fenced block right under the first `## Proposed text` line. Only that block is read: what
 * the model wrote elsewhere in the note (its reason, quoted on one line) is never taken for
 * the proposal, and a heading inside the proposed text does not cut it. `fenced` is false for
 * a note written before proposals were fenced (the section up to the next heading).
 */
export function readProposedText(note: string): { text: string; fenced: boolean } | null {
  const lines = (splitFrontmatter(note)?.body ?? note).split('\n');
  const heading = lines.findIndex((l) => l.trimEnd() === PROPOSED_HEADING);
  if (heading < 0) return null;
  let open = heading + 1;
  while (open < lines.length && lines[open]!.trim() === '') open++;
  const fence = /^(`{3,})[ \t]*(\S*)[ \t]*$/.exec(lines[open] ?? '');
  if (!fence) {
    const end = lines.findIndex((l, k) => k > heading && l.startsWith('## '));
    const section = lines.slice(heading + 1, end < 0 ? undefined : end).join('\n').trim();
    return section === '' ? null : { text: section, fenced: false };
  }
  const closing = new RegExp(`^\`{${fence[1]!.length},}[ \t]*$`);
  const close = lines.findIndex((l, k) => k > open && closing.test(l));
  if (close < 0) throw new EngramError(`the fenced block under "${PROPOSED_HEADING}" is not closed (a line of ${fence[1]!.length} backticks); nothing applied`);
  const text = lines.slice(open + 1, close).join('\n').trim();
  return text === '' ? null : { text, fenced: true };
}

/** The proposed text as the note holds it now, or null (see readProposedText). */
export function proposedTextOf(note: string): string | null {
  try {
    return readProposedText(note)?.text ?? null;
  } catch {
    return null;
  }
}

/** A proposal by id (`review-…`) or by its note's vault-relative path. */
export async function readProposal(vault: Vault, ref: string): Promise<{ proposal: Proposal; text: string }> {
  const id = ref.replace(/^.*\//, '').replace(/\.md$/, '');
  if (!/^review-[a-z0-9]{12}$/.test(id)) throw new UsageError(`not a review proposal: ${JSON.stringify(ref)} (expected review- and 12 letters or digits)`);
  const path = `${REVIEW_FOLDER}/${id}.md`;
  const text = await vault.readText(path);
  if (text === null) throw new NotFoundError(`no review proposal ${id}`);
  return { proposal: parseProposal(path, text), text };
}

export async function listProposals(vault: Vault, options: { all?: boolean } = {}): Promise<Proposal[]> {
  const out: Proposal[] = [];
  for (const name of (await vault.ports.files.list(REVIEW_FOLDER)).sort()) {
    if (!/^review-[a-z0-9]{12}\.md$/.test(name)) continue;
    const path = `${REVIEW_FOLDER}/${name}`;
    const text = await vault.readText(path);
    if (!text) continue;
    try {
      const proposal = parseProposal(path, text);
      if (options.all || proposal.status === 'open') out.push(proposal);
    } catch {
      // a note a person broke is listed by `engram review show`, not here
    }
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
}

export interface Decided {
  proposal: Proposal;
  /** approved, approved_edited or rejected: what the loop learned. */
  decision: 'approved' | 'approved_edited' | 'rejected';
  /** The memory's new version, when the text changed. */
  version?: number;
  confidence: Confidence;
}

/** Metadata that clears a review flag and restores the confidence the flag lowered. */
function clearFlag(memory: Memory): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  if (memory.extra.needs_review !== undefined) fields.needs_review = false;
  const before = memory.extra.confidence_before_review;
  if (typeof before === 'string' && before !== memory.confidence && ['verified', 'observed', 'inferred'].includes(before)) fields.confidence = before;
  if (memory.extra.confidence_before_review !== undefined) fields.confidence_before_review = null;
  if (memory.extra.review !== undefined) fields.review = null;
  return fields;
}

async function markDecided(vault: Vault, proposal: Proposal, text: string, status: 'applied' | 'rejected', by: string, reason: string | null, extra: Record<string, FieldValue> = {}): Promise<void> {
  const next = setFrontmatterFields(text, { status, decided_at: formatTimestamp(vault.now()), decided_by: by, ...(reason ? { decision_reason: reason } : {}), ...extra });
  await vault.ports.files.write(proposal.path, next, { expect: text });
}

/** Apply a proposal: the (possibly edited) proposed text becomes a new version; a flag makes the memory stale. */
export async function applyProposal(vault: Vault, ref: string, options: { by: string }): Promise<Decided> {
  return vault.ports.locks.withLock(`review-${ref.replace(/[^a-z0-9-]/gi, '')}`, async () => {
    const { proposal, text } = await readProposal(vault, ref);
    if (proposal.status !== 'open') throw new EngramError(`${proposal.id} was already ${proposal.status}${proposal.decided_at ? ` at ${proposal.decided_at}` : ''}`);
    const memory = await vault.resolve(proposal.memory);
    let decision: Decided['decision'] = 'approved';
    let version: number | undefined;
    let written: Memory | null;
    if (proposal.kind === 'flag') {
      written = await vault.update(memory.id, (m) => ({ ...clearFlag(m), confidence: 'stale', confidence_before_review: null, validated_at: formatTimestamp(vault.now()), validation: 'stale by review' }));
    } else {
      let found: ReturnType<typeof readProposedText>;
      try {
        found = readProposedText(text);
      } catch (error) {
        throw new EngramError(`${proposal.path}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!found) throw new EngramError(`${proposal.path}: the "${PROPOSED_HEADING}" section is empty; nothing to apply`);
      // a note from before the fence: only the very text proposed is applied (its section could hold a heading a reason injected)
      if (!found.fenced && contentHash(found.text) !== proposal.proposed_hash) {
        throw new EngramError(`${proposal.path}: the "${PROPOSED_HEADING}" section is not the text proposed and is not in a fenced block; nothing applied (put the text to apply in a \`\`\`text block under the heading, or reject the proposal)`);
      }
      const proposed = found.text;
      if (proposal.proposed_hash && contentHash(proposed) !== proposal.proposed_hash) decision = 'approved_edited';
      const changed = (m: Memory) => contentHash(memoryText(m)) !== proposal.current_hash;
      if (changed(memory)) throw new EngramError(`${proposal.memory} changed since ${proposal.id} was proposed; nothing applied (reject it, or run engram validate ${proposal.memory} again)`);
      // one write under the memory's lock: the new version and the cleared flag together
      const result = await changeBody(
        vault,
        memory.id,
        (m) => {
          if (changed(m)) throw new EngramError(`${proposal.memory} changed while ${proposal.id} was being applied; nothing applied`);
          return replaceText(m.body, proposed);
        },
        { reason: `${proposal.kind} applied from ${proposal.id}${decision === 'approved_edited' ? ' after editing' : ''}`, by: 'review' },
        (m) => ({ ...clearFlag(m), validated_at: formatTimestamp(vault.now()), validation: `${proposal.kind} applied by review` }),
      );
      version = result.version;
      written = null;
    }
    await markDecided(vault, proposal, text, 'applied', options.by, null, decision === 'approved_edited' ? { edited: true } : {});
    await recordDecision(vault, { loop: proposal.loop, decision, subject: proposal.id, by: `review apply (${options.by})` });
    const after = written ?? (await vault.resolve(memory.id));
    return { proposal: { ...proposal, status: 'applied' }, decision, ...(version !== undefined ? { version } : {}), confidence: after.confidence };
  });
}

/** Reject a proposal: the text stays; a flag is lifted (the memory holds). The reason is recorded. */
export async function rejectProposal(vault: Vault, ref: string, options: { by: string; reason: string }): Promise<Decided> {
  return vault.ports.locks.withLock(`review-${ref.replace(/[^a-z0-9-]/gi, '')}`, async () => {
    const { proposal, text } = await readProposal(vault, ref);
    if (proposal.status !== 'open') throw new EngramError(`${proposal.id} was already ${proposal.status}${proposal.decided_at ? ` at ${proposal.decided_at}` : ''}`);
    let confidence: Confidence = 'observed';
    try {
      const written = await vault.update(proposal.memory, (m) => {
        confidence = m.confidence;
        const fields = clearFlag(m);
        if (proposal.kind === 'flag') Object.assign(fields, { validated_at: formatTimestamp(vault.now()), validation: 'holds (review)' });
        return Object.keys(fields).length > 0 ? fields : null;
      });
      if (written) confidence = written.confidence;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // a proposal about a memory that is gone can still be rejected
    }
    await markDecided(vault, proposal, text, 'rejected', options.by, options.reason || 'no reason given');
    await recordDecision(vault, { loop: proposal.loop, decision: 'rejected', subject: proposal.id, by: `review reject (${options.by})`, ...(options.reason ? { reason: options.reason } : {}) });
    return { proposal: { ...proposal, status: 'rejected' }, decision: 'rejected', confidence };
  });
}
