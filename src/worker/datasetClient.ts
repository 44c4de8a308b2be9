import {
  CLUTRR_CSV_HEADER,
  datasetConfig,
  type DatasetPlan,
  datasetStem,
  planDataset,
  type PlannedJob,
} from '../core/formats/datasetFolder';
import type { DatasetSpec } from '../core/puzzle/dataset';
import {
  addFactsTold,
  type FactsTold,
  factsToldConfig,
  NO_FACTS_TOLD,
  type TextSettings,
  type TemplateSource,
} from '../core/text/datasetText';
import { type DatasetCommands, type GenerateResult, PREVIEW_ROWS_PER_JOB, type PreviewRow } from './datasetProtocol';
import { CancelledError, RpcClient, type WorkerLike } from './rpc';

/**
 * The dataset builder's workers: generation spreads whole jobs (one task of one split) over up
 * to `size` workers — rows are fixed by their seeds, so the split changes nothing — and each job's
 * rows arrive as CSV bytes that the page keeps as Blobs (which the browser may hold on disk), so
 * the page's heap does not grow with the dataset. Downloads are Blobs made of those Blobs; the zip
 * is deflated in a worker a piece at a time and streamed back.
 */

/**
 * Workers to use: one per job, at most 4, and one core fewer than the machine has, so the page
 * keeps a core to itself (at least 1). Measured on 2 cores: 2 workers starve the main thread
 * into 60–200 ms tasks while 10,000 rows are made; 1 worker leaves none over 50 ms, and is as
 * fast, since the two cores were already shared with the page.
 */
export function poolSize(jobs: number, cores: number | undefined): number {
  return Math.max(1, Math.min(jobs, 4, (cores ?? 2) - 1));
}

export interface GenerateCallbacks {
  /** Progress of one job, in rows. */
  onProgress?: (job: PlannedJob, done: number, total: number) => void;
  /** Preview rows of a job, in row order (the first PREVIEW_ROWS_PER_JOB of each job). */
  onRows?: (job: PlannedJob, rows: readonly PreviewRow[]) => void;
  /** A job has all its rows; `result` counts its patterns. */
  onJobDone?: (job: PlannedJob, result: GenerateResult) => void;
}

/** A finished generation: every job's CSV records, as Blobs. */
export interface DatasetRun {
  readonly spec: DatasetSpec;
  readonly plan: DatasetPlan;
  /** The renderer in words, and what config.json records of it. */
  readonly renderer: string;
  readonly describe: Readonly<Record<string, unknown>>;
  /** How many facts the template file, our bank and plain sentences told, over every job. */
  readonly told: FactsTold;
  readonly workers: number;
  /** Each job's CSV records (no header), index values from the job's offset in its file. */
  readonly records: ReadonlyMap<string, Blob>;
}

type Client = RpcClient<DatasetCommands>;

export class DatasetPool {
  private readonly clients: Client[];
  private active: { cancel: () => void } | null = null;

  constructor(
    spawn: () => WorkerLike,
    readonly size: number,
  ) {
    this.clients = Array.from({ length: Math.max(1, size) }, () => new RpcClient(spawn, 'dataset worker'));
  }

