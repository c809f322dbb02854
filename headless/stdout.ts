import { writeSync } from 'node:fs';

/**
 * Text written whole to a file descriptor with write(2), as process.stdout writes to a file or a
 * pipe on Linux and macOS (synchronously), without creating that stream: process.stdout loads
 * node:net and node:stream (node:tty for a terminal), about a tenth of a cold `engram touch`.
 * A descriptor in non-blocking mode (EAGAIN) is waited on and written again, as readStdinSync
 * reads; a reader that went away (EPIPE: `engram stats | head -1`) ends the process quietly, as
 * the stream's error handler did.
 */
export function writeAllSync(fd: number, text: string, onClosed: () => never = () => process.exit(0)): void {
  const bytes = Buffer.from(text, 'utf8');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
        Atomics.wait(pause, 0, 0, 5);
        continue;
      }
      if (code === 'EPIPE') onClosed();
      throw error;
    }
  }
}
