import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What the community store's checks ask of a release (eslint-plugin-obsidianmd's
 * validate-manifest and validate-license rules, and the submission requirements of
 * obsidianmd/obsidian-releases): checked here because the lint config only runs on src/.
 */
const ROOT = path.join(__dirname, '..', '..');
/** What a release publishes: the store's three files and the pinned WebAssembly (esbuild.config.mjs). */
const RELEASED = ['main.js', 'manifest.json', 'styles.css', 'ort-wasm-simd.wasm', 'ort-wasm.wasm'];
const json = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

describe('release readiness', () => {
  const manifest = json('manifest.json');

  it('has a manifest the store accepts', () => {
    const types: Record<string, string> = { id: 'string', name: 'string', version: 'string', minAppVersion: 'string', description: 'string', author: 'string', authorUrl: 'string', isDesktopOnly: 'boolean' };
    for (const key of ['id', 'name', 'version', 'minAppVersion', 'description', 'author', 'isDesktopOnly']) expect([key, key in manifest]).toEqual([key, true]);
    for (const [key, value] of Object.entries(manifest)) expect([key, typeof value]).toEqual([key, types[key]]);
    expect(manifest.id).toMatch(/^[a-z0-9-]+$/);
    for (const key of ['id', 'name', 'description']) expect(String(manifest[key]).toLowerCase()).not.toMatch(/obsidian|plugin/);
    const description = String(manifest.description);
    expect(description.length).toBeGreaterThanOrEqual(10);
    expect(description.length).toBeLessThanOrEqual(250);
    expect(description).toMatch(/^[A-Z][A-Za-z0-9\s.,!?'"-]+\.$/);
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.version).toBe(json('package.json').version);
    expect(json('versions.json')[String(manifest.version)]).toBe(manifest.minAppVersion);
    expect(String(manifest.author).trim()).not.toBe('');
    expect(String(manifest.authorUrl)).toMatch(/^https:\/\/(?!obsidian\.md)/);
  });

  it('has a LICENSE with this year and a holder that is not the sample plugin\'s', () => {
    const license = fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
    const m = /^[ \t]*Copyright \(C\) (\d{4})(?:-(\d{4}))? by (.+)$/m.exec(license);
    expect(m).not.toBeNull();
    expect(m![3]).not.toBe('Dynalist Inc.');
    expect(Number(m![2] ?? m![1])).toBeGreaterThanOrEqual(2026);
    expect(json('package.json').license).toBe('MIT');
  });

  it('publishes the three store files and the WebAssembly the plugin downloads, no other JavaScript, from a tag equal to the version', () => {
    const workflow = fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8');
    expect(workflow).toMatch(/tags: \['\*'\]/);
    // the files the release carries: exactly the store's three and the two pinned WASM files
    const create = /gh release create[^\n]*\\\n\s*([^\n]+)/.exec(workflow);
    expect(create?.[1]!.trim().split(/\s+/)).toEqual(RELEASED);
    // the embedding worker is inside main.js (issue 21): no script is published for the plugin to fetch
    expect(workflow).not.toMatch(/embedding-worker|\.js\b(?<!main\.js)/);
    expect(workflow).toContain('test "$tag" = "$(node -p "require(\'./manifest.json\').version")"');
  });

  it('pins for download only the WASM files the release publishes (the plugin fetches no script)', () => {
    const config = fs.readFileSync(path.join(ROOT, 'esbuild.config.mjs'), 'utf8');
    const runtime = config.slice(config.indexOf('const runtime = {'), config.indexOf('};', config.indexOf('const runtime = {')));
    const pinned = [...runtime.matchAll(/pinned\('([^']+)'/g)].map((m) => m[1]);
    expect(pinned).toEqual(['ort-wasm-simd.wasm', 'ort-wasm.wasm']);
    expect(pinned.every((name) => RELEASED.includes(name!))).toBe(true);
  });

  it('runs the tests before publishing and attests every published file', () => {
    const workflow = fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8');
    const steps = ['run: npm test', 'run: npm run build', 'uses: actions/attest-build-provenance@v2', 'gh release create'];
    const at = steps.map((step) => workflow.indexOf(step));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(workflow).toMatch(/id-token: write/);
    expect(workflow).toMatch(/attestations: write/);
    const subjects = workflow.slice(workflow.indexOf('subject-path:'), workflow.indexOf('- name: Publish'));
    expect([...subjects.matchAll(/dist\/plugin\/(\S+)/g)].map((m) => m[1])).toEqual(RELEASED);
  });
});
