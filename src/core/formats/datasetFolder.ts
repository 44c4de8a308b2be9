import { recordMaker, rowMaker, rowSeed, type DatasetRow, type DatasetSpec } from '../puzzle/dataset';
import { familyParams } from '../puzzle/puzzle';
import { PuzzleReader, PuzzleWriter } from '../puzzle/puzzleCodec';
import { taskName, type TaskSpec } from '../puzzle/tasks';
import { createRng } from '../random/rng';
import { MissingTemplateError } from '../text/paraphrase';
import type { RenderedStory, Split, StoryRenderer } from '../text/render';
import { writeClutrrCsv } from './clutrrCsv';
import { jsonlRecord } from './jsonl';
import type { ClutrrRow } from './clutrrRow';
import { ByteSink, writeCsvColumns, writeCsvRecord, writeRecordHead, writeRecordMiddle } from './csvBytes';
import { puzzleCsvRecord, puzzleToRow } from './fromPuzzle';

/**
 * A dataset folder as the released datasets lay it out — `<train tasks>_train.csv`, one
 * `<task>_test.csv` per test task, `config.json` — and the plan that fills it: which task's rows
 * go into which file at which row index. The CLI, the dataset workers and the builder all write
 * folders through this plan, one job (the rows of one task of one split) at a time.
 */

/** One unit of work: the rows of one task of one split. */
export interface DatasetJob {
  readonly task: TaskSpec;
  readonly split: Split;
}

/** `train:1.3` — unique within a dataset (a task appears at most once per split). */
export const jobKey = (job: DatasetJob): string => `${job.split}:${job.task.task}.${job.task.k}`;

export interface PlannedJob extends DatasetJob {
  readonly key: string;
  /** Exactly this many rows (taskRowNumbers gives exactly trainRows / testRows). */
  readonly rows: number;
  /** The dataset-folder file the rows go into, and the index of their first row there. */
  readonly file: string;
  readonly fileOffset: number;
  /** The index of their first row in the single all-rows CSV (train rows first, then each test task). */
  readonly allOffset: number;
}

export interface DatasetPlan {
  readonly jobs: readonly PlannedJob[];
  /** Dataset-folder files in order, each with its jobs in order. */
  readonly files: readonly { readonly name: string; readonly jobs: readonly string[] }[];
  readonly totalRows: number;
}

/** File names of a dataset folder, as the released datasets name them. */
export function datasetFileNames(spec: DatasetSpec): { train: string; test: string[] } {
  return {
    train: `${spec.trainTasks.map(taskName).join(',')}_train.csv`,
    test: spec.testTasks.map((t) => `${taskName(t)}_test.csv`),
  };
}

/**
 * The jobs of a dataset in file order — train tasks (one shared file), then each test task —
 * with the row offsets of each job in its file and in the single all-rows CSV.
 */
export function planDataset(spec: DatasetSpec): DatasetPlan {
  const names = datasetFileNames(spec);
  const jobs: PlannedJob[] = [];
  const files: { name: string; jobs: string[] }[] = [];
  let all = 0;
  const add = (task: TaskSpec, split: Split, rows: number, file: { name: string; jobs: string[] }, at: number) => {
    const job = { task, split };
    jobs.push({ ...job, key: jobKey(job), rows, file: file.name, fileOffset: at, allOffset: all });
    file.jobs.push(jobKey(job));
    all += rows;
  };
  if (spec.trainTasks.length > 0) {
    const file = { name: names.train, jobs: [] as string[] };
    files.push(file);
    spec.trainTasks.forEach((task, i) => add(task, 'train', spec.trainRows, file, i * spec.trainRows));
  }
  spec.testTasks.forEach((task, i) => {
    const file = { name: names.test[i]!, jobs: [] as string[] };
    files.push(file);
    add(task, 'test', spec.testRows, file, 0);
  });
  return { jobs, files, totalRows: all };
}

/** Folder (and file) name stem of a dataset download: `clutrr-lab_seed-7`. */
export function datasetStem(spec: DatasetSpec): string {
  return `clutrr-lab_seed-${
    String(spec.seed)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 60) || 'x'
  }`;
}

