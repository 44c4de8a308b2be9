import { create } from 'zustand';
import type { AuditedRow } from '../../core/formats/audit';
import type { StoryStatsTallies } from '../../core/formats/storyStats';
import type { AuditCommands, AuditedFile, RowBudget } from '../../worker/auditProtocol';
import { isCancelled, RpcClient, type WorkerLike } from '../../worker/rpc';

/** Rows of any verdict the page keeps for the table (the first ones read). */
export const KEEP_FIRST = 5_000;
/** All rows kept for the table: after the first KEEP_FIRST, only rows that are not entailed. */
export const KEEP_MAX = 10_000;

/**
 * The audit view's state: every imported file with its counts (or its error), and the rows the
 * table lists. Counts cover every row of every file; rows are kept only up to KEEP_MAX, so a
 * file of any size fits in the page. Feature-local, so an audit survives opening a row in the
 * explorer and coming back.
 */
export interface AuditState {
  readonly files: readonly AuditedFile[];
  /** The kept rows, in import order. */
  readonly rows: readonly AuditedRow[];
  /** Story statistics of every file read whole, by file name (over all its rows, kept or not). */
  readonly stats: ReadonlyMap<string, StoryStatsTallies>;
  /** Names being read right now. */
  readonly reading: readonly string[];
  /** Bytes read of the files being read. */
  readonly progress: { readonly done: number; readonly total: number } | null;
  /** A failure of the worker itself (not a malformed file). */
  readonly failure: string | null;
}

export interface AuditActions {
  /** Reads and checks files in the worker; a file imported again replaces its earlier version. */
  importFiles(files: readonly File[]): Promise<void>;
  /** Stops any import and forgets every file. */
  clear(): void;
}

const INITIAL: AuditState = { files: [], rows: [], stats: new Map(), reading: [], progress: null, failure: null };

/** `stats` without the files `drop` says, and with `name`'s when given. */
function statsWith(
  stats: ReadonlyMap<string, StoryStatsTallies>,
  drop: (name: string) => boolean,
  add?: readonly [string, StoryStatsTallies],
): ReadonlyMap<string, StoryStatsTallies> {
  const next = new Map([...stats].filter(([name]) => !drop(name)));
  if (add) next.set(add[0], add[1]);
  return next;
}

// Its own worker: an audit never queues behind a dataset generation.
let client: RpcClient<AuditCommands> | null = null;
const getClient = () =>
  (client ??= new RpcClient<AuditCommands>(
    () =>
      new Worker(new URL('../../worker/audit.worker.ts', import.meta.url), {
        type: 'module',
      }) as unknown as WorkerLike,
    'audit worker',
  ));

// Imports run one after another (each one's budget depends on the rows the last one kept);
// `clear` bumps the epoch so that imports queued before it do not run.
let queue: Promise<void> = Promise.resolve();
let epoch = 0;

/** Whether `name` (a file, or a zip entry `<zip>/<path>`) came from one of `names`. */
const from = (name: string, names: ReadonlySet<string>) => names.has(name) || names.has(name.split('/')[0]!);

/** What is left of the row budget once `rows` are kept. */
function budgetLeft(rows: number): RowBudget {
  const first = Math.max(0, KEEP_FIRST - rows);
  return { first, notEntailed: Math.max(0, KEEP_MAX - rows - first) };
}

export const useAudit = create<AuditState & AuditActions>()((set, get) => {
  const run = async (files: readonly File[]): Promise<void> => {
    const names = new Set(files.map((f) => f.name));
    set((s) => ({
      files: s.files.filter((f) => !from(f.name, names)),
      rows: s.rows.filter((r) => !from(r.file, names)),
      stats: statsWith(s.stats, (name) => from(name, names)),
      reading: files.map((f) => f.name),
      progress: { done: 0, total: 1 },
      failure: null,
    }));
    // A file's rows wait here until the file is done: a malformed file's rows never show.
    const pending = new Map<string, AuditedRow[]>();
    const pendingStats = new Map<string, StoryStatsTallies>();
    const { promise } = getClient().request(
      'audit',
      { files: files.map((f) => ({ name: f.name, data: f })), keep: budgetLeft(get().rows.length) },
      {
        onChunk: (chunk) => {
          if (chunk.kind === 'rows') {
            const list = pending.get(chunk.file);
            if (list) for (const r of chunk.rows) list.push(r);
            else pending.set(chunk.file, chunk.rows.slice());
            return;
          }
          if (chunk.kind === 'stats') {
            pendingStats.set(chunk.file, chunk.stats);
            return;
          }
          const file = chunk.file;
          const rows = file.error ? [] : (pending.get(file.name) ?? []);
          const stats = file.error ? undefined : pendingStats.get(file.name);
          pending.delete(file.name);
          pendingStats.delete(file.name);
          set((s) => ({
            files: [...s.files.filter((f) => f.name !== file.name), file],
            rows: [...s.rows.filter((r) => r.file !== file.name), ...rows],
            stats: statsWith(s.stats, (name) => name === file.name, stats ? [file.name, stats] : undefined),
          }));
        },
        onProgress: (done, total) => set({ progress: { done, total } }),
      },
    );
    try {
      await promise;
      set({ reading: [], progress: null });
    } catch (e) {
      set({
        reading: [],
        progress: null,
        failure: isCancelled(e) ? null : `The files could not be read: ${(e as Error).message}`,
      });
    }
  };

  return {
    ...INITIAL,

    importFiles: (files) => {
      if (files.length === 0) return queue;
      const mine = epoch;
      // An unexpected error fails its own import only, never the ones queued after it.
      queue = queue.then(() => (mine === epoch ? run(files) : undefined)).catch(() => {});
      return queue;
    },

    clear: () => {
      epoch++;
      // Terminating is the only way to stop a worker in the middle of a file.
      client?.reset();
      set(INITIAL);
    },
  };
});
