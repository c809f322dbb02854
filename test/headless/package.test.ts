import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * What `npm pack` then `npm install -g engram-*.tgz` installs (the install itself, which needs
 * the registry, is checked by hand: see docs/development.md): the runner's bundles and docs,
 * the few packages the bundles load at run time, nothing that runs an install script.
 */
const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));

describe('the package as installed from a tarball', () => {
  test('says which Node it needs', () => {
    expect(pkg.engines).toEqual({ node: '>=20' });
  });

  test('depends on exactly what the runner leaves out of its bundle, transformers.js aside (an optional peer)', () => {
    const config = readFileSync(path.join(root, 'esbuild.config.mjs'), 'utf8');
    const external = JSON.parse(/external: (\[[^\]]*\])/.exec(config)![1]!.replace(/'/g, '"')) as string[];
    const optional = ['@huggingface/transformers', '@xenova/transformers'];
    expect(Object.keys(pkg.dependencies).sort()).toEqual(external.filter((name) => !optional.includes(name)).sort());
    expect(Object.keys(pkg.peerDependencies)).toEqual(['@huggingface/transformers']);
    expect(pkg.peerDependenciesMeta['@huggingface/transformers']).toEqual({ optional: true });
  });

  test('installs nothing that runs an install script', () => {
    const scripted = Object.entries(lock.packages as Record<string, { dev?: boolean; hasInstallScript?: boolean }>)
      .filter(([name, entry]) => name !== '' && !entry.dev && entry.hasInstallScript)
      .map(([name]) => name);
    expect(scripted).toEqual([]);
  });

  test('every package with an install script in development is decided on (no npm warning)', () => {
    const scripted = new Set(
      Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
        .filter(([, entry]) => entry.hasInstallScript)
        .map(([name]) => name.slice(name.lastIndexOf('node_modules/') + 'node_modules/'.length)),
    );
    expect(Object.keys(pkg.allowScripts).sort()).toEqual([...scripted].sort());
  });

  test('packs the runner, its library and token table, the docs and nothing else', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = (JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((f) => f.path).sort();
    // every bundle the Node build writes (the launcher loads engram-cli.js beside it)
    const config = readFileSync(path.join(root, 'esbuild.config.mjs'), 'utf8');
    const bundles = [...config.matchAll(/outfile: '(dist\/[^/']+\.js)'/g)].map((m) => m[1]!);
    expect(bundles).toEqual(expect.arrayContaining(['dist/engram.js', 'dist/lib.js']));
    // and the token table dist/cl100k.js reads (bytes: parsing it as JavaScript cost each `engram context` ~115 ms)
    expect(files.filter((f) => !f.startsWith('docs/'))).toEqual(['LICENSE', 'README.md', 'dist/cl100k.bin', ...bundles.sort(), 'package.json']);
    expect(files).toContain('docs/cli.md');
    expect(files.filter((f) => f.startsWith('docs/')).every((f) => /^docs\/[^/]+\.md$/.test(f))).toBe(true);
  });
});
