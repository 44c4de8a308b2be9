import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, type Worker, workerData } from 'node:worker_threads';
import {
  type DatasetFormat,
  type DatasetJob,
  makePuzzles,
  type MadePuzzles,
  tellRowBytes,
} from '../src/core/formats/datasetFolder';
import { type DatasetSpec, taskRowNumbers } from '../src/core/puzzle/dataset';
import { datasetRenderer, type TextSettings, type TemplateSource } from '../src/core/text/datasetText';
import type { TextTally } from '../src/core/text/paraphrase';
import type { StoryRenderer } from '../src/core/text/render';
import { ROW_MAKER_ROLE, takeRowThreads } from './rowThreads';

/**
 * The CLI's row makers: the same core calls (taskRowNumbers, tellRowBytes, makePuzzles) run in
 * this thread and, when more than one maker is asked for, in worker threads of the bundled CLI
 * beside it (threads are unavailable under the test runner, which runs the TypeScript sources).
 * Each request is one batch of rows and its answer is that batch's CSV bytes (in two stages, a
 * thread's answer is the batch's puzzles, which this thread tells), so memory holds only the
 * batches in flight. Requests wait in one queue in the order they were made; whoever is
 * free takes the next one: a thread as soon as it has fewer than THREAD_DEPTH requests, this
 * thread between two turns of the event loop (so signals and replies are handled in between).
 */
export interface RowSetup {
  readonly spec: DatasetSpec;
  readonly text: TextSettings;
  readonly templates?: TemplateSource;
  /** --templates-only: a fact no paraphrase tells fails the run instead of being told plainly. */
  readonly templatesOnly?: boolean;
  /** The rows' format: CLUTRR CSV records (the default) or JSON Lines. */
  readonly format?: DatasetFormat;
}

type Request = { readonly id: number; readonly type: 'numbers'; readonly job: DatasetJob } | BatchRequest;

/** A batch of rows of one job. */
interface BatchRequest {
  readonly id: number;
  /** tell: the rows' CSV bytes; puzzles: their puzzles and story-free columns (makePuzzles), told by the asker. */
  readonly type: 'tell' | 'puzzles';
  readonly job: DatasetJob;
  readonly numbers: Int32Array;
  readonly indexStart: number;
}

/**
 * Released buffers going back to the thread that filled them, to be filled again: a batch's CSV
 * bytes, or the buffers of a batch's puzzles (a `puzzles` request's answer). Not a request: nothing
 * answers it. Without this, every batch's buffers wait for the receiving thread's collector as
 * memory outside its heap, which makes it collect more often.
 */
type Recycle =
  { readonly type: 'recycle'; readonly buffer: ArrayBuffer } | { readonly type: 'recycle'; readonly made: MadePuzzles };

/** A request before it has an id (Omit over each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

type Reply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly value: Uint8Array | Int32Array | MadePuzzles;
      /** The facts the request's stories told, by a paraphrase and plainly (a `tell` request's). */
      readonly told?: TextTally;
    }
  | { readonly id: number; readonly ok: false; readonly name: string; readonly message: string };

export interface RowMakers {
  /** How many threads make rows, this one included. */
  readonly size: number;
  /** The candidate numbers of a job's rows, in row order. */
  numbers(job: DatasetJob): Promise<Int32Array>;
  /** The CSV records of the rows with these candidate numbers (UTF-8), index values from `indexStart`. */
  tell(job: DatasetJob, numbers: Int32Array, indexStart: number): Promise<Uint8Array>;
  /**
   * The caller is done with bytes `tell` gave: their buffer goes back to the maker that filled it
   * (moved, not copied, when a thread made them), which fills it again with a later batch. Without
   * this, every batch's buffer waits to be freed by this thread's collector, and memory outside the
   * heaps grew a 300,000-row run with two threads past 160 MB.
   */
  release(bytes: Uint8Array): void;
  /** The facts the stories told so far, by a paraphrase and plainly, over every maker. */
  told(): TextTally;
  close(): Promise<void>;
}

interface Maker {
  readonly run: (req: Request) => Uint8Array | Int32Array | MadePuzzles;
  /** The CSV bytes of a batch whose puzzles were made by another thread (a `puzzles` request). */
  readonly finish: (req: BatchRequest, made: MadePuzzles) => Uint8Array;
  /** Keeps released buffers for a later batch (a few at most). */
  readonly recycle: (r: Recycle) => void;
  /** The facts told since the last call, by a paraphrase and plainly (then counted from zero). */
  readonly takeTold: () => TextTally;
}

/** Released buffers a maker keeps: the batches in flight at once are few. */
const SPARE_BUFFERS = 4;

