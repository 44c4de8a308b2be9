import type { DatasetJob } from '../core/formats/datasetFolder';
import type { DatasetSpec } from '../core/puzzle/dataset';
import type { TaskId } from '../core/puzzle/tasks';
import type { FactsTold, TextSettings, TemplateSource } from '../core/text/datasetText';
import type { Split } from '../core/text/render';

/**
 * The dataset worker's commands (served with rpc.ts): generating the rows of one job, streamed
 * to the page as CSV bytes and preview rows; zipping a dataset folder, streamed as zip bytes;
 * writing the all-rows CSV, whose index column counts across files.
 */

/** What the builder's preview table and chart need of a row; the CSV bytes carry the rest. */
export interface PreviewRow {
  readonly id: string;
  readonly split: Split;
  readonly task: TaskId;
  readonly k: number;
  /** f_comb */
  readonly pattern: string;
  readonly target: string;
  /** [first query entity, second]: "how is query[1] related to query[0]?" */
  readonly query: readonly [string, string];
  readonly story: string;
}

export interface GenerateBody {
  readonly spec: DatasetSpec;
  readonly job: DatasetJob;
  readonly text: TextSettings;
  /** Paraphrases from a template file (`--templates`) instead of our bank; ignored when synthetic. */
  readonly templates?: TemplateSource;
  /**
   * `--templates-only`: with `templates`, a fact none of its paraphrases tells fails the job
   * (MissingTemplateError, naming the row and the fact) instead of being told plainly.
   */
  readonly templatesOnly?: boolean;
  /** Index column value of the job's first row (its position in its dataset-folder file). */
  readonly indexStart: number;
  /** Preview rows are sent for the job's first this-many rows only; the CSV has them all. */
  readonly previewRows: number;
}

/** A batch of a job's rows: their CSV records (no header) and, while under the cap, previews. */
export interface GenerateChunk {
  readonly csv: Uint8Array;
  readonly rows: number;
  readonly preview: readonly PreviewRow[];
}

export interface GenerateResult {
  readonly rows: number;
  /** What config.json records of the renderer, as the CLI writes it. */
  readonly describe: Readonly<Record<string, unknown>>;
  /** How many rows have each f_comb pattern, so the page can chart them without the rows. */
  readonly patterns: readonly (readonly [string, number])[];
  /** Which renderer wrote the stories, in words. */
  readonly renderer: string;
  /** How many of the job's facts were told by the template file, by our bank and by plain sentences. */
  readonly told: FactsTold;
}

/** Files of a zip, each as the Blobs of its content in order (read and deflated a piece at a time). */
export interface ZipBody {
  readonly files: readonly { readonly path: string; readonly parts: readonly Blob[] }[];
}

/** CSV parts whose index column is rewritten to count on from `indexStart`. */
export interface ReindexBody {
  readonly parts: readonly { readonly records: Blob; readonly indexStart: number }[];
}

export type DatasetCommands = {
  generate: { body: GenerateBody; chunk: GenerateChunk; result: GenerateResult };
  zip: { body: ZipBody; chunk: Uint8Array; result: null };
  reindex: { body: ReindexBody; chunk: Uint8Array; result: null };
};

/** Rows per streamed chunk: small enough that cloning one on the main thread stays well under 50 ms. */
export const CHUNK_ROWS = 100;
/** Preview rows kept per job; the CSV files and the chart always cover every row. */
export const PREVIEW_ROWS_PER_JOB = 2000;
