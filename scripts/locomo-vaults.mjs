// LoCoMo conversations imported once and recalled in process, for the analysis and the
// leave-one-out scripts: each conversation goes into a fresh vault through `engram import`
// exactly as bench-locomo.mjs does (text `Speaker: text`, created_at, source, session,
// agent_role), then the vault's catalog is loaded with dist/lib.js so that many settings can
// be tried on the same memories without re-importing. The vaults live in a temporary folder
// that `close()` removes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conversationTurns, scoredQuestions } from './locomo.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ENGRAM = path.join(root, 'dist', 'engram.js');
export const lib = createRequire(import.meta.url)(path.join(root, 'dist', 'lib.js'));

/**
 * Import every conversation of the LoCoMo file; returns the conversations (turns, questions,
 * the catalog's documents, the time questions are asked at) and close().
 */
export async function openConversations(dataPath, { role = true } = {}) {
  const data = JSON.parse(readFileSync(dataPath, 'utf8'));
  const work = mkdtempSync(path.join(tmpdir(), 'engram-locomo-'));
  const conversations = [];
  for (const sample of data) {
    const { turns, last } = conversationTurns(sample.conversation);
    const now = new Date(last + 86_400_000).toISOString();
    const vault = path.join(work, sample.sample_id);
    const engram = (args) => execFileSync(process.execPath, [ENGRAM, '--vault', vault, '--now', now, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
    engram(['init']);
    const lines = turns.map((t) => JSON.stringify({ text: t.text, created_at: new Date(t.at).toISOString(), source: t.id, session: t.session, ...(role ? { agent_role: t.speaker } : {}) }));
    writeFileSync(path.join(work, `${sample.sample_id}.jsonl`), `${lines.join('\n')}\n`);
    engram(['import', path.join(work, `${sample.sample_id}.jsonl`)]);
    const runtime = lib.openVault({ vault, now, cwd: root, env: {} });
    const catalog = await lib.loadCatalog(runtime.vault, { useCache: false });
    conversations.push({
      id: sample.sample_id,
      speakers: [sample.conversation.speaker_a, sample.conversation.speaker_b],
      turns,
      questions: scoredQuestions(sample),
      docs: catalog.docs,
      now: Date.parse(now),
    });
  }
  return { conversations, close: () => rmSync(work, { recursive: true, force: true }) };
}

/**
 * Recall every question of a conversation with the given settings (`.engram/config.json`
 * shape), in a radius ('all' as bench-locomo.mjs) or as plain recall ('plain': no radius).
 */
export function recallAll(conversation, config = {}, limit = 10, radius = 'all') {
  const engine = new lib.RecallEngine(conversation.docs, lib.resolveSettings(config));
  return conversation.questions.map((q) => {
    const hits = engine.recall(q.query, { limit, radius: radius === 'plain' ? undefined : radius }, conversation.now);
    return { question: q, hits, ranked: hits.map((h) => h.doc.source) };
  });
}
