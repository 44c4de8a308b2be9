/**
 * The one request/response protocol between the app and its workers. A worker serves a table of
 * commands (`serve`); the page talks to it through an `RpcClient`. Every request carries an id;
 * the worker answers with progress, chunks (partial results, streamed so that no single message
 * is large) and finally a result or an error, all in one envelope. Answers to requests that are
 * no longer pending (cancelled, superseded, or from a worker that was replaced) are dropped.
 *
 * A command table is a type: `{ name: { body; chunk; result } }`.
 */
export interface CommandSpec {
  readonly body: unknown;
  readonly chunk: unknown;
  readonly result: unknown;
}
export type CommandTable = { readonly [name: string]: CommandSpec };

export type RpcRequest<T extends CommandTable> = {
  [C in keyof T & string]: { readonly id: number; readonly command: C; readonly body: T[C]['body'] };
}[keyof T & string];

/** An error the worker reports: `name` is the error class (GenerationError, CsvFormatError, …). */
export interface WorkerProblem {
  readonly name: string;
  readonly message: string;
  /** Where in a file, for errors about files. */
  readonly where?: { readonly file?: string; readonly row?: number; readonly column?: string };
}

export type RpcResponse =
  | { readonly id: number; readonly type: 'progress'; readonly done: number; readonly total: number }
  | { readonly id: number; readonly type: 'chunk'; readonly chunk: unknown }
  | { readonly id: number; readonly type: 'result'; readonly result: unknown }
  | { readonly id: number; readonly type: 'error'; readonly error: WorkerProblem };

/** A request the worker refused; `name` is the worker-side error class, `where` its place in a file. */
export class WorkerError extends Error {
  readonly where: WorkerProblem['where'];
  constructor(problem: WorkerProblem) {
    super(problem.message);
    this.name = problem.name;
    this.where = problem.where;
  }
}

/** The request was cancelled, superseded or its worker stopped before it answered. */
export class CancelledError extends Error {
  override name = 'CancelledError';
}

export const isCancelled = (e: unknown): boolean => e instanceof Error && e.name === 'CancelledError';

/** Least time between two progress messages of one request. */
export const PROGRESS_INTERVAL_MS = 50;

// ---------------------------------------------------------------------------------------------
// The page's side.

/** The part of `Worker` the client uses (tests pass an in-process fake). */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  terminate(): void;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
}

export interface RequestOptions<T extends CommandTable, C extends keyof T> {
  onProgress?: (done: number, total: number) => void;
  onChunk?: (chunk: T[C]['chunk']) => void;
  transfer?: Transferable[];
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: (done: number, total: number) => void;
  onChunk?: (chunk: unknown) => void;
}

/**
 * Promise client for one worker, started on first use. `cancel(id)` drops one request's answer;
 * `reset()` terminates the worker (the only way to stop a synchronous job inside it), rejects
 * everything it still owed, and the next request starts a fresh one.
 */
export class RpcClient<T extends CommandTable> {
  private worker: WorkerLike | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly latestByKey = new Map<string, number>();

  /** `onStart` runs on each new worker before any request (e.g. to hand it state again). */
  constructor(
    private readonly spawn: () => WorkerLike,
    private readonly label = 'worker',
    private readonly onStart?: (client: RpcClient<T>) => void,
  ) {}

  request<C extends keyof T & string>(
    command: C,
    body: T[C]['body'],
    options: RequestOptions<T, C> = {},
  ): { id: number; promise: Promise<T[C]['result']> } {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    const promise = new Promise<T[C]['result']>((resolve, reject) => {
      this.pending.set(id, {
        resolve: resolve as (v: unknown) => void,
        reject,
        onProgress: options.onProgress,
        onChunk: options.onChunk as ((c: unknown) => void) | undefined,
      });
    });
    worker.postMessage({ id, command, body }, options.transfer ?? []);
    return { id, promise };
  }

  /** Like request, but a newer call with the same key cancels (drops) the older one. */
  latest<C extends keyof T & string>(key: string, command: C, body: T[C]['body']): Promise<T[C]['result']> {
    const previous = this.latestByKey.get(key);
    if (previous !== undefined) this.cancel(previous);
    const { id, promise } = this.request(command, body);
    this.latestByKey.set(key, id);
    return promise;
  }

  /** Starts the worker now (it loads its code in the background), so the first request is quick. */
  warm(): void {
    this.ensureWorker();
  }

  /** Whether the worker still owes an answer to `id`. */
  has(id: number): boolean {
    return this.pending.has(id);
  }

  /** Rejects one request with CancelledError and drops its answer when it comes. */
  cancel(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.reject(new CancelledError('cancelled'));
  }

