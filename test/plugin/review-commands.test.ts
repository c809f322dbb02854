/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Modal, Notice } from '../fakes/obsidian';
import { NodeFileStore } from '../../headless/fs-files';
import { resolveSettings } from '../../src/core/settings';
import { Vault } from '../../src/core/vault';
import { noLocks } from '../helpers/memory-ports';
import { createProposal } from '../../src/core/review';
import { EXAMPLE, startPlugin, field, type Harness } from './harness';

const NODE = 'decisions/mem-1b285ef1d302.md'; // "Node 20 LTS is the runtime until ..." (observed)
const BODY = 'Node 20 LTS is the runtime until the payments SDK supports 22; do not bump engines in package.json.\n';

let h: Harness;
let correction: string;
let flag: string;

let prepared: string;

beforeEach(async () => {
  // two proposals, as validation writes them: the core over a copy of the example vault, before Obsidian starts
  // (Node's file port without the runner's lock files: jsdom's timers cannot keep a lock alive)
  prepared = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-review-'));
  fs.cpSync(EXAMPLE, prepared, { recursive: true });
  const ports = { files: new NodeFileStore(prepared), locks: noLocks, clock: { now: () => Date.parse('2026-11-29T11:00:00Z') }, random: Math.random, tokens: { count: () => 0 } };
  const vault = new Vault(ports, resolveSettings(undefined));
  const memory = await vault.resolve('mem-1b285ef1d302');
  correction = (await createProposal(vault, { kind: 'correction', memory, loop: 'validation', seed: 'run-1', verdict: 'outdated', confidence: 0.9, reason: 'The SDK supports 22 since 4.2.', proposed_text: 'Node 22 LTS is the runtime since the payments SDK 4.2 supports it.' })).path;
  await vault.update(memory.id, () => ({ needs_review: true, confidence: 'inferred', confidence_before_review: 'observed' }));
  const other = await vault.resolve('mem-e2eef83885cf');
  flag = (await createProposal(vault, { kind: 'flag', memory: other, loop: 'validation', seed: 'run-2', verdict: 'ambiguous', confidence: 0.7, reason: 'ambiguous.', proposed_text: null })).path;
  h = await startPlugin({ vault: prepared });
});

afterEach(() => {
  h.close();
  fs.rmSync(prepared, { recursive: true, force: true });
});

describe('review commands in Obsidian (SPEC §10)', () => {
  it('are available only with an open proposal note, and apply writes the proposed text (as edited in the note) as a new version', async () => {
    await h.open(NODE);
    expect(h.app.commands.executeCommandById('engram-memory:review-apply')).toBe(false);
    await h.open(correction);
    // the person edits the proposed text in the note before applying
    const note = path.join(h.dir, 'memory', correction);
    fs.writeFileSync(note, fs.readFileSync(note, 'utf8').replace('Node 22 LTS is the runtime since the payments SDK 4.2 supports it.', 'Node 22 LTS is the runtime: the payments SDK supports it since 4.2.'));
    expect(h.app.commands.executeCommandById('engram-memory:review-apply')).toBe(true);
    await h.until(() => Notice.shown.some((n) => n.startsWith('Engram: applied')));
    expect(Notice.shown.at(-1)).toBe(`Engram: applied ${path.basename(correction, '.md')}: version 2 of mem-1b285ef1d302 written`);
    const memory = h.read(NODE);
    expect(memory.slice(memory.indexOf('\n---\n') + 5)).toBe('Node 22 LTS is the runtime: the payments SDK supports it since 4.2.\n');
    expect([field(memory, 'confidence'), field(memory, 'needs_review')]).toEqual(['observed', 'false']);
    expect([field(h.read(correction), 'status'), field(h.read(correction), 'decided_by'), field(h.read(correction), 'edited')]).toEqual(['applied', 'obsidian', 'true']);
    // the old text is version 1 of the history
    const versions = fs.readdirSync(path.join(h.dir, 'memory', '.engram', 'versions', 'mem-1b285ef1d302'));
    expect(versions.map((v) => JSON.parse(fs.readFileSync(path.join(h.dir, 'memory', '.engram', 'versions', 'mem-1b285ef1d302', v), 'utf8')).body)).toEqual([BODY, 'Node 22 LTS is the runtime: the payments SDK supports it since 4.2.\n']);
    const learned = fs.readFileSync(path.join(h.dir, 'memory', '.engram', 'loops.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(learned.map((l) => [l.loop, l.decision, l.utility_after, l.by])).toEqual([['validation', 'approved_edited', 0.08, 'review apply (obsidian)']]);
  });

  it('reject asks why, keeps the text and records the reason', async () => {
    const before = h.read('decisions/mem-e2eef83885cf.md');
    await h.open(flag);
    expect(h.app.commands.executeCommandById('engram-memory:review-reject')).toBe(true);
    const modal = Modal.openModals.at(-1)!;
    expect(modal.titleEl.textContent).toBe('Reject this review proposal');
    const input = modal.contentEl.querySelector('input')!;
    input.value = 'Still true: checked the staging config.';
    input.dispatchEvent(new Event('input'));
    Array.from(modal.contentEl.querySelectorAll('button')).find((b) => b.textContent === 'Reject')!.click();
    await h.until(() => Notice.shown.some((n) => n.startsWith('Engram: rejected')));
    expect(Notice.shown.at(-1)).toBe(`Engram: rejected ${path.basename(flag, '.md')}: mem-e2eef83885cf holds; flag lifted`);
    expect([field(h.read(flag), 'status'), field(h.read(flag), 'decision_reason')]).toEqual(['rejected', '"Still true: checked the staging config."']);
    const after = h.read('decisions/mem-e2eef83885cf.md');
    expect(after.slice(after.indexOf('\n---\n'))).toBe(before.slice(before.indexOf('\n---\n')));
    expect(Modal.openModals).toHaveLength(0);
  });
});
