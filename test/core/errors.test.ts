import * as fs from 'node:fs';
import * as path from 'node:path';
import * as errors from '../../src/core/errors';
import { ImportError } from '../../src/core/import';
import { ChatError } from '../../src/core/validation/chat';
import { ValidationOffError } from '../../src/core/validation/validate';
import { EmbeddingCancelled } from '../../src/embedding/worker-embedder';

/**
 * Error names (error.name, the start of String(error)) are stated by each class: the bundles are
 * minified without esbuild's keepNames, so a class's own name there is a minified one.
 */
describe('error classes state their names', () => {
  const made: [string, Error][] = [
    ['EngramError', new errors.EngramError('m')],
    ['UsageError', new errors.UsageError('m')],
    ['MemoryParseError', new errors.MemoryParseError('a.md', 'bad')],
    ['PathError', new errors.PathError('m')],
    ['NotFoundError', new errors.NotFoundError('m')],
    ['WriteConflictError', new errors.WriteConflictError('a.md')],
    ['BusyFileError', new errors.BusyFileError('a.md', 3)],
    ['LockError', new errors.LockError('m')],
    ['EmbedderError', new errors.EmbedderError('m')],
    ['ImportError', new ImportError('f.jsonl', [{ line: 2, reason: 'r' }], 3)],
    ['ChatError', new ChatError('timeout', 'm')],
    ['ValidationOffError', new ValidationOffError('m')],
    ['EmbeddingCancelled', new EmbeddingCancelled('m')],
  ];

  it.each(made)('%s: name, String(error), own keys and exit code as before', (name, error) => {
    expect(error.name).toBe(name);
    expect(String(error).split(':')[0]).toBe(name);
    expect(Object.keys(error).slice(0, 2)).toEqual(['exitCode', 'name']);
    expect((error as errors.EngramError).exitCode).toBe(name === 'UsageError' ? 2 : 1);
  });

  it('every error class under src/ and headless/ is listed above and states its own name', () => {
    const root = path.join(__dirname, '..', '..');
    const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const classes = new Map<string, { base: string; body: string }>();
    for (const file of [...files(path.join(root, 'src')), ...files(path.join(root, 'headless'))]) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/class (\w+) extends (\w+) \{([^]*?)\n\}/g)) classes.set(m[1]!, { base: m[2]!, body: m[3]! });
    }
    const isEngram = (name: string): boolean => name === 'EngramError' || (classes.has(name) && isEngram(classes.get(name)!.base));
    const engramErrors = [...classes.keys()].filter(isEngram).sort();
    expect(engramErrors).toEqual(made.map(([name]) => name).sort());
    for (const name of engramErrors) expect([name, classes.get(name)!.body.includes(`override name = '${name}';`)]).toEqual([name, true]);
  });
});