  /** Terminates the worker; pending requests reject with `reason`. The next request respawns it. */
  reset(reason: Error = new CancelledError('cancelled')): void {
    const owed = [...this.pending.values()];
    this.pending.clear();
    this.worker?.terminate();
    this.worker = null;
    for (const p of owed) p.reject(reason);
  }

  private ensureWorker(): WorkerLike {
    if (this.worker) return this.worker;
    const w = this.spawn();
    w.onmessage = (e) => {
      if (this.worker === w) this.receive(e.data as RpcResponse);
    };
    w.onerror = (e) => {
      if (this.worker !== w) return;
      e.preventDefault?.();
      this.reset(
        new WorkerError({ name: 'WorkerCrash', message: e.message || `the ${this.label} failed to start or crashed` }),
      );
    };
    this.worker = w;
    this.onStart?.(this);
    return w;
  }

  private receive(msg: RpcResponse): void {
    const p = this.pending.get(msg.id);
    if (!p) return; // cancelled or stale
    switch (msg.type) {
      case 'progress':
        p.onProgress?.(msg.done, msg.total);
        return;
      case 'chunk':
        p.onChunk?.(msg.chunk);
        return;
      case 'result':
        this.pending.delete(msg.id);
        p.resolve(msg.result);
        return;
      case 'error':
        this.pending.delete(msg.id);
        p.reject(new WorkerError(msg.error));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The worker's side.

/** What a command handler may do besides returning its result. */
export interface ServeContext<Chunk> {
  /** Reports progress; throttled to one message per PROGRESS_INTERVAL_MS (the last always goes). */
  progress(done: number, total: number): void;
  /** Streams a partial result; `transfer` moves buffers instead of copying them. */
  chunk(chunk: Chunk, transfer?: Transferable[]): void;
  /** Buffers to move (not copy) with the final result. */
  transferResult(...buffers: Transferable[]): void;
}

export type Handlers<T extends CommandTable> = {
  [C in keyof T & string]: (
    body: T[C]['body'],
    ctx: ServeContext<T[C]['chunk']>,
  ) => T[C]['result'] | Promise<T[C]['result']>;
};

export type Post = (msg: RpcResponse, transfer?: Transferable[]) => void;

/** Turns a thrown value into the envelope's error: class name, message, and a file place if any. */
export function toProblem(err: unknown): WorkerProblem {
  const e = err instanceof Error ? err : new Error(String(err));
  const where = (e as { where?: WorkerProblem['where'] }).where;
  return where && typeof where === 'object'
    ? { name: e.name, message: e.message, where }
    : { name: e.name, message: e.message };
}

/**
 * The dispatcher of a worker: runs each request's handler and posts its answer. Exported apart
 * from `installWorker` so that tests drive the same code in Node with a fake worker.
 */
export function serve<T extends CommandTable>(
  handlers: Handlers<T>,
  post: Post,
): (req: RpcRequest<T>) => Promise<void> {
  return async (req) => {
    let last = -Infinity;
    let transfer: Transferable[] = [];
    const ctx: ServeContext<unknown> = {
      progress: (done, total) => {
        const now = performance.now();
        if (done < total && now - last < PROGRESS_INTERVAL_MS) return;
        last = now;
        post({ id: req.id, type: 'progress', done, total });
      },
      chunk: (chunk, moved) => post({ id: req.id, type: 'chunk', chunk }, moved),
      transferResult: (...buffers) => {
        transfer = buffers;
      },
    };
    try {
      const handler = handlers[req.command] as (body: unknown, c: ServeContext<unknown>) => unknown;
      if (!handler) throw new Error(`unknown command "${String(req.command)}"`);
      const result = await handler(req.body, ctx);
      post({ id: req.id, type: 'result', result }, transfer);
    } catch (err) {
      post({ id: req.id, type: 'error', error: toProblem(err) });
    }
  };
}

/** Serves `handlers` when this module runs inside a dedicated worker (a no-op elsewhere, e.g. in tests). */
export function installWorker<T extends CommandTable>(handlers: Handlers<T>): void {
  if (typeof WorkerGlobalScope === 'undefined' || !(self instanceof WorkerGlobalScope)) return;
  const scope = self as unknown as {
    postMessage(m: unknown, t: Transferable[]): void;
    onmessage: ((e: MessageEvent) => void) | null;
  };
  const dispatch = serve(handlers, (msg, moved) => scope.postMessage(msg, moved ?? []));
  scope.onmessage = (event: MessageEvent) => void dispatch(event.data as RpcRequest<T>);
}
