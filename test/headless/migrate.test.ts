import { cpSync, readdirSync, readFileSync, renameSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { engram, tempDir } from '../helpers/cli';

/**
 * Issue 21, ADR 0005: an existing vault of `mem-<id>.md` files gets readable names without losing
 * a link, checked with Obsidian's own way of resolving links: `[[target]]` is a file name
 * (case-insensitive), `[[folder/target]]` a path; aliases never resolve a link.
 */
const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'vault');

function notes(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...notes(root, child));
    else if (entry.name.endsWith('.md')) out.push(child);
  }
  return out.sort();
}

const idOf = (text: string) => /^id: (\S+)$/m.exec(text)?.[1] ?? null;

/**
 * Every wikilink of every note (body and properties), resolved as Obsidian does: by file name
 * (the shortest path wins among equals), or by a path's ending. Returns `source id -> target id |
 * label` edges, and the links that resolve to nothing.
 */
function resolveLinks(root: string): { edges: string[]; unresolved: string[] } {
  const files = notes(root);
  const byName = new Map<string, string[]>();
  for (const file of files) {
    const name = path.basename(file, '.md').toLowerCase();
    byName.set(name, [...(byName.get(name) ?? []), file]);
  }
  const edges: string[] = [];
  const unresolved: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|([^\]\n]*))?\]\]/g)) {
      const target = m[1]!.trim().replace(/\.md$/, '');
      const candidates = target.includes('/')
        ? files.filter((f) => f.toLowerCase().endsWith(`${target.toLowerCase()}.md`))
        : (byName.get(target.toLowerCase()) ?? []);
      const hit = [...candidates].sort((a, b) => a.split('/').length - b.split('/').length)[0];
      if (!hit) {
        unresolved.push(`${file}: ${m[0]}`);
        continue;
      }
      edges.push(`${idOf(text) ?? file} -> ${idOf(readFileSync(path.join(root, hit), 'utf8')) ?? hit} | ${m[2] ?? ''}`);
    }
  }
  return { edges: edges.sort(), unresolved };
}

describe('engram migrate: readable names for a vault of mem-<id>.md files', () => {
  let dir: string;
  let cleanup: () => void;
  let vault: string;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    vault = path.join(dir, 'vault');
    cpSync(EXAMPLE, vault, { recursive: true });
  });
  afterEach(() => cleanup());

  it('renames every memory after its title and keeps every link resolving to the same memory', async () => {
    const before = resolveLinks(vault);
    expect(before.unresolved).toEqual([]);
    expect(before.edges.length).toBe(7);
    const ids = notes(vault).map((f) => idOf(readFileSync(path.join(vault, f), 'utf8'))).filter(Boolean).sort();
    expect(ids.length).toBe(63);

    const dry = await engram(vault, ['--json', 'migrate']);
    expect([dry.code, dry.json().applied, dry.json().renamed.length, dry.json().links.rewritten.length, dry.json().links.written]).toEqual([0, false, 63, 7, []]);
    expect(notes(vault).filter((f) => /\/mem-[a-z0-9]{12}\.md$/.test(f)).length).toBe(63); // a dry run writes nothing

    const run = await engram(vault, ['--json', 'migrate', '--apply']);
    expect([run.code, run.json().applied, run.json().renamed.length, run.json().links.rewritten.length]).toEqual([0, true, 63, 7]);
    expect(notes(vault).filter((f) => /mem-[a-z0-9]{12}/.test(f))).toEqual([]);
    expect(notes(vault)).toContain('episodic/Webhook signature uses HMAC-SHA256 over the raw body.md');
    const after = resolveLinks(vault);
    expect(after.unresolved).toEqual([]);
    expect(after.edges).toEqual(before.edges);
    expect(notes(vault).map((f) => idOf(readFileSync(path.join(vault, f), 'utf8'))).filter(Boolean).sort()).toEqual(ids);

    // idempotent: nothing left to do, nothing written
    const snapshot = notes(vault).map((f) => [f, readFileSync(path.join(vault, f), 'utf8')]);
    const again = await engram(vault, ['migrate', '--apply']);
    expect([again.code, again.stdout]).toEqual([0, 'nothing to migrate: every memory has a readable name and every link resolves\n']);
    expect(notes(vault).map((f) => [f, readFileSync(path.join(vault, f), 'utf8')])).toEqual(snapshot);
    expect((await engram(vault, ['doctor'])).stdout).toBe('no problems found\n');
  });

  it('after a rename outside Obsidian, doctor --fix (or consolidate) points the links at the new name', async () => {
    await engram(vault, ['migrate', '--apply']);
    const before = resolveLinks(vault);
    // the pattern three episodes decay from, renamed and moved by a file manager
    const target = notes(vault).find((f) => readFileSync(path.join(vault, f), 'utf8').includes('id: mem-cc7d4cac5923\n'))!;
    mkdirSync(path.join(vault, 'semantic', 'reviews'));
    renameSync(path.join(vault, target), path.join(vault, 'semantic', 'reviews', 'console.log in reviews.md'));
    expect(resolveLinks(vault).unresolved.length).toBe(3);
    const doctor = await engram(vault, ['--json', 'doctor']);
    expect([doctor.code, doctor.json().findings.map((f: { check: string }) => f.check)]).toEqual([1, ['renamed-link', 'renamed-link', 'renamed-link']]);
    const fixed = await engram(vault, ['doctor', '--fix']);
    expect(fixed.code).toBe(0);
    const after = resolveLinks(vault);
    expect([after.unresolved, after.edges]).toEqual([[], before.edges]);
    expect(notes(vault)).toContain('semantic/reviews/console.log in reviews.md');
    expect((await engram(vault, ['doctor'])).stdout).toBe('no problems found\n');

    // the same repair from consolidation, and the file stays where the person put it
    renameSync(path.join(vault, 'semantic', 'reviews', 'console.log in reviews.md'), path.join(vault, 'semantic', 'reviews', 'Console logging.md'));
    const report = (await engram(vault, ['--json', '--now', '2026-12-01T10:00:00Z', 'consolidate'])).json();
    expect(report.steps.find((s: { step: string }) => s.step === 'links')).toMatchObject({ step: 'links', count: 3 });
    const consolidated = resolveLinks(vault);
    expect(consolidated.unresolved).toEqual([]);
    // every link before still reaches its memory (consolidation's new pattern adds links of its own)
    expect(consolidated.edges.filter((e) => before.edges.includes(e))).toEqual(before.edges);
    expect(notes(vault)).toContain('semantic/reviews/Console logging.md');
  });
});