/** config.json of a dataset folder: the generator arguments, enough to regenerate it. */
export function datasetConfig(spec: DatasetSpec, extra: Record<string, unknown> = {}): string {
  return (
    JSON.stringify(
      {
        generator: 'clutrr-lab',
        seed: spec.seed,
        train_tasks: spec.trainTasks.map(taskName).join(','),
        test_tasks: spec.testTasks.map(taskName).join(','),
        train_rows: spec.trainRows,
        test_rows: spec.testRows,
        holdout: spec.holdout,
        equal: spec.equal,
        max_levels: spec.family.maxLevels,
        min_child: spec.family.minChild,
        max_child: spec.family.maxChild,
        p_marry: spec.family.pMarry,
        patterns: spec.patterns ?? null,
        // Recorded only when on, so the config.json of a default dataset keeps its bytes.
        ...(spec.strict ? { strict: true } : {}),
        ...(spec.labels === 'clutrr' ? { labels: 'clutrr' } : {}),
        ...(spec.keepAmbiguous ? { keep_ambiguous: true } : {}),
        ...extra,
      },
      null,
      2,
    ) + '\n'
  );
}

/**
 * What a dataset's files hold: CLUTRR CSV (the default, as released) or JSON Lines for evaluation
 * harnesses (jsonl.ts: one object a row, no header).
 */
export const DATASET_FORMATS = ['csv', 'jsonl'] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

/** A dataset-folder file name (datasetFileNames: `.csv`) in a format: `1.3_test.jsonl`. */
export const fileInFormat = (name: string, format: DatasetFormat): string =>
  format === 'csv' ? name : name.replace(/\.csv$/, `.${format}`);

/** The header line of every CLUTRR CSV file we write. */
export const CLUTRR_CSV_HEADER = writeClutrrCsv([]);

/** A job's rows made and told, a batch at a time. */
export interface RowBatch {
  /** The batch's CSV records (no header), index values from the batch's first file position. */
  readonly csv: string;
  readonly rows: readonly { readonly row: DatasetRow; readonly clutrr: ClutrrRow }[];
}

/**
 * Rows `from..to` of one job: positions in `numbers`, the job's candidate numbers from
 * taskRowNumbers, told with index values from `indexStart + from`.
 */
export interface RowRange {
  readonly spec: DatasetSpec;
  readonly job: DatasetJob;
  readonly numbers: ArrayLike<number>;
  readonly from: number;
  readonly to: number;
  readonly indexStart: number;
}

/**
 * Makes and tells a range of rows: each row generated from its seed, its story written by
 * `render` with a text Rng seeded by the row, and serialised as CSV records. The whole pipeline
 * streams through this: nothing but the batch is held, so memory does not grow with the dataset.
 * (The CLI, which needs only the text, uses tellRowBytes.)
 */
export function tellRows(range: RowRange, render: StoryRenderer): RowBatch {
  const rows: { row: DatasetRow; clutrr: ClutrrRow }[] = [];
  // Appending builds a rope that is flattened once, when the text is written out.
  let csv = '';
  eachToldRow(range, rowMaker(range.spec, range.job.task, range.job.split), render, (row, text, meta, j) => {
    rows.push({ row, clutrr: puzzleToRow(row.puzzle, text, meta) });
    csv += puzzleCsvRecord(row.puzzle, text, meta, j + 1) + '\n';
  });
  return { csv, rows };
}

/** Row `j` of a batch, told: its story and its CSV metadata (index counted from `indexStart`). */
type ToldRow = (
  row: DatasetRow,
  text: RenderedStory,
  meta: { readonly index: number; readonly id: string; readonly split: string },
  j: number,
) => void;

/** The loop of tellRows and tellRowBytes: each row of the range made by `make` from its number and told with a text Rng seeded by the row. */
function eachToldRow(range: RowRange, make: (i: number) => DatasetRow, render: StoryRenderer, visit: ToldRow): void {
  const { numbers, indexStart } = range;
  for (let j = range.from; j < range.to; j++) {
    const row = make(numbers[j]!);
    let text: RenderedStory;
    try {
      text = render(row.puzzle, row.split, createRng(row.puzzle.seed, 'text'));
    } catch (e) {
      // Which row could not be told, for an error that names a fact (--templates-only).
      if (e instanceof MissingTemplateError) {
        throw new MissingTemplateError(
          `row ${indexStart + j} (id ${row.id}, task ${taskName(range.job.task)}): ${e.message}`,
        );
      }
      throw e;
    }
    visit(row, text, { index: indexStart + j, id: row.id, split: row.split }, j);
  }
}

/**
 * The half of making a range of rows that needs no story, done where the puzzles are made (another
 * thread than the one telling them): the puzzles, as PuzzleWriter's integers, and the CSV columns
 * that follow from them (puzzleCsvColumns' `query` then `rest` of each row, as UTF-8 bytes back to
 * back; `ends` holds where each of them ends, two per row).
 */
