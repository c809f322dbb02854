import type { MessageEndpoint, WorkerRequest, WorkerResponse } from './worker-protocol';

/**
 * transformers.js's cache (`env.customCache`: the `match`/`put` of the Web Cache API) inside the
 * embedding worker, answered by the plugin: a model's files are read from, and saved to, the
 * memory folder's `.engram/models/<model>/` (`localModelPath`), the layout the runner reads.
 * Keys are either local paths (under `localModelPath`) or model hub URLs
 * (`<host><model>/resolve/<revision>/<file>`), both mapped to the same vault path.
 */
export class ModelFileCache {
  private nextId = 1;
  private readonly waiting = new Map<number, (bytes: ArrayBuffer | null) => void>();
  private readonly listener = (event: { data: WorkerRequest }) => {
    const message = event.data;
    if (message.type !== 'file') return;
    this.waiting.get(message.rid)?.(message.bytes);
    this.waiting.delete(message.rid);
  };

  constructor(
    private readonly scope: MessageEndpoint<WorkerRequest, WorkerResponse>,
    private readonly localModelPath: string,
  ) {
    scope.addEventListener('message', this.listener);
  }

  /** The vault path a cache key stands for, or null. */
  pathOf(key: string): string | null {
    if (key.startsWith(this.localModelPath)) return key;
    const hub = /^https?:\/\/[^/]+\/(.+?)\/resolve\/[^/]+\/(.+)$/.exec(key);
    return hub ? `${this.localModelPath}${hub[1]}/${hub[2]}` : null;
  }

  async match(key: string): Promise<Response | undefined> {
    const path = this.pathOf(typeof key === 'string' ? key : String(key));
    if (!path) return undefined;
    const rid = this.nextId++;
    const bytes = await new Promise<ArrayBuffer | null>((resolve) => {
      this.waiting.set(rid, resolve);
      this.scope.postMessage({ type: 'file-request', rid, path });
    });
    return bytes ? new Response(bytes, { status: 200 }) : undefined;
  }

  async put(key: string, response: Response): Promise<void> {
    const path = this.pathOf(typeof key === 'string' ? key : String(key));
    if (!path) return;
    const bytes = await response.arrayBuffer();
    this.scope.postMessage({ type: 'file-store', path, bytes }, [bytes]);
  }
}
