import { parse } from 'yaml';

/**
 * js-yaml's `load`, as the core calls it (YAML 1.2 core schema: timestamps stay strings), over
 * the `yaml` library that the core's frontmatter writer already needs. The plugin's bundle maps
 * `js-yaml` here (esbuild.config.mjs), so main.js carries one YAML library instead of two (40
 * KB less); the runner keeps js-yaml, the faster reader. test/plugin/yaml-reader.test.ts checks
 * that both read every example and malformed fixture the same way.
 */
export const CORE_SCHEMA = 'core';

export function load(text: string): unknown {
  return parse(text, { schema: 'core', logLevel: 'error', uniqueKeys: true });
}
