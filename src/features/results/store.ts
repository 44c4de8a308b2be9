import { create } from 'zustand';
import { ResultsFilesClient } from '../../worker/resultsClient';
import type {
  DashboardFigures,
  FileOutcome,
  FileProblem,
  IrtBody,
  IrtResult,
  MergedSummary,
  ReadResultsResult,
  ResultsSource,
} from '../../worker/resultsProtocol';
import { isCancelled } from '../../worker/rpc';
import { formatBytes } from '../../core/util/format';
import type { GroupBy, ParticipantRow } from '../../study/results/figures';
import { DEFAULT_COLLECT, type CollectionSummary, type JudgeOptions } from '../../study/collect/collect';
import type { ResumedMode } from '../../study/results/resumed';
import type { ParticipantThreshold } from '../../study/results/thresholds';

export type { FileProblem };

/** A file as listed: counts when read, its problem when refused. */
export type LoadedFile = FileOutcome;

export interface ResultsState {
  /** Every file the dashboard holds (Blobs: handles, not copies), in the order loaded. */
  readonly sources: readonly ResultsSource[];
  /** Every file loaded (or refused), in the order loaded; a name loaded again replaces its entry. */
  readonly files: readonly LoadedFile[];
  /** The good files merged (one row per session_id and trial_index), in numbers: the rows stay in the worker. */
  readonly merged: MergedSummary;
  /** Names the merge for the worker (which then does not send the participants again). */
  readonly mergedKey: string | null;
  /** One line per session, with its flags (computed in the worker). */
  readonly participants: readonly ParticipantRow[];
  /** Each adaptive session's stored threshold (the rows' estimate columns, read in the worker). */
  readonly thresholds: readonly ParticipantThreshold[];
  /** The figures of the last view computed (its grouping may lag `groupBy` while the worker works). */
  readonly figures: DashboardFigures;
  /** A failure of the reader that no file's line can carry (e.g. while regrouping). */
  readonly readError: string | null;
  /** Names being read now. */
  readonly reading: readonly string[];
  /** Bytes read of the files being read. */
  readonly progress: { readonly done: number; readonly total: number } | null;
  /** The worker is reading, merging or computing figures (for a large study, regrouping takes a while too). */
  readonly computing: boolean;
  /** How long the last load took to read and merge, ms (shown, so large files can be judged). */
  readonly lastLoadMs: number | null;
  readonly groupBy: GroupBy;
  /** Leave flagged participants out of the figures. */
  readonly excludeFlagged: boolean;
  /** What the figures do with resumed trials; not sent to the worker, whose figures come with and without them. */
  readonly resumedMode: ResumedMode;
  /** Paraphrase collection: the figures of the collected stories and reviews, or null for none. */
  readonly collection: CollectionSummary | null;
  /** Every row is a collection trial: the puzzle figures are not shown. */
  readonly collectionOnly: boolean;
  /** How stories are judged: reviews needed and the agreement rule (`templates collect`'s flags). */
  readonly judge: JudgeOptions;
  readonly server: { readonly status: 'idle' | 'fetching' | 'done' | 'error'; readonly message: string };
}

export interface ResultsActions {
  importFiles(files: readonly File[]): Promise<void>;
  /** Adds a file already in memory (the server's reply); resolves with its line. */
  addBlob(name: string, data: Blob): Promise<LoadedFile | undefined>;
  fetchFromServer(server: string, token: string, study: string): Promise<void>;
  setGroupBy(by: GroupBy): void;
  setExcludeFlagged(on: boolean): void;
  setResumedMode(mode: ResumedMode): void;
  setJudge(judge: JudgeOptions): void;
  remove(name: string): Promise<void>;
  clear(): void;
}

const EMPTY: MergedSummary = { rows: 0, sessions: 0, duplicates: 0, conflicts: 0, firstConflicts: [] };
const NO_FIGURES: DashboardFigures = { view: { by: 'k', excludeFlagged: false }, groups: [], items: [], answered: [] };

/** Replaces entries of the same name, keeping the rest in their order. */
function withSources(sources: readonly ResultsSource[], added: readonly ResultsSource[]): ResultsSource[] {
  const names = new Set(added.map((f) => f.name));
  return [...sources.filter((f) => !names.has(f.name)), ...added];
}