describe('engram migrate in an Obsidian vault: the person\'s own notes follow', () => {
  let dir: string;
  let cleanup: () => void;
  let obsidian: string;
  let vault: string;
  const ID = 'mem-ed7c49c755c3';
  // a person's note: links by id in the body (plain, aliased, with a heading and a path, embedded) and in a property
  const PLAN = (to: (id: string, withPath?: boolean) => string) =>
    `---\ntags: [work]\nsee: "[[${to('mem-f89bf528af4e')}]]"\n---\n# Chargebacks plan\n\n` +
    `The limit is in [[${to(ID)}]], see also [[${to(ID)}|the 10 MB rule]] and [[${to(ID, true)}.md#Limits|the rule's text]].\n` +
    `![[${to(ID)}]]\n[[Some other note]] and [[mem-000000000000]] stay as written.\n`;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    obsidian = path.join(dir, 'Work');
    vault = path.join(obsidian, 'memory');
    cpSync(EXAMPLE, vault, { recursive: true });
    mkdirSync(path.join(obsidian, '.obsidian'));
    mkdirSync(path.join(obsidian, 'Projects', 'Payments'), { recursive: true });
    writeFileSync(path.join(obsidian, 'Projects', 'Payments', 'Chargebacks plan.md'), PLAN((id, withPath) => (withPath ? `memory/episodic/${id}` : id)));
    writeFileSync(path.join(obsidian, 'Some other note.md'), 'No links to memories here: [[Chargebacks plan]].\n');
    mkdirSync(path.join(obsidian, '.trash'));
    writeFileSync(path.join(obsidian, '.trash', 'Old.md'), `[[${ID}]]\n`);
  });
  afterEach(() => cleanup());

  it('points the [[mem-…]] links of notes outside the memory folder at the new names, changing nothing else, with names unique in the whole vault', async () => {
    const before = resolveLinks(obsidian);
    expect(before.unresolved).toEqual(['Projects/Payments/Chargebacks plan.md: [[mem-000000000000]]']);
    // the title the memory would take is already a note of the person's: the memory takes `… 2`
    const dry = (await engram(vault, ['--json', 'migrate'])).json();
    const title = path.basename(dry.renamed.find((r: { id: string }) => r.id === ID).to, '.md');
    writeFileSync(path.join(obsidian, 'Projects', `${title}.md`), 'The person\'s own note with that title.\n');
    const planned = (await engram(vault, ['--json', 'migrate'])).json();
    const renamed = new Map<string, string>(planned.renamed.map((r: { id: string; to: string }) => [r.id, r.to]));
    expect(path.basename(renamed.get(ID)!, '.md')).toBe(`${title} 2`);
    expect([planned.outside.rewritten.length, planned.outside.written, planned.outside.skipped]).toEqual([5, [], []]);
    expect(readFileSync(path.join(obsidian, 'Projects', 'Payments', 'Chargebacks plan.md'), 'utf8')).toBe(PLAN((id, withPath) => (withPath ? `memory/episodic/${id}` : id))); // a dry run writes nothing

    const run = await engram(vault, ['migrate', '--apply']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`pointed 5 links in 1 of your notes in the Obsidian vault ${obsidian} at the new names:\n  Projects/Payments/Chargebacks plan.md\n`);
    const name = (id: string, withPath?: boolean) => {
      const to = renamed.get(id)!.replace(/\.md$/, '');
      return withPath ? `memory/${to}` : path.basename(to);
    };
    // only the link targets changed: the person's words, headings, aliases and other links are as they were
    expect(readFileSync(path.join(obsidian, 'Projects', 'Payments', 'Chargebacks plan.md'), 'utf8')).toBe(PLAN(name));
    expect(readFileSync(path.join(obsidian, 'Some other note.md'), 'utf8')).toBe('No links to memories here: [[Chargebacks plan]].\n');
    expect(readFileSync(path.join(obsidian, '.trash', 'Old.md'), 'utf8')).toBe(`[[${ID}]]\n`); // dot-folders are not the person's notes
    // every link reaches the same note as before, resolved as Obsidian does over the whole vault
    const after = resolveLinks(obsidian);
    expect(after.unresolved).toEqual(before.unresolved);
    expect(after.edges).toEqual(before.edges);
    // idempotent
    const again = await engram(vault, ['migrate', '--apply']);
    expect([again.code, again.stdout]).toEqual([0, 'nothing to migrate: every memory has a readable name and every link resolves\n']);
  });
});
