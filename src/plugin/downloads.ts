import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { EngramError } from '../core/errors';

/** A file the plugin may fetch on first use: where from, and the SHA-256 it must have. */
export interface PinnedFile {
  /** The file name in the cache folder. */
  name: string;
  url: string;
  sha256: string;
  bytes: number;
  /** What it is for, as the consent dialog says it. */
  purpose: string;
}

/** What Downloads needs from the shell. */
export interface DownloadPorts {
  read(path: string): Promise<Uint8Array | null>;
  write(path: string, bytes: Uint8Array): Promise<void>;
  fetch(url: string): Promise<{ status: number; bytes: Uint8Array }>;
  /** Ask the user (once for files needed together); true when they agree. */
  ask(files: PinnedFile[]): Promise<boolean>;
  /** Whether the user agreed before (kept in the plugin's settings). */
  allowed(name: string): boolean;
  remember(name: string): void;
}

export function sha256Of(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/**
 * Files the plugin needs beyond the three the community store installs (main.js, manifest.json,
 * styles.css), fetched on first use, only after the user agrees, from a pinned URL, checked
 * against a pinned SHA-256, and kept in the memory folder's `.engram/runtime/` (a file there
 * whose hash does not match is fetched again). Nothing is run or saved that fails the check.
 */
export class Downloads {
  private readonly inFlight = new Map<string, Promise<Uint8Array>>();

  constructor(
    private readonly ports: DownloadPorts,
    /** The cache folder, memory-folder relative. */
    private readonly folder = '.engram/runtime',
  ) {}

  /** The file's bytes: from the cache, or downloaded (asking first). Throws when refused or wrong. */
  async get(file: PinnedFile): Promise<Uint8Array> {
    return (await this.getAll([file]))[0]!;
  }

  /** Files needed together: one question for those neither cached nor agreed to before. */
  async getAll(files: PinnedFile[]): Promise<Uint8Array[]> {
    const cached = await Promise.all(files.map((f) => this.cached(f)));
    const toAsk = files.filter((f, i) => !cached[i] && !this.ports.allowed(f.name));
    if (toAsk.length > 0) {
      if (!(await this.ports.ask(toAsk))) throw new EngramError(`${toAsk.map((f) => f.name).join(', ')} ${toAsk.length > 1 ? 'were' : 'was'} not downloaded (${toAsk[0]!.purpose} needs ${toAsk.length > 1 ? 'them' : 'it'})`);
      for (const f of toAsk) this.ports.remember(f.name);
    }
    return Promise.all(files.map((f, i) => (cached[i] ? Promise.resolve(cached[i]) : this.fetchOnce(f))));
  }

  private fetchOnce(file: PinnedFile): Promise<Uint8Array> {
    let pending = this.inFlight.get(file.name);
    if (!pending) {
      pending = this.download(file).finally(() => this.inFlight.delete(file.name));
      this.inFlight.set(file.name, pending);
    }
    return pending;
  }

  /** Whether the file is in the cache with the right hash (nothing is asked or fetched). */
  async cached(file: PinnedFile): Promise<Uint8Array | null> {
    const bytes = await this.ports.read(`${this.folder}/${file.name}`);
    return bytes && bytes.length === file.bytes && sha256Of(bytes) === file.sha256 ? bytes : null;
  }

  private async download(file: PinnedFile): Promise<Uint8Array> {
    let response: { status: number; bytes: Uint8Array };
    try {
      response = await this.ports.fetch(file.url);
    } catch (error) {
      throw new EngramError(`could not download ${file.name} from ${file.url}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (response.status !== 200) throw new EngramError(`could not download ${file.name} from ${file.url}: HTTP ${response.status}`);
    const hash = sha256Of(response.bytes);
    if (hash !== file.sha256) throw new EngramError(`${file.name} from ${file.url} does not match its pinned SHA-256 (got ${hash.slice(0, 16)}…, expected ${file.sha256.slice(0, 16)}…): nothing was saved`);
    await this.ports.write(`${this.folder}/${file.name}`, response.bytes);
    return response.bytes;
  }
}
