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
 * On 2 cores, the run size from which a second row-making thread pays for its own start and JIT
 * warm-up (its first few thousand rows run several times slower, while V8's compiler competes with
 * this thread for the second core). Measured on a shared 2-core VM (farm-bench, paired): 30,000
 * rows 1.46 s with one thread against 1.62 s with two; 100,000 rows 4.22 s against 3.21 s;
 * 300,000 rows 10.4–13.5 s against 6.7–7.3 s.
 */
export const SECOND_THREAD_ROWS = 50_000;

/**
 * On 2 cores, the run size from which rows are made in two stages (startRowMakers' puzzleThread:
 * a worker thread generates the puzzles and their story-free columns, this thread tells them),
 * below SECOND_THREAD_ROWS. The second thread's start and warm-up cost more than they save in a
 * short run. Measured on a shared 2-core VM (farm-bench, paired wall ratio, two stages against
 * one thread): 3,000 rows 1.23, 10,000 rows 1.11, 20,000 rows 1.00, 30,000 rows 0.91.
 */
export const PUZZLE_THREAD_ROWS = 20_000;

/** How `generate` shares the making of rows among threads. */
export interface ThreadPlan {
  /** Threads that make whole rows. */
  readonly makers: number;
  /** With one maker: a worker thread generates the puzzles and this thread tells them. */
  readonly puzzleThread: boolean;
  /** Every maker is a worker thread and this thread only writes the files; else this thread is one of the makers. */
  readonly writerThread: boolean;
}

/**
 * The plan for a run of `rows` rows on `cores` cores: one maker per core, at most 4, each a worker
 * thread, while this thread writes; on 2 cores, two makers from SECOND_THREAD_ROWS rows, and below
 * that this thread alone, with a puzzle thread from PUZZLE_THREAD_ROWS rows.
 *
 * Why this thread only writes when there are several makers: its young generation is sized by
 * V8's defaults (up to 16 MB semi-spaces), a worker's by WORKER_LIMITS. Making rows here, the
 * heap of this thread grew with the run (20 → 54 MB over a million rows; peak RSS 119 MB at
 * 300,000 rows, 138–152 at a million); writing only, it stays under 12 MB and peak RSS at
 * 113–127 MB from 300,000 rows to a million (2 cores; wall time unchanged: farm-bench paired
 * ratios 0.96 at 100,000 rows, 1.01 at 300,000, 0.93 at a million, each within its spread).
 */
export function threadPlan(cores: number, rows: number): ThreadPlan {
  if (cores > 2) return { makers: Math.min(4, cores), puzzleThread: false, writerThread: true };
  if (cores < 2) return { makers: 1, puzzleThread: false, writerThread: false };
  if (rows >= SECOND_THREAD_ROWS) return { makers: 2, puzzleThread: false, writerThread: true };
  return { makers: 1, puzzleThread: rows >= PUZZLE_THREAD_ROWS, writerThread: false };
}

/** Worker threads a plan starts: every maker with a writer thread, else all but this thread (and a puzzle thread). */
export const planThreads = (plan: ThreadPlan): number =>
  plan.writerThread ? plan.makers : plan.makers - 1 + (plan.puzzleThread && plan.makers === 1 ? 1 : 0);

/** The plan for a run of `rows` rows on this machine. */
export const defaultThreadPlan = (rows: number): ThreadPlan => threadPlan(availableParallelism(), rows);

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
/** Early threads that failed or ended before being taken. */
const gone = new WeakSet<Worker>();

/**
 * Starts the worker threads a `generate` command line may ask for (`--workers N`, with
 * `--puzzle-thread` or `--writer-thread`; else those every threaded default plan of this machine
 * uses: a thread the run turns out not to need is stopped once its row count is known), running
 * `file` (the bundled row-maker module).
 * Anything the flag's reader would refuse starts none: the command then reports it.
 * takeRowThreads adopts them. Returns the threads waiting.
 */
export function startRowThreadsEarly(file: URL, argv: readonly string[]): readonly Worker[] {
  // The threads every threaded default plan of this machine uses (on 2 cores: one, for two stages;
  // a long run's second maker is started once the row count is known: it costs little there, while
  // a thread started and then stopped costs a short run a share of its CPU).
  const cores = availableParallelism();
  let threads = Math.min(planThreads(threadPlan(cores, Infinity)), planThreads(threadPlan(cores, PUZZLE_THREAD_ROWS)));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = a === '--workers' ? argv[i + 1] : a.startsWith('--workers=') ? a.slice(10) : undefined;
    if (value === undefined) continue;
    const makers = /^\d{1,2}$/.test(value) ? Number(value) : 0;
    threads =
      makers < 1
        ? 0
        : planThreads({
            makers,
            puzzleThread: argv.includes('--puzzle-thread'),
            writerThread: argv.includes('--writer-thread'),
          });
  }
  for (let i = 0; i < threads; i++) {
    const w = spawn(file);
    // A thread that fails or ends before it is taken is left out when threads are taken (a new one
    // is started in its place): the row makers wait for a thread's first word, and would wait
    // forever on one already gone. Without a listener its error would end the process.
    w.on('error', () => gone.add(w));
    w.on('exit', () => gone.add(w));
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
  for (const w of early.filter((w) => gone.has(w))) early.splice(early.indexOf(w), 1);
  const taken = early.splice(0, count);
  for (const w of taken) w.ref();
  for (const w of early.splice(0)) void w.terminate();
  while (taken.length < count) taken.push(spawn(file));
  return taken;
}
