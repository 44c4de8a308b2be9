import { create } from 'zustand';
import {
  mergeResults,
  readResultsFile,
  ResultsFileError,
  type MergedResults,
  type ResultsFile,
} from '../../study/resultsFile';
import type { GroupBy } from './aggregate';

/** A file that could not be read: where and why (a ResultsFileError's parts). */
export interface FileProblem {
  readonly file: string;
  readonly row: number | null;
  readonly column: string | null;
  readonly line: number | null;
  readonly message: string;
}

export type LoadedFile =
  | { readonly name: string; readonly ok: true; readonly file: ResultsFile }
  | { readonly name: string; readonly ok: false; readonly problem: FileProblem };

export interface ResultsState {
  /** Every file loaded (or refused), in the order loaded; a name loaded again replaces its entry. */
  readonly files: readonly LoadedFile[];
  /** The good files merged: one row per (session_id, trial_index). */
  readonly merged: MergedResults;
  /** Names being read now. */
  readonly reading: readonly string[];
  /** How long the last load took to read and merge, ms (shown, so large files can be judged). */
  readonly lastLoadMs: number | null;
  readonly groupBy: GroupBy;
  /** Leave flagged participants out of the figures. */
  readonly excludeFlagged: boolean;
  readonly server: { readonly status: 'idle' | 'fetching' | 'done' | 'error'; readonly message: string };
}

export interface ResultsActions {
  importFiles(files: readonly File[]): Promise<void>;
  /** Adds a file from text already in memory (the server fetch). */
  addText(name: string, text: string): void;
  fetchFromServer(server: string, token: string, study: string): Promise<void>;
  setGroupBy(by: GroupBy): void;
  setExcludeFlagged(on: boolean): void;
  remove(name: string): void;
  clear(): void;
}

const EMPTY: MergedResults = { rows: [], sessions: [], duplicates: 0, conflicts: [] };

function load(name: string, text: string): LoadedFile {
  try {
    return { name, ok: true, file: readResultsFile(name, text) };
  } catch (e) {
    if (!(e instanceof ResultsFileError)) throw e;
    return {
      name,
      ok: false,
      problem: { file: e.file, row: e.row, column: e.column, line: e.line, message: e.message },
    };
  }
}

const mergeOf = (files: readonly LoadedFile[]) => mergeResults(files.flatMap((f) => (f.ok ? [f.file] : [])));

/** Replaces entries of the same name, keeping the rest in their order. */
function withFiles(files: readonly LoadedFile[], added: readonly LoadedFile[]): LoadedFile[] {
  const names = new Set(added.map((f) => f.name));
  return [...files.filter((f) => !names.has(f.name)), ...added];
}

/** A JSON export with no rows (a study nobody has taken yet): a state to report, not a bad file. */
function emptyExport(text: string): boolean {
  try {
    const doc = JSON.parse(text) as { rows?: unknown };
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
 * The dashboard's state, feature-local: result files are read on the main thread (measured:
 * 50 participants × 55 trials, CSV and JSON, read and merged in tens of milliseconds; see the
 * README), each file in its own task so the page can paint between files.
 */
export const useResults = create<ResultsState & ResultsActions>()((set, get) => ({
  files: [],
  merged: EMPTY,
  reading: [],
  lastLoadMs: null,
  groupBy: 'k',
  excludeFlagged: false,
  server: { status: 'idle', message: '' },

  async importFiles(list) {
    if (list.length === 0) return;
    set({ reading: list.map((f) => f.name) });
    const started = performance.now();
    const loaded: LoadedFile[] = [];
    for (const f of list) {
      const text = await f.text();
      loaded.push(load(f.name, text));
      // Yield between files so the "Reading…" line and input stay live.
      await new Promise((r) => setTimeout(r, 0));
    }
    const files = withFiles(get().files, loaded);
    set({ files, merged: mergeOf(files), reading: [], lastLoadMs: performance.now() - started });
  },

  addText(name, text) {
    const started = performance.now();
    const files = withFiles(get().files, [load(name, text)]);
    set({ files, merged: mergeOf(files), lastLoadMs: performance.now() - started });
  },

  async fetchFromServer(server, token, study) {
    let url: string;
    try {
      url = exportUrl(server, study);
    } catch {
      set({ server: { status: 'error', message: `"${server}" is not a server address (e.g. http://127.0.0.1:8080)` } });
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
    const text = await res.text();
    if (emptyExport(text)) {
      set({
        server: {
          status: 'done',
          message: `The server has no rows yet for ${study.trim() ? `study ${study.trim()}` : 'any study'}`,
        },
      });
      return;
    }
    const name = `${new URL(url).host} ${study.trim() ? `study ${study.trim()}` : 'all studies'}.json`;
    get().addText(name, text);
    const entry = get().files.find((f) => f.name === name);
    set({
      server: entry?.ok
        ? { status: 'done', message: `Fetched ${entry.file.rows.length} rows from ${url}` }
        : {
            status: 'error',
            message: `The server's reply could not be read: ${entry?.ok === false ? entry.problem.message : ''}`,
          },
    });
  },

  setGroupBy: (groupBy) => set({ groupBy }),
  setExcludeFlagged: (excludeFlagged) => set({ excludeFlagged }),
  remove(name) {
    const files = get().files.filter((f) => f.name !== name);
    set({ files, merged: mergeOf(files) });
  },
  clear: () => set({ files: [], merged: EMPTY, lastLoadMs: null, server: { status: 'idle', message: '' } }),
}));