let nextStamp = 1;
const sourceOf = (name: string, data: Blob): ResultsSource => ({ name, data, stamp: nextStamp++ });

/** The reader of result files; tests put an in-process one here. */
let reader: Pick<ResultsFilesClient, 'read'> | null = null;
export function setResultsReader(r: Pick<ResultsFilesClient, 'read'> | null): void {
  reader = r;
}
const theReader = () => (reader ??= new ResultsFilesClient());

/**
 * Item response theory over the merge the reader's worker holds (the IRT panel); null when the
 * reader is a test's stand-in without it.
 */
export function readerIrt(body: IrtBody): Promise<IrtResult> | null {
  const r = theReader();
  return 'irt' in r && typeof r.irt === 'function' ? (r as ResultsFilesClient).irt(body) : null;
}

/**
 * The line for a file the worker never answered for (it crashed, e.g. out of memory, or could not
 * start): named, with its size, so the researcher knows which file and why.
 */
function unread(source: ResultsSource, why: string): LoadedFile {
  const message = `${source.name}: could not be read (${formatBytes(source.data.size)}): ${why}`;
  return { name: source.name, ok: false, problem: { file: source.name, row: null, column: null, line: null, message } };
}

/** An export with no rows is a few hundred bytes; anything longer is left to the worker. */
const EMPTY_EXPORT_MAX_BYTES = 16_384;

/** A JSON export with no rows (a study nobody has taken yet): a state to report, not a bad file. */
async function emptyExport(data: Blob): Promise<boolean> {
  if (data.size > EMPTY_EXPORT_MAX_BYTES) return false;
  try {
    const doc = JSON.parse(await data.text()) as { rows?: unknown };
    return Array.isArray(doc.rows) && doc.rows.length === 0;
  } catch {
    return false;
  }
}

/** The URL of the server's JSON export (server/app.ts: `GET /api/results.json[?study=<id>]`). */
export function exportUrl(server: string, study: string): string {
  const base = new URL(server.endsWith('/') ? server : `${server}/`);
  const url = new URL('api/results.json', base);
  if (study.trim() !== '') url.searchParams.set('study', study.trim());
  return url.href;
}

/**
 * The dashboard's state, feature-local. Result files are read and merged, and the figures
 * computed, in a worker (`src/worker/results.worker.ts`): the page holds the files' Blobs and
 * receives a line per file, the merge's counts, the participants (once per set of files) and the
 * figures of the chosen view; the rows themselves stay in the worker. Every read ends the "Reading…" line, with figures or a message.
 */