/** The work itself, the same in a thread and in-process. */
function handler(setup: RowSetup): Maker {
  const { spec } = setup;
  // Built when first needed: a thread that only makes puzzles never tells a story.
  let renderer: StoryRenderer | null = null;
  let tally: TextTally = { template: 0, plain: 0 };
  const render = (): StoryRenderer => {
    if (renderer) return renderer;
    const made = datasetRenderer(setup.text, spec.seed, setup.templates, { templatesOnly: setup.templatesOnly });
    tally = made.tally;
    return (renderer = made.render);
  };
  const spare: ArrayBuffer[] = [];
  const spareMade: MadePuzzles[] = [];
  const recycle = (r: Recycle) => {
    if ('made' in r) {
      if (spareMade.length < SPARE_BUFFERS) spareMade.push(r.made);
    } else if (spare.length < SPARE_BUFFERS) spare.push(r.buffer);
  };
  const range = (req: BatchRequest) => ({
    spec,
    job: req.job,
    numbers: req.numbers,
    from: 0,
    to: req.numbers.length,
    indexStart: req.indexStart,
  });
  const intoBytes = () => {
    const b = spare.pop();
    return b && new Uint8Array(b);
  };
  return {
    recycle,
    takeTold: () => {
      const told = { ...tally };
      tally.template = 0;
      tally.plain = 0;
      return told;
    },
    run: (req) => {
      if (req.type === 'numbers') return Int32Array.from(taskRowNumbers(spec, req.job.task, req.job.split));
      if (req.type === 'puzzles') return makePuzzles(range(req), spareMade.pop());
      return tellRowBytes(range(req), render(), { into: intoBytes(), format: setup.format });
    },
    finish: (req, made) => tellRowBytes(range(req), render(), { into: intoBytes(), made, format: setup.format }),
  };
}

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
 * Requests a worker thread holds at once: one it works on and one waiting, so it never idles
 * while this thread is busy with a batch of its own and cannot hear it ask for more.
 */
const THREAD_DEPTH = 2;

/**
 * Starts `size` row makers: this thread, and `size - 1` worker threads when threads are available.
 * With `puzzleThread` (and one maker), the work of each row is shared instead: a worker thread
 * generates the puzzles of each batch and this thread tells them (stories, CSV, bytes). Each
 * thread then warms up only its own half of the code, which on 2 cores beats two threads making
 * whole rows for runs of tens of thousands of rows (rowThreads.ts says where). With `writerThread`,
 * the `size` makers are all worker threads and this thread makes nothing (a job's numbers
 * included): its heap then stays small whatever the run's length.
 */
