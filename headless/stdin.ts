import { readSync } from 'node:fs';

/**
 * Everything on a file descriptor until end of file, as UTF-8. A pipe may be in
 * non-blocking mode (another part of the process, or the producer, may have set O_NONBLOCK
 * on it): a read that finds it empty but open (EAGAIN) waits a little and reads again, so a
 * slow producer and a large input are read whole instead of failing.
 */
export function readStdinSync(fd: number): string {
  const chunks: Buffer[] = [];
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const buffer = Buffer.allocUnsafe(65_536);
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
        Atomics.wait(pause, 0, 0, 5);
        continue;
      }
      if (code === 'EOF') break; // Windows: the pipe's writer closed it
      throw error;
    }
    if (n === 0) break;
    chunks.push(buffer.subarray(0, n));
  }
  return Buffer.concat(chunks).toString('utf8');
}
