import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { type DatasetJob, tellRows } from '../src/core/formats/datasetFolder';
import { type DatasetSpec, taskRowNumbers } from '../src/core/puzzle/dataset';
import { datasetRenderer, type TextSettings, type TemplateSource } from '../src/core/text/datasetText';

/**
 * The CLI's row makers: the same core calls (taskRowNumbers, tellRows) run in worker threads of
 * the bundled CLI, or in this thread where threads are unavailable (under the test runner, which
 * runs the TypeScript sources) or not wanted (`--workers 1`). Each request is one batch of rows
 * and its answer is that batch's CSV text, so memory holds only the batches in flight.
 */
export interface RowSetup {
  readonly spec: DatasetSpec;
  readonly text: TextSettings;
  readonly templates?: TemplateSource;
}

type Request =
  | { readonly id: number; readonly type: 'numbers'; readonly job: DatasetJob }
  | {
      readonly id: number;
      readonly type: 'tell';
      readonly job: DatasetJob;
      readonly numbers: Int32Array;
      readonly indexStart: number;
    };

/** A request before it has an id (Omit over each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

type Reply =
  | { readonly id: number; readonly ok: true; readonly value: string | Int32Array }
  | { readonly id: number; readonly ok: false; readonly name: string; readonly message: string };

export interface RowMakers {
  readonly size: number;
  /** The candidate numbers of a job's rows, in row order. */
  numbers(job: DatasetJob): Promise<Int32Array>;
  /** The CSV records of the rows with these candidate numbers, index values from `indexStart`. */
  tell(job: DatasetJob, numbers: Int32Array, indexStart: number): Promise<string>;
  close(): Promise<void>;
}

/** The work itself, the same in a thread and in-process. */
function handler(setup: RowSetup): (req: Request) => string | Int32Array {
  const { render } = datasetRenderer(setup.text, setup.spec.seed, setup.templates);
  return (req) => {
    if (req.type === 'numbers') return Int32Array.from(taskRowNumbers(setup.spec, req.job.task, req.job.split));
    const numbers = Array.from(req.numbers);
    return tellRows(setup.spec, req.job, numbers, 0, numbers.length, render, req.indexStart, false).csv;
  };
}

const ROLE = 'clutrr-row-maker';
const THIS_FILE = (() => {
  try {
    return fileURLToPath(import.meta.url);
  } catch {
    return '';
  }
})();

/** Threads can run this module only when it is the bundle (an .mjs file), not a .ts source. */
export const threadsAvailable = (): boolean => THIS_FILE.endsWith('.mjs');

/**
 * Row makers to use by default: one per core, at most 4, and none beside this thread on a
 * machine of 2 cores or fewer. Measured on a 2-core VM: two threads made 30,000 rows no faster
 * than this thread alone and took 60% more CPU time (two processes did little better), while a
 * plain integer loop ran 2× on the same cores: the contention is in this allocation-heavy work.
 */
export const defaultWorkers = (): number => {
  const cores = availableParallelism();
  return cores <= 2 ? 1 : Math.min(4, cores);
};

/** Starts `size` row makers (threads when available and size > 1; else this thread). */
export function startRowMakers(setup: RowSetup, size: number): RowMakers {
  if (size <= 1 || !threadsAvailable()) return inProcess(setup);
  return threaded(setup, size);
}

function inProcess(setup: RowSetup): RowMakers {
  const run = handler(setup);
  // Yield to the event loop between batches so Ctrl-C is handled promptly.
  const later = <T>(f: () => T) => new Promise<T>((resolve) => setImmediate(() => resolve(f())));
  let id = 0;
  return {
    size: 1,
    numbers: (job) => later(() => run({ id: id++, type: 'numbers', job }) as Int32Array),
    tell: (job, numbers, indexStart) =>
      later(() => run({ id: id++, type: 'tell', job, numbers, indexStart }) as string),
    close: async () => undefined,
  };
}

/**
 * Heap limits of a row worker. A batch of rows is a few hundred kilobytes of live data, so a
 * small young generation costs little in collection time and keeps each thread's memory small.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 };

function threaded(setup: RowSetup, size: number): RowMakers {
  // Not the parent's execArgv: flags such as --input-type (node -e) do not apply to a file.
  const workers = Array.from(
    { length: size },
    () => new Worker(THIS_FILE, { workerData: { role: ROLE, setup }, execArgv: [], resourceLimits: WORKER_LIMITS }),
  );
  const idle: Worker[] = [...workers];
  const queue: { req: Request; resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  const owed = new Map<number, { worker: Worker; resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failure: Error | null = null;

  const pump = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const { req, resolve, reject } = queue.shift()!;
      owed.set(req.id, { worker, resolve, reject });
      worker.postMessage(req);
    }
  };
  const failAll = (e: Error) => {
    failure ??= e;
    for (const p of owed.values()) p.reject(e);
    owed.clear();
    for (const q of queue.splice(0)) q.reject(e);
  };
  for (const w of workers) {
    w.on('message', (reply: Reply) => {
      const p = owed.get(reply.id);
      if (!p) return;
      owed.delete(reply.id);
      idle.push(w);
      if (reply.ok) p.resolve(reply.value);
      else {
        const e = new Error(reply.message);
        e.name = reply.name;
        p.reject(e);
      }
      pump();
    });
    w.on('error', (e) => failAll(e));
    w.on('exit', (code) => {
      if (code !== 0) failAll(new Error(`a row worker stopped (exit code ${code})`));
    });
  }
  const send = <T>(req: WithoutId<Request>): Promise<T> =>
    failure
      ? Promise.reject(failure)
      : new Promise<T>((resolve, reject) => {
          queue.push({ req: { ...req, id: nextId++ } as Request, resolve: resolve as (v: unknown) => void, reject });
          pump();
        });
  return {
    size,
    numbers: (job) => send<Int32Array>({ type: 'numbers', job }),
    tell: (job, numbers, indexStart) => send<string>({ type: 'tell', job, numbers, indexStart }),
    close: async () => {
      failure ??= new Error('closed');
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

// Inside a row-maker thread: serve requests until terminated.
if (!isMainThread && parentPort && (workerData as { role?: string } | null)?.role === ROLE) {
  const port = parentPort;
  const run = handler((workerData as { setup: RowSetup }).setup);
  port.on('message', (req: Request) => {
    let reply: Reply;
    try {
      reply = { id: req.id, ok: true, value: run(req) };
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      reply = { id: req.id, ok: false, name: e.name, message: e.message };
    }
    port.postMessage(reply, reply.ok && typeof reply.value !== 'string' ? [reply.value.buffer as ArrayBuffer] : []);
  });
}