export function startRowMakers(
  setup: RowSetup,
  size: number,
  options: { puzzleThread?: boolean; writerThread?: boolean } = {},
): RowMakers {
  const staged = options.puzzleThread === true && size === 1 && threadsAvailable();
  const writerOnly = !staged && options.writerThread === true && threadsAvailable();
  const threads = staged ? 1 : writerOnly ? size : threadsAvailable() ? Math.max(0, size - 1) : 0;
  // Whether this thread takes a batch's rows from the queue (staged, it tells the puzzle thread's).
  const hereMakes = !staged && !writerOnly;
  // The requests this thread takes: every one when it makes rows; staged, a job's numbers too
  // (it would wait for the puzzle thread's first batch anyway); writing only, none: with --equal a
  // job's numbers are most of a run's puzzles, made in parallel by the workers and off this heap.
  const takesHere = (req: Request): boolean => hereMakes || (staged && req.type !== 'tell');
  // Threads started early (cli/main.ts) are taken first; each is told its setup before any request.
  const workers = takeRowThreads(THIS_FILE, threads);
  for (const w of workers) w.postMessage(setup);
  let maker: Maker | null = null;
  const here = () => (maker ??= handler(setup));
  // Who filled each buffer `tell` gave (a thread, or this thread's maker), for `release`.
  const madeBy = new WeakMap<ArrayBufferLike, Worker | 'here'>();

  interface Pending {
    readonly req: Request;
    readonly resolve: (v: unknown) => void;
    readonly reject: (e: Error) => void;
  }
  const queue: Pending[] = [];
  const owed = new Map<number, Pending>();
  // Batches whose puzzles a thread made, waiting for this thread to tell them (staged only).
  const toTell: { readonly p: Pending; readonly made: MadePuzzles; readonly from: Worker }[] = [];
  // A thread is sent nothing until it says it is ready (its module loaded, its setup taken):
  // until then this thread takes every request it may (takesHere).
  const depth = new Map<Worker, number>(workers.map((w) => [w, THREAD_DEPTH]));
  let nextId = 1;
  let failure: Error | null = null;
  let localTurn: NodeJS.Immediate | null = null;
  const told: TextTally = { template: 0, plain: 0 };
  const count = (t: TextTally | undefined) => {
    if (!t) return;
    told.template += t.template;
    told.plain += t.plain;
  };
  const settle = (p: Pending, work: () => Uint8Array | Int32Array | MadePuzzles) => {
    try {
      const value = work();
      if (p.req.type === 'tell') {
        madeBy.set((value as Uint8Array).buffer, 'here');
        count(here().takeTold());
      }
      p.resolve(value);
    } catch (err) {
      p.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };

  // This thread does one piece of work per turn of the event loop, so Ctrl-C and the threads'
  // replies are handled between batches: first a batch whose puzzles have come back, else a
  // request nobody has taken.
  const takeLocal = () => {
    localTurn = null;
    const told = toTell.shift();
    if (told) {
      settle(told.p, () => here().finish(told.p.req as BatchRequest, told.made));
      if (!failure) told.from.postMessage({ type: 'recycle', made: told.made } satisfies Recycle, buffersOf(told.made));
    } else {
      const i = queue.findIndex((q) => takesHere(q.req));
      if (i >= 0) {
        const p = queue.splice(i, 1)[0]!;
        settle(p, () => here().run(p.req));
      }
    }
    pump();
  };
  const pump = () => {
    for (const w of workers) {
      while (queue.length > 0 && depth.get(w)! < THREAD_DEPTH) {
        const p = queue.shift()!;
        owed.set(p.req.id, p);
        depth.set(w, depth.get(w)! + 1);
        // Staged, a thread is asked only for a batch's puzzles; this thread tells them.
        w.postMessage(staged && p.req.type === 'tell' ? { ...p.req, type: 'puzzles' } : p.req);
      }
    }
    const local = toTell.length > 0 || queue.some((q) => takesHere(q.req));
    if (local && localTurn === null) localTurn = setImmediate(takeLocal);
  };
  const failAll = (e: Error) => {
    failure ??= e;
    for (const p of owed.values()) p.reject(e);
    owed.clear();
    for (const q of queue.splice(0)) q.reject(e);
    for (const t of toTell.splice(0)) t.p.reject(e);
  };
  for (const w of workers) {
    w.on('message', (reply: Reply | 'ready') => {
      if (reply === 'ready') {
        depth.set(w, 0);
        pump();
        return;
      }
      depth.set(w, depth.get(w)! - 1);
      const p = owed.get(reply.id);
      if (!p) return;
      owed.delete(reply.id);
      if (!reply.ok) {
        const e = new Error(reply.message);
        e.name = reply.name;
        p.reject(e);
      } else if (staged && p.req.type === 'tell') {
        toTell.push({ p, made: reply.value as MadePuzzles, from: w });
      } else {
        if (p.req.type === 'tell') madeBy.set((reply.value as Uint8Array).buffer, w);
        count(reply.told);
        p.resolve(reply.value);
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
    size: staged ? 2 : workers.length + (hereMakes ? 1 : 0),
    numbers: (job) => send<Int32Array>({ type: 'numbers', job }),
    tell: (job, numbers, indexStart) => send<Uint8Array>({ type: 'tell', job, numbers, indexStart }),
    release: (bytes) => {
      const buffer = bytes.buffer as ArrayBuffer;
      const by = madeBy.get(buffer);
      madeBy.delete(buffer);
      if (by === 'here') maker?.recycle({ type: 'recycle', buffer });
      else if (by && !failure) by.postMessage({ type: 'recycle', buffer } satisfies Recycle, [buffer]);
    },
    told: () => ({ ...told }),
    close: async () => {
      failure ??= new Error('closed');
      if (localTurn) clearImmediate(localTurn);
      for (const q of queue.splice(0)) q.reject(failure);
      for (const t of toTell.splice(0)) t.p.reject(failure);
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

// Inside a row-maker thread: take the setup (the first message), then serve requests until terminated.
if (!isMainThread && parentPort && (workerData as { role?: string } | null)?.role === ROW_MAKER_ROLE) {
  const port = parentPort;
  port.once('message', (setup: RowSetup) => serve(port, handler(setup)));
}

/** The buffers a reply moves to the other thread rather than copies. */
function buffersOf(value: Uint8Array | Int32Array | MadePuzzles): ArrayBuffer[] {
  if ('buffer' in value) return [value.buffer as ArrayBuffer];
  return [value.puzzles.buffer, value.columns.buffer, value.ends.buffer] as ArrayBuffer[];
}

function serve(port: NonNullable<typeof parentPort>, maker: Maker): void {
  port.on('message', (req: Request | Recycle) => {
    if (req.type === 'recycle') {
      maker.recycle(req);
      return;
    }
    let reply: Reply;
    try {
      const value = maker.run(req);
      reply = { id: req.id, ok: true, value, ...(req.type === 'tell' ? { told: maker.takeTold() } : {}) };
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      reply = { id: req.id, ok: false, name: e.name, message: e.message };
    }
    port.postMessage(reply, reply.ok ? buffersOf(reply.value) : []);
  });
  port.postMessage('ready');
}
