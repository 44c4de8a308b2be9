import { writeClutrrCsv } from '../core/formats/clutrrCsv';
import { datasetConfig, datasetFileNames } from '../core/formats/fromPuzzle';
import type { DatasetSpec } from '../core/puzzle/dataset';
import type { TemplateSource } from '../core/text/datasetText';
import {
  type AuditBody,
  type AuditChunk,
  type AuditResult,
  type DatasetCommand,
  type DatasetCommands,
  type DatasetJob,
  type DatasetRequest,
  type DatasetResponse,
  type DatasetText,
  type GenerateResult,
  jobKey,
  type PreviewRow,
  type WorkerProblem,
} from './datasetProtocol';

/** The part of `Worker` the client uses (tests pass an in-process fake). */
export interface WorkerLike {
  postMessage(message: DatasetRequest, transfer?: Transferable[]): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<DatasetResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
}

/** A request the worker refused; `name` is the worker-side error class, `where` its place in a file. */
export class DatasetWorkerError extends Error {
  readonly where: WorkerProblem['where'];
  constructor(problem: WorkerProblem) {
    super(problem.message);
    this.name = problem.name;
    this.where = problem.where;
  }
}

/** The request was cancelled before the worker answered. */
export class CancelledError extends Error {
  override name = 'CancelledError';
}

export const isCancelled = (e: unknown): boolean => e instanceof Error && e.name === 'CancelledError';

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: (done: number, total: number) => void;
  onChunk?: (chunk: unknown) => void;
}

export interface RequestOptions<C extends DatasetCommand> {
  onProgress?: (done: number, total: number) => void;
  onChunk?: (chunk: DatasetCommands[C]['chunk']) => void;
  transfer?: Transferable[];
}

/**
 * Promise client for one dataset worker. Each request gets an id; answers for ids no longer
 * pending (cancelled, or from a worker that was replaced) are dropped. A worker busy in a
 * synchronous generation cannot be interrupted, so `cancel` terminates it, rejects everything it
 * still owed with CancelledError, and the next request starts a fresh worker.
 */
