import type { AuditedRow, KCounts, VerdictCounts } from '../core/formats/audit';
import type { StoryStatsTallies } from '../core/formats/storyStats';

/**
 * Messages of the audit worker (`audit.worker.ts`), served through `rpc.ts`: one command,
 * `audit`, that reads dropped CSV files and zips as streams and answers with chunks: rows as
 * they are checked (only those the page will keep), and for each file when it is done its story
 * statistics (if it was read whole) then its counts.
 */

/** How many rows the page still keeps: the first rows of any verdict, then rows that are not entailed. */
export interface RowBudget {
  readonly first: number;
  readonly notEntailed: number;
}

export interface AuditBody {
  /** Dropped files: CSV files or zips of them (a File is a Blob, and clones to the worker). */
  readonly files: readonly { readonly name: string; readonly data: Blob }[];
  readonly keep: RowBudget;
}

/** A malformed file, as CsvFormatError names it. */
export interface FormatProblem {
  /** The full message: `file, row 2, column story_edges: …` */
  readonly message: string;
  readonly detail: string;
  readonly file?: string;
  /** 1-based data row. */
  readonly row?: number;
  readonly column?: string;
}

/** One file read whole: its counts over every row, or the problem that rejected it (then all counts are 0). */
export interface AuditedFile extends VerdictCounts {
  /** The file's name; `<zip>/<path in zip>` for a zip entry. */
  readonly name: string;
  readonly byK: readonly KCounts[];
  /** How many of its rows were sent to the page. */
  readonly kept: number;
  readonly error?: FormatProblem;
}

export type AuditChunk =
  /** Rows of the file being read, in file order; dropped by the page if the file turns out malformed. */
  | { readonly kind: 'rows'; readonly file: string; readonly rows: readonly AuditedRow[] }
  /**
   * The story statistics (`storyStats.ts`) of a file read whole, over every row, sent just
   * before its `file` chunk; tallies, so that the page adds files up exactly.
   */
  | { readonly kind: 'stats'; readonly file: string; readonly stats: StoryStatsTallies }
  /** A file is done (for a zip: each entry, by name, once the whole zip is read). */
  | { readonly kind: 'file'; readonly file: AuditedFile };

export interface AuditResult {
  /** In the order they were reported. */
  readonly files: readonly AuditedFile[];
}

export type AuditCommands = {
  audit: { body: AuditBody; chunk: AuditChunk; result: AuditResult };
};
