import type { ClutrrRow } from '../core/formats/clutrrRow';
import type { DatasetSpec } from '../core/puzzle/dataset';
import type { TaskId, TaskSpec } from '../core/puzzle/tasks';
import type { Verdict } from '../core/reasoning/solver';
import type { Split } from '../core/text/render';

/**
 * Typed messages between the app and the dataset worker (dataset.worker.ts): generating a
 * dataset's rows, serialising them to CSV, zipping a dataset folder, and auditing imported CSV
 * files or zips. Every request carries an id; the worker answers with progress, chunks (partial
 * results, streamed so that no single message is large) and finally a result or an error.
 */

/**
 * How the stories of a dataset are written: the CLI's text flags. `synthetic` (--synthetic): one
 * plain sentence per fact, the other two ignored. Otherwise paraphrases from the clutrr-lab
 * bank, up to `combinationLength` consecutive facts per paraphrase (--combination-length), and
 * with `templateSplit` (--template-split) 20% of every paraphrase list held out for the test
 * rows, split by the dataset's seed.
 */
export { type DatasetText, DEFAULT_DATASET_TEXT } from '../core/text/datasetText';
import type { DatasetText, TemplateSource } from '../core/text/datasetText';

/** One unit of work: the rows of one task of one split (a worker always generates whole tasks). */
export interface DatasetJob {
  readonly task: TaskSpec;
  readonly split: Split;
}

/** `train:1.3` — unique within a dataset (a task appears at most once per split). */
export const jobKey = (job: DatasetJob): string => `${job.split}:${job.task.task}.${job.task.k}`;

/** What the builder's preview table and chart need of a row; the full row stays in the worker. */
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
  /** Rows cached in a worker belong to one run; a new run id drops the previous run's rows. */
  readonly runId: number;
  readonly spec: DatasetSpec;
  readonly job: DatasetJob;
  readonly text: DatasetText;
  /** Paraphrases from a template file (`--templates`) instead of our bank; ignored when synthetic. */
  readonly templates?: TemplateSource;
}

export interface GenerateResult {
  readonly rows: number;
  /** What config.json records of the renderer, as the CLI writes it. */
  readonly describe: Readonly<Record<string, unknown>>;
  /** How many rows have each f_comb pattern, so the page can chart them without counting rows. */
  readonly patterns: readonly (readonly [string, number])[];
  /** Which renderer wrote the stories, in words. */
  readonly renderer: string;
}

export interface SerialiseBody {
  readonly runId: number;
  readonly jobKey: string;
  /** Index column value of the job's first row (its position in the file it goes into). */
  readonly offset: number;
}

export interface ZipBody {
  /** Paths inside the zip, each with its content as consecutive byte parts. */
  readonly files: readonly { readonly path: string; readonly parts: readonly Uint8Array[] }[];
}

export interface AuditBody {
  /** Dropped files: CSV files or zips of them (File is a Blob, and clones to the worker). */
  readonly files: readonly { readonly name: string; readonly data: Blob }[];
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

export interface AuditedRow {
  /** File the row comes from (`data.zip/1.2_test.csv` for a zip entry). */
  readonly file: string;
  /** 1-based data row within the file. */
  readonly n: number;
  readonly row: ClutrrRow;
  /** Story length (rowK: f_comb words, else task_name's k). */
  readonly k: number;
  readonly verdict: Verdict;
  /** Every answer the rule base derives from the row's typed facts. */
  readonly derived: readonly string[];
  readonly truncated: boolean;
}

export interface AuditedFile {
  readonly name: string;
  readonly rows: number;
  readonly error?: FormatProblem;
}

export interface AuditChunk {
  readonly rows: readonly AuditedRow[];
}

export interface AuditResult {
  /** In the order the files (and zip entries) were read; files with an error stream no rows. */
  readonly files: readonly AuditedFile[];
}

/** Each command's body, streamed chunk type and result. */
export interface DatasetCommands {
  generate: { body: GenerateBody; chunk: readonly PreviewRow[]; result: GenerateResult };
  serialise: { body: SerialiseBody; chunk: never; result: Uint8Array };
  zip: { body: ZipBody; chunk: never; result: Uint8Array };
  audit: { body: AuditBody; chunk: AuditChunk; result: AuditResult };
}

export type DatasetCommand = keyof DatasetCommands;

export type DatasetRequest = {
  [C in DatasetCommand]: { readonly id: number; readonly command: C; readonly body: DatasetCommands[C]['body'] };
}[DatasetCommand];

/** An error the worker reports: `name` is the error class (GenerationError, CsvFormatError, …). */
export interface WorkerProblem {
  readonly name: string;
  readonly message: string;
  readonly where?: { readonly file?: string; readonly row?: number; readonly column?: string };
}

export type DatasetResponse =
  | { readonly id: number; readonly type: 'progress'; readonly done: number; readonly total: number }
  | { readonly id: number; readonly type: 'chunk'; readonly chunk: unknown }
  | { readonly id: number; readonly type: 'result'; readonly result: unknown }
  | { readonly id: number; readonly type: 'error'; readonly error: WorkerProblem };

/** Rows per streamed chunk: small enough that cloning one on the main thread stays well under 50 ms. */
export const PREVIEW_CHUNK_ROWS = 100;
export const AUDIT_CHUNK_ROWS = 250;
/** Least time between two progress messages of one request. */
export const PROGRESS_INTERVAL_MS = 50;