export const useResults = create<ResultsState & ResultsActions>()((set, get) => {
  /** Reads the given list of files (all the dashboard holds) and puts the outcome in the state. */
  async function load(sources: readonly ResultsSource[], names: readonly string[]): Promise<void> {
    set({ sources, reading: names, progress: null, computing: true });
    const started = performance.now();
    const { groupBy: by, excludeFlagged, judge: collect, mergedKey: have } = get();
    let result: ReadResultsResult;
    try {
      result = await theReader().read({ sources, view: { by, excludeFlagged, collect }, have }, (done, total) =>
        set({ progress: { done, total } }),
      );
    } catch (e) {
      if (isCancelled(e)) return; // a newer read took over, and will end the reading line
      // The worker failed (crashed, out of memory, could not start): the files just added are
      // refused by name; the ones read before stay listed, and are read again next time.
      const why =
        e instanceof Error && e.name === 'WorkerCrash'
          ? `the file reader stopped (${e.message}); the browser may have run out of memory`
          : e instanceof Error
            ? e.message
            : String(e);
      const added = sources.filter((s) => names.includes(s.name));
      set({
        sources: sources.filter((s) => !names.includes(s.name)),
        files: [...get().files.filter((f) => !names.includes(f.name)), ...added.map((s) => unread(s, why))],
        reading: [],
        progress: null,
        computing: false,
        readError: added.length ? null : `The figures could not be computed: ${why}`,
      });
      return;
    }
    // Files refused because the reader crashed are not in the worker's list: they stay until removed.
    const listed = new Set(sources.map((s) => s.name));
    set({
      files: [...result.files, ...get().files.filter((f) => !f.ok && !listed.has(f.name))],
      merged: result.summary,
      ...(result.participants ? { participants: result.participants, mergedKey: result.key } : {}),
      figures: result.figures,
      collection: result.collection,
      collectionOnly: result.collectionOnly,
      thresholds: result.thresholds,
      readError: null,
      reading: [],
      progress: null,
      computing: false,
      // The time shown is a load's (reading new files), not a regrouping's.
      ...(names.length > 0 ? { lastLoadMs: performance.now() - started } : {}),
    });
  }

  return {
    sources: [],
    files: [],
    merged: EMPTY,
    mergedKey: null,
    participants: [],
    thresholds: [],
    figures: NO_FIGURES,
    readError: null,
    reading: [],
    progress: null,
    computing: false,
    lastLoadMs: null,
    groupBy: 'k',
    excludeFlagged: false,
    resumedMode: 'include',
    collection: null,
    collectionOnly: false,
    judge: { minReviews: DEFAULT_COLLECT.minReviews, agree: DEFAULT_COLLECT.agree },
    server: { status: 'idle', message: '' },

    async importFiles(list) {
      if (list.length === 0) return;
      const added = list.map((f) => sourceOf(f.name, f));
      await load(withSources(get().sources, added), [...new Set([...get().reading, ...list.map((f) => f.name)])]);
    },

    async addBlob(name, data) {
      await load(withSources(get().sources, [sourceOf(name, data)]), [...get().reading, name]);
      return get().files.find((f) => f.name === name);
    },

    async fetchFromServer(server, token, study) {
      let url: string;
      try {
        url = exportUrl(server, study);
      } catch {
        set({
          server: { status: 'error', message: `"${server}" is not a server address (e.g. http://127.0.0.1:8080)` },
        });
        return;
      }
      set({ server: { status: 'fetching', message: `Fetching ${url}…` } });
      let res: Response;
      try {
        res = await fetch(url, { headers: { Authorization: `Bearer ${token.trim()}` }, cache: 'no-store' });
      } catch {
        set({
          server: { status: 'error', message: `Could not reach ${url} (is the server running, and on this address?)` },
        });
        return;
      }
      if (!res.ok) {
        let reason = '';
        try {
          const body = (await res.json()) as { error?: unknown };
          if (typeof body.error === 'string') reason = `: ${body.error}`;
        } catch {
          // Not JSON: the status says enough.
        }
        const hint = res.status === 401 ? ' (check the token: the server prints where its token file is)' : '';
        set({ server: { status: 'error', message: `The server answered ${res.status}${reason}${hint}` } });
        return;
      }
      // A Blob: the reply's bytes go to the worker without becoming a string on this thread.
      const data = await res.blob();
      if (await emptyExport(data)) {
        set({
          server: {
            status: 'done',
            message: `The server has no rows yet for ${study.trim() ? `study ${study.trim()}` : 'any study'}`,
          },
        });
        return;
      }
      const name = `${new URL(url).host} ${study.trim() ? `study ${study.trim()}` : 'all studies'}.json`;
      const entry = await get().addBlob(name, data);
      set({
        server: entry?.ok
          ? { status: 'done', message: `Fetched ${entry.rows} rows from ${url}` }
          : {
              status: 'error',
              message: `The server's reply could not be read: ${entry?.ok === false ? entry.problem.message : ''}`,
            },
      });
    },

    // A new view: the worker computes its figures from the rows it holds (nothing is read again).
    setGroupBy(groupBy) {
      set({ groupBy });
      void load(get().sources, get().reading);
    },
    setExcludeFlagged(excludeFlagged) {
      set({ excludeFlagged });
      void load(get().sources, get().reading);
    },
    setResumedMode(resumedMode) {
      set({ resumedMode });
    },
    setJudge(judge) {
      set({ judge });
      void load(get().sources, get().reading);
    },
    async remove(name) {
      set({ files: get().files.filter((f) => f.name !== name) });
      await load(
        get().sources.filter((s) => s.name !== name),
        get().reading.filter((n) => n !== name),
      );
    },
    clear() {
      set({
        files: [],
        merged: EMPTY,
        mergedKey: null,
        participants: [],
        thresholds: [],
        figures: NO_FIGURES,
        collection: null,
        collectionOnly: false,
        readError: null,
        lastLoadMs: null,
        server: { status: 'idle', message: '' },
      });
      // The worker forgets the files too (and a read under way is superseded).
      void load([], []);
    },
  };
});
