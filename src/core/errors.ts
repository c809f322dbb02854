/**
 * Typed errors. Every error that reaches a user names what was wrong; the runner maps
 * `exitCode` to its exit status (1 failure, 2 usage) and never prints a stack trace.
 *
 * Each class states its `name` (error.name, the start of String(error)): the bundles are
 * minified without esbuild's keepNames (which wrapped every function and closure the runner
 * made in a call that set its name), so a class's own name is a minified one
 * (test/core/errors.test.ts checks each error class of src/ and headless/ states its name).
 */
export class EngramError extends Error {
  readonly exitCode: 1 | 2 = 1;
  override name = 'EngramError';
  constructor(message: string) {
    super(message);
  }
}

/** Bad command-line or API input: exit status 2. */
export class UsageError extends EngramError {
  override name = 'UsageError';
  override readonly exitCode = 2 as const;
}

/** A file that cannot be read as a memory. The file is reported and left untouched. */
export class MemoryParseError extends EngramError {
  override name = 'MemoryParseError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** A path or id that would reach outside the vault, or is not a valid name. */
export class PathError extends EngramError {
  override name = 'PathError';
}

export class NotFoundError extends EngramError {
  override name = 'NotFoundError';
}

/** The file changed between our read and our write (compare-and-swap failed). */
export class WriteConflictError extends EngramError {
  override name = 'WriteConflictError';
  constructor(readonly path: string) {
    super(`${path}: changed by another writer while being updated`);
  }
}

/** A file another program keeps writing (an in-place save that does not end): not rewritten. */
export class BusyFileError extends EngramError {
  override name = 'BusyFileError';
  constructor(readonly path: string, seconds: number) {
    super(`${path}: still being written by another program after ${seconds} s; left untouched`);
  }
}

/** Another process holds a lock that we could not get in time. */
export class LockError extends EngramError {
  override name = 'LockError';
}

/** An embedder that cannot embed: the message names the model and the fix. */
export class EmbedderError extends EngramError {
  override name = 'EmbedderError';
}
