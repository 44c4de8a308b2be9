import type { MergedResults } from '../study/resultsFile';

/**
 * Messages of the results worker (`results.worker.ts`), served through `rpc.ts`: one command,
 * `read`, that reads result files (CSV or JSON, streamed from their Blobs) and merges them, so
 * the page receives only the merged rows and a line per file.
 *
 * A request always lists every file the dashboard holds, in order; the worker re-reads only
 * those it has not read under the same `stamp` (so a worker that was restarted after a crash
 * simply reads them all again) and forgets the ones no longer listed.
 */

/** A file the dashboard holds: a File from the drop zone, or a Blob of a server's reply. */
export interface ResultsSource {
  readonly name: string;
  readonly data: Blob;
  /** Changes whenever the page hands a new content under the same name. */
  readonly stamp: number;
}

export interface ReadResultsBody {
  readonly sources: readonly ResultsSource[];
}

/** A file that could not be read: where and why (a ResultsFileError's parts). */
export interface FileProblem {
  readonly file: string;
  readonly row: number | null;
  readonly column: string | null;
  readonly line: number | null;
  readonly message: string;
}

/** One file as the page lists it: counts when read, the problem when refused. */
export type FileOutcome =
  | {
      readonly name: string;
      readonly ok: true;
      readonly format: 'csv' | 'json';
      readonly rows: number;
      readonly sessions: number;
    }
  | { readonly name: string; readonly ok: false; readonly problem: FileProblem };

export interface ReadResultsResult {
  /** In the order of the request's sources. */
  readonly files: readonly FileOutcome[];
  /** The files read merged (`mergeResults`): one row per (session_id, trial_index). */
  readonly merged: MergedResults;
}

export type ResultsCommands = {
  /** Progress: bytes read of the files read anew, over their total size. */
  read: { body: ReadResultsBody; chunk: never; result: ReadResultsResult };
};
