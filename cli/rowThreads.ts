import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Starting the worker threads of `generate`'s row makers (cli/rowWorkers.ts), kept apart from
 * the engine so that the command line can start them before it has loaded anything else: a
 * thread's start and module load take about 100 ms, which then overlap the command's own. A
 * thread waits for its setup (the first message) before it makes rows.
 */

/** What a row-maker thread is told in workerData, so that the module knows it serves rows. */
export const ROW_MAKER_ROLE = 'clutrr-row-maker';

/**
 * Row makers to use by default: one per core (this thread and a worker thread per other core),
 * at most 4, and this thread alone on a machine of 2 cores or fewer.
 */
export const defaultWorkers = (): number => {
  const cores = availableParallelism();
  return cores <= 2 ? 1 : Math.min(4, cores);
};

/**
 * Heap limits of a row worker. A batch's text leaves the heap as bytes as it is written, so a
 * small young generation costs little in collection time and keeps each thread's memory small.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 };

const spawn = (file: string | URL): Worker =>
  // Not the parent's execArgv: flags such as --input-type (node -e) do not apply to a file.
  new Worker(file, { workerData: { role: ROW_MAKER_ROLE }, execArgv: [], resourceLimits: WORKER_LIMITS });

/** Threads started ahead of their use; unref'd until taken, so a command that fails first still exits. */
const early: Worker[] = [];

/**
 * Starts the worker threads a `generate` command line will ask for (`--workers N`, else the
 * default), running `file` (the bundled row-maker module). Anything the flag's reader would refuse
 * starts none: the command then reports it. takeRowThreads adopts them. Returns the threads waiting.
 */
export function startRowThreadsEarly(file: URL, argv: readonly string[]): readonly Worker[] {
  let workers = defaultWorkers();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = a === '--workers' ? argv[i + 1] : a.startsWith('--workers=') ? a.slice(10) : undefined;
    if (value === undefined) continue;
    workers = /^\d{1,2}$/.test(value) ? Number(value) : 0;
  }
  for (let i = 1; i < workers; i++) {
    const w = spawn(file);
    // A thread that fails before it is taken is only never sent work (it never says it is ready);
    // without a listener its error would end the process.
    w.on('error', () => undefined);
    w.unref();
    early.push(w);
  }
  return [...early];
}

/**
 * `count` row-maker threads running `file` (or the same module as its bundled entry): those
 * started early first, then new ones; early threads beyond `count` are stopped.
 */
export function takeRowThreads(file: string, count: number): Worker[] {
  const taken = early.splice(0, count);
  for (const w of taken) w.ref();
  for (const w of early.splice(0)) void w.terminate();
  while (taken.length < count) taken.push(spawn(file));
  return taken;
}