export class DatasetWorkerClient {
  private worker: WorkerLike | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly spawn: () => WorkerLike) {}

  request<C extends DatasetCommand>(
    command: C,
    body: DatasetCommands[C]['body'],
    options: RequestOptions<C> = {},
  ): { id: number; promise: Promise<DatasetCommands[C]['result']> } {
    const id = this.nextId++;
    const promise = new Promise<DatasetCommands[C]['result']>((resolve, reject) => {
      this.pending.set(id, {
        resolve: resolve as (v: unknown) => void,
        reject,
        onProgress: options.onProgress,
        onChunk: options.onChunk as ((c: unknown) => void) | undefined,
      });
    });
    this.ensureWorker().postMessage({ id, command, body } as DatasetRequest, options.transfer ?? []);
    return { id, promise };
  }

  /** Starts the worker now (it loads its code in the background), so the first request is quick. */
  warm(): void {
    this.ensureWorker();
  }

  /** Whether this worker still owes an answer to `id`. */
  has(id: number): boolean {
    return this.pending.has(id);
  }

  /** Cancels a request (and, the worker being single-threaded, everything else it owes). */
  cancel(id: number): void {
    if (this.pending.has(id)) this.reset(new CancelledError('cancelled'));
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
      if (this.worker === w) this.receive(e.data);
    };
    w.onerror = (e) => {
      if (this.worker !== w) return;
      e.preventDefault?.();
      this.reset(
        new DatasetWorkerError({
          name: 'WorkerCrash',
          message: e.message || 'the dataset worker failed to start or crashed',
        }),
      );
    };
    this.worker = w;
    return w;
  }

  private receive(msg: DatasetResponse): void {
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
        p.reject(new DatasetWorkerError(msg.error));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Planning: where each task's rows go. Pure, shared by the pool and its tests.

export interface PlannedJob extends DatasetJob {
  readonly key: string;
  /** Exactly this many rows (generateTaskRows returns exactly trainRows / testRows). */
  readonly rows: number;
  /** The dataset-folder file the rows go into, and the index of their first row there. */
  readonly file: string;
  readonly fileOffset: number;
  /** The index of their first row in the single all-rows CSV (train rows first, then each test task). */
  readonly allOffset: number;
}

export interface DatasetPlan {
  readonly jobs: readonly PlannedJob[];
  /** Dataset-folder files in order, each with its jobs in order. */
  readonly files: readonly { readonly name: string; readonly jobs: readonly string[] }[];
  readonly totalRows: number;
}

/**
 * The jobs of a dataset in file order — train tasks (one shared file), then each test task —
 * with the row offsets that make the files identical to the CLI's (generateDataset + rowsToClutrr).
 */
export function planDataset(spec: DatasetSpec): DatasetPlan {
  const names = datasetFileNames(spec);
  const jobs: PlannedJob[] = [];
  const files: { name: string; jobs: string[] }[] = [];
  let all = 0;
  if (spec.trainTasks.length > 0) {
    const file = { name: names.train, jobs: [] as string[] };
    spec.trainTasks.forEach((task, i) => {
      const job = { task, split: 'train' as const };
      jobs.push({
        ...job,
        key: jobKey(job),
        rows: spec.trainRows,
        file: file.name,
        fileOffset: i * spec.trainRows,
        allOffset: all,
      });
      file.jobs.push(jobKey(job));
      all += spec.trainRows;
    });
    files.push(file);
  }
  spec.testTasks.forEach((task, i) => {
    const job = { task, split: 'test' as const };
    const name = names.test[i]!;
    jobs.push({ ...job, key: jobKey(job), rows: spec.testRows, file: name, fileOffset: 0, allOffset: all });
    files.push({ name, jobs: [jobKey(job)] });
    all += spec.testRows;
  });
  return { jobs, files, totalRows: all };
}

/**
 * Workers to use: one per job, at most 4, and one core fewer than the machine has, so the page
 * keeps a core to itself (at least 1). Measured on 2 cores: 2 workers starve the main thread
 * into 60–200 ms tasks while 10,000 rows are made; 1 worker leaves none over 50 ms, and is as
 * fast, since the two cores were already shared with the page.
 */
export function poolSize(jobs: number, cores: number | undefined): number {
  return Math.max(1, Math.min(jobs, 4, (cores ?? 2) - 1));
}

/** Folder (and file) name stem of a dataset download: `clutrr-lab_seed-7`. */
export function datasetStem(spec: DatasetSpec): string {
  return `clutrr-lab_seed-${
    String(spec.seed)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 60) || 'x'
  }`;
}

// ---------------------------------------------------------------------------------------------
// The pool: several workers generating whole tasks in parallel.

export interface GenerateCallbacks {
  /** Progress of one job, in that job's own units (candidates drawn; 3× the rows with `equal`). */
  onProgress?: (job: PlannedJob, done: number, total: number) => void;
  /** A chunk of a job's rows, in row order. */
  onRows?: (job: PlannedJob, rows: readonly PreviewRow[]) => void;
  /** A job has all its rows; `result` counts its patterns. */
  onJobDone?: (job: PlannedJob, result: GenerateResult) => void;
}

/** A finished generation: which worker holds which job's rows. */
export interface DatasetRun {
  readonly runId: number;
  readonly spec: DatasetSpec;
  readonly plan: DatasetPlan;
  /** The renderer in words, and what config.json records of it. */
  readonly renderer: string;
  readonly describe: Readonly<Record<string, unknown>>;
  readonly workers: number;
  readonly owner: ReadonlyMap<string, number>;
}

const encoder = new TextEncoder();

/**
 * Dataset workers: generation spreads whole tasks over up to `size` workers (rows are fixed by
 * their seeds, so the split changes nothing); serialisation happens in the worker that holds a
 * job's rows; zipping and auditing in worker 0. The main thread only moves bytes and small rows.
 */
export class DatasetPool {
  private readonly clients: DatasetWorkerClient[];
  private runCounter = 0;
  private active: { cancel: () => void } | null = null;

  constructor(
    spawn: () => WorkerLike,
    readonly size: number,
  ) {
    this.clients = Array.from({ length: Math.max(1, size) }, () => new DatasetWorkerClient(spawn));
  }

  /**
   * Generates every task of `spec`. Rejects with the engine's error (e.g. GenerationError) on
   * the first failing task, after stopping the others; `cancel` rejects with CancelledError.
   */
  generate(
    spec: DatasetSpec,
    text: DatasetText,
    cb: GenerateCallbacks = {},
    templates?: TemplateSource,
  ): { promise: Promise<DatasetRun>; cancel: () => void } {
    this.active?.cancel();
    const runId = ++this.runCounter;
    const plan = planDataset(spec);
    const workers = Math.min(this.clients.length, Math.max(1, plan.jobs.length));
    const owner = new Map<string, number>();
    const queue = [...plan.jobs];
    let renderer = '';
    let describe: Readonly<Record<string, unknown>> = {};
    let stopped = false;
    const used = this.clients.slice(0, workers);
    const stop = (reason: Error) => {
      if (stopped) return;
      stopped = true;
      for (const c of used) c.reset(reason);
    };
    const lane = async (w: number): Promise<void> => {
      for (let job = queue.shift(); job && !stopped; job = queue.shift()) {
        const j = job;
        owner.set(j.key, w);
        const { promise } = this.clients[w]!.request(
          'generate',
          { runId, spec, job: { task: j.task, split: j.split }, text, ...(templates ? { templates } : {}) },
          {
            onProgress: (done, total) => cb.onProgress?.(j, done, total),
            onChunk: (rows) => cb.onRows?.(j, rows),
          },
        );
        const result = await promise;
        if (result.rows !== j.rows) {
          throw new Error(`task ${j.key} gave ${result.rows} rows, expected ${j.rows}`);
        }
        renderer = result.renderer;
        describe = result.describe;
        cb.onJobDone?.(j, result);
      }
    };
    const cancel = () => stop(new CancelledError('generation cancelled'));
    const promise = Promise.all(used.map((_, w) => lane(w)))
      .then((): DatasetRun => ({ runId, spec, plan, renderer, describe, workers, owner }))
      .catch((e: Error) => {
        // The first failure stops the other workers; their CancelledErrors are not the story.
        stop(new CancelledError('stopped after another task failed'));
        throw e;
      })
      .finally(() => {
        if (this.active?.cancel === cancel) this.active = null;
      });
    this.active = { cancel };
    return { promise, cancel };
  }

  /** The CSV records (no header) of a job, with index values from `offset`, from the worker holding them. */
  private records(run: DatasetRun, key: string, offset: number): Promise<Uint8Array> {
    const w = run.owner.get(key);
    if (w === undefined) return Promise.reject(new Error(`no worker holds ${key}`));
    return this.clients[w]!.request('serialise', { runId: run.runId, jobKey: key, offset }).promise;
  }

  /** One file of the dataset folder as byte parts (header, then each job's records). */
  async folderFile(run: DatasetRun, name: string): Promise<Uint8Array[]> {
    const file = run.plan.files.find((f) => f.name === name);
    if (!file) throw new Error(`no file ${name} in this dataset`);
    const jobs = file.jobs.map((k) => run.plan.jobs.find((j) => j.key === k)!);
    const parts = await Promise.all(jobs.map((j) => this.records(run, j.key, j.fileOffset)));
    return [encoder.encode(writeClutrrCsv([])), ...parts];
  }

  /** Every row in one CSV (train rows, then each test task), indexed 0..n-1, as byte parts. */
  async allRowsCsv(run: DatasetRun): Promise<Uint8Array[]> {
    const parts = await Promise.all(run.plan.jobs.map((j) => this.records(run, j.key, j.allOffset)));
    return [encoder.encode(writeClutrrCsv([])), ...parts];
  }

  /** The dataset folder as a zip: `<stem>/<train file>`, one test file per task, config.json. */
  async folderZip(run: DatasetRun): Promise<Uint8Array> {
    const stem = datasetStem(run.spec);
    const files = await Promise.all(
      run.plan.files.map(async (f) => ({ path: `${stem}/${f.name}`, parts: await this.folderFile(run, f.name) })),
    );
    files.push({ path: `${stem}/config.json`, parts: [encoder.encode(datasetConfig(run.spec, { ...run.describe }))] });
    const transfer = files.flatMap((f) => f.parts.map((p) => p.buffer as ArrayBuffer));
    return this.clients[0]!.request('zip', { files }, { transfer }).promise;
  }

  /** Audits dropped files in worker 0; rows stream to `onChunk`. */
  audit(
    files: AuditBody['files'],
    onChunk: (chunk: AuditChunk) => void,
    onProgress?: (done: number, total: number) => void,
  ): { promise: Promise<AuditResult>; cancel: () => void } {
    const client = this.clients[0]!;
    const { id, promise } = client.request('audit', { files }, { onChunk, onProgress });
    return { promise, cancel: () => client.cancel(id) };
  }

  /** Starts every worker ahead of the first request. */
  warm(): void {
    for (const c of this.clients) c.warm();
  }

  /** Stops every worker (pending requests reject with CancelledError). */
  terminate(): void {
    this.active = null;
    for (const c of this.clients) c.reset();
  }
}

/** A pool of the app's dataset workers (module workers bundled by Vite), sized to the machine. */
export function createDatasetPool(size = poolSize(4, globalThis.navigator?.hardwareConcurrency)): DatasetPool {
  return new DatasetPool(
    () =>
      new Worker(new URL('./dataset.worker.ts', import.meta.url), {
        type: 'module',
        name: 'dataset',
      }) as unknown as WorkerLike,
    size,
  );
}
