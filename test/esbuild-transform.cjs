/**
 * Jest's TypeScript transform: esbuild strips the types (the esbuild the build already uses). No
 * type check here: `npm run typecheck` does that (ts-jest with isolatedModules did not either).
 *
 * 1. Why not ts-jest: on a fresh checkout (CI, a new clone, a changed file) ts-jest loads the
 *    TypeScript compiler in each worker and compiles file by file: loading headless/cli.ts's
 *    modules cold took 6.0 s CPU with it, 1.0 s with esbuild (jest caches the output either way).
 *    The output is what tsc gave: CommonJS, strict mode, ES2022 class fields (define semantics,
 *    the tsconfig's target), esModuleInterop's default import, import() as a require.
 *
 * 2. Built-ins bound once per module. Jest runs each test file in its own vm context, and on
 *    Node 20 every read of a global there (`Math`, `Map`, `Number`…) goes through the context's
 *    interceptor: about 0.25 µs a read, against nothing in plain Node (measured inside jest: 2.5
 *    million `seededRandom()` calls, two `Math.imul` each, 1.3 s CPU; the same with `imul` bound
 *    in the module, 4 ms). So the code under test ran up to 20 times slower in jest than in the
 *    product (issue 25: cluster.ts's hot loops, fixed by hand in 4cd94ec). Each module now starts
 *    with `var Math = globalThis.Math, …` for the built-ins it names and does not declare itself:
 *    the same objects (the context's own), read from a local. Only built-ins no test replaces:
 *    not Date, timers, fetch or console (jest's fake timers and mocks swap those on the global).
 */
const { transformSync } = require('esbuild');
const { createHash } = require('node:crypto');
const { version } = require('esbuild/package.json');

const BUILTINS = [
  'Math', 'Object', 'Array', 'Number', 'String', 'Boolean', 'Symbol', 'BigInt', 'JSON', 'Reflect',
  'Map', 'Set', 'WeakMap', 'WeakSet', 'Promise', 'RegExp',
  'Error', 'TypeError', 'RangeError', 'SyntaxError',
  'ArrayBuffer', 'DataView', 'Uint8Array', 'Uint16Array', 'Uint32Array', 'Int8Array', 'Int16Array', 'Int32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
  'isFinite', 'isNaN', 'parseInt', 'parseFloat', 'encodeURIComponent', 'decodeURIComponent',
];
const SALT = `esbuild ${version}; require for import(); builtins 1: ${BUILTINS.join(',')}`;

/** The built-ins a source names (as a word not after a dot) and never declares or binds itself. */
function builtinsOf(source) {
  return BUILTINS.filter((name) => {
    if (!new RegExp(`(?<![.\\w$])${name}(?![\\w$])`).test(source)) return false;
    // any declaration or binding of the name (let/const/var/class/function/import/parameter/destructuring)
    // keeps the module's own: a word followed by `:` `=` `,` `)` `}` in a binding position is
    // hard to tell from a use by pattern, so a name written as a binding anywhere is left alone
    const bound = new RegExp(`(?:\\b(?:let|const|var|class|function|import|as)\\s+${name}(?![\\w$]))|(?:[({,]\\s*${name}\\s*(?:[,)}=]|:\\s*[\\w{[]))`);
    return !bound.test(source);
  });
}

module.exports = {
  process(source, filename) {
    const names = builtinsOf(source);
    const { code, map } = transformSync(source, {
      loader: filename.endsWith('.tsx') ? 'tsx' : 'ts',
      format: 'cjs',
      target: 'es2022',
      platform: 'node',
      // import() as require(), as tsc's CommonJS output did: jest's vm runs no native dynamic import
      supported: { 'dynamic-import': false },
      sourcemap: 'external',
      sourcefile: filename,
      sourcesContent: false,
      banner: `"use strict";${names.length ? `var ${names.map((n) => `${n} = globalThis.${n}`).join(', ')};` : ''}`,
      tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, esModuleInterop: true } },
    });
    return { code, map };
  },
  getCacheKey(source, filename, { configString }) {
    return createHash('sha256').update(`${SALT}\0${filename}\0${configString}\0`).update(source).digest('hex');
  },
};
