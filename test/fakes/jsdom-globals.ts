/** What jsdom lacks and Obsidian's Electron renderer has: import first in plugin tests. */
import { TextDecoder, TextEncoder } from 'node:util';

const g = globalThis as unknown as Record<string, unknown>;
if (!g.TextEncoder) g.TextEncoder = TextEncoder;
if (!g.TextDecoder) g.TextDecoder = TextDecoder;
if (!g.structuredClone) g.structuredClone = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** Web Workers the code under test created, and whether each was terminated. */
export const workers: FakeWorker[] = [];

export class FakeWorker {
  terminated = false;
  readonly messages: unknown[] = [];
  private readonly listeners = new Set<(e: { data: unknown }) => void>();
  onmessage: ((e: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {
    workers.push(this);
  }
  postMessage(message: unknown): void {
    this.messages.push(message);
  }
  addEventListener(_type: string, fn: (e: { data: unknown }) => void): void {
    this.listeners.add(fn);
  }
  removeEventListener(_type: string, fn: (e: { data: unknown }) => void): void {
    this.listeners.delete(fn);
  }
  terminate(): void {
    this.terminated = true;
  }
  /** Test helper: the worker posts a message. */
  emit(data: unknown): void {
    for (const fn of [...this.listeners]) fn({ data });
    this.onmessage?.({ data });
  }
}

/** Blob URLs made by the code under test, with their blobs (and whether they were revoked). */
export const blobs = new Map<string, { blob: Blob; revoked: boolean }>();

/** Give the page Worker and blob URLs (jsdom has neither), recording every worker made. */
export function installFakeWorkers(): void {
  workers.length = 0;
  blobs.clear();
  g.Worker = FakeWorker;
  (URL as unknown as Record<string, unknown>).createObjectURL = (blob: Blob) => {
    const url = `blob:fake/${blobs.size + 1}`;
    blobs.set(url, { blob, revoked: false });
    return url;
  };
  (URL as unknown as Record<string, unknown>).revokeObjectURL = (url: string) => {
    const entry = blobs.get(url);
    if (entry) entry.revoked = true;
  };
}