export interface MadePuzzles {
  /** Written without their proofs (PuzzleWriter's withoutProofs): read back, a record's proof is empty. */
  readonly puzzles: Int32Array;
  readonly columns: Uint8Array;
  readonly ends: Int32Array;
}

/**
 * The puzzles of a range of rows and their story-free CSV columns; tellRowBytes tells them. With
 * `into` (an earlier batch's, given back), its buffers are written again while they have room.
 */
export function makePuzzles(range: RowRange, into?: MadePuzzles): MadePuzzles {
  const { from, to } = range;
  const make = recordMaker(range.spec, range.job.task, range.job.split);
  // The teller needs no proof: the proof_state column goes as bytes with the others.
  const writer = new PuzzleWriter(into && new Int32Array(into.puzzles.buffer), { withoutProofs: true });
  const ends =
    into && into.ends.buffer.byteLength >= 8 * (to - from)
      ? new Int32Array(into.ends.buffer)
      : new Int32Array(2 * (to - from));
  const columns = new ByteSink(into && new Uint8Array(into.columns.buffer), (to - from) * 512);
  for (let j = from; j < to; j++) {
    const record = make(range.numbers[j]!);
    writer.write(record);
    const at = 2 * (j - from);
    queryEnds = ends;
    queryEndAt = at;
    writeCsvColumns(columns, record, range.job.split, j + 1, noteQueryEnd);
    ends[at + 1] = columns.length;
  }
  queryEnds = NO_ENDS;
  return { puzzles: writer.finish(), columns: columns.finish(), ends: ends.subarray(0, 2 * (to - from)) };
}

/**
 * Where makePuzzles notes the end of a record's query column. One function for every batch, not a
 * closure made per batch: the compiler inlines the callback it has seen, and a new closure each
 * batch threw the optimised writer away (a deoptimisation and a recompile per run).
 */
const NO_ENDS: Int32Array = new Int32Array(0);
let queryEnds: Int32Array = NO_ENDS;
let queryEndAt = 0;
const noteQueryEnd = (sink: ByteSink): void => {
  queryEnds[queryEndAt] = sink.length;
};

/**
 * tellRows without the rows, as UTF-8 bytes: the same records, each encoded as soon as it is
 * written. The CLI's row makers use it: a batch's text then lives outside the collected heap
 * (a batch of rows held as strings until its end is what the collector spends most on), and
 * the bytes go to the file, or across threads, without another copy. With `into`, the bytes are
 * written there (a buffer of an earlier batch, reused) as long as they fit, else in a new buffer;
 * the result is a view of whichever holds them. With `made` (makePuzzles of the same range, run
 * elsewhere), the puzzles are read from there instead of generated, and their columns copied.
 */
export function tellRowBytes(
  range: RowRange,
  render: StoryRenderer,
  options: { readonly into?: Uint8Array; readonly made?: MadePuzzles; readonly format?: DatasetFormat } = {},
): Uint8Array {
  const { spec, job } = range;
  const { into, made } = options;
  const jsonl = options.format === 'jsonl';
  let make: (i: number) => DatasetRow;
  if (made) {
    const reader = new PuzzleReader(made.puzzles, familyParams(spec.family));
    make = rowMaker(spec, job.task, job.split, (i) => reader.read(rowSeed(spec, job.task, job.split, i)));
  } else make = rowMaker(spec, job.task, job.split);
  const out = new ByteSink(into, (range.to - range.from) * 1536);
  eachToldRow(range, make, render, (row, text, meta, j) => {
    if (jsonl) out.text(jsonlRecord(row.puzzle, text, meta.id));
    else if (made) {
      // The puzzle's columns come as bytes; only the story's are written here.
      // The head and middle as writeCsvRecord writes them (the clean story, when it is the story,
      // copied from the story's bytes rather than encoded again).
      const r = 2 * (j - range.from);
      writeRecordHead(out, meta.index, meta.id, text.story);
      out.copyRange(made.columns, r === 0 ? 0 : made.ends[r - 1]!, made.ends[r]!);
      writeRecordMiddle(out, text);
      out.copyRange(made.columns, made.ends[r]!, made.ends[r + 1]!);
    } else writeCsvRecord(out, row.puzzle, text, meta, j + 1);
    out.byte(10);
  });
  return out.finish();
}
