import type * as JsYaml from 'js-yaml';
import type * as Yaml from 'yaml';
import type * as YamlLibs from './yaml-libs';

/**
 * The two YAML libraries of src/core/frontmatter.ts, evaluated at their first use: the Node builds
 * (esbuild.config.mjs) alias `yaml` and `js-yaml` here. Imported as they were, every command
 * evaluated both at start (their schemas, tags and classes: ~6 % of a cold touch's profile, 3-5 %
 * of `--version`'s), while Engram's own frontmatter is read and edited without either (the flat
 * reader and the line edits); they are needed only for frontmatter written by hand in full YAML.
 * Each library's body runs at its first use (yaml-libs.ts). Only what frontmatter.ts uses is here:
 * an import of anything else fails the build ("No matching export").
 */
let yamlLib: typeof Yaml | undefined;
let jsYamlLib: typeof JsYaml | undefined;
/**
 * The libraries are not in the bundle that imports this file but in dist/engram-yaml.js beside it
 * (headless/yaml-libs.ts; the build leaves this require as it is): every command read, and kept
 * as a string, their 156 KB of source to use them rarely.
 */
const libs = (): typeof YamlLibs => require('./engram-yaml.js') as typeof YamlLibs;
const yaml = (): typeof Yaml => (yamlLib ??= libs().yaml());
const jsYaml = (): typeof JsYaml => (jsYamlLib ??= libs().jsYaml());

export const isMap = ((node: unknown) => yaml().isMap(node)) as typeof Yaml.isMap;
export const isScalar = ((node: unknown) => yaml().isScalar(node)) as typeof Yaml.isScalar;
export const isSeq = ((node: unknown) => yaml().isSeq(node)) as typeof Yaml.isSeq;
export const parseDocument = ((...args: Parameters<typeof Yaml.parseDocument>) => yaml().parseDocument(...args)) as typeof Yaml.parseDocument;
export const visit = ((...args: Parameters<typeof Yaml.visit>) => yaml().visit(...args)) as typeof Yaml.visit;
/** Scalar's styles, the strings yaml's Scalar class names them by (frontmatter.ts reads only these). */
export const Scalar = { PLAIN: 'PLAIN', QUOTE_DOUBLE: 'QUOTE_DOUBLE', QUOTE_SINGLE: 'QUOTE_SINGLE', BLOCK_LITERAL: 'BLOCK_LITERAL', BLOCK_FOLDED: 'BLOCK_FOLDED' } as const;

/** js-yaml's CORE_SCHEMA stands for itself until load() is called with it. */
export const CORE_SCHEMA = {} as JsYaml.Schema;
export const load = ((text: string, options?: JsYaml.LoadOptions) =>
  jsYaml().load(text, options?.schema === CORE_SCHEMA ? { ...options, schema: jsYaml().CORE_SCHEMA } : options)) as typeof JsYaml.load;
