import type { Command, Requests, WorkerRequest, WorkerResponse } from './protocol';

/** A request the worker refused: the message is meant for the user. */
export class WorkerError extends Error {
  constructor(
    message: string,
    readonly kind: string,
  ) {
    super(message);
    this.name = kind;
  }
}

/** The request was cancelled or superseded before the worker answered. */
export class CancelledError extends Error {
  override name = 'CancelledError';
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Promise-based client for the generator worker: each request gets an id; answers to requests
 * that were cancelled (or superseded through `latest`) are dropped.
 */
export class GeneratorClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly latestByKey = new Map<string, number>();

  constructor(private readonly worker: Worker) {
    worker.onmessage = (e: MessageEvent<WorkerResponse>) => this.receive(e.data);
    worker.onerror = (e) => {
      for (const [id, p] of this.pending) {
        p.reject(new WorkerError(e.message || 'the generator worker failed', 'WorkerCrash'));
        this.pending.delete(id);
      }
    };
  }

  /** Sends a command; resolves with its result. */
  request<C extends Command>(
    command: C,
    body: Requests[C]['body'],
    onProgress?: (done: number, total: number) => void,
  ): { id: number; promise: Promise<Requests[C]['result']> } {
    const id = this.nextId++;
    const promise = new Promise<Requests[C]['result']>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress });
    });
    this.worker.postMessage({ id, command, body } as WorkerRequest);
    return { id, promise };
  }

  /** Like request, but a newer call with the same key cancels the older one. */
  latest<C extends Command>(key: string, command: C, body: Requests[C]['body']): Promise<Requests[C]['result']> {
    const previous = this.latestByKey.get(key);
    if (previous !== undefined) this.cancel(previous);
    const { id, promise } = this.request(command, body);
    this.latestByKey.set(key, id);
    return promise;
  }

  /** Rejects the request with CancelledError and drops its answer when it arrives. */
  cancel(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.reject(new CancelledError('cancelled'));
  }

  terminate(): void {
    for (const id of [...this.pending.keys()]) this.cancel(id);
    this.worker.terminate();
  }

  private receive(msg: WorkerResponse): void {
    const p = this.pending.get(msg.id);
    if (!p) return; // stale or cancelled
    if ('progress' in msg) {
      p.onProgress?.(msg.progress.done, msg.progress.total);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new WorkerError(msg.error, msg.kind));
  }
}

/** The app's generator worker (module worker, bundled by Vite). */
export function createGeneratorClient(): GeneratorClient {
  return new GeneratorClient(new Worker(new URL('./generator.worker.ts', import.meta.url), { type: 'module' }));
}
