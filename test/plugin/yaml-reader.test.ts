import * as fs from 'node:fs';
import * as path from 'node:path';
import { load as jsYaml, CORE_SCHEMA } from 'js-yaml';
import { splitFrontmatter } from '../../src/core/frontmatter';
import { load as pluginYaml } from '../../src/plugin/yaml-reader';

/** The plugin bundle reads frontmatter with `yaml` instead of js-yaml: both must read the same. */
function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}

it('reads every example and malformed fixture as js-yaml does (values, or a refusal)', () => {
  const root = path.join(__dirname, '..', '..');
  const all = [...files(path.join(root, 'examples', 'vault')), ...files(path.join(root, 'test', 'fixtures', 'malformed'))];
  const outcome = (read: (t: string) => unknown, yaml: string) => {
    try {
      return { ok: read(yaml) ?? null };
    } catch {
      return { refused: true };
    }
  };
  let compared = 0;
  for (const file of all) {
    const split = splitFrontmatter(fs.readFileSync(file, 'utf8'));
    if (!split) continue;
    compared++;
    expect([file, outcome(pluginYaml, split.yaml)]).toEqual([file, outcome((t) => jsYaml(t, { schema: CORE_SCHEMA }), split.yaml)]);
  }
  expect(compared).toBeGreaterThan(60);
});
