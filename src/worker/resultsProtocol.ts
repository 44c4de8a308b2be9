import type { CollectionSummary, JudgeOptions } from '../study/collect/collect';
import type { AnsweredItem, GroupBy, GroupRow, ItemRow, ParticipantRow } from '../study/results/figures';
import type { RowConflict } from '../study/results/resultsFile';
import type { IrtModel } from '../study/results/irt';
import type { IrtReport, PlacedRespondent } from '../study/results/irtRows';
import type { ParticipantThreshold } from '../study/results/thresholds';

/**
 * Messages of the results worker (`results.worker.ts`), served through `rpc.ts`: one command,
 * `read`, that reads result files (CSV or JSON, streamed from their Blobs), merges them and
 * computes the dashboard's figures (`src/study/results/figures.ts`: the bootstraps, the participants,
 * the items), so the page receives results to show, not work to do. The merged rows stay in the
 * worker: the page gets their counts, and the items people answered for asking the models.
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

/** What the figures are computed for: the grouping and whether flagged participants are left out. */
export interface DashboardView {
  readonly by: GroupBy;
  readonly excludeFlagged: boolean;
  /** How collected stories are judged (reviews needed, agreement rule), as `templates collect` does; its defaults when absent. */
  readonly collect?: JudgeOptions;
}

export interface ReadResultsBody {
  readonly sources: readonly ResultsSource[];
  readonly view: DashboardView;
  /** The `key` of the participants the page holds already: they are not sent again while it stands. */
  readonly have: string | null;
}

/** The figures of one view. */
export interface DashboardFigures {
  readonly view: DashboardView;
  readonly groups: readonly GroupRow[];
  readonly items: readonly ItemRow[];
  /** The main items people answered, for the models' comparison. */
  readonly answered: readonly AnsweredItem[];
}

/** The merge in numbers (`MergedResults` without its rows). */
export interface MergedSummary {
  readonly rows: number;
  readonly sessions: number;
  /** Rows met again with the same content. */
  readonly duplicates: number;
  /** Rows met again with different content, and the first few of them. */
  readonly conflicts: number;
  readonly firstConflicts: readonly RowConflict[];
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
  /** Names the merge (the listed files and their stamps, in order). */
  readonly key: string;
  /** The files read merged (`mergeResults`): one row per (session_id, trial_index). */
  readonly summary: MergedSummary;
  /** One line per session (`participants`), flags included; null when the page has them (`have`). */
  readonly participants: readonly ParticipantRow[] | null;
  readonly figures: DashboardFigures;
  /**
   * The collection dashboard's figures (`collectionSummary`, judged by `view.collect`) when the
   * rows hold paraphrase or review trials; null otherwise.
   */
  readonly collection: CollectionSummary | null;
  /** Every row is a collection trial (no puzzle-solving rows): the puzzle figures say nothing then. */
  readonly collectionOnly: boolean;
  /** Each adaptive session's stored threshold (`storedThresholds`), by session id; empty for other studies. */
  readonly thresholds: readonly ParticipantThreshold[];
}

/** Someone outside the study (a model) who answered some of its items, to place on its ability scale. */
export interface IrtRespondent {
  readonly id: string;
  readonly label: string;
  /** By item key (`itemKey`: puzzle_id|seed|k|task|strict): right or wrong. */
  readonly answers: readonly (readonly [string, boolean])[];
}

/**
 * `irt`: item response theory over the merged rows the worker holds (`src/study/results/irtRows.ts`),
 * for the merge named `key` (the last `read`'s); the fit is kept for the same key, model and
 * flagged choice, so placing new respondents does not fit again.
 */
export interface IrtBody {
  readonly key: string;
  readonly model: IrtModel;
  readonly excludeFlagged: boolean;
  readonly respondents: readonly IrtRespondent[];
}

export type IrtResult =
  | {
      readonly ok: true;
      readonly key: string;
      readonly report: IrtReport;
      /** The respondents that answered a fitted item, in the order asked. */
      readonly placed: readonly PlacedRespondent[];
    }
  /** No fit: the rows are not the merge asked for (`stale`), or the model cannot be fitted (why, in a sentence). */
  | { readonly ok: false; readonly key: string; readonly stale: boolean; readonly message: string };

export type ResultsCommands = {
  /** Progress: bytes read of the files read anew, over their total size. */
  read: { body: ReadResultsBody; chunk: never; result: ReadResultsResult };
};

/** The IRT command, served by the same worker (it needs the rows `read` merged). */
export type ResultsIrtCommands = {
  irt: { body: IrtBody; chunk: never; result: IrtResult };
};

/** Everything the results worker serves. */
export type ResultsWorkerCommands = ResultsCommands & ResultsIrtCommands;
