import type * as JsYaml from 'js-yaml';
import type * as Yaml from 'yaml';

/**
 * The two YAML libraries, built alone into dist/engram-yaml.js (esbuild.config.mjs), which
 * headless/lazy-yaml.ts loads at the first use of either. Each is evaluated when its function is
 * first called (esbuild bundles each as a CommonJS module whose body runs at its first require).
 * Bundled into the CLI they were 156 KB of its 616 (a quarter of what each command read, made a
 * string of and deserialised the code cache beside), for frontmatter written by hand in full YAML.
 */
export const yaml = (): typeof Yaml => require('../node_modules/yaml/dist/index.js') as typeof Yaml;
export const jsYaml = (): typeof JsYaml => require('../node_modules/js-yaml/index.js') as typeof JsYaml;