  /**
   * Generates every job of `spec`. Rejects with the engine's error (e.g. GenerationError) on the
   * first failing job, after stopping the others; `cancel` rejects with CancelledError.
   */
  generate(
    spec: DatasetSpec,
    text: TextSettings,
    cb: GenerateCallbacks = {},
    templates?: TemplateSource,
    options: { readonly templatesOnly?: boolean } = {},
  ): { promise: Promise<DatasetRun>; cancel: () => void } {
    this.active?.cancel();
    const plan = planDataset(spec);
    const workers = Math.min(this.clients.length, Math.max(1, plan.jobs.length));
    const queue = [...plan.jobs];
    const records = new Map<string, Blob>();
    let renderer = '';
    let describe: Readonly<Record<string, unknown>> = {};
    let told = NO_FACTS_TOLD;
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
        const parts: Blob[] = [];
        let made = 0;
        const { promise } = this.clients[w]!.request(
          'generate',
          {
            spec,
            job: { task: j.task, split: j.split },
            text,
            indexStart: j.fileOffset,
            previewRows: PREVIEW_ROWS_PER_JOB,
            ...(templates ? { templates } : {}),
            ...(templates && options.templatesOnly ? { templatesOnly: true } : {}),
          },
          {
            onProgress: (done, total) => cb.onProgress?.(j, done, total),
            onChunk: (chunk) => {
              parts.push(new Blob([chunk.csv as Uint8Array<ArrayBuffer>]));
              made += chunk.rows;
              if (chunk.preview.length > 0) cb.onRows?.(j, chunk.preview);
            },
          },
        );
        const result = await promise;
        if (result.rows !== j.rows || made !== j.rows) {
          throw new Error(`task ${j.key} gave ${made} rows, expected ${j.rows}`);
        }
        records.set(j.key, new Blob(parts, { type: 'text/csv' }));
        renderer = result.renderer;
        describe = result.describe;
        told = addFactsTold(told, result.told);
        cb.onJobDone?.(j, result);
      }
    };
    const cancel = () => stop(new CancelledError('generation cancelled'));
    const promise = Promise.all(used.map((_, w) => lane(w)))
      .then((): DatasetRun => ({ spec, plan, renderer, describe, told, workers, records }))
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

  /** One file of the dataset folder: the header, then each of its jobs' records. */
  folderFile(run: DatasetRun, name: string): Blob {
    const file = run.plan.files.find((f) => f.name === name);
    if (!file) throw new Error(`no file ${name} in this dataset`);
    return new Blob([CLUTRR_CSV_HEADER, ...file.jobs.map((k) => jobRecords(run, k))], { type: 'text/csv' });
  }

  /**
   * Every row in one CSV (train rows, then each test task), indexed 0..n-1. Only test files
   * restart their index, so only their records pass through a worker to be renumbered.
   */
  async allRowsCsv(run: DatasetRun, onProgress?: (done: number, total: number) => void): Promise<Blob> {
    const parts: Blob[] = [new Blob([CLUTRR_CSV_HEADER])];
    for (const job of run.plan.jobs) {
      const records = jobRecords(run, job.key);
      if (job.fileOffset === job.allOffset) {
        parts.push(records);
        continue;
      }
      const pieces: Blob[] = [];
      await this.clients[0]!.request(
        'reindex',
        { parts: [{ records, indexStart: job.allOffset }] },
        { onChunk: (bytes) => pieces.push(new Blob([bytes as Uint8Array<ArrayBuffer>])), onProgress },
      ).promise;
      parts.push(new Blob(pieces));
    }
    return new Blob(parts, { type: 'text/csv' });
  }

  /** The dataset folder as a zip: `<stem>/<train file>`, one test file per task, config.json. */
  async folderZip(run: DatasetRun, onProgress?: (done: number, total: number) => void): Promise<Blob> {
    const stem = datasetStem(run.spec);
    const files = run.plan.files.map((f) => ({ path: `${stem}/${f.name}`, parts: [this.folderFile(run, f.name)] }));
    files.push({
      path: `${stem}/config.json`,
      parts: [new Blob([datasetConfig(run.spec, { ...run.describe, facts_told: factsToldConfig(run.told) })])],
    });
    const pieces: Blob[] = [];
    await this.clients[0]!.request(
      'zip',
      { files },
      { onChunk: (bytes) => pieces.push(new Blob([bytes as Uint8Array<ArrayBuffer>])), onProgress },
    ).promise;
    return new Blob(pieces, { type: 'application/zip' });
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

function jobRecords(run: DatasetRun, key: string): Blob {
  const blob = run.records.get(key);
  if (!blob) throw new Error(`the rows of ${key} are missing; generate the dataset again`);
  return blob;
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
